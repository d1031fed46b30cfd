/* engine.h — runs every (backend, dtype, size, placement) of a run: buffers, warm-up, timing,
 * checks, statistics over the max-over-ranks iteration times, records and table rows. */
#ifndef AR_ENGINE_H
#define AR_ENGINE_H

#include "backend.h"
#include "fault.h"
#include "peers.h"
#include "results.h"
#include <pthread.h>

struct ar_report;

struct ar_watchdog {
  pthread_t thread;
  pthread_mutex_t lock;
  uint64_t heartbeat;   /* bumped by the timed loops */
  char phase[256];      /* what is running ("" = idle) */
  char last[256];       /* the last phase that was not idle, for status exchanges between phases */
  uint64_t seq;         /* bumped by every phase change (progress) */
  double timeout;       /* seconds without progress before aborting, 0 = off */
  int per_unit;         /* collectives behind one heartbeat step (K of a CUDA graph replay), reset by phase */
  const struct ar_peers *peers; /* node-local pids: who stopped or died, who reports; may be NULL */
  int rank;
  int exchange;         /* 1 while a status exchange runs in what was an idle phase */
  int after_failure;    /* that exchange follows a failed call and keeps its clock (ar_watchdog_settle) */
  int stop, started;
  int mpi_up;           /* MPI_Init returned and MPI_Finalize not called: a timeout can MPI_Abort */
};

struct ar_engine {
  struct ar_env *env;
  struct ar_writer *writer; /* rank 0 only; writer->f NULL when no -J */
  const char *run_id;
  json_t *point;            /* sweep point (object) or NULL */
  struct ar_report *report; /* rank 0 only */
  struct ar_watchdog *dog;  /* the run's watchdog, start-up to MPI_Finalize (cmd_run.c) */
  uint64_t wrong_total;     /* wrong elements over all results */
  int failures;             /* error records written */
  int write_failed;         /* rank 0: a record could not be written (the run stops; see ar_engine_stopped) */
  double link_gbs;          /* bottleneck PCIe link between the ranks' GPUs (GB/s), 0 = unknown */
  struct ar_fault fault;    /* ARBENCH_INJECT_FAULT / _DELAY: planted faults for the tests */
  int fill_fail_rank;       /* ARBENCH_INJECT_FILL_FAIL=R:BYTES: rank R's first checked fill at that */
  size_t fill_fail_bytes;   /* size fails (tests the agreement before checked calls); -1 = off */
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
/* Around a status exchange (a collective between phases): watched, named after the last phase, and
 * not counted as progress. on=1 enters, on=0 leaves; d may be NULL. */
void ar_watchdog_exchange(struct ar_watchdog *d, int on);
/* End a watched call: rc 0 ends the phase (progress); a failure turns it into the status exchange that
 * follows, on the call's clock plus a grace (ar_watchdog_limit), so a peer stopped during a call that
 * gave up on it ends the job about -T after the call began, not -T after the exchange began. */
void ar_watchdog_settle(struct ar_watchdog *d, int rc);
double ar_watchdog_limit(double timeout, int per, int after_failure);
void ar_watchdog_stop(struct ar_watchdog *d);

/* The buffer rotation of one (size, placement): sets of one input (and, out of place, one output) buffer,
 * each stride bytes (the message rounded up to 256), cut from a pool of pool_bytes. hot (cold = 0): one set.
 * cold: enough sets to span twice cache_bytes, at most AR_MAX_SETS, and with -G K on the device (graph = K)
 * at most AR_MAX_GRAPHS x K (the captured graphs hold the whole rotation). span_bytes: what the rotation
 * really touches, nsets x its buffers' 128-byte lines; cold_reached: span_bytes >= 2 x cache_bytes (small
 * messages hit the set cap first: 8 B out of place spans 4096 x 256 B = 1 MiB). Pure. */
#define AR_MAX_SETS 4096
#define AR_ROTATION_LINE 128 /* bytes: a GPU L2 line (a CPU's is 64: the span is rounded up either way) */
struct ar_rotation {
  size_t stride, setsz; /* bytes between a set's input and output; between sets */
  int nsets;
  size_t span_bytes;
  int cold_reached;
};
struct ar_rotation ar_buffer_sets(int cold, size_t cache_bytes, size_t pool_bytes, size_t bytes, int inplace,
                                  int graph);
/* The buffer pool for sizes up to max_bytes: one out-of-place set of the largest; cold: plus twice the cache, so
 * the pool never stops a rotation short of 2 x cache (ceil(2 x cache / set) sets fit). */
size_t ar_pool_bytes(int cold, size_t cache_bytes, size_t max_bytes);

/* Run one backend spec ("name" or "name:variant") over all dtypes, sizes and placements.
 * Returns 0, or -AR_EINVAL for an unknown backend or bad variant (all ranks agree). */
int ar_engine_backend(struct ar_engine *e, const char *spec);

/* Write a record on rank 0 (adds "type" and "run_id"); errors are printed once, not returned, and
 * set write_failed. */
void ar_engine_emit(struct ar_engine *e, const char *type, json_t *rec);
/* Collective: 1 on every rank when rank 0 could not write a record (measuring with nowhere to save
 * is pointless); called before each size and backend. */
int ar_engine_stopped(struct ar_engine *e);

#endif
