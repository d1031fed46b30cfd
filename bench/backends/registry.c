/* registry.c — the backends compiled into this binary, in display order.
 * Adding a backend: its folder with its ops table, one line in AR_REGISTRY here, one subdir line in
 * bench/backends/meson.build. */
#include "backend.h"
#include <stdio.h>
#include <string.h>

/* Every backend arbench has, in display order, one line each (X-macro: declared and listed from here); the
 * ones this build does not compile are absent.c's. */
#define AR_REGISTRY(X)                                                                                      \
  X(ar_be_mpi)                                                                                              \
  X(ar_be_shm_oneshot) X(ar_be_shm_twoshot) X(ar_be_shm_staged) X(ar_be_shm_islands)                       \
  X(ar_be_nccl)                                                                                             \
  X(ar_be_p2p_oneshot) X(ar_be_p2p_twoshot) X(ar_be_p2p_staged) X(ar_be_p2p_islands)                       \
  X(ar_be_fused)                                                                                            \
  X(ar_be_symm)                                                                                             \
  /* a new backend: one X(ar_be_NAME) line above this one */

#define AR_DECLARE(b) extern const struct ar_backend b;
#define AR_ENTRY(b) &b,
AR_REGISTRY(AR_DECLARE)
static const struct ar_backend *const registry[] = {AR_REGISTRY(AR_ENTRY)};

const struct ar_backend *const *ar_backends(int *n) {
  *n = (int)(sizeof registry / sizeof registry[0]);
  return registry;
}

const struct ar_backend *ar_backend_find(const char *name) {
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (!strcmp(registry[i]->name, name)) return registry[i];
  return NULL;
}

int ar_backend_built(const struct ar_backend *be) { return be->init != NULL; }

const char *ar_be_family_name(enum ar_be_family f) {
  static const char *const names[] = {"host", "nccl", "p2p", "symm", "fused"};
  return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "?";
}

int ar_backend_family(const char *name, unsigned *flags) {
  const struct ar_backend *be = ar_backend_find(name);
  if (be) {
    *flags = be->flags;
    return (int)be->family;
  }
  if (!strcmp(name, "nccl-tests")) { /* arbench import: nccl-tests' all_reduce_perf, ncclAllReduce */
    *flags = AR_BE_DEVICE | AR_BE_BASELINE;
    return AR_BE_FAM_NCCL;
  }
  *flags = 0;
  return -1;
}

int ar_backend_resolve(const char *spec, const struct ar_backend **be, const char **variant,
                       char *err, size_t len) {
  char name[128];
  const char *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  if (n >= sizeof name) n = sizeof name - 1;
  memcpy(name, spec, n);
  name[n] = 0;
  *be = ar_backend_find(name);
  *variant = colon ? colon + 1 : "";
  if (*be && colon && !colon[1]) { /* "shm-oneshot:" would be a column of its own beside "shm-oneshot" */
    snprintf(err, len, "empty variant in '%s' (write %s, or %s:KEY=VALUE)", spec, name, name);
    return -AR_EINVAL;
  }
  if (*be) return 0;
  size_t k = (size_t)snprintf(err, len, "unknown backend '%s' (known:", name);
  for (size_t i = 0; i < sizeof registry / sizeof registry[0] && k < len; i++)
    k += (size_t)snprintf(err + k, len - k, "%s %s", i ? "," : "", registry[i]->name);
  if (k < len) snprintf(err + k, len - k, ")");
  return -AR_EINVAL;
}
