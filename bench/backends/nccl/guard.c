/* guard.c — the communicator guard of guard.h: main-thread calls under a lock that re-checks the
 * aborted flag, and one abort whose slow part (ncclCommAbort) runs outside the lock. Pure pthreads. */
#include "backends/nccl/guard.h"
#include "ar.h"
#include <stdio.h>

void ar_guard_init(struct ar_guard *g) {
  pthread_mutex_init(&g->lock, NULL);
  g->aborted = 0;
  g->msg[0] = 0;
}

void ar_guard_destroy(struct ar_guard *g) { pthread_mutex_destroy(&g->lock); }

int ar_guard_enter(struct ar_guard *g, char *err, size_t len) {
  pthread_mutex_lock(&g->lock);
  if (!g->aborted) return 0;
  snprintf(err, len, "%s", g->msg);
  pthread_mutex_unlock(&g->lock);
  return -AR_ETIMEOUT;
}

void ar_guard_leave(struct ar_guard *g) { pthread_mutex_unlock(&g->lock); }

int ar_guard_abort(struct ar_guard *g, const char *msg, void (*abort_fn)(void *), void *arg) {
  pthread_mutex_lock(&g->lock);
  int first = !g->aborted;
  if (first) {
    snprintf(g->msg, sizeof g->msg, "%s", msg);
    __atomic_store_n(&g->aborted, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g->lock);
  if (first && abort_fn) abort_fn(arg);
  return first;
}

int ar_guard_aborted(const struct ar_guard *g) { return __atomic_load_n(&g->aborted, __ATOMIC_ACQUIRE); }

int ar_guard_message(struct ar_guard *g, char *err, size_t len) {
  pthread_mutex_lock(&g->lock);
  int rc = g->aborted ? -AR_ETIMEOUT : 0;
  if (rc) snprintf(err, len, "%s", g->msg);
  pthread_mutex_unlock(&g->lock);
  return rc;
}
