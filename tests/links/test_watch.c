/* test_watch.c — bench/links/watch.c: the bounds -T grants the phases of `arbench links` (a smoke-test pair, a
 * measurement repeat, a latency repeat) on CPU ranks and GPUs, exact; the watchdog's limit with an allowance
 * (bench/watchdog.c); -T parsed as run's. The watchdog firing itself: tests/links/watchdog.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "links/watch.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void test_allow(void **st) {
  (void)st;
  struct ar_links_opts o;
  ar_links_defaults(&o); /* --smoke-timeout 2, -n 20, -w 3 */
  NEAR(ar_links_allow_smoke(&o, 0), 4.0);  /* the data's wait and the ack's */
  NEAR(ar_links_allow_smoke(&o, 1), 44.0); /* the push and the pull, and four staging copies of 10 s */
  NEAR(ar_links_allow_measure(&o, 0, 1 << 20, 2), 0.0);
  /* 2 flows of 1 MiB on one rank: 3 fills + 2 checks at 10 s + 1 MiB / 0.1 GB/s, the warm-up (6 copies), one held
   * batch (20 copies per stream fit AR_LCUDA_HELD_OPS): 10 s + its hold's 10 s + 40 copies at 0.1 GB/s */
  double one = 10 + 1048576 / 1e8;
  NEAR(ar_links_allow_measure(&o, 1, 1 << 20, 2), 3 * one + 2 * one + (10 + 6 * 1048576 / 1e8) + (20 + 40 * 1048576 / 1e8));
  o.iters = 1000; /* 2 streams: 125 copies a batch, 8 batches */
  NEAR(ar_links_allow_measure(&o, 1, 4, 2), 5 * (10 + 4 / 1e8) + (10 + 6 * 4 / 1e8) + (8 * 20 + 2000 * 4 / 1e8));
  NEAR(ar_links_allow_latency(&o, 0), 2.0);
  NEAR(ar_links_allow_latency(&o, 1), 20 + 4 / 1e8); /* one held copy's bound over the ping-pong's 2 + 5 s */
  o.smoke_timeout = 30;
  NEAR(ar_links_allow_latency(&o, 1), 35.0);
}

static void test_limit(void **st) {
  (void)st;
  NEAR(ar_watchdog_allowed(3, 0), 3);      /* no allowance: -T */
  NEAR(ar_watchdog_allowed(3, 4), 6);      /* 4 s of bounded waits + a 2 s grace */
  NEAR(ar_watchdog_allowed(3, 44), 48.4);  /* + a tenth */
  NEAR(ar_watchdog_allowed(300, 44), 300); /* -T larger: -T */
}

static void test_opt(void **st) {
  (void)st;
  struct ar_links_opts o;
  char err[AR_ERRLEN] = "";
  char *a[] = {"links", "-T", "7.5"}, *b[] = {"links", "--timeout=0"}, *c[] = {"links", "-T", "-1"};
  ar_links_defaults(&o);
  NEAR(o.timeout, 300);
  assert_int_equal(ar_links_parse(&o, 3, a, err, sizeof err), 0);
  NEAR(o.timeout, 7.5);
  assert_int_equal(ar_links_parse(&o, 2, b, err, sizeof err), 0);
  NEAR(o.timeout, 0);
  assert_int_equal(ar_links_parse(&o, 3, c, err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, "bad -T '-1' (allowed: a number from 0 to 1e+06)");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_allow), cmocka_unit_test(test_limit), cmocka_unit_test(test_opt)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
