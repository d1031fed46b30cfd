/* stream.c — the stand-in's streams: a worker thread per stream runs its queued work in order (kernels on the
 * grid runner, copies, event records, host functions), the legacy stream's implicit order, synchronisation. */
#include "internal.h"
#include "ar_emu_fiber.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double sa_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct sa_op *sa_op_new(enum sa_kind kind, const char *what) {
  struct sa_op *op = calloc(1, sizeof *op);
  if (op) op->kind = kind, op->what = what;
  return op;
}

void sa_op_free(struct sa_op *op) {
  if (!op) return;
  if (op->kind == SA_KERNEL && op->u.k.job) op->u.k.release(op->u.k.job);
  if (op->kind == SA_COPY && op->u.c.staged) free((void *)op->u.c.src);
  if (op->kind == SA_WORK) free(op->u.w.arg);
  free(op->dep);
  free(op);
}

/* A copy of recorded work for a graph replay (its own job, staging or argument bytes). */
struct sa_op *sa_op_clone(const struct sa_op *op) {
  struct sa_op *c = malloc(sizeof *c);
  if (!c) return NULL;
  *c = *op;
  c->next = NULL;
  c->dep = NULL;
  c->ndep = 0;
  int ok = 1;
  if (op->kind == SA_KERNEL) ok = (c->u.k.job = op->u.k.clone(op->u.k.job)) != NULL;
  if (op->kind == SA_COPY && op->u.c.staged) {
    void *b = malloc(op->u.c.bytes + 1);
    if ((ok = b != NULL)) memcpy(b, op->u.c.src, op->u.c.bytes);
    c->u.c.src = b;
  }
  if (op->kind == SA_WORK) {
    void *b = malloc(op->u.w.bytes + 1);
    if ((ok = b != NULL)) memcpy(b, op->u.w.arg, op->u.w.bytes);
    c->u.w.arg = b;
  }
  if (!ok) {
    if (op->kind == SA_KERNEL) c->u.k.job = NULL;
    sa_op_free(c);
    return NULL;
  }
  return c;
}

/* ---- the worker ---- */

static void timed_wait(double until) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  double left = until - sa_now(), t = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec + (left > 0 ? left : 0);
  struct timespec at = {(time_t)t, (long)((t - (double)(time_t)t) * 1e9)};
  pthread_cond_timedwait(&sa.cv, &sa.mu, &at);
}

static int deps_done(const struct sa_op *op) {
  for (int i = 0; i < op->ndep; i++)
    if (op->dep[i].s->done < op->dep[i].seq) return 0;
  return 1;
}

static cudaError_t run_set(struct sa_op *op) {
  memset(op->u.m.dst, op->u.m.value, op->u.m.bytes);
  return cudaSuccess;
}

/* Runs one piece of work on the worker, without the lock. 0 or the error that becomes sticky. */
static cudaError_t run_op(struct sa_stream *s, struct sa_op *op) {
  switch (op->kind) {
  case SA_KERNEL: return sa_run_kernel(s, op);
  case SA_COPY: sa_run_copy(op); return cudaSuccess;
  case SA_SET: return run_set(op);
  case SA_HOST: op->u.h.fn(op->u.h.data); return cudaSuccess;
  case SA_WORK: return (cudaError_t)op->u.w.fn(op->u.w.arg);
  case SA_EVENT: return cudaSuccess; /* completed under the lock, below */
  }
  return cudaSuccess;
}

/* A destroyed stream leaves the list of live ones but stays allocated (work queued elsewhere may still name it
 * as a dependency, already met): sa.dead keeps it. Under sa.mu. */
static void retire(struct sa_stream *s) {
  for (struct sa_stream **pp = &sa.all; *pp; pp = &(*pp)->next_all)
    if (*pp == s) {
      *pp = s->next_all;
      break;
    }
  s->next_all = sa.dead;
  sa.dead = s;
  sa_slot_give(s->slot);
  s->slot = -1;
}

static void *worker(void *p) {
  struct sa_stream *s = p;
  pthread_mutex_lock(&sa.mu);
  for (;;) {
    struct sa_op *op = s->head;
    if (!op) {
      if (s->destroying) break;
      pthread_cond_wait(&sa.cv, &sa.mu);
      continue;
    }
    if (sa_hung(s) || !deps_done(op)) { /* a hung device never starts it */
      pthread_cond_wait(&sa.cv, &sa.mu);
      continue;
    }
    if (sa_now() < op->ready_at) {
      timed_wait(op->ready_at);
      continue;
    }
    pthread_mutex_unlock(&sa.mu);
    cudaError_t e = run_op(s, op);
    pthread_mutex_lock(&sa.mu);
    if (op->kind == SA_EVENT) sa_event_done(op->u.e.ev, op->u.e.record);
    if (e && !sa.sticky) {
      sa.sticky = e;
      fprintf(stderr, "arbench cuda stand-in: rank %d: %s failed on a stream of device %d: %s (sticky: every later "
              "call returns it)\n", sa.rank, op->what ? op->what : "work", s->device, cudaGetErrorString(e));
    }
    s->head = op->next;
    if (!s->head) s->tail = NULL;
    s->done = op->seq;
    pthread_cond_broadcast(&sa.cv);
    pthread_mutex_unlock(&sa.mu);
    sa_op_free(op);
    pthread_mutex_lock(&sa.mu);
  }
  retire(s); /* destroyed and drained */
  struct ar_emu_fiber_grid *g = s->grid;
  s->grid = NULL;
  pthread_mutex_unlock(&sa.mu);
  ar_emu_fiber_close(g);
  return NULL;
}

/* ---- queuing ---- */

/* The legacy stream's implicit order (CUDA Runtime API, "stream synchronization behavior"): its work waits for
 * the work queued before it on every blocking stream of the device, and a blocking stream's work waits for the
 * legacy stream's. Under sa.mu. */
static int implicit_deps(struct sa_stream *s, struct sa_op *op) {
  int n = 0;
  for (struct sa_stream *t = sa.all; t; t = t->next_all)
    n += t != s && t->device == s->device && !t->nonblocking && (s->legacy || t->legacy) && t->queued > t->done;
  if (!n) return 0;
  op->dep = calloc((size_t)n, sizeof *op->dep);
  if (!op->dep) return -1;
  for (struct sa_stream *t = sa.all; t; t = t->next_all)
    if (t != s && t->device == s->device && !t->nonblocking && (s->legacy || t->legacy) && t->queued > t->done)
      op->dep[op->ndep++] = (struct sa_dep){t, t->queued};
  return 0;
}

/* A blocking stream of the device that is being captured: the legacy stream may not be used then. */
static struct sa_stream *capturing_blocking(int device) {
  for (struct sa_stream *t = sa.all; t; t = t->next_all)
    if (t->device == device && !t->nonblocking && !t->legacy && t->capturing) return t;
  return NULL;
}

static int start_worker(struct sa_stream *s) {
  if (s->started) return 0;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&s->thread, &attr, worker, s);
  pthread_attr_destroy(&attr);
  if (rc) return -1;
  s->started = 1;
  return 0;
}

cudaError_t sa_enqueue(struct sa_stream *s, struct sa_op *op) {
  pthread_mutex_lock(&sa.mu);
  if (s->capturing) {
    cudaError_t e = s->invalidated ? cudaErrorStreamCaptureInvalidated : cudaSuccess;
    if (!e) sa_graph_add(s->graph, op);
    pthread_mutex_unlock(&sa.mu);
    if (e) sa_op_free(op);
    return sa_error(e);
  }
  if (s->legacy && capturing_blocking(s->device)) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("%s on the legacy default stream while a blocking stream of device %d is being captured: "
                         "CUDA refuses it and invalidates the capture (cudaErrorStreamCaptureImplicit)",
                         op->what ? op->what : "work", s->device);
  }
  if (sa.sticky) {
    cudaError_t e = sa.sticky;
    pthread_mutex_unlock(&sa.mu);
    sa_op_free(op);
    return sa_error(e);
  }
  if (implicit_deps(s, op) || start_worker(s)) {
    pthread_mutex_unlock(&sa.mu);
    sa_op_free(op);
    return sa_error(cudaErrorMemoryAllocation);
  }
  op->seq = ++s->queued;
  op->ready_at = sa_now() + SA_LATENCY_S;
  if (s->tail) s->tail->next = op;
  else s->head = op;
  s->tail = op;
  pthread_cond_broadcast(&sa.cv);
  pthread_mutex_unlock(&sa.mu);
  return cudaSuccess;
}

/* ---- stream handles ---- */

static struct sa_stream *stream_new(int device, int legacy, int nonblocking) {
  struct sa_stream *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->device = device;
  s->legacy = legacy;
  s->nonblocking = nonblocking;
  s->slot = -1;
  s->next_all = sa.all;
  sa.all = s;
  return s;
}

static int known(struct sa_stream *s) {
  for (struct sa_stream *t = sa.all; t; t = t->next_all)
    if (t == s && !t->destroying) return 1;
  return 0;
}

struct sa_stream *sa_stream_of(cudaStream_t h, const char *call) {
  sa_init();
  if (h == cudaStreamPerThread)
    ar_standin_violation("%s on cudaStreamPerThread: the stand-in has no per-thread default stream", call);
  pthread_mutex_lock(&sa.mu);
  struct sa_stream *s;
  if (!h || h == cudaStreamLegacy) {
    int d = sa_device();
    if (!sa.legacy[d]) sa.legacy[d] = stream_new(d, 1, 0);
    s = sa.legacy[d];
  } else {
    s = (struct sa_stream *)h;
    if (!known(s)) {
      pthread_mutex_unlock(&sa.mu);
      ar_standin_violation("%s on stream %p, which is not a live stream of this process (destroyed, or never "
                           "created)", call, (void *)h);
    }
  }
  pthread_mutex_unlock(&sa.mu);
  if (!s) ar_standin_violation("%s: out of memory creating the legacy stream", call);
  return s;
}

void sa_wait_stream(struct sa_stream *s, uint64_t upto) {
  while (s->done < upto) pthread_cond_wait(&sa.cv, &sa.mu);
}

void sa_sync_device(int device) {
  for (;;) {
    struct sa_stream *busy = NULL;
    for (struct sa_stream *t = sa.all; t && !busy; t = t->next_all)
      if (t->device == device && t->done < t->queued) busy = t;
    if (!busy) return;
    pthread_cond_wait(&sa.cv, &sa.mu);
  }
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *p, unsigned int flags) {
  sa_init();
  if (!p || (flags & ~(unsigned)cudaStreamNonBlocking)) return sa_error(cudaErrorInvalidValue);
  pthread_mutex_lock(&sa.mu);
  struct sa_stream *s = stream_new(sa_device(), 0, (flags & cudaStreamNonBlocking) != 0);
  cudaError_t e = sa.sticky ? sa.sticky : s ? cudaSuccess : cudaErrorMemoryAllocation;
  pthread_mutex_unlock(&sa.mu);
  if (e) return sa_error(e);
  *p = (cudaStream_t)s;
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *p) { return cudaStreamCreateWithFlags(p, cudaStreamDefault); }

/* Returns at once; the stream's resources go when its queued work is done (CUDA's rule). */
cudaError_t cudaStreamDestroy(cudaStream_t h) {
  if (!h || h == cudaStreamLegacy) return sa_error(cudaErrorInvalidResourceHandle);
  struct sa_stream *s = sa_stream_of(h, "cudaStreamDestroy");
  pthread_mutex_lock(&sa.mu);
  if (s->capturing) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaStreamDestroy of a stream being captured into a CUDA graph");
  }
  s->destroying = 1;
  if (!s->started) retire(s); /* no worker to drain it */
  pthread_cond_broadcast(&sa.cv);
  pthread_mutex_unlock(&sa.mu);
  return cudaSuccess;
}

static void not_while_capturing(struct sa_stream *s, const char *call) {
  if (s->capturing) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("%s on a stream being captured into a CUDA graph: CUDA refuses it and invalidates the "
                         "capture (cudaErrorStreamCaptureUnsupported)", call);
  }
}

cudaError_t cudaStreamSynchronize(cudaStream_t h) {
  struct sa_stream *s = sa_stream_of(h, "cudaStreamSynchronize");
  pthread_mutex_lock(&sa.mu);
  not_while_capturing(s, "cudaStreamSynchronize");
  if (s->legacy) sa_capture_illegal("cudaStreamSynchronize of the legacy stream");
  cudaError_t e = sa_capture_other();
  if (e) {
    pthread_mutex_unlock(&sa.mu);
    return sa_error(e);
  }
  sa_wait_stream(s, s->queued);
  e = sa.sticky;
  pthread_mutex_unlock(&sa.mu);
  return sa_error(e);
}

/* cudaErrorNotReady is an answer, not an error: it does not become the last error. */
cudaError_t cudaStreamQuery(cudaStream_t h) {
  struct sa_stream *s = sa_stream_of(h, "cudaStreamQuery");
  pthread_mutex_lock(&sa.mu);
  not_while_capturing(s, "cudaStreamQuery");
  cudaError_t e = sa_capture_other();
  if (!e) e = sa.sticky ? sa.sticky : s->done < s->queued ? cudaErrorNotReady : cudaSuccess;
  pthread_mutex_unlock(&sa.mu);
  return e == cudaErrorNotReady ? e : sa_error(e);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t h, cudaHostFn_t fn, void *data) {
  if (!fn) return sa_error(cudaErrorInvalidValue);
  struct sa_stream *s = sa_stream_of(h, "cudaLaunchHostFunc");
  struct sa_op *op = sa_op_new(SA_HOST, "a host function");
  if (!op) return sa_error(cudaErrorMemoryAllocation);
  op->u.h.fn = fn;
  op->u.h.data = data;
  return sa_enqueue(s, op);
}

cudaError_t ar_standin_enqueue(cudaStream_t h, ar_standin_work_fn fn, const void *arg, size_t bytes,
                               const char *what) {
  if (!fn || (bytes && !arg)) return sa_error(cudaErrorInvalidValue);
  struct sa_stream *s = sa_stream_of(h, what ? what : "ar_standin_enqueue");
  struct sa_op *op = sa_op_new(SA_WORK, what);
  void *copy = malloc(bytes + 1);
  if (!op || !copy) {
    free(op), free(copy);
    return sa_error(cudaErrorMemoryAllocation);
  }
  if (bytes) memcpy(copy, arg, bytes);
  op->u.w.fn = fn;
  op->u.w.arg = copy;
  op->u.w.bytes = bytes;
  return sa_enqueue(s, op);
}
