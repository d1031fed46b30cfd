/* test_dtype.c — fp16/bf16 conversion exact over the integer range the pattern uses, rounding of
 * non-representable values, and the host fill/check of the exact-integer pattern. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include "ar_pattern.h"
#include "dtype.h"

static void test_half_integers(void **st) {
  (void)st;
  for (int v = -2048; v <= 2048; v++) {
    uint16_t h = ar_float_to_half((float)v);
    assert_true(ar_half_to_float(h) == (float)v);
  }
  assert_int_equal(ar_float_to_half(1.0f), 0x3c00);
  assert_int_equal(ar_float_to_half(-2.0f), 0xc000);
  assert_int_equal(ar_float_to_half(65504.0f), 0x7bff);
  assert_int_equal(ar_float_to_half(65520.0f), 0x7c00);       /* rounds to inf */
  assert_int_equal(ar_float_to_half(2049.0f), 0x6800);        /* tie to even: 2048 */
  assert_int_equal(ar_float_to_half(2051.0f), 0x6802);        /* tie to even: 2052 */
  assert_int_equal(ar_float_to_half(5.960464477539063e-08f), 0x0001); /* smallest subnormal */
  assert_true(ar_half_to_float(0x0001) == 5.960464477539063e-08f);
}

static void test_bf16_integers(void **st) {
  (void)st;
  for (int v = -256; v <= 256; v++) {
    uint16_t b = ar_float_to_bf16((float)v);
    assert_true(ar_bf16_to_float(b) == (float)v);
  }
  assert_int_equal(ar_float_to_bf16(1.0f), 0x3f80);
  assert_int_equal(ar_float_to_bf16(257.0f), 0x4380);  /* tie to even: 256 */
  assert_int_equal(ar_float_to_bf16(259.0f), 0x4382);  /* tie to even: 260 */
  assert_int_equal(ar_float_to_bf16(-3.0f), 0xc040);
}

static void test_pattern_exact(void **st) {
  (void)st;
  /* Every partial sum of the sum pattern stays in the exact range for every dtype and rank count. */
  for (int dt = 0; dt < AR_NDTYPES; dt++)
    for (int n = 1; n <= 64; n *= 2)
      for (uint64_t i = 0; i < 2000; i++) {
        long acc = 0;
        for (int r = 0; r < n; r++) {
          acc += ar_pat_value(dt, AR_SUM, r, n, i);
          assert_true(labs(acc) <= ar_pat_limit(dt));
        }
        assert_int_equal(acc, ar_pat_expect(dt, AR_SUM, n, i));
      }
  /* avg: the pairwise offsets cancel, so the sum is n times the mean exactly. */
  for (int n = 1; n <= 9; n++)
    for (uint64_t i = 0; i < 500; i++) {
      long sum = 0;
      for (int r = 0; r < n; r++) sum += ar_pat_value(AR_BF16, AR_AVG, r, n, i);
      assert_int_equal(sum, n * ar_pat_expect(AR_BF16, AR_AVG, n, i));
    }
  /* prod: magnitudes 1 or 2 only */
  for (uint64_t i = 0; i < 500; i++) assert_true(labs(ar_pat_expect(AR_HALF, AR_PROD, 8, i)) <= 2);
}

static void test_host_fill_check(void **st) {
  (void)st;
  enum { N = 1031, R = 3 };
  for (int dt = 0; dt < AR_NDTYPES; dt++) {
    void *bufs[R], *sum = calloc(N, 4);
    for (int r = 0; r < R; r++) {
      bufs[r] = calloc(N, 4);
      ar_host_fill(bufs[r], N, (enum ar_dtype)dt, AR_SUM, r, R);
    }
    for (size_t i = 0; i < N; i++) {
      double s = 0;
      for (int r = 0; r < R; r++) s += ar_elem_get(bufs[r], (enum ar_dtype)dt, i);
      ar_elem_set(sum, (enum ar_dtype)dt, i, s);
    }
    assert_int_equal(ar_host_check(sum, N, (enum ar_dtype)dt, AR_SUM, R), 0);
    ar_elem_set(sum, (enum ar_dtype)dt, 17, ar_elem_get(sum, (enum ar_dtype)dt, 17) + 1);
    ar_elem_set(sum, (enum ar_dtype)dt, 1030, -12345);
    assert_int_equal(ar_host_check(sum, N, (enum ar_dtype)dt, AR_SUM, R), 2);
    /* rank 0's own input is not the sum */
    assert_true(ar_host_check(bufs[0], N, (enum ar_dtype)dt, AR_SUM, R) > N / 2);
    for (int r = 0; r < R; r++) free(bufs[r]);
    free(sum);
  }
}

static void test_names(void **st) {
  (void)st;
  enum ar_dtype d;
  enum ar_op o;
  assert_int_equal(ar_dtype_parse("bf16", &d), 0);
  assert_int_equal(d, AR_BF16);
  assert_int_equal(ar_dtype_parse("fp16", &d), 0);
  assert_int_equal(d, AR_HALF);
  assert_int_equal(ar_dtype_parse("double", &d), -AR_EINVAL);
  assert_int_equal(ar_op_parse("avg", &o), 0);
  assert_int_equal(o, AR_AVG);
  assert_string_equal(ar_dtype_name(AR_BF16), "bfloat16");
  assert_int_equal(ar_dtype_size(AR_HALF), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_half_integers), cmocka_unit_test(test_bf16_integers),
    cmocka_unit_test(test_pattern_exact), cmocka_unit_test(test_host_fill_check),
    cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
