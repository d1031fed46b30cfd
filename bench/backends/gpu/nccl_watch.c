/* nccl_watch.c — deadlines for the nccl backend: communicator waits with a deadline, and a watchdog
 * thread that aborts a communicator whose work does not finish within -T (before the host watchdog). */
#include "ar.h"
#include "backends/gpu/nccl_priv.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

double ar_nccl_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void nap_ms(int ms) {
  struct timespec t = {0, (long)ms * 1000000L};
  nanosleep(&t, NULL);
}

/* The watchdog fires before the host watchdog (which _exit()s after -T without progress). */
static double deadline_of(const struct ar_nccl *s) { return s->timeout * 0.8; }

void ar_nccl_abort(struct ar_nccl *s, const char *why) {
  if (__atomic_exchange_n(&s->aborted, 1, __ATOMIC_ACQ_REL)) return;
  const struct ar_env *env = s->env;
  snprintf(s->abort_msg, sizeof s->abort_msg,
           "timeout: nccl%s%s allreduce of %zu bytes (%s) on rank %d %s; aborted the NCCL communicator",
           *s->variant ? ":" : "", s->variant, __atomic_load_n(&s->last_bytes, __ATOMIC_RELAXED),
           ar_dtype_name((enum ar_dtype)__atomic_load_n(&s->last_dtype, __ATOMIC_RELAXED)), env->rank, why);
  fprintf(stderr, "arbench: rank %d: %s\n", env->rank, s->abort_msg);
  fflush(stderr);
  ncclCommAbort(s->comm);
}

int ar_nccl_wait_comm(struct ar_nccl *s, const char *what, char *err, size_t len) {
  double t0 = ar_nccl_now();
  ncclResult_t st = ncclInProgress;
  for (;;) {
    ncclResult_t rc = ncclCommGetAsyncError(s->comm, &st);
    if (rc != ncclSuccess) st = rc;
    if (st != ncclInProgress) break;
    if (__atomic_load_n(&s->aborted, __ATOMIC_ACQUIRE)) {
      snprintf(err, len, "%s", s->abort_msg);
      return -AR_ETIMEOUT;
    }
    if (s->timeout > 0 && ar_nccl_now() - t0 > deadline_of(s)) {
      char why[160];
      snprintf(why, sizeof why, "%s did not finish within %.3g s (-T %g)", what, deadline_of(s), s->timeout);
      pthread_mutex_lock(&s->lock); /* not while the watchdog thread is looking at the comm */
      ar_nccl_abort(s, why);        /* guarded: aborts once, whichever thread comes first */
      pthread_mutex_unlock(&s->lock);
      snprintf(err, len, "%s", s->abort_msg);
      return -AR_ETIMEOUT;
    }
    nap_ms(1);
  }
  if (st == ncclSuccess) return 0;
  snprintf(err, len, "nccl: %s failed: %s (%s)", what, ncclGetErrorString(st), ncclGetLastError(s->comm));
  return -AR_ERUNTIME;
}

int ar_nccl_wait_stream(struct ar_nccl *s, cudaStream_t stream, char *err, size_t len) {
  double t0 = ar_nccl_now();
  cudaError_t rc;
  while ((rc = cudaStreamQuery(stream)) == cudaErrorNotReady) {
    if (s->timeout > 0 && ar_nccl_now() - t0 > s->timeout) {
      snprintf(err, len, "nccl: probe collectives did not finish within %g s (-T)", s->timeout);
      pthread_mutex_lock(&s->lock);
      ar_nccl_abort(s, "did not finish (setup probes)");
      pthread_mutex_unlock(&s->lock);
      cudaStreamSynchronize(stream);
      return -AR_ETIMEOUT;
    }
    nap_ms(1);
  }
  if (__atomic_load_n(&s->aborted, __ATOMIC_ACQUIRE)) { /* aborted kernels end "successfully" */
    snprintf(err, len, "%s", s->abort_msg);
    return -AR_ETIMEOUT;
  }
  if (rc == cudaSuccess) return 0;
  snprintf(err, len, "nccl: waiting for the probe collectives failed: %s", cudaGetErrorString(rc));
  return -AR_ERUNTIME;
}

/* One look: asynchronous NCCL error, or the marker at the stream's tail overdue. */
static void watch_once(struct ar_nccl *s) {
  ncclResult_t st = ncclSuccess;
  if (ncclCommGetAsyncError(s->comm, &st) == ncclSuccess && st != ncclSuccess && st != ncclInProgress) {
    char why[256];
    snprintf(why, sizeof why, "failed: NCCL reported %s", ncclGetErrorString(st));
    ar_nccl_abort(s, why);
    return;
  }
  double now = ar_nccl_now();
  if (s->armed) {
    cudaError_t q = cudaEventQuery(s->marker);
    if (q != cudaErrorNotReady) s->armed = 0;
    else if (now - s->armed_at > deadline_of(s)) {
      char why[128];
      snprintf(why, sizeof why, "did not finish within %.3g s (-T %g)", deadline_of(s), s->timeout);
      ar_nccl_abort(s, why);
    }
    return;
  }
  cudaStream_t stream = __atomic_load_n(&s->stream, __ATOMIC_ACQUIRE);
  enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  if (!stream || s->quiet) return;
  if (cudaStreamIsCapturing(stream, &cs) != cudaSuccess || cs != cudaStreamCaptureStatusNone) return;
  if (cudaStreamQuery(stream) != cudaErrorNotReady) return; /* idle: nothing to watch */
  if (cudaEventRecord(s->marker, stream) == cudaSuccess) {
    s->armed = 1;
    s->armed_at = now;
  }
  cudaGetLastError();
}

static void *watch(void *arg) {
  struct ar_nccl *s = arg;
  cudaSetDevice(s->env->device);
  for (;;) {
    nap_ms(10);
    pthread_mutex_lock(&s->lock);
    int stop = s->stop;
    if (!stop && !__atomic_load_n(&s->aborted, __ATOMIC_ACQUIRE)) watch_once(s);
    pthread_mutex_unlock(&s->lock);
    if (stop) return NULL;
  }
}

int ar_nccl_watch_start(struct ar_nccl *s, char *err, size_t len) {
  pthread_mutex_init(&s->lock, NULL);
  if (s->timeout <= 0) return 0;
  cudaError_t rc = cudaEventCreateWithFlags(&s->marker, cudaEventDisableTiming);
  if (rc != cudaSuccess) {
    snprintf(err, len, "nccl: cudaEventCreate failed: %s", cudaGetErrorString(rc));
    return -AR_ERUNTIME;
  }
  if (pthread_create(&s->thread, NULL, watch, s)) {
    cudaEventDestroy(s->marker);
    snprintf(err, len, "nccl: cannot start the watchdog thread");
    return -AR_ERUNTIME;
  }
  s->started = 1;
  return 0;
}

void ar_nccl_watch_stop(struct ar_nccl *s) {
  if (s->started) {
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    cudaEventDestroy(s->marker);
    s->started = 0;
  }
  pthread_mutex_destroy(&s->lock);
}
