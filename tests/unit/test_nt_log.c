/* test_nt_log.c — the nccl-tests layout of bench/run/nt_log.c without MPI: numbers as nccl-tests 2.18.5 prints its
 * columns (2, 1, 0 decimals, then exponent), log file names, the one-configuration rule. */
#include "../lib/ar_cmocka.h"
#include "run/nt_log.h"
#include "opts.h"
#include <stdlib.h>
#include <string.h>

static const char *num(double v, int width) {
  static char buf[64];
  ar_nt_number(v, width, buf, sizeof buf);
  return buf;
}

static void test_number(void **st) {
  (void)st;
  /* time: 7 characters (values seen in real 2.18 logs) */
  assert_string_equal(num(4366.46, 7), "4366.46");
  assert_string_equal(num(14977.1, 7), "14977.1");
  assert_string_equal(num(134330, 7), " 134330");
  assert_string_equal(num(1118174, 7), "1118174");
  assert_string_equal(num(12.25, 7), "  12.25");
  assert_string_equal(num(0.1, 7), "   0.10");
  assert_string_equal(num(12345678, 7), "1.2e+07");
  /* algbw, busbw: 6 characters */
  assert_string_equal(num(0, 6), "  0.00");
  assert_string_equal(num(793.06, 6), "793.06");
  assert_string_equal(num(1191.6, 6), "1191.6");
  assert_string_equal(num(11061, 6), " 11061");
  assert_string_equal(num(656643, 6), "656643");
  assert_string_equal(num(1000000, 6), " 1e+06"); /* as phase0-1rank-rtx5090.log prints it */
}

static const char *fit(double v, int width) {
  static char buf[64];
  ar_nt_number_fit(v, width, buf, sizeof buf);
  return buf;
}

/* nccl-tests 2.19.6's getFloatStr (src/util.cu, "Fix benchmark output alignment"): the first of 2, 1, 0
 * decimals that fits; where 2.18.5 counted digits and overflowed the column, it does not. */
static void test_number_fit(void **st) {
  (void)st;
  assert_string_equal(fit(9999.996, 7), "10000.0");
  assert_string_equal(num(9999.996, 7), "10000.00"); /* 2.18.5: 8 characters in a 7-character column */
  assert_string_equal(fit(999.996, 6), "1000.0");
  assert_string_equal(num(999.996, 6), "1000.00");
  assert_string_equal(fit(4366.46, 7), "4366.46");
  assert_string_equal(fit(14977.1, 7), "14977.1");
  assert_string_equal(fit(134330, 7), " 134330");
  assert_string_equal(fit(12.25, 7), "  12.25");
  assert_string_equal(fit(12345678, 7), "1.2e+07");
  assert_string_equal(fit(0, 6), "  0.00");
  assert_string_equal(fit(1191.6, 6), "1191.6");
  assert_string_equal(fit(1000000, 6), " 1e+06");
  assert_string_equal(fit(22.13, 7), "  22.13"); /* an i_cv% of constructed-2.19.6-I1-K2-z3-4gpu.log */
}

static void test_file_name(void **st) {
  (void)st;
  char b[128];
  ar_nt_file_name("mpi", AR_FLOAT, b, sizeof b);
  assert_string_equal(b, "mpi-float.log");
  ar_nt_file_name("nccl:algo=Ring,proto=LL", AR_HALF, b, sizeof b);
  assert_string_equal(b, "nccl-algo=Ring-proto=LL-half.log");
  ar_nt_file_name("p2p-oneshot:reg=1", AR_BF16, b, sizeof b);
  assert_string_equal(b, "p2p-oneshot-reg=1-bfloat16.log");
}

static void test_check(void **st) {
  (void)st;
  struct ar_opts *o = calloc(1, sizeof *o);
  char err[512];
  ar_opts_defaults(o);
  char *argv[] = {"run", "--format", "nccl-tests", "--backend", "mpi,shm-oneshot", "-d", "float", NULL};
  assert_int_equal(ar_opts_parse(o, 7, argv, err, sizeof err), 0);
  assert_int_equal(o->timing, AR_TIME_LOOP); /* the format's method defaults */
  assert_int_equal(o->average, AR_AVG_MEAN);
  assert_int_equal(o->placement, AR_PLACE_BOTH);
  assert_int_equal(ar_nt_check(o, err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, "--format nccl-tests writes one configuration per log, and this run has 2 (2 backends x 1 "
                           "dtype): name one backend and one dtype, or give --nccl-tests-dir DIR for one log each");
  o->nbackends = 1;
  assert_int_equal(ar_nt_check(o, err, sizeof err), 0);
  ar_opts_defaults(o);
  char *argv2[] = {"run", "--format", "nccl-tests", "-a", "3", "--timing", "iter", "--inplace", "no", NULL};
  assert_int_equal(ar_opts_parse(o, 9, argv2, err, sizeof err), 0);
  assert_int_equal(o->timing, AR_TIME_ITER); /* given: kept */
  assert_int_equal(o->average, AR_AVG_MAX);
  assert_int_equal(o->placement, AR_PLACE_OUT);
  ar_opts_defaults(o);
  char *argv3[] = {"run", "--sizes", "8", NULL};
  assert_int_equal(ar_opts_parse(o, 3, argv3, err, sizeof err), 0);
  assert_int_equal(o->timing, AR_TIME_ITER); /* arbench's own defaults otherwise */
  assert_int_equal(o->average, AR_AVG_MAX);
  free(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_number), cmocka_unit_test(test_number_fit),
                                     cmocka_unit_test(test_file_name),
                                     cmocka_unit_test(test_check)};
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
