/* persist.c — doctor's persistence check: each GPU's persistence mode from NVML when live (libnvidia-ml is
 * loaded at run time, not linked), else the nvidia-persistenced process and its options under the root. */
#include "doctor/doctor.h"
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define G "PCI"

/* Sources, in order of authority:
 * 1. NVML's nvmlDeviceGetPersistenceMode (what `nvidia-smi -q` prints as "Persistence Mode"), live only: the
 *    mode is driver state; sysfs, /proc/driver/nvidia/gpus/<bus id>/information and /proc/driver/nvidia/params
 *    do not show it.
 * 2. The nvidia-persistenced daemon: a process whose proc/<pid>/comm is "nvidia-persistenced" keeps every GPU
 *    in persistence unless its command line has --no-persistence-mode (it then only holds the driver
 *    open). Its socket run/nvidia-persistenced/socket only says it was started once (a stale socket
 *    outlives a killed daemon).
 * Without either, the mode is unknown: `nvidia-smi -pm 1` (legacy mode) is not visible outside NVML. */

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_handle_fn)(const char *, void **);
typedef int (*nvml_mode_fn)(void *, int *);

/* Per GPU mode from NVML: 1 read (levels added), 0 NVML not usable (why in buf). */
static int from_nvml(struct ar_doc *d, const struct ar_doc_gpu *g, int n, char *why, size_t len) {
  void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(why, len, "libnvidia-ml.so.1 not found");
    return 0;
  }
  nvml_void_fn init = (nvml_void_fn)dlsym(h, "nvmlInit_v2"), fini = (nvml_void_fn)dlsym(h, "nvmlShutdown");
  nvml_handle_fn byid = (nvml_handle_fn)dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
  nvml_mode_fn mode = (nvml_mode_fn)dlsym(h, "nvmlDeviceGetPersistenceMode");
  int rc = init && fini && byid && mode ? init() : -1;
  if (rc) {
    snprintf(why, len, rc < 0 ? "libnvidia-ml.so.1 lacks the functions" : "nvmlInit failed (error %d)", rc);
    dlclose(h);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    void *dev = NULL;
    int on = -1, e = byid(g[i].bdf, &dev);
    if (!e) e = mode(dev, &on);
    if (e)
      ar_doc_add(d, G, "persistence", AR_D_SKIP, "", "GPU %s: NVML could not read its persistence mode (error %d)",
                 g[i].bdf, e);
    else if (on == 1)
      ar_doc_add(d, G, "persistence", AR_D_OK, "", "GPU %s: persistence mode enabled (NVML)", g[i].bdf);
    else
      ar_doc_add(d, G, "persistence", AR_D_WARN,
                 "systemctl enable --now nvidia-persistenced (or nvidia-smi -pm 1): without it every process start "
                 "re-initialises the GPU, and idle GPUs drop their links",
                 "GPU %s: persistence mode disabled (NVML)", g[i].bdf);
  }
  fini();
  dlclose(h);
  return 1;
}

/* The daemon's pid under root/proc (0 none) and whether its command line turns persistence off. */
static long find_daemon(const struct ar_doc *d, int *off) {
  char p[PATH_MAX], comm[64];
  long pid = 0;
  *off = 0;
  ar_doc_path(d, p, sizeof p, "/proc");
  DIR *dir = opendir(p);
  for (struct dirent *e; dir && !pid && (e = readdir(dir));) {
    char *end;
    long v = strtol(e->d_name, &end, 10);
    if (*end || v <= 0) continue;
    snprintf(p, sizeof p, "/proc/%ld/comm", v);
    if (!ar_doc_read(d, p, comm, sizeof comm) && !strcmp(comm, "nvidia-persistenced")) pid = v;
  }
  if (dir) closedir(dir);
  if (!pid) return 0;
  char full[PATH_MAX], args[4096];
  ar_doc_path(d, full, sizeof full, "/proc/%ld/cmdline", pid);
  FILE *f = fopen(full, "rb");
  size_t k = f ? fread(args, 1, sizeof args - 1, f) : 0;
  if (f) fclose(f);
  args[k] = 0;
  for (size_t i = 0; i < k; i += strlen(args + i) + 1) /* NUL-separated arguments */
    *off |= !strcmp(args + i, "--no-persistence-mode");
  return pid;
}

void ar_doctor_persistence(struct ar_doc *d, const struct ar_doc_gpu *g, int n) {
  char why[128] = "not asked: a fixture root has no driver", p[PATH_MAX];
  struct stat st;
  int off;
  if (d->live && from_nvml(d, g, n, why, sizeof why)) return;
  long pid = find_daemon(d, &off);
  if (pid && !off) {
    ar_doc_add(d, G, "persistence", AR_D_OK, "", "nvidia-persistenced runs (pid %ld): the GPUs stay in persistence "
               "mode (NVML %s)", pid, why);
    return;
  }
  if (pid) {
    ar_doc_add(d, G, "persistence", AR_D_WARN,
               "drop --no-persistence-mode from the nvidia-persistenced service (or nvidia-smi -pm 1)",
               "nvidia-persistenced runs (pid %ld) with --no-persistence-mode: the GPUs are not kept initialised", pid);
    return;
  }
  ar_doc_path(d, p, sizeof p, "/run/nvidia-persistenced/socket");
  int sock = !stat(p, &st);
  ar_doc_add(d, G, "persistence", AR_D_WARN,
             "check `nvidia-smi -q | grep Persistence`; enable with systemctl enable --now nvidia-persistenced "
             "(or nvidia-smi -pm 1): without it every process start re-initialises each GPU, and idle GPUs drop "
             "their links",
             "persistence mode unknown: no nvidia-persistenced process in proc/*/comm%s, and nvidia-smi -pm is "
             "readable only through NVML (%s)", sock ? " (a stale run/nvidia-persistenced/socket)" : "", why);
}
