/* p2p_none.c — the p2p-* and fused hooks of a CUDA build without nvcc: no custom kernels are compiled in, so
 * no p2p or fused state can exist (`arbench list` says 'not compiled in: no nvcc in this stack'). */
#include "backends/gpu/priv.h"

int ar_p2p_health(const struct ar_backend *be, void *state, char *err, size_t len) {
  (void)be, (void)state, (void)err, (void)len;
  return 0;
}

void ar_fused_unwrap(const struct ar_backend **be, void **state) {
  (void)be, (void)state;
}
