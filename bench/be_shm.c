/* be_shm.c — PLACEHOLDER until the shm-* backends land (kernels/ issue). */
#include "backend.h"
#include <stdio.h>
static int na(const struct ar_env *e, char *why, size_t len) { (void)e; snprintf(why, len, "not built yet"); return -AR_EUNAVAIL; }
#define SHM(N, S) const struct ar_backend N = {.name = S, .summary = "custom allreduce over MPI shared memory", .flags = AR_BE_HOST, .available = na}
SHM(ar_be_shm_oneshot, "shm-oneshot");
SHM(ar_be_shm_twoshot, "shm-twoshot");
SHM(ar_be_shm_staged, "shm-staged");
SHM(ar_be_shm_islands, "shm-islands");
