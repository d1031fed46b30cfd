/* test_loop_plan.c — the device loop's plan without a GPU: CUDA graphs that cover the same buffer
 * rotation as plain launches, their warm-up, and the nccl watchdog's per-collective deadline. */
#include "backend.h"
#include "device/device.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>

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

/* A fake backend verdict: the p2p status of a kernel that gave up (rc -AR_ETIMEOUT), counted. */
static int verdict_rc, verdict_calls;
static int fake_verdict(void *state, char *err, size_t len) {
  (void)state;
  verdict_calls++;
  if (verdict_rc) snprintf(err, len, "kernel gave up");
  return verdict_rc;
}

/* The heartbeat moves only for a unit that succeeded: a stopped peer's survivors (whose kernels end
 * normally after 0.9 x -T) must not restart the watchdog's clock, or the job ends after ~1.9 x -T. */
static void test_unit_settle(void **st) {
  (void)st;
  volatile uint64_t hb = 100;
  char err[64] = "";
  verdict_rc = 0, verdict_calls = 0;
  assert_int_equal(ar_unit_settle(0, fake_verdict, NULL, &hb, 1, err, sizeof err), 0);
  assert_int_equal(hb, 101);
  assert_int_equal(ar_unit_settle(0, fake_verdict, NULL, &hb, 10, err, sizeof err), 0); /* -G 10 */
  assert_int_equal(hb, 111);
  assert_int_equal(verdict_calls, 2);
  verdict_rc = -AR_ETIMEOUT; /* the wait succeeded, the kernel's status says it gave up */
  assert_int_equal(ar_unit_settle(0, fake_verdict, NULL, &hb, 1, err, sizeof err), -AR_ETIMEOUT);
  assert_int_equal(hb, 111);
  assert_string_equal(err, "kernel gave up");
  verdict_rc = 0, verdict_calls = 0; /* the wait itself failed: no verdict asked, no beat */
  assert_int_equal(ar_unit_settle(-AR_ERUNTIME, fake_verdict, NULL, &hb, 1, err, sizeof err), -AR_ERUNTIME);
  assert_int_equal(hb, 111);
  assert_int_equal(verdict_calls, 0);
  assert_int_equal(ar_unit_settle(0, NULL, NULL, &hb, 3, err, sizeof err), 0); /* a queued launch */
  assert_int_equal(hb, 114);
  assert_int_equal(ar_unit_settle(-AR_ETIMEOUT, NULL, NULL, &hb, 3, err, sizeof err), -AR_ETIMEOUT);
  assert_int_equal(hb, 114);
}

/* The units let run ahead of the host (both timings): about the window's allreduces, at least 2 units; the host
 * waits for the oldest before it queues past them, so never more than depth are queued and not waited for, and
 * the heartbeat (moved by those waits) keeps pace with the GPU, not with the queue. */
static void test_loop_depth(void **st) {
  (void)st;
  assert_int_equal(ar_loop_depth(32, 1), 32);
  assert_int_equal(ar_loop_depth(32, 10), 3); /* -G 10: 3 replays of 10 */
  assert_int_equal(ar_loop_depth(32, 16), 2);
  assert_int_equal(ar_loop_depth(32, 64), 2);
  assert_int_equal(ar_loop_depth(32, 0), 32);
  assert_int_equal(ar_loop_must_wait(31, 0, 32), 0);
  assert_int_equal(ar_loop_must_wait(32, 0, 32), 1);
  assert_int_equal(ar_loop_must_wait(40, 8, 32), 1);
  assert_int_equal(ar_loop_must_wait(40, 9, 32), 0);
  for (int depth = 2; depth < 6; depth++) { /* the loops of platform_cuda.c, counting */
    int ended = 0, most = 0;
    for (int i = 0; i < 100; i++) {
      if (ar_loop_must_wait(i, ended, depth)) ended++;
      if (i + 1 - ended > most) most = i + 1 - ended;
    }
    assert_int_equal(most, depth);
    assert_int_equal(ended, 100 - depth); /* the rest waited for after the loop */
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_graph_count), cmocka_unit_test(test_graph_warm),
                                     cmocka_unit_test(test_deadline_per_collective),
                                     cmocka_unit_test(test_deadline_plain), cmocka_unit_test(test_unit_settle),
                                     cmocka_unit_test(test_loop_depth)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
