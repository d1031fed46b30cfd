/* core_nvcc.cu — compile check: kernels/ar_core.h under nvcc, in device code (system-scope release/acquire
 * flags, bounded wait, partition, islands, fixed-order reduce) and in host code. Never run. */
#include "ar_core.h"

__global__ void ar_core_check_kernel(char *const *regions, int n, int rank, const void *const *src, void *dst,
                                     size_t count, uint32_t gen, int *status) {
  struct ar_span me = ar_part(count, 2, n, rank);
  struct ar_islands is;
  int key[AR_CORE_MAX_RANKS];
  ar_islands_even_keys(key, n, 2);
  ar_islands_build(&is, key, n);
  size_t end = 0;
  int owner = ar_island_owner(&is, count, 2, 0, me.begin, &end);
  struct ar_wait w;
  w.timeout_ns = 1000000000ull;
  w.oversubscribed = 0;
  w.aborts = 0;
  w.naborts = 0;
  int who = -1;
  ar_flag_store(ar_core_flag(regions[rank], AR_FLAG_START), gen);
  int rc = ar_wait_flag(ar_core_flag(regions[(rank + 1) % n], AR_FLAG_START), gen, &w, &who);
  if (threadIdx.x == 0 && me.end > me.begin)
    ar_reduce(AR_CORE_BF16, AR_CORE_SUM, 0, (char *)dst + me.begin * 2, 0, src, n, me.end - me.begin);
  status[0] = rc + owner + ar_staged_to(n, rank, 0) + (ar_gen_reached(gen, gen - 1u) ? 1 : 0) + (int)end;
}

int ar_core_check_host(int n) {
  struct ar_core_layout l;
  ar_core_layout_init(&l, AR_CORE_ISLANDS, 4096);
  uint16_t h = ar_core_f32_to_half(1.5f);
  return (int)l.region_bytes + ar_part_owner(1023, 4, n, 700) + (int)ar_core_half_to_f32(h);
}
