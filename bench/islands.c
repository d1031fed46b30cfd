/* islands.c — the ranks of one node agree on their islands for the two-level backends: forced by
 * --islands, or by each rank's NUMA key; unknown anywhere means one island. */
#include "islands.h"
#include <stdio.h>

int ar_islands_agree(MPI_Comm comm, int n, int forced, int numa, struct ar_islands *is, char *err, size_t len) {
  int key[AR_CORE_MAX_RANKS];
  if (forced > n) {
    snprintf(err, len, "--islands %d exceeds the %d ranks on this node (allowed: 1 to %d)", forced, n, n);
    return -AR_EINVAL;
  }
  if (forced > 0) {
    ar_islands_even_keys(key, n, forced);
  } else {
    MPI_Allgather(&numa, 1, MPI_INT, key, 1, MPI_INT, comm);
    int unknown = 0;
    for (int r = 0; r < n; r++) unknown |= key[r] < 0;
    for (int r = 0; unknown && r < n; r++) key[r] = 0;
  }
  ar_islands_build(is, key, n);
  return 0;
}
