/* test_noise.c — the simplicity order of ties (bench/analysis/noise.c ar_simplicity): a baseline by its
 * table's flag (mpi, nccl, nccl-tests' records), then the custom algorithms from one-shot to islands. */
#include "../lib/ar_cmocka.h"
#include "analysis/analysis.h"
#include <jansson.h>

static int simplicity(const char *backend, const char *variant) {
  json_t *r = json_pack("{s:s, s:s}", "backend", backend, "variant", variant);
  int s = ar_simplicity(r);
  json_decref(r);
  return s;
}

static void test_simplicity(void **st) {
  (void)st;
  assert_int_equal(simplicity("mpi", ""), 0);
  assert_int_equal(simplicity("nccl", ""), 0);
  assert_int_equal(simplicity("nccl-tests", ""), 0);
  assert_int_equal(simplicity("nccl", "algo=Ring"), 1); /* a forced variant is less simple than the defaults */
  assert_int_equal(simplicity("shm-oneshot", ""), 2);
  assert_int_equal(simplicity("p2p-twoshot", "flat"), 3);
  assert_int_equal(simplicity("symm", "algo=twoshot"), 3);
  assert_int_equal(simplicity("p2p-staged", ""), 4);
  assert_int_equal(simplicity("shm-islands", ""), 5);
  assert_int_equal(simplicity("bogus", ""), 6);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_simplicity)};
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
