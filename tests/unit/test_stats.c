/* test_stats.c — percentiles, mean/stddev and bandwidth formulas against hand-computed values.
 * Percentiles interpolate linearly at q*(n-1) (numpy's default). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "stats.h"

static void test_percentiles(void **st) {
  (void)st;
  double s[] = {9, 1, 7, 3, 5, 2, 10, 4, 8, 6}; /* 1..10 shuffled */
  struct ar_stats o;
  assert_int_equal(ar_stats_compute(s, 10, &o), 0);
  assert_float_equal(o.min, 1, 0);
  assert_float_equal(o.max, 10, 0);
  assert_float_equal(o.p50, 5.5, 1e-12);   /* pos 4.5 */
  assert_float_equal(o.p10, 1.9, 1e-12);   /* pos 0.9 */
  assert_float_equal(o.p90, 9.1, 1e-12);   /* pos 8.1 */
  assert_float_equal(o.p99, 9.91, 1e-12);  /* pos 8.91 */
  assert_float_equal(o.mean, 5.5, 1e-12);
  assert_float_equal(o.stddev, 3.0276503540974917, 1e-12); /* sample stddev of 1..10 */
  assert_float_equal(s[0], 1, 0); /* sorted in place */
}

static void test_single_and_odd(void **st) {
  (void)st;
  double one[] = {42};
  struct ar_stats o;
  assert_int_equal(ar_stats_compute(one, 1, &o), 0);
  assert_float_equal(o.p50, 42, 0);
  assert_float_equal(o.p99, 42, 0);
  assert_float_equal(o.stddev, 0, 0);
  double odd[] = {10, 30, 20};
  assert_int_equal(ar_stats_compute(odd, 3, &o), 0);
  assert_float_equal(o.p50, 20, 0);
  assert_float_equal(o.p90, 28, 1e-12); /* pos 1.8 -> 20 + 0.8*10 */
  assert_int_equal(ar_stats_compute(odd, 0, &o), -2);
}

static void test_bandwidth(void **st) {
  (void)st;
  assert_float_equal(ar_busbw_factor(2), 1.0, 0);
  assert_float_equal(ar_busbw_factor(4), 1.5, 0);
  assert_float_equal(ar_busbw_factor(8), 1.75, 0);
  assert_float_equal(ar_busbw_factor(1), 0.0, 0);
  /* 1 MiB in 100 us = 10.48576 GB/s (1e9 bytes per GB, as nccl-tests) */
  assert_float_equal(ar_algbw_gbs(1048576, 100), 10.48576, 1e-12);
  assert_float_equal(ar_algbw_gbs(1048576, 100) * ar_busbw_factor(8), 18.35008, 1e-9);
  /* efficiency = busbw / narrowest link: 18.35008 GB/s over a Gen4 x16 link of 26.25 GB/s */
  assert_float_equal(ar_efficiency(18.35008, 26.25), 0.699050667, 1e-9);
  assert_float_equal(ar_efficiency(52.5, 52.5), 1.0, 0);
  assert_float_equal(ar_efficiency(10, 0), 0.0, 0); /* link unknown: no efficiency */
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_percentiles),
    cmocka_unit_test(test_single_and_odd),
    cmocka_unit_test(test_bandwidth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
