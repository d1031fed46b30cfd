/* test_skip.c — a cmocka program whose only test skips: it must exit 77 so meson reports SKIP, not OK
 * (run by skip.sh, which checks the status and the message). */
#include "../lib/ar_cmocka.h"

static void test_always_skips(void **st) {
  (void)st;
  AR_SKIP("this test always skips");
  fail_msg("AR_SKIP returned");
}

static void test_passes(void **st) {
  (void)st;
  assert_int_equal(1 + 1, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_passes), cmocka_unit_test(test_always_skips)};
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
