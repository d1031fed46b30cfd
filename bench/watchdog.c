/* watchdog.c — a thread per rank that aborts the process when a collective makes no progress for
 * -T seconds, naming what ran; mpirun then takes the other ranks down. It never calls MPI. */
#include "engine.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *watch(void *arg) {
  struct ar_watchdog *d = arg;
  uint64_t last = __atomic_load_n(&d->heartbeat, __ATOMIC_RELAXED);
  double since = now_s();
  char phase[256], last_phase[256] = "";
  for (;;) {
    struct timespec nap = {0, 50 * 1000 * 1000};
    nanosleep(&nap, NULL);
    pthread_mutex_lock(&d->lock);
    int stop = d->stop, per = d->per_unit > 1 ? d->per_unit : 1;
    memcpy(phase, d->phase, sizeof phase);
    pthread_mutex_unlock(&d->lock);
    if (stop) return NULL;
    uint64_t hb = __atomic_load_n(&d->heartbeat, __ATOMIC_RELAXED);
    if (hb != last || strcmp(phase, last_phase) || !*phase) {
      last = hb;
      memcpy(last_phase, phase, sizeof phase);
      since = now_s();
      continue;
    }
    if (now_s() - since > d->timeout * per) {
      fprintf(stderr, "arbench: rank %d: timeout: %s made no progress for %g s (-T %g); aborting\n",
              d->rank, phase, d->timeout * per, d->timeout);
      fflush(stderr);
      _exit(AR_EXIT_FAIL);
    }
  }
}

int ar_watchdog_start(struct ar_watchdog *d, double timeout, int rank) {
  memset(d, 0, sizeof *d);
  pthread_mutex_init(&d->lock, NULL);
  d->timeout = timeout;
  d->rank = rank;
  if (timeout <= 0) return 0;
  if (pthread_create(&d->thread, NULL, watch, d)) return -AR_ERUNTIME;
  d->started = 1;
  return 0;
}

void ar_watchdog_phase(struct ar_watchdog *d, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&d->lock);
  memcpy(d->phase, buf, sizeof buf);
  d->per_unit = 1;
  pthread_mutex_unlock(&d->lock);
}

void ar_watchdog_unit(struct ar_watchdog *d, int per) {
  pthread_mutex_lock(&d->lock);
  d->per_unit = per;
  pthread_mutex_unlock(&d->lock);
}

void ar_watchdog_stop(struct ar_watchdog *d) {
  if (d->started) {
    pthread_mutex_lock(&d->lock);
    d->stop = 1;
    pthread_mutex_unlock(&d->lock);
    pthread_join(d->thread, NULL);
  }
  pthread_mutex_destroy(&d->lock);
  d->started = 0;
}
