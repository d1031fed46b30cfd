/* graph.c — the stand-in's CUDA graphs: a stream capture records its work instead of running it; an executable
 * graph holds copies of that work and each launch queues fresh copies on the stream, in order. */
#include "internal.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define G_MAGIC 0x47524150u
#define X_MAGIC 0x47455845u

struct g_box {
  unsigned magic;
  struct sa_graph g;
};

void sa_graph_add(struct sa_graph *g, struct sa_op *op) {
  if (g->n == g->cap) {
    int cap = g->cap ? 2 * g->cap : 16;
    struct sa_op **t = realloc(g->node, (size_t)cap * sizeof *t);
    if (!t) ar_standin_violation("out of memory recording a stream capture");
    g->node = t, g->cap = cap;
  }
  g->node[g->n++] = op;
}

/* Takes a reference to k for g (under sa.mu). */
static int keep_add(struct sa_graph *g, struct sa_keep *k) {
  struct sa_keep **t = realloc(g->keep, (size_t)(g->nkeep + 1) * sizeof *t);
  if (!t) return -1;
  g->keep = t;
  g->keep[g->nkeep++] = k;
  k->refs++;
  return 0;
}

/* A graph or executable graph going drops its references; the last one runs the user object's destructor. */
static void graph_free(struct sa_graph *g) {
  for (int i = 0; i < g->n; i++) sa_op_free(g->node[i]);
  free(g->node);
  g->node = NULL;
  g->n = g->cap = 0;
  for (int i = 0; i < g->nkeep; i++) {
    struct sa_keep *k = g->keep[i];
    pthread_mutex_lock(&sa.mu);
    int last = --k->refs == 0;
    pthread_mutex_unlock(&sa.mu);
    if (last) k->fn(k->arg), free(k);
  }
  free(g->keep);
  g->keep = NULL;
  g->nkeep = 0;
}

cudaError_t ar_standin_capture_keep(cudaStream_t h, void (*fn)(void *), void *arg) {
  sa_init();
  struct sa_stream *s = sa_stream_of(h, "ar_standin_capture_keep");
  struct sa_keep *k = calloc(1, sizeof *k);
  if (!k) return sa_error(cudaErrorMemoryAllocation);
  k->fn = fn, k->arg = arg;
  pthread_mutex_lock(&sa.mu);
  cudaError_t e = !s->capturing ? cudaErrorIllegalState : keep_add(s->graph, k) ? cudaErrorMemoryAllocation : cudaSuccess;
  pthread_mutex_unlock(&sa.mu);
  if (e) free(k);
  return e ? sa_error(e) : cudaSuccess;
}

static struct g_box *box_new(unsigned magic, int device) {
  struct g_box *b = calloc(1, sizeof *b);
  if (b) b->magic = magic, b->g.device = device;
  return b;
}

static struct sa_graph *graph_of(void *h, unsigned magic, const char *call) {
  struct g_box *b = h;
  if (!b || b->magic != magic)
    ar_standin_violation("%s(%p): not a live %s of this process", call, h, magic == G_MAGIC ? "graph" : "graph exec");
  return &b->g;
}

/* Another thread of the process polls while every capture is open, as NCCL's and arbench's watchdogs (and
 * PyTorch's) do within their poll period on a GPU, where a capture of NCCL plans takes milliseconds: a
 * cudaEventQuery that a Global-mode capture refuses, invalidating it (sa_capture_other). */
static void *poll_event(void *ev) {
  cudaEventQuery((cudaEvent_t)ev);
  return NULL;
}

static cudaEvent_t poll_ev; /* never recorded: complete */

static void make_poll_event(void) {
  if (cudaEventCreateWithFlags(&poll_ev, cudaEventDisableTiming) != cudaSuccess) poll_ev = NULL;
}

static void other_thread_polls(void) {
  pthread_t t;
  if (poll_ev && !pthread_create(&t, NULL, poll_event, poll_ev)) pthread_join(t, NULL);
}

cudaError_t cudaStreamBeginCapture(cudaStream_t h, enum cudaStreamCaptureMode mode) {
  if (!h || h == cudaStreamLegacy) ar_standin_violation("cudaStreamBeginCapture of the legacy default stream");
  struct sa_stream *s = sa_stream_of(h, "cudaStreamBeginCapture");
  if ((unsigned)mode > cudaStreamCaptureModeRelaxed) return sa_error(cudaErrorInvalidValue);
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, make_poll_event);
  struct g_box *b = box_new(G_MAGIC, s->device);
  if (!b) return sa_error(cudaErrorMemoryAllocation);
  pthread_mutex_lock(&sa.mu);
  if (s->capturing) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaStreamBeginCapture of a stream already being captured");
  }
  s->capturing = 1;
  s->invalidated = 0;
  s->mode = mode;
  s->capturer = pthread_self();
  s->graph = &b->g;
  pthread_mutex_unlock(&sa.mu);
  other_thread_polls();
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t h, cudaGraph_t *out) {
  struct sa_stream *s = sa_stream_of(h, "cudaStreamEndCapture");
  if (!out) return sa_error(cudaErrorInvalidValue);
  *out = NULL;
  pthread_mutex_lock(&sa.mu);
  if (!s->capturing) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaStreamEndCapture of a stream that is not being captured (cudaErrorIllegalState)");
  }
  if (s->mode != cudaStreamCaptureModeRelaxed && !pthread_equal(s->capturer, pthread_self())) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaStreamEndCapture from another thread than the one that began the capture "
                         "(cudaErrorStreamCaptureWrongThread)");
  }
  struct sa_graph *g = s->graph;
  int bad = s->invalidated;
  s->capturing = 0;
  s->invalidated = 0;
  s->graph = NULL;
  pthread_mutex_unlock(&sa.mu);
  struct g_box *b = (struct g_box *)((char *)g - offsetof(struct g_box, g));
  if (bad) {
    graph_free(g);
    b->magic = 0;
    free(b);
    return sa_error(cudaErrorStreamCaptureInvalidated);
  }
  *out = (cudaGraph_t)b;
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t h, enum cudaStreamCaptureStatus *st) {
  struct sa_stream *s = sa_stream_of(h, "cudaStreamIsCapturing");
  if (!st) return sa_error(cudaErrorInvalidValue);
  pthread_mutex_lock(&sa.mu);
  *st = !s->capturing ? cudaStreamCaptureStatusNone
        : s->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
  pthread_mutex_unlock(&sa.mu);
  return cudaSuccess;
}

/* Copies of the graph's work (the graph may be destroyed before its executable graph). */
static int copy_nodes(struct sa_graph *to, const struct sa_graph *from) {
  for (int i = 0; i < from->n; i++) {
    struct sa_op *c = sa_op_clone(from->node[i]);
    if (!c) return -1;
    sa_graph_add(to, c);
  }
  return 0;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *out, cudaGraph_t h, unsigned long long flags) {
  sa_init();
  if (!out || flags) return sa_error(cudaErrorInvalidValue);
  struct sa_graph *g = graph_of(h, G_MAGIC, "cudaGraphInstantiate");
  struct g_box *x = box_new(X_MAGIC, g->device);
  int bad = !x || copy_nodes(&x->g, g);
  pthread_mutex_lock(&sa.mu); /* an executable graph holds the user objects of its graph too */
  for (int i = 0; !bad && i < g->nkeep; i++) bad = keep_add(&x->g, g->keep[i]);
  pthread_mutex_unlock(&sa.mu);
  if (bad) {
    if (x) graph_free(&x->g), free(x);
    return sa_error(cudaErrorMemoryAllocation);
  }
  *out = (cudaGraphExec_t)x;
  return cudaSuccess;
}

cudaError_t cudaGraphUpload(cudaGraphExec_t h, cudaStream_t stream) {
  sa_init();
  graph_of(h, X_MAGIC, "cudaGraphUpload");
  sa_stream_of(stream, "cudaGraphUpload");
  return cudaSuccess;
}

/* Each launch queues fresh copies of the work; an event record of the graph counts as a new record. */
cudaError_t cudaGraphLaunch(cudaGraphExec_t h, cudaStream_t stream) {
  sa_init();
  struct sa_graph *g = graph_of(h, X_MAGIC, "cudaGraphLaunch");
  struct sa_stream *s = sa_stream_of(stream, "cudaGraphLaunch");
  if (s->device != g->device)
    ar_standin_violation("cudaGraphLaunch of a graph of device %d on a stream of device %d", g->device, s->device);
  pthread_mutex_lock(&sa.mu);
  int capturing = s->capturing;
  pthread_mutex_unlock(&sa.mu);
  if (capturing) ar_standin_violation("cudaGraphLaunch into a stream being captured (the stand-in has no child graphs)");
  for (int i = 0; i < g->n; i++) {
    struct sa_op *op = sa_op_clone(g->node[i]);
    if (!op) return sa_error(cudaErrorMemoryAllocation);
    if (op->kind == SA_EVENT) {
      pthread_mutex_lock(&sa.mu);
      op->u.e.record = ++op->u.e.ev->records;
      op->u.e.ev->pending++;
      op->u.e.ev->captured = 0;
      pthread_mutex_unlock(&sa.mu);
    }
    cudaError_t e = sa_enqueue(s, op);
    if (e) return e;
  }
  return cudaSuccess;
}

/* A graph or an executable graph goes with the copies of work it holds. */
static cudaError_t destroy(void *h, unsigned magic, const char *call) {
  sa_init();
  struct sa_graph *g = graph_of(h, magic, call);
  struct g_box *b = (struct g_box *)((char *)g - offsetof(struct g_box, g));
  graph_free(g);
  b->magic = 0;
  free(b);
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t h) { return destroy(h, X_MAGIC, "cudaGraphExecDestroy"); }

cudaError_t cudaGraphDestroy(cudaGraph_t h) { return destroy(h, G_MAGIC, "cudaGraphDestroy"); }
