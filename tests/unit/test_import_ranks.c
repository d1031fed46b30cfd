/* test_import_ranks.c — the rank count of an imported nccl-tests test (bench/analysis/import_ranks.c): half
 * units of printed numbers, busbw/algbw intervals from published rows, launcher lines, the decision. */
#include "../lib/ar_cmocka.h"
#include "analysis/import_ranks.h"
#include <math.h>
#include <string.h>

static void test_half_unit(void **st) {
  (void)st;
  assert_float_equal(ar_nt_half_unit("0.24"), 0.005, 1e-12);
  assert_float_equal(ar_nt_half_unit("1950.5"), 0.05, 1e-12);
  assert_float_equal(ar_nt_half_unit("11163"), 0.5, 1e-12);
  assert_float_equal(ar_nt_half_unit("1e+06"), 5e5, 1e-6); /* nccl-tests' %e fallback */
  assert_float_equal(ar_nt_half_unit("2.5e+03"), 50, 1e-9);
  assert_true(ar_nt_half_unit("N/A") < 0);
  assert_true(ar_nt_half_unit("1.2x") < 0);
}

/* The interval of n that rows (algbw, busbw) as printed allow. */
static struct ar_nt_ratio ratio(const char *const *pairs, int n) {
  struct ar_nt_ratio r;
  ar_nt_ratio_init(&r);
  for (int i = 0; i < n; i++) ar_nt_ratio_add(&r, pairs[2 * i], pairs[2 * i + 1]);
  return r;
}

static void test_ratio(void **st) {
  (void)st;
  /* coreweave's 2-rack GB200 log: busbw/algbw pins 128 ranks, whatever its Rank line says */
  const char *cw[] = {"248.92", "493.94", "399.65", "793.06", "408.40", "810.41"};
  struct ar_nt_ratio r = ratio(cw, 3);
  assert_int_equal(r.rows, 3);
  assert_int_equal((int)ceil(r.lo - 1e-9), 128);
  assert_int_equal((int)floor(r.hi + 1e-9), 128);
  /* 1440 ranks: the printed digits allow a range only */
  const char *big[] = {"75.53", "150.95"};
  r = ratio(big, 1);
  assert_true(r.lo < 1440 && r.hi > 1440 && r.hi - r.lo > 100);
  /* one rank: busbw 0.00 against a real algbw */
  const char *one[] = {"23.06", "0.00", "1e+06", "0.00"};
  r = ratio(one, 2);
  assert_int_equal((int)ceil(r.lo - 1e-9), 1);
  assert_int_equal((int)floor(r.hi + 1e-9), 1);
  /* 0.00 GB/s rows say nothing; N/A is no number */
  const char *none[] = {"0.00", "0.00", "N/A", "1.0"};
  r = ratio(none, 2);
  assert_int_equal(r.rows, 0);
  /* all_gather's (n-1)/n fits no allreduce rank count */
  const char *ag[] = {"50.34", "47.19", "201.11", "188.54"};
  r = ratio(ag, 2);
  assert_int_equal(r.empty, 1);
}

static int decide(struct ar_nt_evidence *ev, const char **from, char *warn, char *err) {
  return ar_nt_decide_ranks(ev, from, warn, 512, err, 512);
}

static void test_decide(void **st) {
  (void)st;
  char warn[512], err[512];
  const char *from = NULL;
  struct ar_nt_evidence ev;
  const char *cw[] = {"248.92", "493.94", "399.65", "793.06"};
  memset(&ev, 0, sizeof ev);
  ev.ratio = ratio(cw, 2);
  ev.rank_hi = 144, ev.rank_lines = 1; /* the Rank line a doc kept, edited */
  assert_int_equal(decide(&ev, &from, warn, err), 128);
  assert_string_equal(from, "busbw/algbw");
  assert_string_equal(warn, "rank count: busbw/algbw says 128; Rank lines end at rank 143 (1 line): using 128 (busbw/algbw)");
  /* 1440: busbw/algbw allows a range, the Rank line picks inside it; no warning */
  const char *big[] = {"75.53", "150.95"};
  memset(&ev, 0, sizeof ev);
  ev.ratio = ratio(big, 1);
  ev.rank_hi = 1440, ev.rank_lines = 1;
  assert_int_equal(decide(&ev, &from, warn, err), 1440);
  assert_string_equal(from, "Rank lines");
  assert_string_equal(warn, "");
  /* a launcher line inside the range, when no Rank line fits */
  ev.rank_hi = 4, ev.rank_lines = 4, ev.launcher = 1440;
  assert_int_equal(decide(&ev, &from, warn, err), 1440);
  assert_string_equal(from, "launcher");
  assert_true(strstr(warn, "Rank lines end at rank 3 (4 lines)") != NULL);
  /* nothing inside the range: refused, naming what is known */
  ev.launcher = 0;
  assert_int_equal(decide(&ev, &from, warn, err), 0);
  assert_true(strstr(err, "cannot tell the number of ranks (busbw/algbw allows") != NULL);
  assert_true(strstr(err, "pass --ranks N") != NULL);
  /* no evidence at all */
  memset(&ev, 0, sizeof ev);
  ar_nt_ratio_init(&ev.ratio);
  assert_int_equal(decide(&ev, &from, warn, err), 0);
  assert_string_equal(err, "cannot tell the number of ranks (no Rank lines, no launcher line, no busbw/algbw to go by): pass --ranks N");
  /* Rank lines alone (every busbw 0.00) */
  ev.rank_hi = 8, ev.rank_lines = 8;
  assert_int_equal(decide(&ev, &from, warn, err), 8);
  assert_string_equal(warn, "");
  /* --ranks wins, and says what it overrides */
  ev.forced = 16;
  assert_int_equal(decide(&ev, &from, warn, err), 16);
  assert_string_equal(from, "--ranks");
  assert_string_equal(warn, "rank count: --ranks 16; Rank lines end at rank 7 (8 lines): using 16 (--ranks)");
}

static void test_launcher(void **st) {
  (void)st;
  assert_int_equal(ar_nt_launcher_ranks("mpirun -np 16 -H a:8,b:8 ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1"), 16);
  assert_int_equal(ar_nt_launcher_ranks("$ mpirun -np 2 ./build/all_reduce_perf -b 8 -g 4 -n 40"), 8); /* -g: per process; -n: iters */
  assert_int_equal(ar_nt_launcher_ranks("mpirun --oversubscribe -np 1 /usr/bin/env A=1 all_reduce_perf_mpi -n 20 : "
                                        "-np 1 /usr/bin/env A=2 all_reduce_perf_mpi -n 20"), 2); /* MPMD */
  assert_int_equal(ar_nt_launcher_ranks("srun -N 4 --ntasks-per-node=8 all_reduce_perf -b 8"), 32);
  assert_int_equal(ar_nt_launcher_ranks("srun --ntasks=64 -c 12 all_reduce_perf"), 64); /* srun -c: cpus per task */
  assert_int_equal(ar_nt_launcher_ranks("root@dkh:~/nccl-tests# ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 8"), 8);
  assert_int_equal(ar_nt_launcher_ranks("mpirun -np $gpu_count all_reduce_perf"), 0);
  assert_int_equal(ar_nt_launcher_ranks("export SLURM_NTASKS=24"), 24);
  assert_int_equal(ar_nt_launcher_ranks("kubectl logs -f launcher"), 0);
  char prog[64];
  assert_int_equal(ar_nt_command_program("- `NCCL_DEBUG=INFO ./nccl-tests/build/all_reduce_perf -b 8 -g 1 -n 5`", prog,
                                         sizeof prog), 1);
  assert_string_equal(prog, "all_reduce_perf");
  assert_int_equal(ar_nt_command_program("The current manifest executes the all_reduce_perf test", prog, sizeof prog), 0);
  assert_int_equal(ar_nt_command_average("mpirun -np 8 all_reduce_perf -b 8 -a 3"), 3);
  assert_int_equal(ar_nt_command_average("all_reduce_perf -a0"), 0);
  assert_int_equal(ar_nt_command_average("mpirun -np 8 all_reduce_perf -b 8"), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_half_unit), cmocka_unit_test(test_ratio),
                                     cmocka_unit_test(test_decide), cmocka_unit_test(test_launcher)};
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
