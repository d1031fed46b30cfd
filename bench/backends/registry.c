/* registry.c — the backends compiled into this binary, in display order.
 * Adding a backend: one file with its ops table, one line here. */
#include "ar_config.h"
#include "backend.h"
#include <stdio.h>
#include <string.h>

extern const struct ar_backend ar_be_mpi;
extern const struct ar_backend ar_be_shm_oneshot, ar_be_shm_twoshot, ar_be_shm_staged, ar_be_shm_islands;
extern const struct ar_backend ar_be_emu_p2p_oneshot, ar_be_emu_p2p_twoshot, ar_be_emu_p2p_staged, ar_be_emu_p2p_islands, ar_be_emu_fused;
#ifdef AR_HAVE_CUDA
extern const struct ar_backend ar_be_nccl;
#if AR_HAVE_P2P /* nvcc's kernels, or NVRTC's loaded at run time */
extern const struct ar_backend ar_be_p2p_oneshot, ar_be_p2p_twoshot, ar_be_p2p_staged, ar_be_p2p_islands;
extern const struct ar_backend ar_be_fused;
#endif
#if AR_HAVE_SYMM
extern const struct ar_backend ar_be_symm;
#endif
#endif

static const struct ar_backend *const registry[] = {
  &ar_be_mpi,
  &ar_be_shm_oneshot,
  &ar_be_shm_twoshot,
  &ar_be_shm_staged,
  &ar_be_shm_islands,
  &ar_be_emu_p2p_oneshot, &ar_be_emu_p2p_twoshot, &ar_be_emu_p2p_staged, &ar_be_emu_p2p_islands, &ar_be_emu_fused,
#ifdef AR_HAVE_CUDA
  &ar_be_nccl,
#if AR_HAVE_P2P
  &ar_be_p2p_oneshot,
  &ar_be_p2p_twoshot,
  &ar_be_p2p_staged,
  &ar_be_p2p_islands,
  &ar_be_fused,
#endif
#if AR_HAVE_SYMM
  &ar_be_symm,
#endif
#endif
};

const struct ar_backend *const *ar_backends(int *n) {
  *n = (int)(sizeof registry / sizeof registry[0]);
  return registry;
}

const struct ar_backend *ar_backend_find(const char *name) {
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (!strcmp(registry[i]->name, name)) return registry[i];
  return NULL;
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
