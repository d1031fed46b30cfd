/* watchdog.h — the run's watchdog: a thread, from before MPI_Init to after MPI_Finalize, that ends the job
 * when a phase makes no progress within -T, naming the phase and the peers that stopped or died. */
#ifndef AR_WATCHDOG_H
#define AR_WATCHDOG_H

#include "peers.h"
#include <pthread.h>
#include <stdint.h>

struct ar_watchdog {
  pthread_t thread;
  pthread_mutex_t lock;
  uint64_t heartbeat;   /* bumped by the timed loops */
  char phase[256];      /* what is running ("" = idle) */
  char last[256];       /* the last phase that was not idle, for status exchanges between phases */
  uint64_t seq;         /* bumped by every phase change (progress) */
  double timeout;       /* seconds without progress before aborting, 0 = off */
  int per_unit;         /* collectives behind one heartbeat step (K of a CUDA graph replay), reset by phase */
  double allow_s;       /* the phase's own bounded waits may take this long between beats (0: none), reset by phase */
  const struct ar_peers *peers; /* node-local pids: who stopped or died, who reports; may be NULL */
  int rank;
  int exchange;         /* 1 while a status exchange runs in what was an idle phase */
  int after_failure;    /* that exchange follows a failed call and keeps its clock (ar_watchdog_settle) */
  int stop, started;
  int mpi_up;           /* MPI_Init returned and MPI_Finalize not called: a timeout can MPI_Abort */
};

/* Starts watching (timeout > 0), possibly before MPI_Init (rank -1: the launcher's rank in messages). */
int ar_watchdog_start(struct ar_watchdog *d, double timeout, int rank, const struct ar_peers *peers);
/* MPI is up (1: a timeout aborts the job) or about to finalize (0: a timeout exits this rank); the world
 * rank and the node's peer table (NULL when there is none). */
void ar_watchdog_mpi(struct ar_watchdog *d, int mpi_up, int rank, const struct ar_peers *peers);
void ar_watchdog_phase(struct ar_watchdog *d, const char *fmt, ...);
/* The current phase's work finishes in units of per collectives (a graph replay): the timeout is
 * per collective, so one unit may take per x -T. */
void ar_watchdog_unit(struct ar_watchdog *d, int per);
/* The current phase waits on bounded waits of its own (a smoke-test timeout, a GPU's bound) that may take up to
 * seconds between two heartbeats: the limit is at least that plus a grace, so those waits end first and name
 * what they waited for. Reset by the next phase. */
void ar_watchdog_allow(struct ar_watchdog *d, double seconds);
/* The limit of a phase with the limit of ar_watchdog_limit and an allowance (ar_watchdog_allow). */
double ar_watchdog_allowed(double limit, double allow_s);
/* Around a status exchange (a collective between phases): watched, named after the last phase, and
 * not counted as progress. on=1 enters, on=0 leaves; d may be NULL. */
void ar_watchdog_exchange(struct ar_watchdog *d, int on);
/* End a watched call: rc 0 ends the phase (progress); a failure turns it into the status exchange that
 * follows, on the call's clock plus a grace (ar_watchdog_limit), so a peer stopped during a call that
 * gave up on it ends the job about -T after the call began, not -T after the exchange began. */
void ar_watchdog_settle(struct ar_watchdog *d, int rc);
double ar_watchdog_limit(double timeout, int per, int after_failure);
/* The bound of d's current phase (call under d->lock, or with no thread): a status exchange, after a failure or
 * not, gets ar_watchdog_limit's grace, since its peers may still be giving up on a stopped rank. */
double ar_watchdog_bound(const struct ar_watchdog *d);
void ar_watchdog_stop(struct ar_watchdog *d);
/* End the job with one line (no newline in line), as a timeout does: while MPI is up the first rank of the node to
 * claim the report prints it and MPI_Abort()s the job with status 1, the others wait quietly for the abort; outside
 * MPI every rank prints it and exits 1. Never returns. d may be NULL (no peer table: this rank reports). */
_Noreturn void ar_watchdog_end(struct ar_watchdog *d, const char *line);
/* What this rank is doing, for a message: the current phase, "after LAST" between phases, "" before any. */
void ar_watchdog_where(struct ar_watchdog *d, char *buf, size_t len);

#endif
