/* platform_cuda.c — the device platform: cudaMalloc buffers, pattern fill/check on the GPU (nvcc
 * kernels, or staged through host memory when the stack has no nvcc), CUDA event and graph timing. */
#include "ar_config.h"
#include "ar_pattern.h"
#include "dtype.h"
#include "device/gpu.h"
#include "device/device.h"
#include "device/platform.h"
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR_EVENT_WINDOW 32 /* iterations (or graph replays) in flight before the host waits */

static int dev_alloc(size_t bytes, void **p, char *err, size_t len) {
  cudaError_t rc = cudaMalloc(p, bytes ? bytes : 256);
  if (rc != cudaSuccess) {
    snprintf(err, len, "cudaMalloc of %zu bytes failed: %s", bytes, cudaGetErrorString(rc));
    cudaGetLastError();
    return -AR_ERUNTIME;
  }
  return 0;
}

static void dev_release(void *p) { cudaFree(p); }

#if AR_HAVE_NVCC
static int dev_fill(void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int rank, int nranks) {
  if (ar_cu_fill(buf, count, (int)dt, (int)op, rank, nranks, NULL)) return -AR_ERUNTIME;
  return cudaStreamSynchronize(NULL) == cudaSuccess ? 0 : -AR_ERUNTIME;
}

static int dev_check(const void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int nranks,
                     uint64_t *wrong) {
  unsigned long long *d = NULL, h = 0;
  if (cudaMalloc((void **)&d, sizeof *d) != cudaSuccess) return -AR_ERUNTIME;
  int rc = cudaMemset(d, 0, sizeof *d) == cudaSuccess ? 0 : -AR_ERUNTIME;
  if (!rc && ar_cu_check(buf, count, (int)dt, (int)op, nranks, d, NULL)) rc = -AR_ERUNTIME;
  if (!rc && cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) rc = -AR_ERUNTIME;
  cudaFree(d);
  *wrong = h;
  return rc;
}
#else
/* No nvcc in this stack (e.g. CUDA 12.8 from wheels): the same pattern, staged through the host. */
static int dev_fill(void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int rank, int nranks) {
  size_t es = ar_dtype_size(dt);
  void *h = malloc(count * es + 1);
  if (!h) return -AR_ERUNTIME;
  if (rank < 0) {
    uint32_t bits = ar_pat_poison((int)dt);
    for (size_t i = 0; i < count; i++) {
      if (es == 2) ((uint16_t *)h)[i] = (uint16_t)bits;
      else ((uint32_t *)h)[i] = bits;
    }
  } else {
    ar_host_fill(h, count, dt, op, rank, nranks);
  }
  /* A cudaMemcpy from pageable memory may return before its DMA lands, and it is ordered only on
   * the legacy stream, not before the engine's non-blocking stream where the collective runs: wait
   * for the copy itself before the host (and so the next collective) goes on. */
  int rc = cudaMemcpyAsync(buf, h, count * es, cudaMemcpyHostToDevice, cudaStreamLegacy) == cudaSuccess &&
                   cudaStreamSynchronize(cudaStreamLegacy) == cudaSuccess
               ? 0
               : -AR_ERUNTIME;
  free(h);
  return rc;
}

static int dev_check(const void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int nranks,
                     uint64_t *wrong) {
  void *h = malloc(count * ar_dtype_size(dt) + 1);
  if (!h) return -AR_ERUNTIME;
  int rc = cudaMemcpy(h, buf, count * ar_dtype_size(dt), cudaMemcpyDeviceToHost) == cudaSuccess ? 0 : -AR_ERUNTIME;
  *wrong = rc ? 0 : ar_host_check(h, count, dt, op, nranks);
  free(h);
  return rc;
}
#endif

/* Events for the window of in-flight iterations. */
struct window {
  cudaEvent_t start[AR_EVENT_WINDOW], stop[AR_EVENT_WINDOW];
  int n;
};

static void window_free(struct window *w) {
  for (int i = 0; i < w->n; i++) {
    cudaEventDestroy(w->start[i]);
    cudaEventDestroy(w->stop[i]);
  }
  w->n = 0;
}

static int window_create(struct window *w, char *err, size_t len) {
  w->n = 0;
  for (int i = 0; i < AR_EVENT_WINDOW; i++) {
    if (cudaEventCreate(&w->start[i]) != cudaSuccess || cudaEventCreate(&w->stop[i]) != cudaSuccess) {
      snprintf(err, len, "cudaEventCreate failed: %s", cudaGetErrorString(cudaGetLastError()));
      window_free(w);
      return -AR_ERUNTIME;
    }
    w->n = i + 1;
  }
  return 0;
}

/* The backend's hooks (backend.h); a backend without them (AR_BE_WATCHDOG_ONLY) has nothing to say. */
static int be_aborted(const struct ar_loop *l, char *err, size_t len) {
  return l->be->aborted ? l->be->aborted(l->state, err, len) : 0;
}

static void be_quiet(const struct ar_loop *l, int quiet) {
  if (l->be->quiet) l->be->quiet(l->state, quiet);
}

static void be_progress(const struct ar_loop *l, int per) {
  if (l->be->progress) l->be->progress(l->state, l->heartbeat, per);
}

/* Wait for slot i of the window; store its time / per when it is a timed one (i >= skip). */
static int harvest(const struct ar_loop *l, struct window *w, int i, int skip, int per, double *samples,
                   char *err, size_t len) {
  int s = i % AR_EVENT_WINDOW;
  float ms = 0;
  cudaError_t rc = cudaEventSynchronize(w->stop[s]);
  if (rc == cudaSuccess && i >= skip) rc = cudaEventElapsedTime(&ms, w->start[s], w->stop[s]);
  if (rc != cudaSuccess) {
    snprintf(err, len, "%s: waiting for iteration %d failed: %s", l->be->name, i, cudaGetErrorString(rc));
    return -AR_ERUNTIME;
  }
  if (i >= skip) samples[i - skip] = (double)ms * 1000.0 / per;
  /* A kernel that gave up (p2p status) ended normally: the heartbeat moves only if the calls succeeded. */
  return ar_unit_settle(0, l->be->aborted, l->state, l->heartbeat, per, err, len);
}

/* One unit of work: allreduce i (graphs == NULL) or replay i of graph i % ngraphs. */
static int launch(const struct ar_loop *l, const cudaGraphExec_t *graphs, int ngraphs, int i, char *err, size_t len) {
  cudaStream_t s = (cudaStream_t)l->stream;
  if (graphs) {
    cudaError_t rc = cudaGraphLaunch(graphs[i % ngraphs], s);
    if (rc != cudaSuccess) snprintf(err, len, "cudaGraphLaunch failed: %s", cudaGetErrorString(rc));
    return rc == cudaSuccess ? 0 : -AR_ERUNTIME;
  }
  int k = i % l->nsets;
  int rc = l->be->allreduce(l->state, l->in[k], l->out[k], l->count, l->dt, l->op, l->stream);
  if (rc) snprintf(err, len, "%s allreduce failed in iteration %d (%s)", l->be->name, i, ar_status_name(rc));
  return rc;
}

/* total units, the first skip of them warm-up; per = allreduces per unit. At most about
 * AR_EVENT_WINDOW allreduces (at least 2 units) are queued ahead, so a hang is seen within -T. */
static int timed_units(const struct ar_loop *l, const cudaGraphExec_t *graphs, int ngraphs, int total, int skip,
                       int per, double *samples, char *err, size_t len) {
  int depth = ar_loop_depth(AR_EVENT_WINDOW, per);
  struct window w;
  int rc = window_create(&w, err, len);
  cudaStream_t s = (cudaStream_t)l->stream;
  int done = 0;
  for (int i = 0; !rc && i < total; i++) {
    if (ar_loop_must_wait(i, done, depth)) rc = harvest(l, &w, done++, skip, per, samples, err, len);
    int slot = i % AR_EVENT_WINDOW;
    if (!rc) rc = be_aborted(l, err, len); /* never replay into an aborted comm */
    if (!rc && cudaEventRecord(w.start[slot], s) != cudaSuccess) rc = -AR_ERUNTIME;
    if (!rc) rc = launch(l, graphs, ngraphs, i, err, len);
    if (!rc && cudaEventRecord(w.stop[slot], s) != cudaSuccess) rc = -AR_ERUNTIME;
    if (rc && !*err) snprintf(err, len, "cudaEventRecord failed: %s", cudaGetErrorString(cudaGetLastError()));
  }
  while (!rc && done < total) rc = harvest(l, &w, done++, skip, per, samples, err, len);
  if (rc) cudaStreamSynchronize(s);
  window_free(&w);
  return rc;
}

/* Wait for the end event of one --timing loop unit: the heartbeat moves only when it ended and succeeded. */
static int unit_ended(const struct ar_loop *l, cudaEvent_t e, int per, char *err, size_t len) {
  cudaError_t rc = cudaEventSynchronize(e);
  if (rc != cudaSuccess) {
    snprintf(err, len, "%s: waiting for a timed unit failed: %s", l->be->name, cudaGetErrorString(rc));
    return -AR_ERUNTIME;
  }
  return ar_unit_settle(0, l->be->aborted, l->state, l->heartbeat, per, err, len);
}

/* --timing loop: warm-up units waited for, then one event pair around all timed units; one sample, the
 * interval / (units * per). Each unit also records an untimed end event, and at most depth units run ahead of
 * the host (as timed_units): the heartbeat moves as units end on the GPU, not as they are queued, so a long
 * queue never trips the watchdog before a kernel's own timeout names the peer. */
static int timed_interval(const struct ar_loop *l, const cudaGraphExec_t *graphs, int ngraphs, int warm, int units,
                          int per, double *samples, char *err, size_t len) {
  cudaStream_t s = (cudaStream_t)l->stream;
  cudaEvent_t ev[2] = {NULL, NULL}, end[AR_EVENT_WINDOW] = {NULL};
  float ms = 0;
  int rc = 0, depth = ar_loop_depth(AR_EVENT_WINDOW, per), ended = 0;
  for (int i = 0; !rc && i < 2; i++)
    if (cudaEventCreate(&ev[i]) != cudaSuccess) rc = -AR_ERUNTIME;
  for (int i = 0; !rc && i < AR_EVENT_WINDOW; i++)
    if (cudaEventCreateWithFlags(&end[i], cudaEventDisableTiming) != cudaSuccess) rc = -AR_ERUNTIME;
  for (int i = 0; !rc && i < warm; i++) rc = launch(l, graphs, ngraphs, i, err, len);
  if (!rc && cudaStreamSynchronize(s) != cudaSuccess) rc = -AR_ERUNTIME;
  if (!rc && cudaEventRecord(ev[0], s) != cudaSuccess) rc = -AR_ERUNTIME;
  for (int i = 0; !rc && i < units; i++) {
    if (ar_loop_must_wait(i, ended, depth)) rc = unit_ended(l, end[ended++ % AR_EVENT_WINDOW], per, err, len);
    if (!rc) rc = be_aborted(l, err, len);
    if (!rc) rc = launch(l, graphs, ngraphs, warm + i, err, len);
    if (!rc && cudaEventRecord(end[i % AR_EVENT_WINDOW], s) != cudaSuccess) rc = -AR_ERUNTIME;
  }
  if (!rc && cudaEventRecord(ev[1], s) != cudaSuccess) rc = -AR_ERUNTIME;
  while (!rc && ended < units) rc = unit_ended(l, end[ended++ % AR_EVENT_WINDOW], per, err, len);
  if (!rc && cudaEventSynchronize(ev[1]) != cudaSuccess) rc = -AR_ERUNTIME;
  if (!rc && cudaEventElapsedTime(&ms, ev[0], ev[1]) != cudaSuccess) rc = -AR_ERUNTIME;
  if (rc && !*err)
    snprintf(err, len, "%s: timing the loop failed: %s", l->be->name, cudaGetErrorString(cudaGetLastError()));
  if (rc) cudaStreamSynchronize(s);
  else samples[0] = (double)ms * 1000.0 / ((double)units * per);
  for (int i = 0; i < 2; i++)
    if (ev[i]) cudaEventDestroy(ev[i]);
  for (int i = 0; i < AR_EVENT_WINDOW; i++)
    if (end[i]) cudaEventDestroy(end[i]);
  return rc;
}

/* Capture iterations first..first+K-1 (their buffer sets of the rotation) into an executable graph. */
static int capture(const struct ar_loop *l, int first, cudaGraphExec_t *exec, char *err, size_t len) {
  cudaStream_t s = (cudaStream_t)l->stream;
  cudaGraph_t g = NULL;
  be_quiet(l, 1);
  cudaError_t crc = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  if (crc != cudaSuccess) {
    be_quiet(l, 0);
    snprintf(err, len, "cudaStreamBeginCapture failed: %s", cudaGetErrorString(crc));
    return -AR_ERUNTIME;
  }
  int rc = 0;
  for (int j = 0; !rc && j < l->graph; j++) rc = launch(l, NULL, 0, first + j, err, len);
  crc = cudaStreamEndCapture(s, &g);
  be_quiet(l, 0);
  if (!rc && crc != cudaSuccess) {
    snprintf(err, len, "%s: capturing %d allreduces in a CUDA graph failed: %s", l->be->name, l->graph,
             cudaGetErrorString(crc));
    rc = -AR_ERUNTIME;
  }
  if (!rc && (crc = cudaGraphInstantiate(exec, g, 0)) != cudaSuccess) {
    snprintf(err, len, "cudaGraphInstantiate failed: %s", cudaGetErrorString(crc));
    rc = -AR_ERUNTIME;
  }
  if (!rc && (crc = cudaGraphUpload(*exec, s)) != cudaSuccess) {
    snprintf(err, len, "cudaGraphUpload failed: %s", cudaGetErrorString(crc));
    cudaGraphExecDestroy(*exec);
    rc = -AR_ERUNTIME;
  }
  if (g) cudaGraphDestroy(g);
  cudaGetLastError();
  return rc;
}

/* -G K: graph g holds iterations g*K..g*K+K-1, so the graphs together rotate over the same buffer
 * sets as plain launches (one graph alone would replay K sets and read them from L2). Replays go
 * round the graphs; each is replayed once in warm-up. On an error every graph is destroyed (an
 * aborted NCCL communicator waits for the graphs that captured it). */
static int graph_loop(const struct ar_loop *l, double *samples, int n, char *err, size_t len) {
  int ngraphs = ar_graph_count(l->nsets, l->graph, AR_MAX_GRAPHS), made = 0, rc = 0;
  cudaGraphExec_t *exec = calloc((size_t)ngraphs, sizeof *exec);
  if (!exec) {
    snprintf(err, len, "out of memory");
    return -AR_ERUNTIME;
  }
  for (; !rc && made < ngraphs; made++) {
    rc = capture(l, made * l->graph, &exec[made], err, len);
    if (rc) break;
  }
  int warm = ar_graph_warm(l->warmup, l->graph, ngraphs);
  if (!rc) {
    be_progress(l, l->graph);
    if (l->loop) rc = timed_interval(l, exec, ngraphs, warm, n, l->graph, samples, err, len);
    else rc = timed_units(l, exec, ngraphs, warm + n, warm, l->graph, samples, err, len);
  }
  for (int g = 0; g < made; g++) cudaGraphExecDestroy(exec[g]);
  free(exec);
  return rc;
}

static int dev_time_loop(const struct ar_loop *l, double *samples, char *err, size_t len) {
  int rc, n;
  *err = 0;
  if (!l->graph) {
    be_progress(l, 1);
    if (l->loop) rc = timed_interval(l, NULL, 0, l->warmup, l->iters, 1, samples, err, len);
    else rc = timed_units(l, NULL, 0, l->warmup + l->iters, l->warmup, 1, samples, err, len);
    n = l->loop ? 1 : l->iters;
  } else {
    if (!(l->be->flags & AR_BE_GRAPH)) {
      snprintf(err, len, "%s cannot be captured in a CUDA graph (-G)", l->be->name);
      return -AR_EUNAVAIL;
    }
    n = l->iters / l->graph;
    rc = graph_loop(l, samples, n, err, len);
    if (l->loop) n = 1;
  }
  int hrc = l->be->health ? l->be->health(l->state, err, len) : 0; /* also ends the progress hook */
  if (hrc) return hrc;
  return rc ? rc : n;
}

static size_t dev_cache_bytes(void) {
  int dev = 0, l2 = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess ||
      l2 <= 0)
    return (size_t)64 << 20;
  return (size_t)l2;
}

static int dev_sync(void *stream) {
  return cudaStreamSynchronize((cudaStream_t)stream) == cudaSuccess ? 0 : -AR_ERUNTIME;
}

/* The device's sticky error, which a fault in a kernel leaves (cudaErrorIllegalAddress, driver_types.h:763-775: "any
 * further CUDA work will return the same error"): the first read clears a stale error of an earlier call (not this
 * failure's), the second is the sticky one, which no read clears. */
static int dev_why(char *err, size_t len) {
  cudaGetLastError();
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return 0;
  snprintf(err, len, "the GPU reports %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
  return 1;
}

/* Does this binary hold a kernel image (or PTX) the current device can run? Asked before the engine
 * fills anything, so a missing arch is named instead of "filling input buffers failed". */
static int kernel_image(char *err, size_t len) {
#if AR_HAVE_NVCC
  int rc = ar_cu_image();
  if (rc == cudaErrorNoKernelImageForDevice || rc == cudaErrorInvalidDeviceFunction ||
      rc == cudaErrorUnsupportedPtxVersion) {
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    snprintf(err, len, "no kernel image for sm_%d%d in this binary (built for %s; rebuild with -Dcuda-archs=%d%d)",
             major, minor, AR_CUDA_ARCHS, major, minor);
    cudaGetLastError();
    return -AR_ERUNTIME; /* a build for the wrong GPU: an error (exit 1), not a quiet skip */
  }
  if (rc) {
    snprintf(err, len, "checking the fill kernel failed: %s", cudaGetErrorString((cudaError_t)rc));
    cudaGetLastError();
    return -AR_ERUNTIME;
  }
#else
  (void)err;
  (void)len;
#endif
  return 0;
}

static int dev_stream_create(void **stream, char *err, size_t len) {
  int krc = kernel_image(err, len);
  if (krc) return krc;
  cudaStream_t s;
  cudaError_t rc = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (rc != cudaSuccess) {
    snprintf(err, len, "cudaStreamCreate failed: %s", cudaGetErrorString(rc));
    return -AR_ERUNTIME;
  }
  *stream = s;
  return 0;
}

static void dev_stream_destroy(void *stream) { cudaStreamDestroy((cudaStream_t)stream); }

static const struct ar_platform device_platform = {
  .name = "device",
  .alloc = dev_alloc,
  .release = dev_release,
  .fill = dev_fill,
  .check = dev_check,
  .time_loop = dev_time_loop,
  .cache_bytes = dev_cache_bytes,
  .sync = dev_sync,
  .why = dev_why,
  .stream_create = dev_stream_create,
  .stream_destroy = dev_stream_destroy,
};

const struct ar_platform *ar_device_platform(void) { return &device_platform; }
