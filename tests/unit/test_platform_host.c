/* test_platform_host.c — bench/device/platform_host.c's timed loop: every iteration (warm-up, per-iteration
 * and --timing loop) takes the next buffer set, so --buffers cold rotates its sets past the cache. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "ar.h"
#include "backend.h"
#include "device/platform.h"

static const void *seen_in[64], *seen_out[64];
static int nseen;

static int record(void *state, const void *in, void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                  void *stream) {
  (void)state, (void)count, (void)dt, (void)op, (void)stream;
  if (nseen < 64) seen_in[nseen] = in, seen_out[nseen] = out;
  nseen++;
  return 0;
}

static void check_rotation(int loop) {
  static const struct ar_backend be = {.name = "recorder", .allreduce = record};
  char a[3], b[3];
  void *in[3] = {&a[0], &a[1], &a[2]}, *out[3] = {&b[0], &b[1], &b[2]};
  volatile uint64_t beat = 0;
  struct ar_loop l = {.be = &be, .in = in, .out = out, .nsets = 3, .count = 1, .dt = AR_FLOAT, .op = AR_SUM,
                      .warmup = 2, .iters = 7, .loop = loop, .heartbeat = &beat};
  double samples[7];
  char err[AR_ERRLEN];
  nseen = 0;
  assert_int_equal(ar_host_platform.time_loop(&l, samples, err, sizeof err), loop ? 1 : 7);
  assert_int_equal(nseen, 9);
  for (int i = 0; i < 9; i++) { /* warm-up 0, 1, then timed 0..6: set i % 3 of each */
    int k = (i < 2 ? i : i - 2) % 3;
    assert_ptr_equal(seen_in[i], in[k]);
    assert_ptr_equal(seen_out[i], out[k]);
  }
  assert_int_equal(beat, 9);
}

static void test_rotation_iter(void **st) {
  (void)st;
  check_rotation(0);
}

static void test_rotation_loop(void **st) {
  (void)st;
  check_rotation(1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rotation_iter),
    cmocka_unit_test(test_rotation_loop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
