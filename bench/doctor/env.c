/* env.c — doctor's NCCL environment checks: variables that disable P2P, narrow it to nearby pairs, force
 * protocols unsafe or slow on PCIe, or starve NCCL of channels; each with the value found and what to do. */
#include "doctor/doctor.h"
#include <stdlib.h>
#include <string.h>

#define G "NCCL env"

static const char *getv(char **envp, const char *name) {
  size_t n = strlen(name);
  for (char **e = envp; e && *e; e++)
    if (!strncmp(*e, name, n) && (*e)[n] == '=') return *e + n + 1;
  return NULL;
}

static int truthy(const char *v) { return v && (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes")); }

static void p2p_level(struct ar_doc *d, const char *v) {
  static const char *const narrow[] = {"LOC", "NVL", "PIX", "PXB", "PHB", "0", "1", "2", "3"};
  for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++)
    if (!strcasecmp(v, narrow[i])) {
      ar_doc_add(d, G, "NCCL_P2P_LEVEL", AR_D_WARN,
                 "pairs farther apart than that use SHM through host memory (published: 22 -> 41 GB/s busbw with "
                 "P2P_LEVEL=SYS on a two-socket box); unset it or set NCCL_P2P_LEVEL=SYS",
                 "NCCL_P2P_LEVEL=%s limits P2P to nearby GPU pairs", v);
      return;
    }
  ar_doc_add(d, G, "NCCL_P2P_LEVEL", AR_D_OK, "", "NCCL_P2P_LEVEL=%s", v);
}

static void protocols(struct ar_doc *d, const char *v) {
  if (strstr(v, "LL128") && !strstr(v, "^"))
    ar_doc_add(d, G, "NCCL_PROTO", AR_D_WARN,
               "LL128 relies on NVLink's 128-byte store atomicity; on PCIe it can corrupt data: unset NCCL_PROTO "
               "(arbench keeps its checks on for it)", "NCCL_PROTO=%s allows LL128 on PCIe", v);
  else
    ar_doc_add(d, G, "NCCL_PROTO", AR_D_INFO, "unset it unless you measured it helps",
               "NCCL_PROTO=%s forces NCCL's protocol choice at every size", v);
}

void ar_doctor_env(struct ar_doc *d, char **envp) {
  const char *v;
  int any = 0;
  if ((v = getv(envp, "NCCL_P2P_DISABLE")) && (any = 1) && truthy(v))
    ar_doc_add(d, G, "NCCL_P2P_DISABLE", AR_D_WARN, "unset NCCL_P2P_DISABLE unless P2P hangs or corrupts here",
               "NCCL_P2P_DISABLE=%s: NCCL moves every byte through host memory", v);
  if ((v = getv(envp, "NCCL_P2P_LEVEL")) && (any = 1)) p2p_level(d, v);
  if ((v = getv(envp, "NCCL_PROTO")) && (any = 1)) protocols(d, v);
  if ((v = getv(envp, "NCCL_ALGO")) && (any = 1))
    ar_doc_add(d, G, "NCCL_ALGO", AR_D_INFO, "unset it unless you measured it helps (arbench sweep can)",
               "NCCL_ALGO=%s forces NCCL's algorithm at every size", v);
  if ((v = getv(envp, "NCCL_IGNORE_DISABLED_P2P")) && (any = 1) && truthy(v))
    ar_doc_add(d, G, "NCCL_IGNORE_DISABLED_P2P", AR_D_WARN, "unset it: it hides a P2P problem doctor should see",
               "NCCL_IGNORE_DISABLED_P2P=%s", v);
  if ((v = getv(envp, "NCCL_MAX_NCHANNELS")) && (any = 1) && atoi(v) > 0 && atoi(v) < 4)
    ar_doc_add(d, G, "NCCL_MAX_NCHANNELS", AR_D_WARN,
               "allow more channels (published: busbw 22.2 -> 37.6 GB/s with NCCL_MIN_NCHANNELS=8 on 8 GPUs)",
               "NCCL_MAX_NCHANNELS=%s caps NCCL's bandwidth", v);
  if ((v = getv(envp, "NCCL_SHM_DISABLE")) && (any = 1) && truthy(v))
    ar_doc_add(d, G, "NCCL_SHM_DISABLE", AR_D_INFO, "",
               "NCCL_SHM_DISABLE=%s: pairs without P2P fall back to the network transport", v);
  if ((v = getv(envp, "CUDA_DEVICE_ORDER")) && (any = 1) && strcmp(v, "PCI_BUS_ID"))
    ar_doc_add(d, G, "CUDA_DEVICE_ORDER", AR_D_INFO, "export CUDA_DEVICE_ORDER=PCI_BUS_ID to match nvidia-smi and topo",
               "CUDA_DEVICE_ORDER=%s: CUDA numbers GPUs differently from nvidia-smi and arbench topo", v);
  if (!any) ar_doc_add(d, G, "environment", AR_D_OK, "", "no NCCL variable that disables P2P or forces a protocol");
}
