/* watch.c — `arbench links -T` (watch.h): run's watchdog from before MPI_Init to after MPI_Finalize, one named
 * phase for every step (so every collective is watched), and the bounds of the phases' own waits. */
#include "links/watch.h"
#include "links/cuda_plan.h"
#include "mpierr.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int ar_links_watch_start(struct ar_links_watch *w, double timeout, char *err, size_t len) {
  w->have_peers = 0;
  w->kept = (struct ar_peers){.win = MPI_WIN_NULL};
  const char *r = getenv("OMPI_COMM_WORLD_RANK");
  w->world = r ? atoi(r) : 0;
  int rc = ar_stall_parse(&w->stall, getenv("ARBENCH_INJECT_STALL"), err, len);
  ar_watchdog_start(&w->dog, timeout, -1, NULL);
  ar_watchdog_phase(&w->dog, "start-up: MPI_Init");
  if (!rc) ar_stall_at(&w->stall, w->world, AR_STALL_INIT);
  return rc;
}

void ar_links_watch_mpi(struct ar_links_watch *w) {
  ar_mpi_errors_install(&w->dog); /* an MPI error: arbench's one line (bench/mpierr.c), as in run */
  MPI_Comm_rank(MPI_COMM_WORLD, &w->world);
  ar_watchdog_mpi(&w->dog, 1, w->world, NULL);
  ar_watchdog_phase(&w->dog, "start-up: option agreement");
}

void ar_links_watch_peers(struct ar_links_watch *w, MPI_Comm node_comm) {
  ar_watchdog_phase(&w->dog, "start-up: peer table");
  ar_peers_open(&w->peers, node_comm, w->world);
  w->have_peers = 1;
  ar_watchdog_mpi(&w->dog, 1, w->world, &w->peers);
}

void ar_links_watch_phase(struct ar_links_watch *w, double allow_s, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  ar_watchdog_phase(&w->dog, "%s", buf);
  if (allow_s > 0) ar_watchdog_allow(&w->dog, allow_s);
}

void ar_links_watch_stall(struct ar_links_watch *w, int where) { ar_stall_at(&w->stall, w->world, where); }

uint64_t *ar_links_watch_beat(struct ar_links_watch *w) { return &w->dog.heartbeat; }

void ar_links_watch_teardown(struct ar_links_watch *w, MPI_Comm comm) {
  ar_watchdog_phase(&w->dog, "teardown: barrier");
  MPI_Barrier(comm);
  if (w->have_peers) {
    ar_peers_copy(&w->peers, &w->kept);
    ar_watchdog_mpi(&w->dog, 1, w->world, &w->kept); /* before the shared table goes */
    ar_watchdog_phase(&w->dog, "teardown: peer table");
    ar_peers_close(&w->peers);
    w->have_peers = 0;
  }
}

void ar_links_watch_finalize(struct ar_links_watch *w) {
  ar_watchdog_mpi(&w->dog, 0, w->world, w->kept.slots ? &w->kept : NULL);
  ar_watchdog_phase(&w->dog, "teardown: MPI_Finalize");
  ar_stall_at(&w->stall, w->world, AR_STALL_FINALIZE);
}

void ar_links_watch_stop(struct ar_links_watch *w) {
  ar_watchdog_stop(&w->dog);
  ar_peers_free(&w->kept);
}

/* ---- the bounds ---- */

double ar_links_allow_smoke(const struct ar_links_opts *o, int gpu) {
  /* the push and the pull (GPUs) or the data and the ack (CPU ranks): the timeout each; GPUs stage four times */
  return 2 * o->smoke_timeout + (gpu ? 4 * AR_LCUDA_FLOOR_S : 0);
}

double ar_links_allow_measure(const struct ar_links_opts *o, int gpu, size_t bytes, int nf) {
  if (!gpu) return 0;
  int k = nf < 1 ? 1 : nf, nbatch = ar_lcuda_batches(o->iters, k);
  double fills = (double)(nf + 1) * ar_lcuda_bound_s(bytes, 1), checks = (double)nf * ar_lcuda_bound_s(bytes, 1);
  double warm = o->warmup ? ar_lcuda_bound_s(bytes, o->warmup * k) : 0;
  double timed = nbatch * (AR_LCUDA_FLOOR_S + AR_LCUDA_HOLD_S) + ar_lcuda_bound_s(bytes, o->iters * k) - AR_LCUDA_FLOOR_S;
  return fills + warm + timed + checks;
}

double ar_links_allow_latency(const struct ar_links_opts *o, int gpu) {
  if (!gpu) return o->smoke_timeout;
  double kernel = ar_lcuda_kernel_bound_s(o->smoke_timeout), copy = ar_lcuda_bound_s(4, 1) + AR_LCUDA_HOLD_S;
  return kernel > copy ? kernel : copy;
}
