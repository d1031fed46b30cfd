/* stack.c — doctor's CUDA stack check: the driver's highest CUDA version against this binary's runtime and
 * every toolkit under /usr/local/cuda* (version.json, the cuda link, nvcc), the GPUs' compute capability
 * against the archs compiled in and what each toolkit can build, and a one-line verdict. */
#include "doctor/doctor.h"
#include "ar_config.h"
#include "backends/p2p/rtc_pick.h"
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(AR_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

#define G "CUDA stack"

/* Minimum Linux x86_64 driver of each CUDA release (GA), from the CUDA Toolkit release notes' table "CUDA
 * Toolkit and Corresponding Driver Versions" (docs.nvidia.com/cuda/cuda-toolkit-release-notes), transcribed
 * by hand; a driver supports the highest CUDA whose minimum it meets. */
static const struct { int cuda; int drv[3]; } drivers[] = {
  {1310, {590, 44, 1}}, {1300, {580, 65, 6}}, {1290, {575, 51, 3}}, {1280, {570, 26, 0}},
  {1260, {560, 28, 3}}, {1250, {555, 42, 2}}, {1240, {550, 54, 14}}, {1230, {545, 23, 6}},
  {1220, {535, 54, 3}}, {1210, {530, 30, 2}}, {1200, {525, 60, 13}}, {1180, {520, 61, 5}}};

/* Compute capability x10 by PCI device id, for fixture roots and builds without CUDA (a live CUDA device
 * is asked instead). Ids from the PCI ID repository (pci-ids.ucw.cz, vendor 10de). */
static const struct { unsigned dev; int cc; const char *name; } gpus[] = {
  {0x2bb1, 120, "RTX PRO 6000 Blackwell Workstation"}, {0x2bb4, 120, "RTX PRO 6000 Blackwell Max-Q"},
  {0x2bb5, 120, "RTX PRO 6000 Blackwell Server"}, {0x2b85, 120, "GeForce RTX 5090"},
  {0x2684, 89, "GeForce RTX 4090"}, {0x26b9, 89, "L40S"}, {0x26b5, 89, "L40"}, {0x2331, 90, "H100 PCIe"},
  {0x2321, 90, "H100 NVL"}, {0x20b5, 80, "A100 80GB PCIe"}, {0x20f1, 80, "A100 40GB PCIe"}, {0x2236, 86, "A10"},
  {0x2235, 86, "A40"}, {0x1eb8, 75, "T4"}, {0x1db4, 70, "V100 PCIe"}, {0x2204, 86, "GeForce RTX 3090"}};

int ar_doc_cc_of_device(unsigned device) {
  for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
    if (gpus[i].dev == device) return gpus[i].cc;
  return 0;
}

const char *ar_doc_name_of_device(unsigned device) {
  for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
    if (gpus[i].dev == device) return gpus[i].name;
  return NULL;
}

/* Lowest CUDA (x100 + minor x10) whose nvcc builds sm_cc; and the last that still does (CUDA 13 dropped
 * Maxwell, Pascal and Volta). From each release's notes. */
static int cuda_min_for(int cc) { return cc >= 100 ? 1280 : cc >= 89 ? 1180 : cc >= 86 ? 1110 : cc >= 80 ? 1100 : 1000; }
static int cuda_max_for(int cc) { return cc < 75 ? 1290 : 99990; }

static void fmt_cuda(int v, char *buf, size_t len) { snprintf(buf, len, "%d.%d", v / 100, v % 100 / 10); }

/* "13.0.1" -> 1300 (major x100 + minor x10). */
static int parse_cuda(const char *s) {
  int a = 0, b = 0;
  return sscanf(s, "%d.%d", &a, &b) >= 1 ? a * 100 + b * 10 : 0;
}

static int driver_cuda(const int drv[3]) {
  for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
    const int *m = drivers[i].drv;
    if (drv[0] > m[0] || (drv[0] == m[0] && (drv[1] > m[1] || (drv[1] == m[1] && drv[2] >= m[2]))))
      return drivers[i].cuda;
  }
  return 0;
}

/* The driver: its version (proc/driver/nvidia/version) and highest CUDA (the live driver's own answer when
 * there is one). */
static int check_driver(struct ar_doc *d, int ngpus, char *drvs, size_t len) {
  char line[512];
  int drv[3] = {0, 0, 0}, cuda = 0;
  *drvs = 0;
  if (!ar_doc_read(d, "/proc/driver/nvidia/version", line, sizeof line)) {
    const char *k = strstr(line, "Kernel Module");
    while (k && *k && !(k[-1] == ' ' && k[0] >= '1' && k[0] <= '9')) k++; /* the first number after it */
    if (k && sscanf(k, "%d.%d.%d", &drv[0], &drv[1], &drv[2]) >= 2) {
      snprintf(drvs, len, "%d.%02d%s", drv[0], drv[1], "");
      if (drv[2]) snprintf(drvs, len, "%d.%02d.%02d", drv[0], drv[1], drv[2]);
      cuda = driver_cuda(drv);
    }
  }
#if defined(AR_HAVE_CUDA)
  int v = 0;
  if (d->live && cudaDriverGetVersion(&v) == cudaSuccess && v > 0) cuda = v / 1000 * 100 + v % 1000 / 10 * 10;
#endif
  char c[16];
  fmt_cuda(cuda, c, sizeof c);
  if (!cuda && !ngpus)
    ar_doc_add(d, G, "driver", AR_D_SKIP, "", "no NVIDIA driver and no NVIDIA GPU: driver checks skipped");
  else if (!cuda)
    ar_doc_add(d, G, "driver", AR_D_WARN, "install the NVIDIA driver (570 or newer for CUDA 12.8 and SM120)",
               "no NVIDIA driver found (proc/driver/nvidia/version unreadable)");
  else
    ar_doc_add(d, G, "driver", AR_D_OK, "", "driver %s supports CUDA up to %s", *drvs ? drvs : "?", c);
  return cuda;
}

struct toolkit {
  char dir[64], version[32];
  int cuda, nvcc;
};

static void read_version_json(const struct ar_doc *d, struct toolkit *k) {
  char p[PATH_MAX];
  ar_doc_path(d, p, sizeof p, "/usr/local/%s/version.json", k->dir);
  json_t *j = json_load_file(p, 0, NULL);
  const char *v = json_string_value(json_object_get(json_object_get(j, "cuda"), "version"));
  if (v) snprintf(k->version, sizeof k->version, "%s", v);
  else if (!strncmp(k->dir, "cuda-", 5)) snprintf(k->version, sizeof k->version, "%s", k->dir + 5);
  json_decref(j);
  k->cuda = parse_cuda(k->version);
}

static int by_dir(const void *a, const void *b) {
  return strcmp(((const struct toolkit *)a)->dir, ((const struct toolkit *)b)->dir);
}

static int find_toolkits(const struct ar_doc *d, struct toolkit *k, int max, char *link, size_t len) {
  char p[PATH_MAX], t[PATH_MAX];
  struct stat st;
  int n = 0;
  ar_doc_path(d, p, sizeof p, "/usr/local/cuda");
  ssize_t r = readlink(p, t, sizeof t - 1);
  *link = 0;
  if (r > 0) {
    t[r] = 0;
    snprintf(link, len, "%.63s", strrchr(t, '/') ? strrchr(t, '/') + 1 : t);
  }
  ar_doc_path(d, p, sizeof p, "/usr/local");
  DIR *dir = opendir(p);
  for (struct dirent *e; dir && (e = readdir(dir)) && n < max;) {
    if (strncmp(e->d_name, "cuda", 4) || (e->d_name[4] && e->d_name[4] != '-')) continue;
    if (!strcmp(e->d_name, "cuda") && *link) continue; /* the link: reported through its target */
    snprintf(k[n].dir, sizeof k[n].dir, "%.63s", e->d_name);
    k[n].version[0] = 0;
    read_version_json(d, &k[n]);
    ar_doc_path(d, p, sizeof p, "/usr/local/%s/bin/nvcc", e->d_name);
    k[n].nvcc = !stat(p, &st);
    n++;
  }
  if (dir) closedir(dir);
  qsort(k, (size_t)n, sizeof *k, by_dir);
  return n;
}

static void check_toolkits(struct ar_doc *d, struct toolkit *k, int n, const char *link, int drv, const int *cc,
                           int ncc) {
  char dc[16];
  fmt_cuda(drv, dc, sizeof dc);
  if (!n) ar_doc_add(d, G, "toolkits", AR_D_INFO, "", "no CUDA toolkit under /usr/local/cuda*");
  for (int i = 0; i < n; i++) {
    char cannot[256] = "";
    for (int c = 0; c < ncc; c++)
      if (cc[c] && (c == 0 || cc[c] != cc[c - 1]) && (k[i].cuda < cuda_min_for(cc[c]) || k[i].cuda > cuda_max_for(cc[c])))
        snprintf(cannot + strlen(cannot), sizeof cannot - strlen(cannot), " sm_%d", cc[c]);
    enum ar_dlevel lv = k[i].cuda > drv && drv ? AR_D_WARN : *cannot ? AR_D_WARN : AR_D_OK;
    const char *todo = k[i].cuda > drv && drv ? "its programs need a newer driver: update the driver, or build with a "
                                                "toolkit the driver supports"
                       : *cannot ? "build for these GPUs with a toolkit that supports them (SM120 needs CUDA >= 12.8)"
                                 : "";
    ar_doc_add(d, G, "toolkits", lv, todo, "%s: CUDA %s%s%s, nvcc %s%s%s%s", k[i].dir,
               *k[i].version ? k[i].version : "?", !strcmp(k[i].dir, link) ? " (the cuda link points here)" : "",
               k[i].cuda > drv && drv ? ", newer than the driver's" : "", k[i].nvcc ? "present" : "missing",
               *cannot ? "; cannot build" : "", cannot, "");
  }
  (void)dc;
}

/* GPUs' compute capabilities: asked from CUDA when live, else by PCI device id. */
static int gpu_ccs(struct ar_doc *d, const struct ar_doc_gpu *g, int n, int *cc) {
  int m = 0;
#if defined(AR_HAVE_CUDA)
  int count = 0;
  if (d->live && cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    for (int i = 0; i < count && m < 64; i++) {
      struct cudaDeviceProp pr;
      if (cudaGetDeviceProperties(&pr, i) == cudaSuccess) cc[m++] = pr.major * 10 + pr.minor;
    }
    return m;
  }
#endif
  for (int i = 0; i < n && m < 64; i++) {
    cc[m] = ar_doc_cc_of_device(g[i].device);
    if (!cc[m])
      ar_doc_add(d, G, "GPUs", AR_D_SKIP, "", "GPU %s (10de:%04x): compute capability unknown without a CUDA device",
                 g[i].bdf, g[i].device);
    m++;
  }
  return m;
}

#if !AR_HAVE_RTC /* nvcc builds: the archs of -Dcuda-archs are linked in */
static int in_list(const char *archs, int cc) {
  char buf[128], *save = NULL;
  snprintf(buf, sizeof buf, "%s", archs);
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
    if (atoi(t) == cc) return 1;
  return 0;
}

static int max_arch(const char *archs) {
  char buf[128], *save = NULL;
  int m = 0;
  snprintf(buf, sizeof buf, "%s", archs);
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) m = atoi(t) > m ? atoi(t) : m;
  return m;
}
#endif

static void check_archs(struct ar_doc *d, const int *cc, int n, int drv) {
  int done[64], nd = 0;
  for (int i = 0; i < n; i++) {
    int dup = 0;
    for (int k = 0; k < nd; k++) dup |= done[k] == cc[i];
    if (dup || !cc[i]) continue;
    done[nd++] = cc[i];
    char need[16], have[16];
    fmt_cuda(cuda_min_for(cc[i]), need, sizeof need);
    fmt_cuda(drv, have, sizeof have);
    if (drv && drv < cuda_min_for(cc[i]))
      ar_doc_add(d, G, "archs", AR_D_FAIL, "update the driver (570 or newer for SM120)",
                 "sm_%d GPUs need CUDA >= %s; the driver supports only %s", cc[i], need, have);
#if AR_HAVE_RTC /* custom kernels: NVRTC-built cubins loaded at run time; fill/check staged through the host */
    char why[256];
    int img = ar_rtc_pick(ar_rtc_images, ar_rtc_nimages, cc[i], why, sizeof why);
    if (img < 0)
      ar_doc_add(d, G, "archs", AR_D_INFO, "rebuild with -Dcuda-archs including it",
                 "sm_%d: p2p-* and fused unavailable: %s", cc[i], why);
    else if (ar_rtc_images[img].ptx)
      ar_doc_add(d, G, "archs", AR_D_INFO, "rebuild with -Dcuda-archs including it for no JIT at start",
                 "sm_%d: custom kernels by JIT from the embedded compute_%d PTX (NVRTC-built)", cc[i],
                 ar_rtc_images[img].arch);
    else
      ar_doc_add(d, G, "archs", AR_D_OK, "", "sm_%d: custom kernels NVRTC-built into this binary (sm_%d cubin), loaded "
                 "at run time", cc[i], ar_rtc_images[img].arch);
#else
    if (!AR_HAVE_NVCC)
      ar_doc_add(d, G, "archs", AR_D_INFO, "", "sm_%d: this build has no custom GPU kernels (built without nvcc)",
                 cc[i]);
    else if (in_list(AR_CUDA_ARCHS, cc[i]))
      ar_doc_add(d, G, "archs", AR_D_OK, "", "sm_%d: compiled into this binary (archs %s)", cc[i], AR_CUDA_ARCHS);
    else if (cc[i] > max_arch(AR_CUDA_ARCHS))
      ar_doc_add(d, G, "archs", AR_D_INFO, "rebuild with -Dcuda-archs including it for no JIT at start",
                 "sm_%d: not compiled in (archs %s); runs by JIT from the newest PTX", cc[i], AR_CUDA_ARCHS);
    else
      ar_doc_add(d, G, "archs", AR_D_WARN, "rebuild with -Dcuda-archs=...,<cc>",
                 "sm_%d: not compiled in (archs %s) and older than the PTX: the custom kernels cannot run", cc[i],
                 AR_CUDA_ARCHS);
#endif
  }
}

static void runtime_line(struct ar_doc *d, int drv) {
#if defined(AR_HAVE_CUDA)
  int rt = CUDART_VERSION / 1000 * 100 + CUDART_VERSION % 1000 / 10 * 10;
  char r[16], dv[16];
  fmt_cuda(rt, r, sizeof r);
  fmt_cuda(drv, dv, sizeof dv);
  if (drv && rt > drv)
    ar_doc_add(d, G, "runtime", AR_D_FAIL, "update the driver, or rebuild arbench against a toolkit the driver supports",
               "this binary was built for CUDA %s; the driver supports only %s", r, dv);
  else
    ar_doc_add(d, G, "runtime", AR_D_OK, "", "this binary was built for CUDA %s%s", r, drv ? "; the driver runs it" : "");
#else
  (void)drv;
  ar_doc_add(d, G, "runtime", AR_D_INFO, "", "this binary was built without CUDA (host backends only)");
#endif
}

static void verdict(struct ar_doc *d, int drv, const struct toolkit *k, int n, const char *link) {
  char dv[16];
  const struct toolkit *def = NULL;
  fmt_cuda(drv, dv, sizeof dv);
  for (int i = 0; i < n; i++)
    if (!strcmp(k[i].dir, link) || (!def && n == 1)) def = &k[i];
  if (!drv || !def) return;
  if (drv / 100 > def->cuda / 100)
    ar_doc_add(d, G, "verdict", AR_D_INFO, "", "driver supports CUDA %s, toolkit %s: a CUDA %d stack runs here "
               "without a driver change", dv, def->version, drv / 100);
  else if (def->cuda > drv)
    ar_doc_add(d, G, "verdict", AR_D_FAIL, "update the driver first",
               "driver supports CUDA %s, toolkit %s: programs built with this toolkit will not start", dv, def->version);
  else
    ar_doc_add(d, G, "verdict", AR_D_OK, "", "driver supports CUDA %s, toolkit %s: they match", dv, def->version);
}

void ar_doctor_stack(struct ar_doc *d, const struct ar_doc_gpu *g, int n) {
  char drvs[32], link[64];
  struct toolkit k[16];
  int cc[64];
  int drv = check_driver(d, n, drvs, sizeof drvs);
  runtime_line(d, drv);
  int ncc = gpu_ccs(d, g, n, cc);
  int nk = find_toolkits(d, k, 16, link, sizeof link);
  check_toolkits(d, k, nk, link, drv, cc, ncc);
  check_archs(d, cc, ncc, drv);
  verdict(d, drv, k, nk, link);
}
