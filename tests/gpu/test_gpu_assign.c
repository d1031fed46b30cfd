/* test_gpu_assign.c — which GPU each rank gets: by local rank, from --devices, shared (--shared-gpu),
 * and when the nccl backend must refuse (two ranks on one GPU). No GPU needed. */
#include "backend.h"
#include "backends/gpu/priv.h"
#include "opts.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

static void test_list_parse(void **st) {
  (void)st;
  int list[8], n = 0;
  char err[256];
  assert_int_equal(ar_gpu_list_parse("0,2,3", list, 8, &n, err, sizeof err), 0);
  assert_int_equal(n, 3);
  assert_int_equal(list[0], 0);
  assert_int_equal(list[1], 2);
  assert_int_equal(list[2], 3);
  assert_int_equal(ar_gpu_list_parse("1,x", list, 8, &n, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "bad --devices '1,x'"));
  assert_int_equal(ar_gpu_list_parse("1,", list, 8, &n, err, sizeof err), -AR_EINVAL);
  assert_int_equal(ar_gpu_list_parse("-1", list, 8, &n, err, sizeof err), -AR_EINVAL);
  assert_int_equal(ar_gpu_list_parse("", list, 8, &n, err, sizeof err), -AR_EINVAL);
  assert_int_equal(ar_gpu_list_parse("0,1,2", list, 2, &n, err, sizeof err), -AR_EINVAL);
}

static void test_assign(void **st) {
  (void)st;
  int list[2] = {3, 1};
  assert_int_equal(ar_gpu_assign(NULL, 0, 4, 0, 2), 2);  /* by local rank */
  assert_int_equal(ar_gpu_assign(NULL, 0, 2, 0, 2), -1); /* more ranks than GPUs */
  assert_int_equal(ar_gpu_assign(NULL, 0, 2, 1, 3), 1);  /* shared: round robin */
  assert_int_equal(ar_gpu_assign(NULL, 0, 0, 1, 0), -1); /* no GPU */
  assert_int_equal(ar_gpu_assign(list, 2, 4, 0, 0), 3);
  assert_int_equal(ar_gpu_assign(list, 2, 4, 0, 1), 1);
  assert_int_equal(ar_gpu_assign(list, 2, 4, 0, 2), -1);
  assert_int_equal(ar_gpu_assign(list, 2, 4, 1, 2), 3);
}

static void test_shared(void **st) {
  (void)st;
  struct ar_opts o;
  ar_opts_defaults(&o);
  struct ar_env env = {.opts = &o, .local_rank = 1, .local_nranks = 4, .device = -1};
  assert_int_equal(ar_gpu_shared_with_peer(&env, 4), 0);
  assert_int_equal(ar_gpu_expected(&env, 4), 1);
  o.shared_gpu = true;
  assert_int_equal(ar_gpu_shared_with_peer(&env, 1), 1); /* 4 ranks on GPU 0 */
  assert_int_equal(ar_gpu_shared_with_peer(&env, 4), 0);
  snprintf(o.devices, sizeof o.devices, "0,1,0,2");
  assert_int_equal(ar_gpu_shared_with_peer(&env, 4), 0); /* rank 1 alone on GPU 1 */
  env.local_rank = 2;
  assert_int_equal(ar_gpu_shared_with_peer(&env, 4), 1); /* rank 2 shares GPU 0 with rank 0 */
  o.shared_gpu = false;
  snprintf(o.devices, sizeof o.devices, "0,1");
  assert_int_equal(ar_gpu_expected(&env, 4), -1); /* rank 2 is not listed */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_list_parse), cmocka_unit_test(test_assign),
                                     cmocka_unit_test(test_shared)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
