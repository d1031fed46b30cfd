/* watchdog.c — a thread per rank, from before MPI_Init to after MPI_Finalize, that ends the job when a
 * phase makes no progress for -T seconds: one line naming the rank, the phase and the culprit. */
#include "watchdog.h"
#include "ar.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void nap_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* The rank for messages before MPI_Init returns: the launcher's, else -1. */
static int launcher_rank(void) {
  const char *env = getenv("OMPI_COMM_WORLD_RANK");
  if (!env) env = getenv("PMIX_RANK");
  return env ? atoi(env) : -1;
}

/* Fire. While MPI is up, the first rank of the node to claim reports and aborts the job; the others wait
 * for the abort to reach them and leave quietly if it does not (their reporter may be the stuck one).
 * In MPI_Init or MPI_Finalize there is no MPI_Abort: every rank that fires says so and exits, and the
 * launcher ends the job when a rank exits non-zero. */
static void fire(struct ar_watchdog *d, const char *phase, double limit) {
  pthread_mutex_lock(&d->lock);
  int mpi_up = d->mpi_up, rank = d->rank;
  const struct ar_peers *peers = d->peers;
  pthread_mutex_unlock(&d->lock);
  if (rank < 0) rank = launcher_rank();
  char who[512], line[1024];
  if (peers) ar_peers_culprits(peers, who, sizeof who);
  else snprintf(who, sizeof who, "no peer table here (it exists between start-up's communicators and teardown)");
  snprintf(line, sizeof line, "arbench: rank %d: timeout: %s made no progress for %g s (-T %g); %s; %s", rank, phase,
           limit, d->timeout, who, mpi_up ? "aborting" : "ending the job");
  ar_watchdog_end(d, line);
}

_Noreturn void ar_watchdog_end(struct ar_watchdog *d, const char *line) {
  int mpi_up = 1, rank = 0;
  const struct ar_peers *peers = NULL;
  double timeout = 0;
  if (d) {
    pthread_mutex_lock(&d->lock);
    mpi_up = d->mpi_up, rank = d->rank, peers = d->peers, timeout = d->timeout;
    pthread_mutex_unlock(&d->lock);
  }
  if (rank < 0) rank = launcher_rank();
  if (!mpi_up) {
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    _exit(AR_EXIT_FAIL);
  }
  if (ar_peers_claim(peers, rank)) {
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, AR_EXIT_FAIL);
    _exit(AR_EXIT_FAIL);
  }
  double grace = timeout < 2 ? 2 : timeout > 10 ? 10 : timeout;
  nap_ms((long)(grace * 1000));
  _exit(AR_EXIT_FAIL);
}

void ar_watchdog_where(struct ar_watchdog *d, char *buf, size_t len) {
  if (!d) {
    snprintf(buf, len, "%s", "");
    return;
  }
  pthread_mutex_lock(&d->lock);
  if (*d->phase) snprintf(buf, len, "%s", d->phase);
  else if (*d->last) snprintf(buf, len, "after %s", d->last);
  else snprintf(buf, len, "%s", "");
  pthread_mutex_unlock(&d->lock);
}

/* A phase's bound: -T per collective of its unit. A status exchange right after a failed call keeps
 * that call's clock (the call may have given up on a stopped peer at 0.9 x -T, and the exchange waits on
 * the same peer), plus a grace for live ranks that gave up a little later: -T / 4, within 1..10 s. */
double ar_watchdog_limit(double timeout, int per, int after_failure) {
  double limit = timeout * (per > 1 ? per : 1);
  if (!after_failure) return limit;
  double grace = timeout / 4;
  return limit + (grace < 1 ? 1 : grace > 10 ? 10 : grace);
}

double ar_watchdog_allowed(double limit, double allow_s) {
  if (allow_s <= 0) return limit;
  double grace = allow_s / 10 < 2 ? 2 : allow_s / 10;
  return allow_s + grace > limit ? allow_s + grace : limit;
}

/* The bound of the phase d is in now, under d->lock. A status exchange, after a failed call or a good one, waits on
 * peers that may still be in the same call and give up on a stopped rank at 0.9 x -T (the p2p and GPU bounds), then
 * report it in this exchange: it has the call's bound plus the grace of ar_watchdog_limit, so the rank that gave up
 * writes its error record before a rank that finished early ends the job (on a loaded box the 0.1 x -T left was
 * not enough: the stalled push run lost its record 2 times in 3). */
double ar_watchdog_bound(const struct ar_watchdog *d) {
  int per = d->per_unit > 1 ? d->per_unit : 1;
  return ar_watchdog_allowed(ar_watchdog_limit(d->timeout, per, d->after_failure || d->exchange), d->allow_s);
}

static void *watch(void *arg) {
  struct ar_watchdog *d = arg;
  uint64_t last_hb = __atomic_load_n(&d->heartbeat, __ATOMIC_RELAXED), last_seq = 0;
  double since = now_s();
  char phase[256];
  for (;;) {
    nap_ms(50);
    pthread_mutex_lock(&d->lock);
    int stop = d->stop;
    double limit = ar_watchdog_bound(d);
    uint64_t seq = d->seq;
    memcpy(phase, d->phase, sizeof phase);
    pthread_mutex_unlock(&d->lock);
    if (stop) return NULL;
    uint64_t hb = __atomic_load_n(&d->heartbeat, __ATOMIC_RELAXED);
    if (hb != last_hb || seq != last_seq || !*phase) {
      last_hb = hb;
      last_seq = seq;
      since = now_s();
      continue;
    }
    if (now_s() - since > limit) fire(d, phase, limit);
  }
}

int ar_watchdog_start(struct ar_watchdog *d, double timeout, int rank, const struct ar_peers *peers) {
  memset(d, 0, sizeof *d);
  pthread_mutex_init(&d->lock, NULL);
  d->timeout = timeout;
  d->rank = rank;
  d->peers = peers;
  if (timeout <= 0) return 0;
  if (pthread_create(&d->thread, NULL, watch, d)) return -AR_ERUNTIME;
  d->started = 1;
  return 0;
}

void ar_watchdog_mpi(struct ar_watchdog *d, int mpi_up, int rank, const struct ar_peers *peers) {
  pthread_mutex_lock(&d->lock);
  d->mpi_up = mpi_up;
  d->rank = rank;
  d->peers = peers;
  pthread_mutex_unlock(&d->lock);
}

void ar_watchdog_phase(struct ar_watchdog *d, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&d->lock);
  memcpy(d->phase, buf, sizeof buf);
  if (*buf) memcpy(d->last, buf, sizeof buf);
  d->exchange = 0;
  d->after_failure = 0;
  d->seq++;
  d->per_unit = 1;
  d->allow_s = 0;
  pthread_mutex_unlock(&d->lock);
}

void ar_watchdog_allow(struct ar_watchdog *d, double seconds) {
  pthread_mutex_lock(&d->lock);
  d->allow_s = seconds;
  pthread_mutex_unlock(&d->lock);
}

void ar_watchdog_settle(struct ar_watchdog *d, int rc) {
  if (!rc) {
    ar_watchdog_phase(d, "%s", "");
    return;
  }
  pthread_mutex_lock(&d->lock); /* no seq++: the failed call's clock runs on into the exchange */
  snprintf(d->phase, sizeof d->phase, "status exchange after %.200s (it failed)", *d->last ? d->last : "start");
  d->exchange = 1;
  d->after_failure = 1;
  pthread_mutex_unlock(&d->lock);
}

/* The current phase's work finishes in units of per collectives (a CUDA graph replay of K): the timeout
 * is per collective, so one unit may take per x -T. Reset by the next phase. */
void ar_watchdog_unit(struct ar_watchdog *d, int per) {
  pthread_mutex_lock(&d->lock);
  d->per_unit = per;
  pthread_mutex_unlock(&d->lock);
}

void ar_watchdog_exchange(struct ar_watchdog *d, int on) {
  if (!d) return;
  pthread_mutex_lock(&d->lock);
  if (on && !*d->phase) {
    snprintf(d->phase, sizeof d->phase, "status exchange after %.200s", *d->last ? d->last : "start");
    d->exchange = 1;
  } else if (!on && d->exchange) {
    *d->phase = 0;
    d->exchange = 0;
    d->after_failure = 0;
  }
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
