/* memcheck.c — the host memory a relaunch's ranks will allocate for their message buffers, checked against
 * the node's MemAvailable and the ranks' address-space limit before mpirun starts them (and by the ranks, before
 * they allocate, under any launcher). */
#include "run/memcheck.h"
#include "backend.h"
#include "device/platform.h"
#include "run/engine.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void ar_human_bytes(size_t v, char *buf, size_t len) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  double d = (double)v;
  while (d >= 1024 && u < 5) d /= 1024, u++;
  if (d == (double)(uint64_t)d) snprintf(buf, len, "%" PRIu64 " %s", (uint64_t)d, unit[u]);
  else snprintf(buf, len, "%.1f %s", d, unit[u]);
}

size_t ar_mem_need_host(const struct ar_opts *o, size_t cache_bytes, const char **backend) {
  size_t need = 0, pool = ar_pool_bytes(o->buffers == AR_BUF_COLD, cache_bytes, ar_max_bytes(o));
  *backend = NULL;
  for (int i = 0; i < o->nbackends; i++) {
    const struct ar_backend *be;
    const char *variant;
    char err[AR_ERRLEN];
    if (ar_backend_resolve(o->backends[i], &be, &variant, err, sizeof err) || (be->flags & AR_BE_DEVICE)) continue;
    if (!*backend) *backend = o->backends[i], need = pool; /* one pool size for every host backend */
  }
  return need;
}

/* MemAvailable of a /proc/meminfo-format file, in bytes; 0 with *ok = 0 when it has none. */
static size_t mem_available(const char *path, int *ok) {
  FILE *f = fopen(path, "r");
  char line[256];
  unsigned long long kib = 0;
  *ok = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
      *ok = 1;
      break;
    }
  if (f) fclose(f);
  return (size_t)kib * 1024;
}

int ar_mem_check_need(size_t need, size_t maxb, int cold, const char *be, int nranks, const char *meminfo, char *msg,
                      size_t len) {
  if (!need || nranks < 1) return 0;
  char n1[32], n2[32], n3[32], n4[32];
  ar_human_bytes(need, n1, sizeof n1);
  ar_human_bytes(maxb, n2, sizeof n2);
  const char *how = cold ? "send + receive buffers of the largest size, plus 2 x the cache for --buffers cold"
                         : "send + receive buffers of the largest size";
  struct rlimit rl;
  if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY && need > (size_t)rl.rlim_cur) {
    ar_human_bytes((size_t)rl.rlim_cur, n3, sizeof n3);
    snprintf(msg, len, "largest size %zu bytes (%s): each rank needs %zu bytes (%s) of host memory for %s (%s), over its "
             "address-space limit of %zu bytes (%s, ulimit -v); give smaller sizes, or --no-mem-check to try anyway",
             maxb, n2, need, n1, be, how, (size_t)rl.rlim_cur, n3);
    return -AR_EINVAL;
  }
  const char *path = getenv("ARBENCH_INJECT_MEMINFO");
  int ok;
  size_t avail = mem_available(path && *path ? path : meminfo, &ok);
  if (!ok) return 0; /* no MemAvailable (kernels before 3.14, not Linux): the ranks name what fails */
  if (need <= avail / (size_t)nranks) return 0;
  ar_human_bytes(need * (size_t)nranks, n3, sizeof n3);
  ar_human_bytes(avail, n4, sizeof n4);
  snprintf(msg, len, "largest size %zu bytes (%s): each of the %d ranks needs %zu bytes (%s) of host memory for %s (%s), "
           "%s in all; this node has %zu bytes (%s) available (MemAvailable); give smaller sizes or fewer ranks, or "
           "--no-mem-check to try anyway", maxb, n2, nranks, need, n1, be, how, n3, avail, n4);
  return -AR_EINVAL;
}

int ar_mem_check(const struct ar_opts *o, int nranks, const char *meminfo, char *msg, size_t len) {
  const char *be;
  size_t need = ar_mem_need_host(o, ar_host_platform.cache_bytes(), &be);
  return ar_mem_check_need(need, ar_max_bytes(o), o->buffers == AR_BUF_COLD, be, nranks, meminfo, msg, len);
}
