/* test_applies.c — which --env axes apply to which backends (bench/sweep/applies.c, issue 42 item 8): the rules by
 * variable prefix name the backends of this build's registry, --applies overrides them or lifts them (all), a
 * bad --applies is one line, and the line the sweep says names the pooled axis. */
#include "../lib/ar_cmocka.h"
#include "sweep/plan.h"
#include <stdlib.h>
#include <string.h>

static int parse(struct ar_sweep_cfg *c, char *err, const char *first, ...) {
  const char *argv[64] = {"sweep", first};
  int argc = 2;
  va_list ap;
  va_start(ap, first);
  for (const char *a; (a = va_arg(ap, const char *));) argv[argc++] = a;
  va_end(ap);
  return ar_sweep_parse(c, argc, (char **)argv, "/opt/arbench", "/work", err, AR_ERRLEN);
}

static char *dump(json_t *j) { return json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS); }

static void test_rules(void **st) {
  (void)st;
  struct ar_sweep_cfg c;
  char err[AR_ERRLEN] = "";
  assert_int_equal(parse(&c, err, "--np", "2", "--env", "OMPI_MCA_coll_tuned_allreduce_algorithm=1,2", "--env",
                         "OMPI_MCA_btl=self,vader", "--env", "OMPI_MCA_hwloc_base_binding_policy=core,none", "--env",
                         "NCCL_BUFFSIZE=1M,4M", "--env", "CUDA_DEVICE_MAX_CONNECTIONS=1,8", "--env", "FOO=1", "-J",
                         "x.jsonl", "--", "--backend", "mpi,shm-oneshot,nccl", NULL), 0);
  /* coll: the MPI library's allreduce only; NCCL_*: nccl and symm; CUDA_*: the GPU backends; the component list
   * OMPI_MCA_btl (no rule: its own parameters are btl_*), hwloc's binding (every backend) and FOO: every backend */
  char *s = dump(c.apply);
  assert_string_equal(s, "{\"CUDA_DEVICE_MAX_CONNECTIONS\":{\"backends\":[\"nccl\",\"p2p-oneshot\",\"p2p-twoshot\","
                         "\"p2p-staged\",\"p2p-islands\",\"fused\",\"symm\"],\"by\":\"CUDA's settings: the GPU backends only\"},"
                         "\"NCCL_BUFFSIZE\":{\"backends\":[\"nccl\",\"symm\"],\"by\":\"NCCL's settings: read by NCCL's "
                         "allreduce and the kernels on NCCL's device API only\"},\"OMPI_MCA_coll_tuned_allreduce_algorithm\":"
                         "{\"backends\":[\"mpi\"],\"by\":\"Open MPI's collective components: only the MPI library's "
                         "allreduce calls them\"}}");
  free(s);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ar_sweep_applies_say(&c, c.apply, f);
  fclose(f);
  /* one line per axis that pools a chosen backend (shm-oneshot is outside every list above); none for FOO */
  assert_non_null(strstr(buf, "arbench sweep: OMPI_MCA_coll_tuned_allreduce_algorithm applies to mpi only (Open MPI's "
                              "collective components: only the MPI library's allreduce calls them); table, tune and "
                              "compare pool the other backends' runs over its values (--applies "
                              "OMPI_MCA_coll_tuned_allreduce_algorithm=LIST says otherwise)\n"));
  assert_null(strstr(buf, "FOO"));
  free(buf);
  ar_sweep_cfg_free(&c);
}

static void test_user(void **st) {
  (void)st;
  struct ar_sweep_cfg c;
  char err[AR_ERRLEN] = "";
  assert_int_equal(parse(&c, err, "--np", "2", "--env", "OMPI_MCA_coll_tuned_allreduce_algorithm=1,2", "--env",
                         "FOO=1,2", "--applies", "FOO=shm-oneshot,mpi", "--applies",
                         "OMPI_MCA_coll_tuned_allreduce_algorithm=all", "-J", "x.jsonl", NULL), 0);
  char *s = dump(c.apply);
  assert_string_equal(s, "{\"FOO\":{\"backends\":[\"shm-oneshot\",\"mpi\"],\"by\":\"given by --applies\"}}");
  free(s);
  ar_sweep_cfg_free(&c);
  const char *bad[][3] = {{"BAR=mpi", "bad --applies 'BAR=mpi' (expected NAME=BACKEND[,BACKEND...] or NAME=all", NULL},
                          {"FOO=nosuch", "bad --applies FOO=nosuch: unknown backend 'nosuch'", NULL},
                          {"FOO=mpi:x=1", "bad --applies FOO=mpi:x=1: 'mpi:x=1' has a variant (expected backend names)", NULL},
                          {"FOO", "bad --applies 'FOO' (expected NAME=", NULL},
                          {"FOO=", "empty", NULL}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    *err = 0;
    assert_int_equal(parse(&c, err, "--np", "2", "--env", "FOO=1,2", "--applies", bad[i][0], "-J", "x.jsonl", NULL),
                     -AR_EINVAL);
    if (!strstr(err, bad[i][1])) fail_msg("--applies %s: got [%s], want [%s]", bad[i][0], err, bad[i][1]);
    ar_sweep_cfg_free(&c);
  }
}

/* An axis that applies to none of the chosen backends is an error before anything runs (issue 50 item 5), naming
 * the axis, the chosen backends and those it applies to; --applies lifts it; the default backends are not checked. */
static void test_applies_to_none(void **st) {
  (void)st;
  struct ar_sweep_cfg c;
  char err[AR_ERRLEN] = "";
  assert_int_equal(parse(&c, err, "--np", "2", "--env", "NCCL_ALGO=Ring", "-J", "x.jsonl", "--", "--backend", "mpi",
                         NULL), -AR_EINVAL);
  assert_string_equal(err, "--env NCCL_ALGO applies to none of the chosen backends (mpi): it applies to nccl, symm only "
                           "(NCCL's settings: read by NCCL's allreduce and the kernels on NCCL's device API only); add "
                           "one of them, drop the axis, or say which it applies to with --applies NCCL_ALGO=LIST");
  ar_sweep_cfg_free(&c);
  assert_int_equal(parse(&c, err, "--np", "2", "--env", "NCCL_ALGO=Ring", "--applies", "NCCL_ALGO=mpi", "-J", "x.jsonl",
                         "--", "--backend", "mpi", NULL), 0);
  ar_sweep_cfg_free(&c);
  assert_int_equal(parse(&c, err, "--np", "2", "--env", "NCCL_ALGO=Ring", "-J", "x.jsonl", NULL), 0); /* defaults */
  ar_sweep_cfg_free(&c);
  assert_int_equal(parse(&c, err, "--np", "2", "--env", "NCCL_ALGO=Ring", "-J", "x.jsonl", "--", "--backend",
                         "mpi,nccl", NULL), 0); /* applies to one of them: the others pooled, as before */
  ar_sweep_cfg_free(&c);
}

/* Issue 49 item 6: an axis's NCCL_* name is checked for its spelling before the applies check reads it (mpi alone:
 * NCCL_* applies to none, which would hide the misspelling); unknown and removed names are warnings kept for the
 * sweep to say; the sweep's own environment is checked the same way, its axes left to the axis check. */
static void test_spelled_first(void **st) {
  (void)st;
  struct ar_sweep_cfg c;
  char err[AR_ERRLEN] = "";
  assert_int_equal(parse(&c, err, "--np", "2", "--env", "NCCL_PROTOCOL=LL,LL128", "-J", "x.jsonl", "--", "--backend",
                         "mpi", NULL), -AR_EINVAL);
  assert_string_equal(err, "NCCL_PROTOCOL=LL,LL128: no NCCL release reads NCCL_PROTOCOL (2.3.5 to 2.30.7 read): did you "
                           "mean NCCL_PROTO? (--allow-unknown-env passes it as it is)");
  ar_sweep_cfg_free(&c);
  assert_int_equal(parse(&c, err, "--np", "2", "--allow-unknown-env", "--env", "NCCL_PROTOCOL=LL", "--env",
                         "NCCL_MYPLUGIN_FOO=1", "--env", "NCCL_SHM_MEMCPY_MODE=1", "--env", "NCCL_PROTO=LL", "--env",
                         "NCCL_CTAS=2", "-J", "x.jsonl", NULL), 0);
  assert_int_equal(c.warnings.n, 3);
  assert_string_equal(c.warnings.v[0], "warning: NCCL_PROTOCOL=LL: no NCCL release reads NCCL_PROTOCOL (a near miss of "
                                       "NCCL_PROTO); passed as it is (--allow-unknown-env)");
  assert_non_null(strstr(c.warnings.v[1], "warning: NCCL_MYPLUGIN_FOO=1: no NCCL release from 2.3.5 to 2.30.7 reads"));
  assert_non_null(strstr(c.warnings.v[2], "NCCL_SHM_MEMCPY_MODE: removed in 2.30.7 (last read by 2.30.4)"));
  /* The environment: NCCL_PROTOCOL is an axis (checked there), NCCL_IB_HCAS is not: refused. */
  char *envp[] = {"PATH=/bin", "NCCL_PROTOCOL=Simple", "NCCL_IB_HCAS=mlx5_0", NULL};
  c.allow_unknown_env = false;
  assert_int_equal(ar_sweep_env_check(&c, envp, err, AR_ERRLEN), -AR_EINVAL);
  assert_string_equal(err, "NCCL_IB_HCAS=mlx5_0: no NCCL release reads NCCL_IB_HCAS (2.3.5 to 2.30.7 read): did you mean "
                           "NCCL_IB_HCA? (--allow-unknown-env passes it as it is)");
  char *envp2[] = {"NCCL_PROTOCOL=Simple", "NCCL_SITE_RACK=7", "NCCL_DEBUG=WARN", NULL};
  assert_int_equal(ar_sweep_env_check(&c, envp2, err, AR_ERRLEN), 0);
  assert_int_equal(c.warnings.n, 4);
  assert_non_null(strstr(c.warnings.v[3], "warning: NCCL_SITE_RACK=7: no NCCL release"));
  ar_sweep_cfg_free(&c);
  /* As a run option after --, too. */
  assert_int_equal(parse(&c, err, "--np", "2", "--env", "NCCL_PROTOCOL=LL", "-J", "x.jsonl", "--",
                         "--allow-unknown-env", NULL), 0);
  assert_int_equal(c.warnings.n, 1);
  ar_sweep_cfg_free(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_rules), cmocka_unit_test(test_user),
                                     cmocka_unit_test(test_applies_to_none), cmocka_unit_test(test_spelled_first)};
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
