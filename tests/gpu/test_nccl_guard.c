/* test_nccl_guard.c — the lock order between the main thread and the nccl watchdog without a GPU:
 * the abort runs outside the lock (NCCL 2.28.9's abort waits for the main thread to destroy its
 * graphs, under that lock), waits for a call in progress, and nothing enters after it. */
#include "ar.h"
#include "backends/nccl/guard.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>
#include <time.h>

struct ctx {
  struct ar_guard *g;
  int calls, lock_free, started, destroyed, saw_destroy;
};

static void nap_ms(int ms) {
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);
}

static void fake_abort(void *arg) {
  struct ctx *c = arg;
  c->calls++;
  if (pthread_mutex_trylock(&c->g->lock) == 0) {
    c->lock_free = 1;
    pthread_mutex_unlock(&c->g->lock);
  }
}

static void test_abort_outside_lock(void **st) {
  (void)st;
  struct ar_guard g;
  ar_guard_init(&g);
  struct ctx c = {.g = &g};
  assert_int_equal(ar_guard_abort(&g, "timeout: nccl allreduce of 8 bytes", fake_abort, &c), 1);
  assert_int_equal(c.calls, 1);
  assert_int_equal(c.lock_free, 1);
  assert_int_equal(ar_guard_abort(&g, "second", fake_abort, &c), 0); /* once */
  assert_int_equal(c.calls, 1);
  char err[128] = "";
  assert_int_equal(ar_guard_enter(&g, err, sizeof err), -AR_ETIMEOUT); /* nothing touches it after */
  assert_string_equal(err, "timeout: nccl allreduce of 8 bytes");
  assert_int_equal(pthread_mutex_trylock(&g.lock), 0); /* enter did not keep the lock */
  pthread_mutex_unlock(&g.lock);
  ar_guard_destroy(&g);
}

/* ncclCommAbort (fake) waits until the main thread destroyed its graph; the main thread takes the
 * lock first (as graph capture does). With the abort under the lock this deadlocks (here: times out). */
static void wait_for_destroy(void *arg) {
  struct ctx *c = arg;
  __atomic_store_n(&c->started, 1, __ATOMIC_RELEASE);
  for (int i = 0; i < 200 && !__atomic_load_n(&c->destroyed, __ATOMIC_ACQUIRE); i++) nap_ms(10);
  c->saw_destroy = __atomic_load_n(&c->destroyed, __ATOMIC_ACQUIRE);
}

static void *aborter(void *arg) {
  struct ctx *c = arg;
  ar_guard_abort(c->g, "timeout", wait_for_destroy, c);
  return NULL;
}

static void test_abort_waits_for_graph_destroy(void **st) {
  (void)st;
  struct ar_guard g;
  ar_guard_init(&g);
  struct ctx c = {.g = &g};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, aborter, &c), 0);
  while (!__atomic_load_n(&c.started, __ATOMIC_ACQUIRE)) nap_ms(1);
  pthread_mutex_lock(&g.lock); /* the capture path: lock, then cudaGraphDestroy */
  __atomic_store_n(&c.destroyed, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&g.lock);
  pthread_join(t, NULL);
  assert_int_equal(c.saw_destroy, 1);
  ar_guard_destroy(&g);
}

/* A main-thread call in progress (lock held) finishes before the abort marks the communicator. */
static void test_abort_waits_for_call(void **st) {
  (void)st;
  struct ar_guard g;
  ar_guard_init(&g);
  struct ctx c = {.g = &g};
  char err[64];
  assert_int_equal(ar_guard_enter(&g, err, sizeof err), 0);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, aborter, &c), 0);
  nap_ms(50);
  assert_int_equal(ar_guard_aborted(&g), 0); /* still inside the call: not aborted under it */
  assert_int_equal(__atomic_load_n(&c.started, __ATOMIC_ACQUIRE), 0);
  ar_guard_leave(&g);
  __atomic_store_n(&c.destroyed, 1, __ATOMIC_RELEASE);
  pthread_join(t, NULL);
  assert_int_equal(ar_guard_aborted(&g), 1);
  assert_int_equal(ar_guard_message(&g, err, sizeof err), -AR_ETIMEOUT);
  assert_string_equal(err, "timeout");
  ar_guard_destroy(&g);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_abort_outside_lock),
                                     cmocka_unit_test(test_abort_waits_for_graph_destroy),
                                     cmocka_unit_test(test_abort_waits_for_call)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
