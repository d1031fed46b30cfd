/* islands.h — how the ranks of one node agree on their islands (shm-islands, p2p-islands): --islands N
 * splits them evenly, else each rank's NUMA key, gathered over the node communicator. */
#ifndef AR_ISLANDS_AGREE_H
#define AR_ISLANDS_AGREE_H

#include "ar.h"
#include "ar_core.h"
#include <mpi.h>

/* Collective over comm (n ranks). forced > 0: N even islands (-AR_EINVAL with a message when N > n);
 * else islands by numa (this rank's key; any rank's -1 = unknown makes one island). 0 or -AR_EINVAL. */
int ar_islands_agree(MPI_Comm comm, int n, int forced, int numa, struct ar_islands *is, char *err, size_t len);

#endif
