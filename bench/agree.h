/* agree.h — every rank's status of one step made one answer on every rank (the next step is collective, or
 * all ranks must say the same thing), with the failing rank's message. */
#ifndef AR_AGREE_H
#define AR_AGREE_H

#include <mpi.h>
#include <stddef.h>

struct ar_watchdog;

/* Collective over comm. 0 when every rank's rc is 0; else, on every rank, the rc of the lowest failing rank
 * and its message in msg, which says "rank R: " first when only some ranks failed and it names no rank.
 * dog (NULL: none): a stopped or dead peer must not hang the exchange. */
int ar_agree(MPI_Comm comm, struct ar_watchdog *dog, int rc, char *msg, size_t len);
/* ar_agree whose lowest failing rank's message (unchanged) is printed once, "arbench: MSG", by rank 0. */
int ar_agree_print(MPI_Comm comm, int rc, const char *msg);

#endif
