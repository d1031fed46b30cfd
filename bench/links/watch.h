/* watch.h — `arbench links -T`: run's watchdog (bench/watchdog.h) over every phase of the probe, from before
 * MPI_Init to after MPI_Finalize, the stall points of ARBENCH_INJECT_STALL, and how long a phase's own bounded
 * waits may legitimately take (smoke-test timeouts, GPU bounds), so -T never cuts one short of its own line. */
#ifndef AR_LINKS_WATCH_H
#define AR_LINKS_WATCH_H

#include "run/fault.h"
#include "links/links.h"
#include "peers.h"
#include "watchdog.h"
#include <mpi.h>

struct ar_links_watch {
  struct ar_watchdog dog;
  struct ar_peers peers, kept; /* the node's peer table while MPI is up; its copy for teardown */
  struct ar_stall stall;       /* ARBENCH_INJECT_STALL */
  int world, have_peers;
};

/* Before MPI_Init: parse ARBENCH_INJECT_STALL (0, or -AR_EINVAL with one line in err), start the watchdog
 * (timeout 0: off), phase "start-up: MPI_Init", stop here when planted at init. */
int ar_links_watch_start(struct ar_links_watch *w, double timeout, char *err, size_t len);
/* After MPI_Init: arbench's MPI error handler (bench/mpierr.h), the world rank; phase "start-up: option agreement". */
void ar_links_watch_mpi(struct ar_links_watch *w);
/* The node's peer table (who stopped, who reports), over node_comm. Collective. */
void ar_links_watch_peers(struct ar_links_watch *w, MPI_Comm node_comm);
/* A new phase: "links: ..." (printf format); allow_s: seconds the phase's own bounded waits may take between two
 * beats (0: none), the watchdog's limit is then the larger of -T and that plus a grace. */
void ar_links_watch_phase(struct ar_links_watch *w, double allow_s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Stop here when ARBENCH_INJECT_STALL names this rank and point (fault.h, enum ar_stall_where). */
void ar_links_watch_stall(struct ar_links_watch *w, int where);
/* What the measuring code bumps after each unit of progress (a smoke-test pair, a repeat, a ping-pong's count). */
uint64_t *ar_links_watch_beat(struct ar_links_watch *w);
/* Teardown: barrier over comm, then the peer table closed (the watchdog keeps a copy to name stopped peers). */
void ar_links_watch_teardown(struct ar_links_watch *w, MPI_Comm comm);
/* Just before MPI_Finalize (a timeout then exits this rank: no MPI_Abort), and after it. */
void ar_links_watch_finalize(struct ar_links_watch *w);
void ar_links_watch_stop(struct ar_links_watch *w);

/* ---- the bounds (pure; every rank computes the same from the agreed options) ---- */

/* One smoke-test pair: the destination's wait and the source's (the timeout each); on GPUs also the staging
 * copies (fills and checks, AR_LCUDA_FLOOR_S each, links/cuda_plan.h). */
double ar_links_allow_smoke(const struct ar_links_opts *o, int gpu);
/* One measurement repeat of nf flows of bytes: CPU ranks have no bounded wait in it (0: -T alone); GPUs: the
 * fills, the warm-up, every held batch (its copies and the hold) and the checks, each at its host bound. */
double ar_links_allow_measure(const struct ar_links_opts *o, int gpu, size_t bytes, int nf);
/* One latency repeat between two beats: a flag wait (the timeout) on CPU ranks; on GPUs the ping-pong kernel's
 * standstill bound or one held copy-engine copy, whichever is longer. */
double ar_links_allow_latency(const struct ar_links_opts *o, int gpu);

#endif
