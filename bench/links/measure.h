/* measure.h — the host analog of `arbench links`: copies between the ranks' MPI shared-memory windows,
 * the smoke test per pair (timeout, data check) and the flag ping-pong latency of kernels/ar_core.h. */
#ifndef AR_LINKS_MEASURE_H
#define AR_LINKS_MEASURE_H

#include "run/fault.h"
#include "links/links.h"
#include <mpi.h>

/* NOIPC: GPUs only, the peer's memory could not be mapped (links/measure_cuda.c). STUCK: GPUs only, not tested:
 * one of its GPUs has work queued that never ended (nothing more is queued on it, links/cuda_plan.h). */
enum ar_lpair { AR_PAIR_OK = 0, AR_PAIR_TIMEOUT = 1, AR_PAIR_CORRUPT = 2, AR_PAIR_NOIPC = 3, AR_PAIR_STUCK = 4 };

/* One rank's view of the windows. Rank r's region: 4 x n flag lines (smoke data, smoke ack, ping, pong,
 * one line per peer), then its send buffer, then n receive slots (slot q: what rank q sent it). */
struct ar_lctx {
  MPI_Comm comm;
  int rank, n;
  MPI_Win win;
  char **base;        /* every rank's region */
  size_t slot;        /* bytes of a buffer (the largest transfer, rounded up to a line) */
  uint32_t gen;       /* flag generation, the same on every rank */
  uint32_t seq;       /* data pattern sequence, the same on every rank */
  uint64_t timeout_ns;
  int oversubscribed; /* more local ranks than cores: wait by yielding */
  int silent;         /* ARBENCH_INJECT_SILENT: this rank never answers a peer */
  const struct ar_fault *fault; /* ARBENCH_INJECT_FAULT: corrupt what this rank receives in the smoke test */
  int *bad;           /* n x n: enum ar_lpair of the ordered pair (src, dst), after the smoke test */
  uint64_t *beat;     /* bumped after each pair, repeat and ping-pong (links -T's heartbeat), or NULL */
};

/* Collective over comm (one node). 0, or -AR_ERUNTIME with one line in err. */
int ar_lctx_open(struct ar_lctx *c, MPI_Comm comm, size_t max_bytes, double timeout_s, int silent,
                 const struct ar_fault *fault, char *err, size_t len);
void ar_lctx_close(struct ar_lctx *c);

/* The smoke test: every ordered pair in turn pushes bytes (at most the slot) with a flag, the destination
 * waits at most the timeout, checks the data and acknowledges; the source waits for the acknowledgement.
 * Fills c->bad on every rank; returns the number of bad pairs. Collective. */
int ar_links_smoke(struct ar_lctx *c, size_t bytes);

/* One measurement of the flows of one instance (none of them bad), repeat times: warm-up copies, then iters
 * timed copies by each flow's initiator (a rank with several flows copies them in turn). On rank 0:
 * gbs[k * repeat + r] = flow k's GB/s in repeat r, wrong[k] = words that differed from the source's data
 * over all repeats. Collective; 0, or -AR_ERUNTIME when out of memory. */
int ar_links_measure(struct ar_lctx *c, int method, const struct ar_flow *f, int nf, size_t bytes, int iters,
                     int warmup, int repeat, double *gbs, uint64_t *wrong);

/* One-way flag latency src -> dst: iters ping-pongs with ar_flag_store / ar_wait_flag, the round trip
 * halved, per repeat; us[r] on rank 0 (NAN when a flag did not come back within the timeout). Collective. */
int ar_links_pingpong(struct ar_lctx *c, int src, int dst, int iters, int repeat, double *us);

/* One unit of progress for links -T's watchdog (beat may be NULL). */
static inline void ar_links_beat(uint64_t *beat) {
  if (beat) __atomic_fetch_add(beat, 1, __ATOMIC_RELAXED);
}

/* The 32-bit word i of what rank src sends in sequence seq (ar_links_word) and the poison that no correct
 * copy leaves (its complement). Exposed for tests. */
uint32_t ar_links_word(int src, uint32_t seq, size_t i);

#endif
