/* test_nccl_env.c — the nccl backend's environment plan (nccl_env.c): exact settings per phase, and over
 * every combination of the user's variables, no variable added or removed while a communicator lives. */
#include "backends/nccl/nccl_env.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

static const char *value_of(const struct ar_nccl_env_set *set, int n, const char *name, int *found) {
  for (int i = 0; i < n; i++)
    if (!strcmp(set[i].name, name)) {
      *found = 1;
      return set[i].value;
    }
  *found = 0;
  return NULL;
}

static void in_default(struct ar_nccl_env_in *in) {
  memset(in, 0, sizeof *in);
  in->algo = in->proto = in->tuner = in->tuner_lib = "";
  in->logpath = "/tmp/p.log";
  in->userlog = "/tmp/p.log.user";
  in->version = 22809;
}

/* A forced variant over a user who set nothing: exact INIT, QUIET and RESTORE settings. */
static void test_exact_plans(void **st) {
  (void)st;
  struct ar_nccl_env_in in;
  in_default(&in);
  in.algo = "Ring";
  in.proto = "LL";
  in.tuner = "/x/tuner.json";
  in.tuner_lib = "/x/libarbench-tuner.so";
  struct ar_nccl_env_set set[AR_NENV_COUNT];
  int n = ar_nccl_env_plan(AR_NENV_INIT, &in, set), f;
  assert_int_equal(n, AR_NENV_COUNT);
  assert_string_equal(value_of(set, n, "NCCL_ALGO", &f), "Ring");
  assert_string_equal(value_of(set, n, "NCCL_PROTO", &f), "LL");
  assert_string_equal(value_of(set, n, "NCCL_DEBUG", &f), "INFO");
  assert_string_equal(value_of(set, n, "NCCL_DEBUG_SUBSYS", &f), "INIT,ENV,GRAPH,TUNING");
  assert_string_equal(value_of(set, n, "NCCL_DEBUG_FILE", &f), "/tmp/p.log");
  assert_null(value_of(set, n, "NCCL_MIN_CTAS", &f));
  assert_true(f);
  assert_null(value_of(set, n, "NCCL_MAX_CTAS", &f));
  assert_string_equal(value_of(set, n, "NCCL_TUNER_PLUGIN", &f), "/x/libarbench-tuner.so");
  assert_string_equal(value_of(set, n, "ARBENCH_TUNER_FILE", &f), "/x/tuner.json");
  n = ar_nccl_env_plan(AR_NENV_QUIET, &in, set);
  assert_int_equal(n, 3);
  assert_string_equal(value_of(set, n, "NCCL_DEBUG", &f), "VERSION");
  assert_string_equal(value_of(set, n, "NCCL_DEBUG_SUBSYS", &f), "INIT,BOOTSTRAP,ENV");
  assert_string_equal(value_of(set, n, "NCCL_DEBUG_FILE", &f), "/tmp/p.log");
  value_of(set, n, "NCCL_ALGO", &f);
  assert_false(f); /* forced until the communicator is gone: 2.28+ reads it at enqueue */
  n = ar_nccl_env_plan(AR_NENV_RESTORE, &in, set);
  assert_int_equal(n, AR_NENV_COUNT);
  for (int i = 0; i < n; i++) assert_null(set[i].value);
}

/* The user's values: kept where nothing is forced, back in QUIET for the debug variables, and exactly
 * restored. NCCL 2.22's default sub-systems differ. */
static void test_user_values(void **st) {
  (void)st;
  struct ar_nccl_env_in in;
  in_default(&in);
  in.version = 22203;
  in.saved[AR_NENV_ALGO] = "Tree";
  in.saved[AR_NENV_DEBUG] = "WARN";
  in.saved[AR_NENV_FILE] = "/u/nccl.%h.%p";
  in.saved[AR_NENV_MINCTAS] = "4";
  struct ar_nccl_env_set set[AR_NENV_COUNT];
  int n = ar_nccl_env_plan(AR_NENV_INIT, &in, set), f;
  assert_string_equal(value_of(set, n, "NCCL_ALGO", &f), "Tree");
  assert_null(value_of(set, n, "NCCL_PROTO", &f));
  assert_null(value_of(set, n, "NCCL_MIN_CTAS", &f)); /* into ncclConfig_t instead */
  n = ar_nccl_env_plan(AR_NENV_QUIET, &in, set);
  assert_string_equal(value_of(set, n, "NCCL_DEBUG", &f), "WARN");
  assert_string_equal(value_of(set, n, "NCCL_DEBUG_SUBSYS", &f), "INIT,ENV");
  assert_string_equal(value_of(set, n, "NCCL_DEBUG_FILE", &f), "/tmp/p.log.user"); /* never the user's file */
  n = ar_nccl_env_plan(AR_NENV_RESTORE, &in, set);
  assert_string_equal(value_of(set, n, "NCCL_ALGO", &f), "Tree");
  assert_string_equal(value_of(set, n, "NCCL_DEBUG", &f), "WARN");
  assert_string_equal(value_of(set, n, "NCCL_DEBUG_FILE", &f), "/u/nccl.%h.%p");
  assert_string_equal(value_of(set, n, "NCCL_MIN_CTAS", &f), "4");
  assert_null(value_of(set, n, "NCCL_MAX_CTAS", &f));
}

/* Every subset of user-set variables × forced or not: QUIET only gives present names new values (each
 * set to non-NULL by INIT), RESTORE gives back every saved value. */
static void test_no_add_remove_while_live(void **st) {
  (void)st;
  static const char *const vals[AR_NENV_COUNT] = {"Ring", "Simple", "INFO", "COLL", "/u/f", "2", "8", "/u/t.so", "/u/t.json"};
  for (unsigned mask = 0; mask < (1u << AR_NENV_COUNT); mask++)
    for (int forced = 0; forced < 2; forced++) {
      struct ar_nccl_env_in in;
      in_default(&in);
      for (int i = 0; i < AR_NENV_COUNT; i++) in.saved[i] = mask & (1u << i) ? vals[i] : NULL;
      if (forced) in.algo = "Tree", in.proto = "LL128", in.tuner = "/x/t.json", in.tuner_lib = "/x/t.so";
      struct ar_nccl_env_set init[AR_NENV_COUNT], quiet[AR_NENV_COUNT], back[AR_NENV_COUNT];
      int ni = ar_nccl_env_plan(AR_NENV_INIT, &in, init);
      int nq = ar_nccl_env_plan(AR_NENV_QUIET, &in, quiet);
      int nr = ar_nccl_env_plan(AR_NENV_RESTORE, &in, back);
      for (int q = 0; q < nq; q++) {
        int f;
        assert_non_null(quiet[q].value);
        assert_non_null(value_of(init, ni, quiet[q].name, &f));
      }
      assert_int_equal(nr, AR_NENV_COUNT);
      for (int i = 0; i < AR_NENV_COUNT; i++) {
        int f;
        const char *v = value_of(back, nr, ar_nccl_env_name((enum ar_nccl_env_var)i), &f);
        assert_true(f);
        if (in.saved[i]) assert_string_equal(v, in.saved[i]);
        else assert_null(v);
      }
    }
}

/* Forced per call (NCCL >= 2.31, ncclCollConfig_t): what the variant forces is unset at init, so a user's
 * NCCL_ALGO/NCCL_PROTO does not narrow the call's selection; what it leaves alone stays the user's. */
static void test_percall(void **st) {
  (void)st;
  struct ar_nccl_env_in in;
  struct ar_nccl_env_set set[AR_NENV_COUNT];
  in_default(&in);
  in.version = 23102;
  in.percall = 1;
  in.saved[AR_NENV_ALGO] = "Tree";
  in.saved[AR_NENV_PROTO] = "Simple";
  in.algo = "Ring";
  int n = ar_nccl_env_plan(AR_NENV_INIT, &in, set), f;
  assert_null(value_of(set, n, "NCCL_ALGO", &f));
  assert_true(f);
  assert_string_equal(value_of(set, n, "NCCL_PROTO", &f), "Simple");
  in.algo = "";
  in.proto = "LL";
  n = ar_nccl_env_plan(AR_NENV_INIT, &in, set);
  assert_string_equal(value_of(set, n, "NCCL_ALGO", &f), "Tree");
  assert_null(value_of(set, n, "NCCL_PROTO", &f));
  assert_true(f);
  in.percall = 0; /* before 2.31: the variable carries it */
  n = ar_nccl_env_plan(AR_NENV_INIT, &in, set);
  assert_string_equal(value_of(set, n, "NCCL_PROTO", &f), "LL");
  in.percall = 1;
  n = ar_nccl_env_plan(AR_NENV_RESTORE, &in, set);
  assert_string_equal(value_of(set, n, "NCCL_ALGO", &f), "Tree");
  assert_string_equal(value_of(set, n, "NCCL_PROTO", &f), "Simple");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_exact_plans), cmocka_unit_test(test_user_values),
                                     cmocka_unit_test(test_no_add_remove_while_live), cmocka_unit_test(test_percall)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
