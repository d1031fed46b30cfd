/* test_gpu_assign.c — which GPU each rank gets: by local rank, from --devices, shared (--shared-gpu),
 * by PCI bus id when each rank sees its own GPU, and when two ranks share one physical GPU. No GPU needed. */
#include "backend.h"
#include "device/device.h"
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

/* One GPU visible per rank (CUDA_VISIBLE_DEVICES per task, srun --gpus-per-task=1): every rank gets
 * its device 0. The old rule (local rank index against the visible count) gave ranks >= 1 none. */
static void test_visible_per_task(void **st) {
  (void)st;
  const char *vis[4] = {"0000:01:00.0", "0000:41:00.0", "0000:81:00.0", "0000:c1:00.0"};
  for (int lr = 0; lr < 4; lr++) assert_int_equal(ar_gpu_assign_visible(vis, 4, NULL, 0, 0, lr), 0);
  const char *bus[4] = {"0000:01:00.0", "0000:41:00.0", "0000:81:00.0", "0000:c1:00.0"};
  for (int lr = 0; lr < 4; lr++) assert_int_equal(ar_gpu_busid_shared(bus, 4, lr), 0); /* distinct GPUs */
}

/* All ranks see the same GPUs: by position, as before; more ranks than GPUs only with shared. */
static void test_visible_same(void **st) {
  (void)st;
  const char *all = "0000:01:00.0,0000:41:00.0";
  const char *vis[3] = {all, all, all};
  assert_int_equal(ar_gpu_assign_visible(vis, 3, NULL, 0, 0, 0), 0);
  assert_int_equal(ar_gpu_assign_visible(vis, 3, NULL, 0, 0, 1), 1);
  assert_int_equal(ar_gpu_assign_visible(vis, 3, NULL, 0, 0, 2), -1);
  assert_int_equal(ar_gpu_assign_visible(vis, 3, NULL, 0, 1, 2), 0);
  int list[2] = {1, 0};
  assert_int_equal(ar_gpu_assign_visible(vis, 3, list, 2, 0, 0), 1);
  assert_int_equal(ar_gpu_assign_visible(vis, 3, list, 2, 0, 1), 0);
  const char *none[2] = {"", ""};
  assert_int_equal(ar_gpu_assign_visible(none, 2, NULL, 0, 1, 1), -1);
  /* Two groups: ranks 0,2 see GPUs A,B; ranks 1,3 see C,D. Each rank takes its place in its group. */
  const char *grp[4] = {"a,b", "c,d", "a,b", "c,d"};
  assert_int_equal(ar_gpu_assign_visible(grp, 4, NULL, 0, 0, 2), 1);
  assert_int_equal(ar_gpu_assign_visible(grp, 4, NULL, 0, 0, 3), 1);
  assert_int_equal(ar_gpu_assign_visible(grp, 4, NULL, 0, 0, 1), 0);
}

/* Sharing is decided by physical GPU (bus id), not by index. */
static void test_busid_shared(void **st) {
  (void)st;
  const char *two_on_one[3] = {"0000:01:00.0", "0000:41:00.0", "0000:01:00.0"};
  assert_int_equal(ar_gpu_busid_shared(two_on_one, 3, 0), 1);
  assert_int_equal(ar_gpu_busid_shared(two_on_one, 3, 1), 0);
  assert_int_equal(ar_gpu_busid_shared(two_on_one, 3, 2), 1);
  const char *upper[2] = {"0000:0A:00.0", "0000:0a:00.0"};
  assert_int_equal(ar_gpu_busid_shared(upper, 2, 1), 1);
  const char *nogpu[2] = {"", ""};
  assert_int_equal(ar_gpu_busid_shared(nogpu, 2, 0), 0); /* no GPU is not a shared GPU */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_list_parse), cmocka_unit_test(test_assign),
                                     cmocka_unit_test(test_visible_per_task),
                                     cmocka_unit_test(test_visible_same), cmocka_unit_test(test_busid_shared)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
