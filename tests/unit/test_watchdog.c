/* test_watchdog.c — the watchdog's bounds (ar_watchdog_limit) and how a watched call ends
 * (ar_watchdog_settle): a failed call's clock runs on into the status exchange after it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/engine.h"

static void test_limits(void **st) {
  (void)st;
  assert_true(ar_watchdog_limit(15, 1, 0) == 15.0);
  assert_true(ar_watchdog_limit(15, 4, 0) == 60.0);   /* a graph replay of 4 collectives */
  assert_true(ar_watchdog_limit(15, 1, 1) == 18.75);  /* the call's clock, plus -T / 4 */
  assert_true(ar_watchdog_limit(2, 1, 1) == 3.0);     /* a grace of at least 1 s */
  assert_true(ar_watchdog_limit(60, 1, 1) == 70.0);   /* and at most 10 s */
  assert_true(ar_watchdog_limit(15, 0, 0) == 15.0);
}

/* No thread (-T 0): the state the thread would read. */
static void test_settle_failed_keeps_clock(void **st) {
  (void)st;
  struct ar_watchdog d;
  assert_int_equal(ar_watchdog_start(&d, 0, 0, NULL), 0);
  ar_watchdog_phase(&d, "backend %s checked call %d", "p2p-twoshot", 0);
  uint64_t seq = d.seq;
  ar_watchdog_settle(&d, -5);
  assert_int_equal(d.seq, seq); /* not progress: the watch thread's clock is not restarted */
  assert_string_equal(d.phase, "status exchange after backend p2p-twoshot checked call 0 (it failed)");
  assert_int_equal(d.after_failure, 1);
  ar_watchdog_exchange(&d, 1); /* agree() enters: the phase stays the failed call's */
  assert_string_equal(d.phase, "status exchange after backend p2p-twoshot checked call 0 (it failed)");
  ar_watchdog_exchange(&d, 0);
  assert_string_equal(d.phase, "");
  assert_int_equal(d.after_failure, 0);
  ar_watchdog_stop(&d);
}

static void test_settle_ok_is_progress(void **st) {
  (void)st;
  struct ar_watchdog d;
  assert_int_equal(ar_watchdog_start(&d, 0, 0, NULL), 0);
  ar_watchdog_phase(&d, "backend mpi checked call 1");
  uint64_t seq = d.seq;
  ar_watchdog_settle(&d, 0);
  assert_int_equal(d.seq, seq + 1);
  assert_string_equal(d.phase, "");
  assert_int_equal(d.after_failure, 0);
  d.timeout = 4; /* the bounds the thread would use at -T 4 */
  assert_true(ar_watchdog_bound(&d) == 4.0);
  ar_watchdog_exchange(&d, 1); /* an exchange in an idle phase: its own clock */
  assert_string_equal(d.phase, "status exchange after backend mpi checked call 1");
  assert_int_equal(d.after_failure, 0);
  /* a peer still in the call gives up at 0.9 x -T and reports here: the exchange waits -T plus the grace */
  assert_true(ar_watchdog_bound(&d) == 5.0);
  ar_watchdog_exchange(&d, 0);
  assert_true(ar_watchdog_bound(&d) == 4.0);
  ar_watchdog_stop(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_limits),
      cmocka_unit_test(test_settle_failed_keeps_clock),
      cmocka_unit_test(test_settle_ok_is_progress),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
