/* event.c — the stand-in's events: a record is queued work that stamps CLOCK_MONOTONIC when its stream reaches it;
 * query, synchronize and elapsed time answer as CUDA documents (not ready before completion, never recorded...). */
#include "internal.h"
#include <stddef.h>
#include <stdlib.h>

#define EV_MAGIC 0x45564e54u

struct ev_box { /* the handle: a magic word first, so a destroyed or foreign handle is caught */
  unsigned magic;
  struct sa_event ev;
};

static struct sa_event *event_of(cudaEvent_t h, const char *call) {
  struct ev_box *b = (struct ev_box *)h;
  if (!b || b->magic != EV_MAGIC || b->ev.destroyed)
    ar_standin_violation("%s(%p): not a live event of this process (destroyed, or never created)", call, (void *)h);
  return &b->ev;
}

static void maybe_free(struct sa_event *ev) {
  if (ev->destroyed && !ev->pending) {
    struct ev_box *b = (struct ev_box *)((char *)ev - offsetof(struct ev_box, ev));
    b->magic = 0;
    free(b);
  }
}

void sa_event_done(struct sa_event *ev, uint64_t record) {
  if (record >= ev->done) {
    ev->done = record;
    ev->t = sa_now();
  }
  ev->pending--;
  maybe_free(ev);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *p, unsigned int flags) {
  sa_init();
  if (!p || (flags & ~0x7u)) return sa_error(cudaErrorInvalidValue);
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)) return sa_error(cudaErrorInvalidValue);
  struct ev_box *b = calloc(1, sizeof *b);
  if (!b) return sa_error(cudaErrorMemoryAllocation);
  b->magic = EV_MAGIC;
  b->ev.device = sa_device();
  b->ev.flags = flags;
  *p = (cudaEvent_t)b;
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *p) { return cudaEventCreateWithFlags(p, cudaEventDefault); }

/* CUDA's rule: destroying an event whose record is still queued is allowed; it goes when the record ran. */
cudaError_t cudaEventDestroy(cudaEvent_t h) {
  sa_init();
  pthread_mutex_lock(&sa.mu);
  struct sa_event *ev = event_of(h, "cudaEventDestroy");
  ev->destroyed = 1;
  maybe_free(ev);
  pthread_mutex_unlock(&sa.mu);
  return cudaSuccess;
}

/* A record on a stream being captured: a plain one (cudaEventRecord, flags cudaEventRecordDefault) only marks the
 * event as captured (cross-stream order inside the capture) and is no node of the graph, so the graph's launches
 * never record it and a query of it is cudaErrorCapturedEvent; cudaEventRecordExternal makes it an event-record
 * node that each launch records (cuda_runtime_api.h, cudaEventRecordWithFlags; driver_types.h:128-129). */
static cudaError_t record(cudaEvent_t h, cudaStream_t stream, unsigned flags, const char *call) {
  sa_init();
  struct sa_stream *s = sa_stream_of(stream, call);
  pthread_mutex_lock(&sa.mu);
  struct sa_event *ev = event_of(h, call);
  if (ev->device != s->device) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaEventRecord of an event of device %d on a stream of device %d (CUDA: "
                         "cudaErrorInvalidResourceHandle; the event must be created on the stream's device)",
                         ev->device, s->device);
  }
  if (s->capturing && !(flags & cudaEventRecordExternal)) { /* capture state only: no node, nothing replayed */
    ev->captured = 1;
    pthread_mutex_unlock(&sa.mu);
    return cudaSuccess;
  }
  pthread_mutex_unlock(&sa.mu);
  struct sa_op *op = sa_op_new(SA_EVENT, call);
  if (!op) return sa_error(cudaErrorMemoryAllocation);
  op->u.e.ev = ev;
  pthread_mutex_lock(&sa.mu);
  int captured = s->capturing;
  if (!captured) {
    op->u.e.record = ++ev->records;
    ev->pending++;
  }
  ev->captured = captured;
  pthread_mutex_unlock(&sa.mu);
  cudaError_t e = sa_enqueue(s, op);
  if (e && !captured) {
    pthread_mutex_lock(&sa.mu);
    ev->pending--, ev->records--;
    pthread_mutex_unlock(&sa.mu);
  }
  return e;
}

cudaError_t cudaEventRecord(cudaEvent_t h, cudaStream_t stream) {
  return record(h, stream, cudaEventRecordDefault, "cudaEventRecord");
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t h, cudaStream_t stream, unsigned int flags) {
  if (flags & ~(unsigned)cudaEventRecordExternal) return sa_error(cudaErrorInvalidValue);
  return record(h, stream, flags, "cudaEventRecordWithFlags");
}

/* Under sa.mu: has the latest record completed? A never recorded event is complete (CUDA's rule). */
static int complete(const struct sa_event *ev) { return ev->done >= ev->records; }

static void not_captured(const struct sa_event *ev, const char *call) {
  if (ev->captured) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("%s of an event last recorded in a stream capture (cudaErrorCapturedEvent: a graph's "
                         "events are recorded by its launches)", call);
  }
}

cudaError_t cudaEventQuery(cudaEvent_t h) {
  sa_init();
  pthread_mutex_lock(&sa.mu);
  struct sa_event *ev = event_of(h, "cudaEventQuery");
  not_captured(ev, "cudaEventQuery");
  cudaError_t e = sa_capture_other();
  if (!e) e = sa.sticky ? sa.sticky : complete(ev) ? cudaSuccess : cudaErrorNotReady;
  pthread_mutex_unlock(&sa.mu);
  return e == cudaErrorNotReady ? e : sa_error(e);
}

cudaError_t cudaEventSynchronize(cudaEvent_t h) {
  sa_init();
  pthread_mutex_lock(&sa.mu);
  struct sa_event *ev = event_of(h, "cudaEventSynchronize");
  not_captured(ev, "cudaEventSynchronize");
  cudaError_t refused = sa_capture_other();
  if (refused) {
    pthread_mutex_unlock(&sa.mu);
    return sa_error(refused);
  }
  uint64_t want = ev->records;
  while (ev->done < want && !sa.sticky) pthread_cond_wait(&sa.cv, &sa.mu);
  cudaError_t e = sa.sticky;
  pthread_mutex_unlock(&sa.mu);
  return sa_error(e);
}

/* CUDA's answers: never recorded or created without timing -> cudaErrorInvalidResourceHandle; recorded but not
 * complete -> cudaErrorNotReady; events of two devices are the caller's error. end before start is negative. */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  sa_init();
  if (!ms) return sa_error(cudaErrorInvalidValue);
  pthread_mutex_lock(&sa.mu);
  struct sa_event *a = event_of(start, "cudaEventElapsedTime"), *b = event_of(end, "cudaEventElapsedTime");
  if (a->device != b->device) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaEventElapsedTime between events of devices %d and %d", a->device, b->device);
  }
  cudaError_t e = cudaSuccess;
  if (!a->records || !b->records || (a->flags & cudaEventDisableTiming) || (b->flags & cudaEventDisableTiming))
    e = cudaErrorInvalidResourceHandle;
  else if (!complete(a) || !complete(b))
    e = cudaErrorNotReady;
  else
    *ms = (float)((b->t - a->t) * 1e3);
  pthread_mutex_unlock(&sa.mu);
  return sa_error(e);
}
