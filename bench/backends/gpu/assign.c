/* assign.c — which GPU a rank gets: by local rank, from --devices, or shared (--shared-gpu).
 * Pure functions (no CUDA, no MPI) so the unit tests drive them directly. */
#include "backends/gpu/priv.h"
#include "opts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The device the options give local rank lr among count GPUs, -1 when none. */
static int expected(const struct ar_env *env, int count, int lr) {
  int list[AR_MAX_DEVICES], n = 0;
  char err[AR_ERRLEN];
  const char *text = env->opts ? env->opts->devices : "";
  int shared = env->opts ? env->opts->shared_gpu : 0;
  if (*text && ar_gpu_list_parse(text, list, AR_MAX_DEVICES, &n, err, sizeof err)) return -1;
  return ar_gpu_assign(n ? list : NULL, n, count, shared, lr);
}

int ar_gpu_expected(const struct ar_env *env, int count) { return expected(env, count, env->local_rank); }

int ar_gpu_shared_with_peer(const struct ar_env *env, int count) {
  int mine = expected(env, count, env->local_rank);
  for (int r = 0; mine >= 0 && r < env->local_nranks; r++)
    if (r != env->local_rank && expected(env, count, r) == mine) return 1;
  return 0;
}
