/* test_launch.c — bench/run/launch.c: when `arbench run` relaunches itself under mpirun (launcher variables,
 * GPUs, --np, --no-launch, root), the relaunch's argv and the command line it prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>
#include "run/launch.h"

static void test_launcher_vars(void **st) {
  (void)st;
  char *none[] = {"PATH=/bin", "OMPI_ALLOW_RUN_AS_ROOT=1", "SLURM_PROCID=0", "SLURM_JOB_ID=7", NULL};
  assert_null(ar_launcher_var(none)); /* inside sbatch's script, not under srun */
  char *ompi[] = {"PATH=/bin", "OMPI_COMM_WORLD_SIZE=4", NULL};
  assert_string_equal(ar_launcher_var(ompi), "OMPI_COMM_WORLD_SIZE");
  char *pmix[] = {"PMIX_RANK=0", NULL};
  assert_string_equal(ar_launcher_var(pmix), "PMIX_RANK");
  char *hydra[] = {"PMI_RANK=3", NULL};
  assert_string_equal(ar_launcher_var(hydra), "PMI_RANK");
  char *srun[] = {"SLURM_PROCID=1", "SLURM_STEP_ID=0", NULL};
  assert_string_equal(ar_launcher_var(srun), "SLURM_STEP_ID");
  char *prefix[] = {"OMPI_COMM_WORLD_SIZEX=4", "PMIX_RANKS=1", NULL};
  assert_null(ar_launcher_var(prefix));
  assert_null(ar_launcher_var(NULL));
}

static void test_decide(void **st) {
  (void)st;
  struct ar_launch l;
  char *bare[] = {"PATH=/bin", NULL};
  char *ompi[] = {"OMPI_COMM_WORLD_SIZE=8", NULL};
  char *allowed[] = {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", NULL};
  char *again[] = {"ARBENCH_LAUNCHED=1", NULL};
  /* 8 GPUs, as root, outside mpirun: 8 ranks with Open MPI's root variables */
  ar_launch_decide(bare, 8, 64, 0, false, true, &l);
  assert_int_equal(l.action, AR_LAUNCH_RELAUNCH);
  assert_int_equal(l.np, 8);
  assert_true(l.root_env);
  assert_false(l.oversubscribe);
  assert_string_equal(l.note, "");
  /* not root, or root with the variables already set: nothing added */
  ar_launch_decide(bare, 8, 64, 0, false, false, &l);
  assert_false(l.root_env);
  ar_launch_decide(allowed, 8, 64, 0, false, true, &l);
  assert_int_equal(l.action, AR_LAUNCH_RELAUNCH);
  assert_false(l.root_env);
  /* under mpirun, or --no-launch: run here, silently */
  ar_launch_decide(ompi, 8, 64, 0, false, true, &l);
  assert_int_equal(l.action, AR_LAUNCH_NONE);
  assert_string_equal(l.note, "");
  ar_launch_decide(bare, 8, 64, 4, true, true, &l);
  assert_int_equal(l.action, AR_LAUNCH_NONE);
  /* --np N wins over the GPU count; more ranks than cores oversubscribe */
  ar_launch_decide(bare, 8, 64, 2, false, false, &l);
  assert_int_equal(l.np, 2);
  ar_launch_decide(bare, 0, 2, 4, false, false, &l);
  assert_int_equal(l.action, AR_LAUNCH_RELAUNCH);
  assert_int_equal(l.np, 4);
  assert_true(l.oversubscribe);
  /* one GPU: one rank, nothing to say; none: one rank and how to run N CPU ranks */
  ar_launch_decide(bare, 1, 64, 0, false, true, &l);
  assert_int_equal(l.action, AR_LAUNCH_NONE);
  assert_string_equal(l.note, "");
  ar_launch_decide(bare, 0, 16, 0, false, true, &l);
  assert_int_equal(l.action, AR_LAUNCH_HINT);
  assert_int_equal(l.np, 8);
  assert_string_equal(l.note, "not started by mpirun and no GPU here: running 1 rank (busbw is 0 on one rank); "
                              "for 8 CPU ranks on the host backends: arbench run --np 8 ... (or mpirun -np 8 arbench run ...)");
  ar_launch_decide(bare, 0, 1, 0, false, true, &l);
  assert_int_equal(l.np, 2);
  /* our own relaunch without launcher variables never relaunches again */
  ar_launch_decide(again, 8, 64, 0, false, true, &l);
  assert_int_equal(l.action, AR_LAUNCH_NONE);
  assert_non_null(strstr(l.note, "relaunched by arbench but no MPI launcher variable is set"));
}

static void test_argv_and_format(void **st) {
  (void)st;
  struct ar_launch l;
  char *bare[] = {NULL};
  ar_launch_decide(bare, 0, 2, 4, false, true, &l);
  char *args[] = {"run", "--np", "4", "--backend", "nccl:algo=Ring;mpi", "--np=4", "--no-launch", "-b", "8", "it's"};
  char **v = ar_launch_argv(&l, "/opt/a b/arbench", 10, args);
  assert_non_null(v);
  const char *want[] = {"mpirun", "-q", "-np", "4", "/opt/a b/arbench", "run", "--backend", "nccl:algo=Ring;mpi", "-b", "8", "it's", NULL};
  for (int i = 0; want[i] || v[i]; i++) {
    if (!want[i] || !v[i]) fail_msg("argv %d: '%s' against '%s'", i, v[i] ? v[i] : "(end)", want[i] ? want[i] : "(end)");
    assert_string_equal(v[i], want[i]);
  }
  char buf[512];
  ar_launch_format(&l, v, buf, sizeof buf);
  assert_string_equal(buf, "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 "
                           "mpirun -q -np 4 '/opt/a b/arbench' run --backend 'nccl:algo=Ring;mpi' -b 8 'it'\\''s'");
  char small[16];
  ar_launch_format(&l, v, small, sizeof small);
  assert_int_equal(strlen(small), sizeof small - 1);
  ar_launch_free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_launcher_vars),
    cmocka_unit_test(test_decide),
    cmocka_unit_test(test_argv_and_format),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
