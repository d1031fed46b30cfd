/* test_reason.c — why a sweep launch failed, in one line (bench/sweep/reason.c, issue 42 item 3), from real
 * stderr tails: Open MPI 4.1.4's "not enough slots" block (captured from mpirun on the project's build
 * machine), arbench's own error line among mpirun's blocks, warnings and notes skipped, a bare last line, and
 * an empty tail. */
#include "../lib/ar_cmocka.h"
#include "sweep/exec.h"
#include <string.h>

static const char slots[] =
    "--------------------------------------------------------------------------\n"
    "There are not enough slots available in the system to satisfy the 3\n"
    "slots that were requested by the application:\n\n  /work/build/arbench\n\n"
    "Either request fewer slots for your application, or make more slots\navailable for use.\n\n"
    "Alternatively, you can use the --oversubscribe option to ignore the\nnumber of available slots when deciding "
    "the number of processes to\nlaunch.\n"
    "--------------------------------------------------------------------------\n";

static const char variant[] =
    "arbench: warning: -G 2 does nothing for mpi (not captured in CUDA graphs; timed as plain calls)\n"
    "arbench: unknown variant 'shm-oneshot:foo=1' (allowed: shm-oneshot:chunk=SIZE,stream=SIZE, e.g. chunk=64K)\n"
    "--------------------------------------------------------------------------\n"
    "Primary job  terminated normally, but 1 process returned\n"
    "a non-zero exit code. Per user-direction, the job has been aborted.\n"
    "--------------------------------------------------------------------------\n";

static void test_slots(void **st) {
  (void)st;
  char buf[512];
  ar_sweep_reason(slots, buf, sizeof buf);
  assert_string_equal(buf, "There are not enough slots available in the system to satisfy the 3 slots that were "
                           "requested by the application (more ranks than cores: add --oversubscribe to --launcher, "
                           "or export OMPI_MCA_rmaps_base_oversubscribe=1)");
}

static void test_arbench_line_first(void **st) {
  (void)st;
  char buf[512];
  ar_sweep_reason(variant, buf, sizeof buf);
  assert_string_equal(buf, "unknown variant 'shm-oneshot:foo=1' (allowed: shm-oneshot:chunk=SIZE,stream=SIZE, e.g. chunk=64K)");
  ar_sweep_reason("arbench links: links needs 2 or more ranks, got 1\n", buf, sizeof buf);
  assert_string_equal(buf, "links needs 2 or more ranks, got 1");
  ar_sweep_reason("arbench: note: ignored\narbench: rank 1: timeout: start-up made no progress for 3 s (-T 3)\n", buf,
                  sizeof buf);
  assert_string_equal(buf, "rank 1: timeout: start-up made no progress for 3 s (-T 3)");
}

static void test_last_line_and_empty(void **st) {
  (void)st;
  char buf[512];
  ar_sweep_reason("some noise\n./wrap.sh: line 3: exec: nosuch: not found\n\n", buf, sizeof buf);
  assert_string_equal(buf, "./wrap.sh: line 3: exec: nosuch: not found");
  ar_sweep_reason("", buf, sizeof buf);
  assert_string_equal(buf, "");
  char small[16];
  ar_sweep_reason(variant, small, sizeof small);
  assert_int_equal(strlen(small), 15); /* bounded by the buffer, never past it */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_slots), cmocka_unit_test(test_arbench_line_first),
                                     cmocka_unit_test(test_last_line_and_empty)};
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
