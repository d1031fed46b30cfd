/* test_nccl_ran.c — what the nccl backend records NCCL ran against what was asked (nccl_ran.c): CTAs clamped or as
 * asked, an algorithm/protocol NCCL fell back from in NCCL's list syntax, variables the loaded NCCL ignores. */
#include "backends/nccl/nccl_ran.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

static const char *str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* ctas=: as asked, clamped below the ask, unknown without NCCL's line; the user's variables read as NCCL does. */
static void test_ctas(void **st) {
  (void)st;
  assert_null(ar_nccl_ctas_json(0, NULL, NULL, 2));
  assert_null(ar_nccl_ctas_json(0, "0", "-3", 2)); /* values <= 0 leave NCCL's config alone */
  json_t *c = ar_nccl_ctas_json(4, NULL, NULL, 4);
  assert_string_equal(str(c, "status"), "as asked");
  assert_int_equal(json_integer_value(json_object_get(c, "ran")), 4);
  assert_string_equal(str(c, "note"), "NCCL ran 4 channels, as asked (4)");
  json_decref(c);
  c = ar_nccl_ctas_json(32, NULL, NULL, 16); /* Blackwell's cap from 2.28 (release notes): what ran is recorded */
  assert_string_equal(str(c, "status"), "clamped");
  assert_string_equal(str(c, "note"), "NCCL ran 16 channels where 32 were asked: it clamped the request (NCCL caps "
                      "CTAs at 64, MAXCHANNELS; NCCL 2.28's release notes cut Blackwell's maximum CTAs from 32 to 16)");
  json_decref(c);
  c = ar_nccl_ctas_json(0, "0x64", NULL, 64); /* strtoll base 0: 100 asked */
  assert_int_equal(json_integer_value(json_object_get(c, "asked_min")), 100);
  assert_true(json_is_null(json_object_get(c, "asked_max")));
  assert_string_equal(str(c, "status"), "clamped");
  json_decref(c);
  c = ar_nccl_ctas_json(0, "2", "8", 6);
  assert_string_equal(str(c, "status"), "as asked");
  assert_string_equal(str(c, "note"), "NCCL ran 6 channels, as asked (2..8)");
  json_decref(c);
  c = ar_nccl_ctas_json(0, NULL, "8", 12);
  assert_string_equal(str(c, "status"), "clamped"); /* more than the maximum asked */
  json_decref(c);
  c = ar_nccl_ctas_json(4, NULL, NULL, 0);
  assert_string_equal(str(c, "status"), "unknown");
  assert_true(json_is_null(json_object_get(c, "ran")));
  json_decref(c);
}

/* NCCL_ALGO/NCCL_PROTO lists (src/graph/tuning.cc's syntax): allowed choices say nothing, others are a fallback. */
static void test_fallback(void **st) {
  (void)st;
  assert_null(ar_nccl_fallback_json(NULL, NULL, "RING", "LL"));
  assert_null(ar_nccl_fallback_json("", "", "SYMMETRIC", ""));
  assert_null(ar_nccl_fallback_json("Ring", "LL", "RING", "LL"));
  assert_null(ar_nccl_fallback_json("Ring,Tree", NULL, "TREE", "SIMPLE"));
  assert_null(ar_nccl_fallback_json("^Tree", NULL, "RING", "SIMPLE"));
  assert_null(ar_nccl_fallback_json("broadcast:tree;allreduce:ring", NULL, "RING", "LL"));
  assert_null(ar_nccl_fallback_json("Tree", NULL, "unknown", ""));
  json_t *f = ar_nccl_fallback_json("Tree", NULL, "RING", "LL");
  assert_string_equal(str(f, "asked_algo"), "Tree");
  assert_true(json_is_null(json_object_get(f, "asked_proto")));
  assert_string_equal(str(f, "ran_algo"), "RING");
  assert_string_equal(str(f, "note"), "NCCL ran RING/LL, which the NCCL_ALGO=Tree asked does not allow: NCCL fell back");
  json_decref(f);
  f = ar_nccl_fallback_json("^Ring", NULL, "RING", "SIMPLE");
  assert_non_null(f);
  json_decref(f);
  f = ar_nccl_fallback_json("broadcast:ring;allreduce:tree", NULL, "RING", "LL");
  assert_non_null(f);
  json_decref(f);
  f = ar_nccl_fallback_json("Ring", "LL128", "RING", "SIMPLE");
  assert_string_equal(str(f, "note"), "NCCL ran RING/SIMPLE, which the NCCL_PROTO=LL128 asked does not allow: NCCL "
                      "fell back");
  json_decref(f);
  f = ar_nccl_fallback_json("Tree", "Simple", "SYMMETRIC", "");
  assert_string_equal(str(f, "note"), "NCCL ran its symmetric kernel, not the NCCL_ALGO=Tree and NCCL_PROTO=Simple "
                      "asked: symmetric windows take the symmetric kernels before NCCL_ALGO/NCCL_PROTO are read");
  json_decref(f);
}

/* Names the loaded NCCL does not read (removed before it, added after it); unknown names and others are left out. */
static void test_ignored_env(void **st) {
  (void)st;
  char *env[] = {"PATH=/bin", "NCCL_SHM_USE_CUDA_MEMCPY=1", "NCCL_P2P_MAX_PEERS=4", "NCCL_MYPLUGIN_FOO=1",
                 "NCCL_PROTO=LL", "NCCL_CREATE_THREAD_CONTEXT", NULL};
  json_t *a = ar_nccl_ignored_env_json(env, 23004); /* reads every name some release reads (an entry without '=' skipped) */
  assert_null(a);
  a = ar_nccl_ignored_env_json(env, 23007);
  assert_int_equal(json_array_size(a), 1);
  assert_string_equal(str(json_array_get(a, 0), "name"), "NCCL_SHM_USE_CUDA_MEMCPY");
  assert_string_equal(str(json_array_get(a, 0), "why"), "NCCL_SHM_USE_CUDA_MEMCPY=1: NCCL 2.30.7 does not read "
                      "NCCL_SHM_USE_CUDA_MEMCPY: removed in 2.30.7 (last read by 2.30.4), it does nothing");
  json_decref(a);
  a = ar_nccl_ignored_env_json(env, 22809);
  assert_int_equal(json_array_size(a), 1);
  assert_string_equal(str(json_array_get(a, 0), "name"), "NCCL_P2P_MAX_PEERS");
  assert_string_equal(str(json_array_get(a, 0), "why"), "NCCL_P2P_MAX_PEERS=4: NCCL 2.28.9 does not read "
                      "NCCL_P2P_MAX_PEERS (first read by 2.30.3), it does nothing");
  json_decref(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_ctas), cmocka_unit_test(test_fallback),
                                     cmocka_unit_test(test_ignored_env)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
