/* nccl_watch.c — deadlines for the nccl backend: communicator waits with a deadline, and a watchdog
 * thread that aborts a communicator whose work does not finish within -T (before the host watchdog). */
#include "ar.h"
#include "backends/nccl/nccl_priv.h"
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

static void abort_comm(void *arg) {
  struct ar_nccl *s = arg;
  ncclCommAbort(s->comm);
}

/* Never with the guard's lock held: ncclCommAbort runs outside it (guard.h says why). */
void ar_nccl_abort(struct ar_nccl *s, const char *why) {
  const struct ar_env *env = s->env;
  char msg[512];
  snprintf(msg, sizeof msg, "timeout: nccl%s%s allreduce of %zu bytes (%s) on rank %d %s; aborted the NCCL communicator",
           *s->variant ? ":" : "", s->variant, __atomic_load_n(&s->last_bytes, __ATOMIC_RELAXED),
           ar_dtype_name((enum ar_dtype)__atomic_load_n(&s->last_dtype, __ATOMIC_RELAXED)), env->rank, why);
  fflush(stderr);
  if (!ar_guard_abort(&s->guard, msg, NULL, NULL)) return;
  fprintf(stderr, "arbench: rank %d: %s\n", env->rank, msg);
  fflush(stderr);
  abort_comm(s);
}

int ar_nccl_wait_comm(struct ar_nccl *s, const char *what, char *err, size_t len) {
  double t0 = ar_nccl_now();
  ncclResult_t st = ncclInProgress;
  for (;;) {
    if (ar_guard_enter(&s->guard, err, len)) return -AR_ETIMEOUT;
    ncclResult_t rc = ncclCommGetAsyncError(s->comm, &st);
    ar_guard_leave(&s->guard);
    if (rc != ncclSuccess) st = rc;
    if (st != ncclInProgress) break;
    if (s->timeout > 0 && ar_nccl_now() - t0 > deadline_of(s)) {
      char why[160];
      snprintf(why, sizeof why, "%s did not finish within %.3g s (-T %g)", what, deadline_of(s), s->timeout);
      ar_nccl_abort(s, why); /* aborts once, whichever thread comes first */
      ar_guard_message(&s->guard, err, len);
      return -AR_ETIMEOUT;
    }
    nap_ms(1);
  }
  if (st == ncclSuccess) return 0;
  if (ar_guard_enter(&s->guard, err, len)) return -AR_ETIMEOUT;
  snprintf(err, len, "nccl: %s failed: %s (%s)", what, ncclGetErrorString(st), ncclGetLastError(s->comm));
  ar_guard_leave(&s->guard);
  return -AR_ERUNTIME;
}

int ar_nccl_wait_stream(struct ar_nccl *s, cudaStream_t stream, char *err, size_t len) {
  double t0 = ar_nccl_now();
  cudaError_t rc;
  while ((rc = cudaStreamQuery(stream)) == cudaErrorNotReady) {
    if (s->timeout > 0 && ar_nccl_now() - t0 > s->timeout) {
      snprintf(err, len, "nccl: a probe collective did not finish within %g s (-T)", s->timeout);
      ar_nccl_abort(s, "did not finish (setup probes)");
      cudaStreamSynchronize(stream);
      return -AR_ETIMEOUT;
    }
    nap_ms(1);
  }
  if (ar_guard_message(&s->guard, err, len)) return -AR_ETIMEOUT; /* aborted kernels end "successfully" */
  if (rc == cudaSuccess) return 0;
  snprintf(err, len, "nccl: waiting for the probe collectives failed: %s", cudaGetErrorString(rc));
  return -AR_ERUNTIME;
}

/* One look, under the guard's lock: 1 with why when the communicator must be aborted (an
 * asynchronous NCCL error, or no queued collective finished within the per-collective deadline). */
static int watch_once(struct ar_nccl *s, char *why, size_t len) {
  ncclResult_t st = ncclSuccess;
  if (ncclCommGetAsyncError(s->comm, &st) == ncclSuccess && st != ncclSuccess && st != ncclInProgress) {
    snprintf(why, len, "failed: NCCL reported %s", ncclGetErrorString(st));
    return 1;
  }
  double now = ar_nccl_now();
  uint64_t done = s->progress ? __atomic_load_n(s->progress, __ATOMIC_RELAXED) : 0;
  if (s->dl.armed) {
    if (cudaEventQuery(s->marker) != cudaErrorNotReady) s->dl.armed = 0;
    else if (ar_deadline_overdue(&s->dl, now, done)) {
      snprintf(why, len, "did not finish within %.3g s (-T %g%s)", s->dl.limit, s->timeout,
               s->per > 1 ? ", scaled by the allreduces of one graph replay" : "");
      return 1;
    }
    return 0;
  }
  cudaStream_t stream = __atomic_load_n(&s->stream, __ATOMIC_ACQUIRE);
  enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  if (!stream || s->quiet) return 0;
  if (cudaStreamIsCapturing(stream, &cs) != cudaSuccess || cs != cudaStreamCaptureStatusNone) return 0;
  if (cudaStreamQuery(stream) != cudaErrorNotReady) return 0; /* idle: nothing to watch */
  /* The marker sits behind everything queued (up to 32 allreduces, or graph replays): the deadline
   * is per collective, restarted each time the device loop sees one finish, so a healthy queue of
   * large messages is never taken for a hang. One unit of a graph replay holds per allreduces. */
  if (cudaEventRecord(s->marker, stream) == cudaSuccess)
    ar_deadline_arm(&s->dl, now, done, deadline_of(s) * (s->per > 1 ? s->per : 1));
  cudaGetLastError();
  return 0;
}

static void *watch(void *arg) {
  struct ar_nccl *s = arg;
  char err[16], why[256];
  cudaSetDevice(s->env->device);
  for (;;) {
    nap_ms(10);
    if (ar_guard_enter(&s->guard, err, sizeof err)) return NULL; /* aborted: nothing left to watch */
    int stop = s->stop, fire = stop ? 0 : watch_once(s, why, sizeof why);
    ar_guard_leave(&s->guard);
    if (stop) return NULL;
    if (fire) ar_nccl_abort(s, why); /* outside the lock */
  }
}

int ar_nccl_watch_start(struct ar_nccl *s, char *err, size_t len) {
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
  if (!s->started) return;
  pthread_mutex_lock(&s->guard.lock);
  s->stop = 1;
  pthread_mutex_unlock(&s->guard.lock);
  pthread_join(s->thread, NULL); /* also waits for an abort in progress */
  cudaEventDestroy(s->marker);
  s->started = 0;
}
