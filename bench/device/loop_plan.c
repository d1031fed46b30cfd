/* loop_plan.c — pure arithmetic of the device timed loop: how many CUDA graphs cover the engine's
 * buffer rotation, how many replays warm them up, when the heartbeat moves, and the per-collective
 * deadline of the nccl watchdog. */
#include "device/device.h"

int ar_graph_count(int nsets, int per_graph, int cap) {
  if (nsets < 1 || per_graph < 1 || cap < 1) return 1;
  int n = nsets / per_graph + (nsets % per_graph != 0);
  return n > cap ? cap : n;
}

int ar_graph_warm(int warmup, int per_graph, int ngraphs) {
  int w = per_graph > 0 ? (warmup + per_graph - 1) / per_graph : warmup;
  if (w < ngraphs) w = ngraphs; /* every graph replayed once before it is timed */
  return w < 1 ? 1 : w;
}

int ar_loop_depth(int window, int per) {
  int d = per > 0 ? window / per : window;
  return d < 2 ? 2 : d;
}

int ar_loop_must_wait(int queued, int ended, int depth) { return queued - ended >= depth; }

void ar_deadline_arm(struct ar_deadline *d, double now, uint64_t progress, double limit) {
  d->since = now;
  d->seen = progress;
  d->limit = limit;
  d->armed = 1;
}

int ar_deadline_overdue(struct ar_deadline *d, double now, uint64_t progress) {
  if (!d->armed || d->limit <= 0) return 0;
  if (progress != d->seen) { /* a collective finished: the next one gets a full deadline */
    d->seen = progress;
    d->since = now;
    return 0;
  }
  return now - d->since > d->limit;
}

int ar_unit_settle(int wait_rc, ar_unit_verdict_fn verdict, void *state, volatile uint64_t *heartbeat, int per,
                   char *err, size_t len) {
  int rc = wait_rc;
  if (!rc && verdict) rc = verdict(state, err, len);
  if (!rc) __atomic_store_n(heartbeat, *heartbeat + (uint64_t)per, __ATOMIC_RELAXED);
  return rc;
}
