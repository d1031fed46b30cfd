/* test_fault.c — the test hooks' one table (bench/run/fault.c ar_fault_hooks): each variable's value lands in
 * its field, unset ones read -1 / 0, and a bad value is one line naming the variable, the value and the form. */
#include "../lib/ar_cmocka.h"
#include "run/fault.h"
#include <string.h>

static const char *const *vars; /* NAME=VALUE pairs the fake getenv answers from, NULL-terminated */

static char *fake_get(const char *name) {
  size_t n = strlen(name);
  for (int i = 0; vars && vars[i]; i++)
    if (!strncmp(vars[i], name, n) && vars[i][n] == '=') return (char *)vars[i] + n + 1;
  return NULL;
}

static int hooks(struct ar_fault *f, char *err, size_t len, const char *const *v) {
  vars = v;
  memset(f, 0x55, sizeof *f); /* every field must be written, set or not */
  *err = 0;
  return ar_fault_hooks(f, fake_get, 4, err, len);
}

static void test_unset(void **st) {
  (void)st;
  struct ar_fault f;
  char err[256];
  assert_int_equal(hooks(&f, err, sizeof err, NULL), 0);
  assert_int_equal(f.p2p_stall, -1);
  assert_int_equal(f.symm_stall, -1);
  assert_int_equal(f.emu_hang, -1);
  assert_int_equal(f.emu_corrupt, -1);
  assert_int_equal(f.emu_ipc_fail, -1);
  assert_int_equal(f.fill_fail_rank, -1);
  assert_int_equal(f.silent_rank, -1);
  assert_int_equal(f.unheld_rank, -1);
  assert_int_equal(f.unheld_tries, 0);
  assert_int_equal(f.mpi_error_rank, -1);
  assert_int_equal(f.mpi_error_bytes, 0);
  assert_int_equal(f.nccl_hang_bytes, 0);
  assert_int_equal(f.fill_fail_bytes, 0);
  static const char *const empty[] = {"ARBENCH_P2P_STALL=", NULL};
  assert_int_equal(hooks(&f, err, sizeof err, empty), 0);
  assert_int_equal(f.p2p_stall, -1);
}

static void test_values(void **st) {
  (void)st;
  struct ar_fault f;
  char err[256];
  static const char *const v[] = {"ARBENCH_P2P_STALL=1", "ARBENCH_SYMM_STALL=2", "ARBENCH_EMU_HANG=3",
                                  "ARBENCH_NCCL_HANG_BYTES=1048576", "ARBENCH_INJECT_FILL_FAIL=1:4096",
                                  "ARBENCH_INJECT_SILENT=0", "ARBENCH_EMU_CORRUPT=2", "ARBENCH_EMU_IPC_FAIL=1",
                                  "ARBENCH_INJECT_MPI_ERROR=2:1024", "ARBENCH_INJECT_UNHELD=3:4", NULL};
  assert_int_equal(hooks(&f, err, sizeof err, v), 0);
  assert_int_equal(f.p2p_stall, 1);
  assert_int_equal(f.symm_stall, 2);
  assert_int_equal(f.emu_hang, 3);
  assert_int_equal(f.emu_corrupt, 2);
  assert_int_equal(f.emu_ipc_fail, 1);
  assert_int_equal(f.nccl_hang_bytes, 1048576);
  assert_int_equal(f.fill_fail_rank, 1);
  assert_int_equal(f.fill_fail_bytes, 4096);
  assert_int_equal(f.silent_rank, 0);
  assert_int_equal(f.mpi_error_rank, 2);
  assert_int_equal(f.mpi_error_bytes, 1024);
  assert_int_equal(f.unheld_rank, 3);
  assert_int_equal(f.unheld_tries, 4);
}

static void bad(const char *var, const char *want) {
  struct ar_fault f;
  char err[256];
  const char *const v[] = {var, NULL};
  assert_int_equal(hooks(&f, err, sizeof err, v), -AR_EINVAL);
  print_message("%s -> %s\n", var, err);
  assert_string_equal(err, want);
  assert_null(strchr(err, '\n'));
}

static void test_bad(void **st) {
  (void)st;
  bad("ARBENCH_P2P_STALL=x", "bad ARBENCH_P2P_STALL 'x' (allowed: one RANK, 0 to 3)");
  bad("ARBENCH_SYMM_STALL=4", "bad ARBENCH_SYMM_STALL '4' (allowed: one RANK, 0 to 3)");
  bad("ARBENCH_EMU_HANG=1x", "bad ARBENCH_EMU_HANG '1x' (allowed: one RANK, 0 to 3)");
  bad("ARBENCH_INJECT_MPI_ERROR=1", "bad ARBENCH_INJECT_MPI_ERROR '1' (allowed: RANK:BYTES, RANK 0 to 3)");
  bad("ARBENCH_EMU_CORRUPT=4", "bad ARBENCH_EMU_CORRUPT '4' (allowed: one RANK, 0 to 3)");
  bad("ARBENCH_EMU_IPC_FAIL=a", "bad ARBENCH_EMU_IPC_FAIL 'a' (allowed: one RANK, 0 to 3)");
  bad("ARBENCH_NCCL_HANG_BYTES=-1", "bad ARBENCH_NCCL_HANG_BYTES '-1' (allowed: BYTES, a non-negative integer)");
  bad("ARBENCH_INJECT_FILL_FAIL=1", "bad ARBENCH_INJECT_FILL_FAIL '1' (allowed: RANK:BYTES, RANK 0 to 3)");
  bad("ARBENCH_INJECT_FILL_FAIL=1:4k", "bad ARBENCH_INJECT_FILL_FAIL '1:4k' (allowed: RANK:BYTES, RANK 0 to 3)");
  bad("ARBENCH_INJECT_SILENT=-1", "bad ARBENCH_INJECT_SILENT '-1' (allowed: one RANK, 0 to 3)");
  bad("ARBENCH_INJECT_UNHELD=1", "bad ARBENCH_INJECT_UNHELD '1' (allowed: RANK:N, N a count, RANK 0 to 3)");
  bad("ARBENCH_INJECT_UNHELD=4:1", "bad ARBENCH_INJECT_UNHELD '4:1' (allowed: RANK:N, N a count, RANK 0 to 3)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_unset),
    cmocka_unit_test(test_values),
    cmocka_unit_test(test_bad),
  };
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
