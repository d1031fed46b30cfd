/* peers.h — a node-local table of the ranks' pids in MPI-3 shared memory, read by the watchdog thread
 * (without calling MPI) to name a peer that died or stopped, and to let one rank per node report. */
#ifndef AR_PEERS_H
#define AR_PEERS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

struct ar_peer_slot {
  int32_t pid, rank; /* process id and world rank of one local rank */
};

struct ar_peers {
  MPI_Win win;                /* MPI_WIN_NULL when the table could not be made */
  uint32_t *claim;            /* 0, or 1 + world rank of the rank that reports a timeout */
  struct ar_peer_slot *slots; /* one per local rank */
  int n, me;                  /* local ranks; my local index */
};

/* Collective over node_comm. On failure the table is empty and the others still work (say less). */
void ar_peers_open(struct ar_peers *p, MPI_Comm node_comm, int world_rank);
void ar_peers_close(struct ar_peers *p);

/* A private copy of the table (no MPI; its claim is this process's own), for the watchdog to name stopped
 * peers in teardown after the shared table is closed; ar_peers_free releases it. */
void ar_peers_copy(const struct ar_peers *p, struct ar_peers *copy);
void ar_peers_free(struct ar_peers *copy);

/* 1 when this rank is the first on its node to claim the report (or there is no table), else 0. */
int ar_peers_claim(const struct ar_peers *p, int world_rank);

/* One phrase naming every local peer that is gone or stopped ("rank 2 (pid 123) is stopped"), or
 * "no rank on this node is stopped or gone" when none is. */
void ar_peers_culprits(const struct ar_peers *p, char *buf, size_t len);

/* The state letter of a process from /proc/PID/stat ('R', 'S', 'T', ...), 0 when it is gone. */
char ar_proc_state(int pid);

#endif
