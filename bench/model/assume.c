/* assume.c — the parameters a topology does not give (socket link, NCCL's view of it, switch arbitration, the
 * GPUs' architecture, Gen4 efficiency): each one the model uses is listed with its value and its source. */
#include "model/model.h"
#include "ar.h"
#include <stdio.h>
#include <string.h>

static int add(struct ar_massume *a, int n, const char *name, const char *value, const char *why) {
  if (n >= AR_MAX_ASSUME) return n;
  snprintf(a[n].name, sizeof a[n].name, "%s", name);
  snprintf(a[n].value, sizeof a[n].value, "%s", value);
  snprintf(a[n].why, sizeof a[n].why, "%s", why);
  return n + 1;
}

static int path_seen(const struct ar_mgraph *g, enum ar_path lo, enum ar_path hi) {
  int n = ar_mgraph_n(g);
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++)
      if (a != b && ar_mgraph_class(g, a, b) >= lo && ar_mgraph_class(g, a, b) <= hi) return 1;
  return 0;
}

static int socket_items(const struct ar_topo *t, const struct ar_mparams *p, struct ar_massume *a, int n) {
  const char *v = ar_topo_cpu_vendor(t), *how = "";
  char val[48], why[480];
  snprintf(val, sizeof val, "%g GB/s", ar_model_socket_gbs(p, t));
  if (p->socket_gbs > 0)
    snprintf(why, sizeof why, "P2P through the socket link: set by --calib");
  else if (!strcmp(v, "AuthenticAMD"))
    snprintf(why, sizeof why, "P2P through the socket link: the topology names the CPU (AuthenticAMD) but not "
             "its link; measured on dual AMD Turin (params.c [R6K]; Genoa measured 39): --calib "
             "'{\"params\":{\"socket_gbs\":N}}' for another");
  else if (!strcmp(v, "GenuineIntel"))
    snprintf(why, sizeof why, "P2P through the socket link: the topology names the CPU (GenuineIntel) but not "
             "its link; NCCL's SKL_QPI_BW (params.c [NCCL]), no published P2P measurement through UPI: "
             "--calib '{\"params\":{\"socket_gbs\":N}}'");
  else
    snprintf(why, sizeof why, "P2P through the socket link: the topology names no CPU vendor; NCCL's Intel value, "
             "the pessimistic one (params.c; estimate): AMD Turin measured 50, Genoa 39 [R6K]: --calib "
             "'{\"params\":{\"socket_gbs\":N}}'");
  n = add(a, n, "socket_gbs", val, why);
  double ns = ar_nccl_socket_gbs(t, p, &how);
  snprintf(val, sizeof val, "%g GB/s", ns);
  snprintf(why, sizeof why, "the socket link as NCCL's graph search sees it: %s%s (NCCL topo.h)%s", how,
           !strcmp(how, "--calib") ? "" : " of the CPU the topology names",
           !*v && p->nccl_socket_gbs <= 0 ? "; --calib '{\"params\":{\"nccl_socket_gbs\":N}}' (AMD: 16)" : "");
  return add(a, n, "nccl_socket_gbs", val, why);
}

int ar_model_assumptions(const struct ar_topo *t, const struct ar_mgraph *g, const struct ar_mparams *p,
                         struct ar_massume *a) {
  int n = 0;
  char val[48], why[480];
  if (ar_mgraph_islands(g, NULL) > 1 && path_seen(g, AR_PATH_SYS, AR_PATH_SYS)) n = socket_items(t, p, a, n);
  if (path_seen(g, AR_PATH_PIX, AR_PATH_PXB)) {
    const char *k;
    snprintf(val, sizeof val, "fair, %.2f x link", ar_model_link_eff(p, ar_topo_gpu_link_min_gbs(t), &k));
    snprintf(why, sizeof why, "the topology gives the switches' ports and speeds, not their arbitration: max-min "
             "fair sharing at %s of the link (params.c names its source); --calib '{\"params\":{\"%s\":F}}'", k, k);
    n = add(a, n, "switch", val, why);
  }
  const char *how = NULL;
  int cc = ar_nccl_cc(t, p, &how);
  if (!how) {
    snprintf(val, sizeof val, "%d.%d", cc / 10, cc % 10);
    snprintf(why, sizeof why, "the GPUs' architecture for NCCL's constants: PCI id 10de:%04x is not in "
             "nccltune.c's list; Blackwell assumed: --calib '{\"params\":{\"gpu_cc\":N}}' (x10, e.g. 90)",
             ar_topo_ngpus(t) ? ar_topo_gpu(t, 0)->device : 0);
    n = add(a, n, "gpu_cc", val, why);
  } else if (!strcmp(how, "--calib")) {
    snprintf(val, sizeof val, "%d.%d", cc / 10, cc % 10);
    n = add(a, n, "gpu_cc", val, "the GPUs' architecture for NCCL's constants: set by --calib");
  }
  struct ar_nccl_graph ng;
  ar_nccl_graph(g, t, p, &ng);
  if (p->nccl_no_p2p > 0) {
    snprintf(why, sizeof why, "NVML's P2P status between the GPUs: not supported, set by --calib (paths.cc "
             "ncclTopoCheckP2p), so all %d ring hops run through host memory (SHM): %.3g GB/s a hop on the links "
             "(stores up, loads down at read_eff), at most %g (LL) / %g (Simple) busbw (params.c [R6K]: a Gen5 box)",
             ng.ring_hops, ng.shm_link_gbs, p->nccl_shm_ll_gbs, p->nccl_shm_simple_gbs);
    n = add(a, n, "nccl_no_p2p", "1 (--calib)", why);
  } else if (ng.shm_hops && !p->nccl_p2p_env) { /* NCCL's transport: the environment's NCCL_P2P_LEVEL is not in a topology */
    snprintf(val, sizeof val, "%s%s", ar_path_name(ng.p2p_level), p->nccl_p2p_level > 0 ? " (--calib)" : "");
    snprintf(why, sizeof why, "NCCL_P2P_LEVEL: %s, so %d of %d ring hops run through host memory (SHM), the ring "
             "then at most %g (LL) / %g (Simple) GB/s busbw (params.c [R6K]: fitted on a Gen5 RTX PRO 6000 box) and "
             "%.3g GB/s a hop on the links%s",
             ng.p2p_how, ng.shm_hops, ng.ring_hops, p->nccl_shm_ll_gbs, p->nccl_shm_simple_gbs, ng.shm_link_gbs,
             p->nccl_p2p_level > 0 ? "" : "; --calib '{\"params\":{\"nccl_p2p_level\":4}}' for NCCL_P2P_LEVEL=SYS");
    n = add(a, n, "nccl_p2p_level", val, why);
  }
  if (p->nccl_no_p2p < 0) { /* NVML's status is read at init, not in a topology */
    snprintf(why, sizeof why, "NVML's P2P status between the GPUs is not in a topology: supported assumed (NCCL's "
             "P2P on %d of %d ring hops, and the custom algorithms' loads and stores); where nvidia-smi topo -p2p r "
             "or w shows NS (GeForce boards on some platforms) NCCL runs no P2P at all and the custom algorithms "
             "cannot run: --calib '{\"params\":{\"nccl_no_p2p\":1}}' (0: stated supported)",
             ng.ring_hops - ng.shm_hops, ng.ring_hops);
    n = add(a, n, "nccl_no_p2p", "0 (P2P supported)", why);
  }
  const char *gen;
  ar_model_link_eff(p, ar_topo_gpu_link_min_gbs(t), &gen);
  if (!strcmp(gen, "eff_gen4")) {
    snprintf(val, sizeof val, "%.2f", p->eff_gen4);
    n = add(a, n, "eff_gen4", val, "P2P write efficiency of a Gen4 link: no published Gen4 P2P table (params.c, "
            "estimate): --calib '{\"params\":{\"eff_gen4\":F}}'");
  }
  return n;
}

int ar_model_assume_method(const struct ar_mparams *p, struct ar_massume *a, int n) {
  char val[48];
  snprintf(val, sizeof val, "%g us", p->iter_launch_us);
  return add(a, n, "iter_launch_us", val, "a result timed call by call (timing iter) pays each call's launch and the "
             "wait for it (a graph's replay: one for its K calls), which the model's sources (nccl-tests' "
             "back-to-back launches) hide: "
             "estimate (params.c): --calib '{\"params\":{\"iter_launch_us\":N}}'");
}

json_t *ar_model_assumptions_json(const struct ar_massume *a, int n) {
  json_t *arr = json_array();
  for (int i = 0; i < n; i++)
    json_array_append_new(arr, json_pack("{s:s,s:s,s:s}", "name", a[i].name, "value", a[i].value, "why", a[i].why));
  return arr;
}
