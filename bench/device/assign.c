/* assign.c — which GPU a rank gets: by local rank, from --devices, or shared (--shared-gpu).
 * Pure functions (no CUDA, no MPI) so the unit tests drive them directly; gpu.c gathers the bus ids. */
#include "device/device.h"
#include "opts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define AR_MAX_DEVICES 256

int ar_gpu_list_parse(const char *text, int *list, int cap, int *n, char *err, size_t len) {
  *n = 0;
  const char *p = text;
  while (*p) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 0 || v >= AR_MAX_DEVICES || (*end && *end != ',') || *n >= cap) {
      snprintf(err, len, "bad --devices '%s' (expected comma-separated CUDA device indices like 0,1,2,3)", text);
      return -AR_EINVAL;
    }
    list[(*n)++] = (int)v;
    p = *end ? end + 1 : end;
    if (*end && !*p) {
      snprintf(err, len, "bad --devices '%s' (trailing comma)", text);
      return -AR_EINVAL;
    }
  }
  if (!*n) {
    snprintf(err, len, "bad --devices '%s' (empty list)", text);
    return -AR_EINVAL;
  }
  return 0;
}

int ar_gpu_assign(const int *list, int n, int count, int shared, int lr) {
  if (count <= 0 || lr < 0) return -1;
  if (list && n > 0) {
    if (lr < n) return list[lr];
    return shared ? list[lr % n] : -1;
  }
  if (lr < count) return lr;
  return shared ? lr % count : -1;
}

/* Number of comma-separated entries of a visible list ("" = 0). */
static int visible_count(const char *v) {
  if (!v || !*v) return 0;
  int n = 1;
  for (; *v; v++) n += *v == ',';
  return n;
}

int ar_gpu_assign_visible(const char *const *visible, int nlocal, const int *list, int n, int shared, int lr) {
  if (lr < 0 || lr >= nlocal) return -1;
  int idx = 0; /* position of lr among the local ranks that see the same GPUs */
  for (int r = 0; r < lr; r++) idx += !strcmp(visible[r], visible[lr]);
  return ar_gpu_assign(list, n, visible_count(visible[lr]), shared, idx);
}

int ar_gpu_busid_shared(const char *const *busid, int nlocal, int lr) {
  if (lr < 0 || lr >= nlocal || !*busid[lr]) return 0;
  for (int r = 0; r < nlocal; r++)
    if (r != lr && !strcasecmp(busid[r], busid[lr])) return 1;
  return 0;
}
