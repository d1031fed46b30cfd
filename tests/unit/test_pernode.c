/* test_pernode.c — bench/run/pernode.c's pure parts: the Slurm job, step and node read from Slurm's environment (and
 * nothing outside a job), the tag every --per-node record carries, and the job's status from the nodes'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>
#include <unistd.h>
#include "ar.h"
#include "run/pernode.h"

static void test_slurm_describe(void **st) {
  (void)st;
  char *none[] = {"PATH=/bin", "SLURMD_NODENAME=n1", "SLURM_JOB_IDX=3", NULL};
  assert_null(ar_slurm_describe(none)); /* no job id: not in a job */
  assert_null(ar_slurm_describe(NULL));
  char *job[] = {"SLURM_JOB_ID=4242",         "SLURM_STEP_ID=1",   "SLURMD_NODENAME=gpu17",
                 "SLURM_JOB_NODELIST=gpu[1-64]", "SLURM_STEP_NODELIST=gpu[1-64]", "SLURM_CLUSTER_NAME=rack3",
                 "SLURM_JOB_ID_X=9",          "PATH=/bin",         NULL};
  json_t *s = ar_slurm_describe(job);
  char *txt = json_dumps(s, JSON_COMPACT | JSON_SORT_KEYS);
  assert_string_equal(txt, "{\"cluster\":\"rack3\",\"job_id\":\"4242\",\"job_nodelist\":\"gpu[1-64]\",\"node\":\"gpu17\","
                           "\"step_id\":\"1\",\"step_nodelist\":\"gpu[1-64]\"}");
  free(txt);
  json_decref(s);
  char *old[] = {"SLURM_JOBID=77", NULL}; /* the older spelling, alone */
  s = ar_slurm_describe(old);
  assert_string_equal(json_string_value(json_object_get(s, "job_id")), "77");
  assert_int_equal(json_object_size(s), 1);
  json_decref(s);
  char *array[] = {"SLURM_JOB_ID=10", "SLURM_ARRAY_JOB_ID=9", "SLURM_ARRAY_TASK_ID=1", NULL};
  s = ar_slurm_describe(array);
  assert_string_equal(json_string_value(json_object_get(s, "array_job_id")), "9");
  assert_string_equal(json_string_value(json_object_get(s, "array_task_id")), "1");
  json_decref(s);
}

static void test_tag(void **st) {
  (void)st;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  char *job[] = {"SLURM_JOB_ID=5", "SLURM_STEP_ID=0", "SLURMD_NODENAME=n3", "SLURM_JOB_NODELIST=n[1-3]", NULL};
  json_t *t = ar_pernode_tag(job);
  assert_string_equal(json_string_value(json_object_get(t, "host")), host);
  char *txt = json_dumps(json_object_get(t, "slurm"), JSON_COMPACT | JSON_SORT_KEYS);
  assert_string_equal(txt, "{\"job_id\":\"5\",\"node\":\"n3\",\"step_id\":\"0\"}"); /* the lists stay in the run record */
  free(txt);
  json_decref(t);
  char *none[] = {"PATH=/bin", NULL};
  t = ar_pernode_tag(none);
  assert_int_equal(json_object_size(t), 1); /* the host only */
  json_decref(t);
}

static void test_status(void **st) {
  (void)st;
  int ok[] = {0, 0, 0}, nothing[] = {0, 3, 0}, fail[] = {3, 1, 0}, usage[] = {1, 2, 3}, odd[] = {0, 130};
  assert_int_equal(ar_pernode_status(ok, 3), AR_EXIT_OK);
  assert_int_equal(ar_pernode_status(nothing, 3), AR_EXIT_NOTHING); /* one node measured nothing */
  assert_int_equal(ar_pernode_status(fail, 3), AR_EXIT_FAIL);        /* a failure outranks nothing measured */
  assert_int_equal(ar_pernode_status(usage, 3), AR_EXIT_USAGE);      /* bad input outranks everything */
  assert_int_equal(ar_pernode_status(odd, 2), AR_EXIT_FAIL);         /* any other status is a failure */
  assert_int_equal(ar_pernode_status(ok, 0), AR_EXIT_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_slurm_describe),
    cmocka_unit_test(test_tag),
    cmocka_unit_test(test_status),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
