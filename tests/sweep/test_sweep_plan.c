/* test_sweep_plan.c — unit tests of `arbench sweep` parsing and planning: exact launch argv and env,
 * in-process nccl variants, --exclude, launcher word splitting, shell quoting, and bad input. */
#include "../lib/ar_cmocka.h"
#include "backend.h"
#include "sweep/plan.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXE "/opt/arbench"
#define CWD "/work"

static char *base_env[] = {"PATH=/bin", "FOO=old", "HOME=/root", NULL};

/* Parse and plan argv (NULL-terminated); returns parse/plan rc, err in err. */
static int plan_of(struct ar_sweep_cfg *c, struct ar_plan *p, bool root, char *err, const char *first, ...) {
  const char *argv[64] = {"sweep", first};
  int argc = 2;
  va_list ap;
  va_start(ap, first);
  for (const char *a; (a = va_arg(ap, const char *));) argv[argc++] = a;
  va_end(ap);
  memset(p, 0, sizeof *p);
  int rc = ar_sweep_parse(c, argc, (char **)argv, EXE, CWD, err, AR_ERRLEN);
  if (!rc) rc = ar_sweep_plan(c, base_env, root, p, err, AR_ERRLEN);
  return rc;
}

static void done(struct ar_sweep_cfg *c, struct ar_plan *p) {
  ar_plan_free(p);
  ar_sweep_cfg_free(c);
}

static void assert_argv(const struct ar_strv *v, const char *const *want) {
  int n = 0;
  for (; want[n]; n++) {
    assert_true(n < v->n);
    assert_string_equal(v->v[n], want[n]);
  }
  assert_int_equal(v->n, n);
}

static int env_count(const struct ar_strv *env, const char *prefix) {
  int k = 0;
  for (int i = 0; i < env->n; i++) k += !strncmp(env->v[i], prefix, strlen(prefix));
  return k;
}

static char *dump(json_t *j) { return json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER); }

static void test_issue_command(void **st) {
  (void)st;
  struct ar_sweep_cfg c;
  struct ar_plan p;
  char err[AR_ERRLEN] = "";
  int rc = plan_of(&c, &p, false, err, "--np", "2,3", "--env", "OMPI_MCA_coll_tuned_allreduce_algorithm=1,2,3,4",
                   "--env", "OMPI_MCA_coll_tuned_use_dynamic_rules=1", "-J", "s.jsonl", "--", "--backend",
                   "mpi,shm-oneshot", "-b", "8", "-e", "1M", NULL);
  assert_int_equal(rc, 0);
  assert_int_equal(p.n, 8);
  assert_int_equal(p.npoints, 8);
  const char *const want[] = {"mpirun", "-np", "3", "-x", "OMPI_MCA_coll_tuned_allreduce_algorithm=2", "-x",
                              "OMPI_MCA_coll_tuned_use_dynamic_rules=1", EXE, "run", "-b", "8", "-e", "1M",
                              "--backend", "mpi;shm-oneshot", "--point",
                              "{\"np\":3,\"OMPI_MCA_coll_tuned_allreduce_algorithm\":\"2\","
                              "\"OMPI_MCA_coll_tuned_use_dynamic_rules\":\"1\"}",
                              "-J", CWD "/s.jsonl", NULL};
  assert_argv(&p.l[5].argv, want); /* np slowest, last axis fastest: (3, 2) is the 6th */
  assert_string_equal(p.l[5].label, "np=3 OMPI_MCA_coll_tuned_allreduce_algorithm=2 OMPI_MCA_coll_tuned_use_dynamic_rules=1");
  assert_int_equal(env_count(&p.l[5].env, "OMPI_MCA_coll_tuned_allreduce_algorithm=2"), 1);
  assert_int_equal(env_count(&p.l[5].env, "OMPI_MCA_coll_tuned_allreduce_algorithm="), 1);
  assert_int_equal(env_count(&p.l[5].env, "PATH=/bin"), 1);
  assert_int_equal(env_count(&p.l[5].env, "OMPI_ALLOW_RUN_AS_ROOT"), 0); /* not root */
  char *args = dump(p.l[0].args);
  assert_string_equal(args, "[\"-b\",\"8\",\"-e\",\"1M\",\"--backend\",\"mpi;shm-oneshot\"]");
  free(args);
  done(&c, &p);
}

static void test_env_replaced_and_root(void **st) {
  (void)st;
  struct ar_sweep_cfg c;
  struct ar_plan p;
  char err[AR_ERRLEN] = "";
  assert_int_equal(plan_of(&c, &p, true, err, "--np", "2", "--env", "FOO=new", "-J", "/r.jsonl", NULL), 0);
  assert_int_equal(p.n, 1);
  assert_int_equal(env_count(&p.l[0].env, "FOO="), 1);
  assert_int_equal(env_count(&p.l[0].env, "FOO=new"), 1);
  assert_int_equal(env_count(&p.l[0].env, "OMPI_ALLOW_RUN_AS_ROOT=1"), 1);
  assert_int_equal(env_count(&p.l[0].env, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"), 1);
  assert_null(p.l[0].backend); /* no --backend given: the run's default */
  const char *const want[] = {"mpirun", "-np", "2", "-x", "FOO=new", EXE, "run", "--point",
                              "{\"np\":2,\"FOO\":\"new\"}", "-J", "/r.jsonl", NULL};
  assert_argv(&p.l[0].argv, want);
  char *buf = NULL; /* --dry-run's line holds the variables the sweep adds: pasted as root, it runs (issue 42) */
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ar_launch_print(f, &p.l[0]);
  fclose(f);
  assert_string_equal(buf, "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FOO=new mpirun -np 2 -x FOO=new "
                           "/opt/arbench run --point '{\"np\":2,\"FOO\":\"new\"}' -J /r.jsonl");
  free(buf);
  done(&c, &p);
}

static void test_nccl_in_process(void **st) {
  (void)st;
  if (!ar_backend_built(ar_backend_find("nccl"))) AR_SKIP("nccl not compiled in");
  struct ar_sweep_cfg c;
  struct ar_plan p;
  char err[AR_ERRLEN] = "";
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "2,4", "--env", "NCCL_ALGO=Ring,Tree", "--env",
                           "NCCL_PROTO=LL,Simple", "--env", "NCCL_BUFFSIZE=4M", "--backend", "mpi,nccl", "-J", "x",
                           "--exclude", "NCCL_ALGO=Tree,NCCL_PROTO=LL", "--exclude", "np=4,NCCL_ALGO=Ring", NULL), 0);
  assert_int_equal(p.n, 2);
  assert_int_equal(p.npoints, 4);
  assert_string_equal(p.l[0].backend, "mpi;nccl:algo=Ring,proto=LL;nccl:algo=Ring,proto=Simple;nccl:algo=Tree,proto=Simple");
  assert_string_equal(p.l[1].backend, "mpi;nccl:algo=Tree,proto=Simple");
  char *pt = dump(p.l[1].point);
  assert_string_equal(pt, "{\"np\":4,\"NCCL_BUFFSIZE\":\"4M\"}");
  free(pt);
  assert_int_equal(env_count(&p.l[0].env, "NCCL_ALGO"), 0); /* in-process axes are not env */
  done(&c, &p);
  /* a base variant keeps its keys; without --backend the axes imply nccl */
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "2", "--env", "NCCL_CTAS=4,8", "--backend",
                           "nccl:proto=LL", "-J", "x", NULL), 0);
  assert_string_equal(p.l[0].backend, "nccl:proto=LL,ctas=4;nccl:proto=LL,ctas=8");
  done(&c, &p);
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "2", "--env", "NCCL_ALGO=Ring", "-J", "x", NULL), 0);
  assert_string_equal(p.l[0].backend, "nccl:algo=Ring");
  done(&c, &p);
}

static void test_nccl_axis_without_nccl_is_env(void **st) {
  (void)st;
  struct ar_sweep_cfg c;
  struct ar_plan p;
  char err[AR_ERRLEN] = "";
  /* it applies to none of them: said with --applies (without it, an error: tests/sweep/test_applies.c) */
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "2", "--env", "NCCL_ALGO=Ring,Tree", "--applies",
                           "NCCL_ALGO=mpi", "-J", "x", "--", "--backend", "mpi", NULL), 0);
  assert_int_equal(p.n, 2);
  assert_string_equal(p.l[1].backend, "mpi");
  assert_int_equal(env_count(&p.l[1].env, "NCCL_ALGO=Tree"), 1);
  done(&c, &p);
}

static void test_exclude_and_launcher(void **st) {
  (void)st;
  struct ar_sweep_cfg c;
  struct ar_plan p;
  char err[AR_ERRLEN] = "";
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "2,3", "--env", "A=1,2", "--exclude", "np=3,A=2",
                           "--exclude", "A=1,np=2", "--launcher", "/t/wrap.sh --bind-to 'no ne'", "-J", "x", NULL), 0);
  assert_int_equal(p.n, 2);
  assert_string_equal(p.l[0].label, "np=2 A=2");
  assert_string_equal(p.l[1].label, "np=3 A=1");
  const char *const want[] = {"/t/wrap.sh", "--bind-to", "no ne", "-np", "3", EXE, "run", "--point",
                              "{\"np\":3,\"A\":\"1\"}", "-J", CWD "/x", NULL}; /* no -x for a non-mpirun launcher */
  assert_argv(&p.l[1].argv, want);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ar_launch_print(f, &p.l[1]);
  fclose(f);
  assert_string_equal(buf, "A=1 /t/wrap.sh --bind-to 'no ne' -np 3 /opt/arbench run --point '{\"np\":3,\"A\":\"1\"}' -J /work/x");
  free(buf);
  done(&c, &p);
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "2", "--env", "A=1", "--launcher", "/t/wrap.sh",
                           "--forward-env", "x", "-J", "x", NULL), 0);
  assert_string_equal(p.l[0].argv.v[3], "-x");
  assert_string_equal(p.l[0].argv.v[4], "A=1");
  done(&c, &p);
}

/* --launcher srun (a path to it too): Slurm's rank count is -n, the environment reaches the ranks by srun's
 * default --export=ALL (no -x). */
static void test_srun_launcher(void **st) {
  (void)st;
  struct ar_sweep_cfg c;
  struct ar_plan p;
  char err[AR_ERRLEN] = "";
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "4", "--env", "A=1", "--launcher", "/usr/bin/srun --mpi=pmix",
                           "-J", "x", NULL), 0);
  const char *const want[] = {"/usr/bin/srun", "--mpi=pmix", "-n", "4", EXE, "run", "--point",
                              "{\"np\":4,\"A\":\"1\"}", "-J", CWD "/x", NULL};
  assert_argv(&p.l[0].argv, want);
  done(&c, &p);
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "2", "--launcher", "srunner", "-J", "x", NULL), 0);
  assert_string_equal(p.l[0].argv.v[1], "-np"); /* only srun itself takes -n */
  done(&c, &p);
}

static void test_split_words(void **st) {
  (void)st;
  struct ar_strv v = {0};
  char err[AR_ERRLEN] = "";
  assert_int_equal(ar_split_words("  mpirun -x \"A B\" 'c \"d' e\\ f \"q\\\"q\" ", &v, err, sizeof err), 0);
  const char *const want[] = {"mpirun", "-x", "A B", "c \"d", "e f", "q\"q", NULL};
  assert_argv(&v, want);
  ar_strv_free(&v);
  assert_int_equal(ar_split_words("mpirun 'open", &v, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "unterminated"));
  ar_strv_free(&v);
}

struct bad {
  const char *argv[12];
  const char *needle;
};

static void test_bad_input(void **st) {
  (void)st;
  static const struct bad cases[] = {
    {{"--np", "0", "-J", "x"}, "'0'"},
    {{"--np", "2,,3", "-J", "x"}, "empty value"},
    {{"--np", "two", "-J", "x"}, "'two'"},
    {{"--np", "2,2", "-J", "x"}, "repeated"},
    {{"--np", "", "-J", "x"}, "empty value list"},
    {{"--np", "2", "--env", "FOO", "-J", "x"}, "NAME=V1,V2"},
    {{"--np", "2", "--env", "FOO=", "-J", "x"}, "empty value list"},
    {{"--np", "2", "--env", "1X=2", "-J", "x"}, "'1X'"},
    {{"--np", "2", "--env", "np=2", "-J", "x"}, "--np"},
    {{"--np", "2", "--env", "A=1", "--env", "A=2", "-J", "x"}, "twice"},
    {{"--np", "2"}, "missing -J"},
    {{"-J", "x"}, "missing --np"},
    {{"--np", "2", "--frobnicate", "-J", "x"}, "--frobnicate"},
    {{"--np", "2", "-J", "x", "stray"}, "'stray'"},
    {{"--np", "2", "--exclude", "B=1", "-J", "x"}, "'B' is not an axis"},
    {{"--np", "2", "--exclude", "np=9", "-J", "x"}, "not a value of np"},
    {{"--np", "2", "--exclude", "np", "-J", "x"}, "NAME=VALUE"},
    {{"--np", "2", "--exclude", "np=2", "-J", "x"}, "every point"},
    {{"--np", "2", "--launcher", "'x", "-J", "x"}, "unterminated"},
    {{"--np", "2", "--launcher", " ", "-J", "x"}, "empty --launcher"},
    {{"--np", "2", "--point-timeout", "-1", "-J", "x"}, "'-1'"},
    {{"--np", "2", "--forward-env", "maybe", "-J", "x"}, "'maybe'"},
    {{"--np", "2", "-J", "x", "--", "-b", "huge"}, "'huge'"},
    {{"--np", "2", "-J", "x", "--", "-J", "y"}, "-J belongs to the sweep"},
    {{"--np", "2", "-J", "x", "--", "--point", "{}"}, "--point"},
    {{"--np", "2", "--backend", "mpi", "-J", "x", "--", "--backend", "mpi"}, "once"},
    {{"--np", "2", "--backend", "nosuch", "-J", "x"}, "'nosuch'"},
    {{"--np", "2", "-J", "-"}, "-J -"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *argv[16] = {"sweep"};
    int argc = 1;
    for (int k = 0; cases[i].argv[k]; k++) argv[argc++] = cases[i].argv[k];
    struct ar_sweep_cfg c;
    struct ar_plan p = {0};
    char err[AR_ERRLEN] = "";
    int rc = ar_sweep_parse(&c, argc, (char **)argv, EXE, CWD, err, sizeof err);
    if (!rc) rc = ar_sweep_plan(&c, base_env, false, &p, err, sizeof err);
    if (rc != -AR_EINVAL || !strstr(err, cases[i].needle) || strchr(err, '\n'))
      fail_msg("case %zu: rc %d, err '%s' (wanted '%s')", i, rc, err, cases[i].needle);
    done(&c, &p);
  }
}

static void test_bad_nccl_input(void **st) {
  (void)st;
  if (!ar_backend_built(ar_backend_find("nccl"))) AR_SKIP("nccl not compiled in");
  struct ar_sweep_cfg c;
  struct ar_plan p = {0};
  char err[AR_ERRLEN] = "";
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "2", "--env", "NCCL_ALGO=Ring", "--backend",
                           "nccl:algo=Tree", "-J", "x", NULL), -AR_EINVAL);
  assert_non_null(strstr(err, "already sets"));
  done(&c, &p);
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "2", "--env", "NCCL_CTAS=0", "-J", "x", NULL), -AR_EINVAL);
  assert_non_null(strstr(err, "NCCL_CTAS"));
  done(&c, &p);
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "2", "--env", "NCCL_CTAS=2", "--backend", "mpi", "-J", "x",
                           NULL), -AR_EINVAL);
  assert_non_null(strstr(err, "pseudo-axis"));
  done(&c, &p);
}

static void test_point_too_long(void **st) {
  (void)st;
  struct ar_sweep_cfg c;
  struct ar_plan p = {0};
  char err[AR_ERRLEN] = "";
  char a[2200], b[2200]; /* two 2100-character names: the point JSON passes arbench run's 4095 */
  snprintf(a, sizeof a, "%02100d=1", 0);
  a[0] = 'A';
  snprintf(b, sizeof b, "%02100d=1", 0);
  b[0] = 'B';
  assert_int_equal(plan_of(&c, &p, false, err, "--np", "2", "--env", a, "--env", b, "-J", "x", NULL), -AR_EINVAL);
  assert_non_null(strstr(err, "--point"));
  done(&c, &p);
}

/* --nccl and --stacks: the launch runs the stack's binary, preloads the prefix's libnccl ahead of the
 * inherited LD_PRELOAD / LD_LIBRARY_PATH (each once in the environment), forwards both with -x. */
static void test_stack_and_nccl_axes(void **st) {
  (void)st;
  char dir[] = "/tmp/arbench-plan-XXXXXX", lib[64], file[128], point[256], pre[256], path[256];
  assert_non_null(mkdtemp(dir));
  snprintf(lib, sizeof lib, "%s/lib", dir);
  snprintf(file, sizeof file, "%s/libnccl.so.2", lib);
  assert_int_equal(mkdir(lib, 0700), 0);
  fclose(fopen(file, "w"));
  char *env[] = {"PATH=/bin", "LD_PRELOAD=/x.so", "LD_LIBRARY_PATH=/l", NULL};
  const char *argv[] = {"sweep", "--np", "2", "--stacks", "s1=/bin/sh,s2=/bin/true", "--nccl", dir, "-J", "s.jsonl",
                        "--", "--backend", "mpi"};
  struct ar_sweep_cfg c;
  struct ar_plan p = {0};
  char err[AR_ERRLEN] = "";
  int rc = ar_sweep_parse(&c, 12, (char **)argv, EXE, CWD, err, sizeof err);
  if (!rc) rc = ar_sweep_plan(&c, env, false, &p, err, sizeof err);
  assert_string_equal(err, "");
  assert_int_equal(rc, 0);
  assert_int_equal(p.n, 2);
  snprintf(pre, sizeof pre, "LD_PRELOAD=%s:/x.so", file);
  snprintf(path, sizeof path, "LD_LIBRARY_PATH=%s:/l", lib);
  const char *exe[] = {"/bin/sh", "/bin/true"};
  for (int i = 0; i < 2; i++) {
    snprintf(point, sizeof point, "{\"np\":2,\"nccl\":\"%s\",\"stack\":\"s%d\"}", dir, i + 1);
    const char *want[] = {"mpirun", "-np", "2", "-x", pre, "-x", path, exe[i], "run", "--backend", "mpi", "--point",
                          point, "-J", CWD "/s.jsonl", NULL};
    assert_argv(&p.l[i].argv, want);
    assert_int_equal(env_count(&p.l[i].env, "LD_PRELOAD="), 1);
    assert_int_equal(env_count(&p.l[i].env, pre), 1);
    assert_int_equal(env_count(&p.l[i].env, "LD_LIBRARY_PATH="), 1);
    assert_int_equal(env_count(&p.l[i].env, path), 1);
  }
  done(&c, &p);
  unlink(file);
  rmdir(lib);
  rmdir(dir);
}

/* --repeat's rounds: forward, back, back, forward, back, forward, forward, back (Thue-Morse over the round number). */
static void test_round_order(void **state) {
  (void)state;
  static const int two[16] = {0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0};
  for (int j = 0; j < 16; j++) assert_int_equal(ar_round_launch(j, 2), two[j]);
  static const int three[12] = {0, 1, 2, 2, 1, 0, 2, 1, 0, 0, 1, 2};
  for (int j = 0; j < 12; j++) assert_int_equal(ar_round_launch(j, 3), three[j]);
  for (int j = 0; j < 9; j++) assert_int_equal(ar_round_launch(j, 1), 0); /* one launch: every round is it */
  /* every round runs each launch once, and over rounds 0..3 every launch's mean place is the same */
  for (int n = 1; n <= 7; n++) {
    for (int l = 0; l < n; l++) {
      int place = 0, count = 0;
      for (int j = 0; j < 4 * n; j++)
        if (ar_round_launch(j, n) == l) place += j % n, count++;
      assert_int_equal(count, 4);
      assert_int_equal(place * 2, 4 * (n - 1));
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_issue_command),
    cmocka_unit_test(test_env_replaced_and_root),
    cmocka_unit_test(test_nccl_in_process),
    cmocka_unit_test(test_nccl_axis_without_nccl_is_env),
    cmocka_unit_test(test_exclude_and_launcher),
    cmocka_unit_test(test_srun_launcher),
    cmocka_unit_test(test_split_words),
    cmocka_unit_test(test_bad_input),
    cmocka_unit_test(test_bad_nccl_input),
    cmocka_unit_test(test_point_too_long),
    cmocka_unit_test(test_stack_and_nccl_axes),
    cmocka_unit_test(test_round_order),
  };
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
