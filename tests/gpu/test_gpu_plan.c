/* test_gpu_plan.c — the device loop's plan without a GPU: CUDA graphs that cover the same buffer
 * rotation as plain launches, their warm-up, and the nccl watchdog's per-collective deadline. */
#include "backend.h"
#include "backends/gpu/priv.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

/* 1 MiB out-of-place on a 50 MB L2: ~50 sets plain; -G 10 must capture 5 graphs, not 1. */
static void test_graph_count(void **st) {
  (void)st;
  assert_int_equal(ar_graph_count(50, 10, 256), 5);
  assert_int_equal(ar_graph_count(51, 10, 256), 6); /* 60 iterations cover all 51 sets */
  assert_int_equal(ar_graph_count(1, 10, 256), 1);
  assert_int_equal(ar_graph_count(10, 10, 256), 1);
  assert_int_equal(ar_graph_count(4096, 1, 256), 256); /* capped */
  assert_int_equal(ar_graph_count(0, 10, 256), 1);
  for (int nsets = 1; nsets < 300; nsets += 7) /* graphs * K covers every set, below the cap */
    for (int k = 1; k <= 20; k++) {
      int g = ar_graph_count(nsets, k, 256);
      assert_true(g * k >= nsets || g == 256);
      assert_true((g - 1) * k < nsets);
    }
}

static void test_graph_warm(void **st) {
  (void)st;
  assert_int_equal(ar_graph_warm(10, 10, 1), 1);
  assert_int_equal(ar_graph_warm(11, 10, 1), 2);
  assert_int_equal(ar_graph_warm(0, 10, 1), 1);  /* the first replay is never timed */
  assert_int_equal(ar_graph_warm(10, 10, 5), 5); /* every graph replayed once before timing */
}

/* 32 queued collectives of 0.9 s each with a 1 s deadline: healthy, though the marker at the tail is
 * 28.8 s away. The old rule (one deadline for the marker) aborted at 1 s. */
static void test_deadline_per_collective(void **st) {
  (void)st;
  struct ar_deadline d = {0};
  ar_deadline_arm(&d, 100.0, 7, 1.0);
  uint64_t done = 7;
  for (int i = 1; i <= 32; i++) {
    assert_int_equal(ar_deadline_overdue(&d, 100.0 + 0.9 * i - 0.05, done), 0);
    done++;
    assert_int_equal(ar_deadline_overdue(&d, 100.0 + 0.9 * i, done), 0);
  }
  /* Then one collective hangs: overdue one deadline after the last progress, not before. */
  assert_int_equal(ar_deadline_overdue(&d, 100.0 + 0.9 * 32 + 0.99, done), 0);
  assert_int_equal(ar_deadline_overdue(&d, 100.0 + 0.9 * 32 + 1.01, done), 1);
}

static void test_deadline_plain(void **st) {
  (void)st;
  struct ar_deadline d = {0};
  assert_int_equal(ar_deadline_overdue(&d, 5.0, 0), 0); /* not armed */
  ar_deadline_arm(&d, 0.0, 0, 2.0);
  assert_int_equal(ar_deadline_overdue(&d, 1.9, 0), 0);
  assert_int_equal(ar_deadline_overdue(&d, 2.1, 0), 1);
  ar_deadline_arm(&d, 0.0, 0, 0.0); /* no -T: never */
  assert_int_equal(ar_deadline_overdue(&d, 1e9, 0), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_graph_count), cmocka_unit_test(test_graph_warm),
                                     cmocka_unit_test(test_deadline_per_collective),
                                     cmocka_unit_test(test_deadline_plain)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
