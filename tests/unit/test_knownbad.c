/* test_knownbad.c — bench/knownbad.c: every entry of the known-bad table matched just inside and not just
 * outside its version range and GPU condition, the NCCL version forms ("2.26.2", "2.26.2+cuda12.8", "2.26.2-1",
 * NCCL_VERSION_CODE before and after 2.9), and a run record's known_bad ids and warning line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "knownbad.h"

#define PRO "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"
#define G5090 "NVIDIA GeForce RTX 5090"
#define G5090D "NVIDIA GeForce RTX 5090 D"
#define G6000D "NVIDIA RTX 6000D"

/* Does entry id match (library nccl, version v) on n GPUs named name? */
static int hit(const char *id, const char *v, const char *name, int n) {
  const char *g[8];
  const struct ar_knownbad *out[16];
  for (int i = 0; i < n; i++) g[i] = name;
  int k = ar_knownbad_match("nccl", v, g, n, out, 16);
  for (int i = 0; i < k; i++)
    if (!strcmp(out[i]->id, id)) return 1;
  return 0;
}

static void test_versions(void **st) {
  (void)st;
  assert_int_equal(ar_knownbad_version("2.26.2"), 22602);
  assert_int_equal(ar_knownbad_version("2.26.2+cuda12.8"), 22602);
  assert_int_equal(ar_knownbad_version("2.26.2-1"), 22602);
  assert_int_equal(ar_knownbad_version("22602"), 22602);
  assert_int_equal(ar_knownbad_version("23102"), 23102);
  assert_int_equal(ar_knownbad_version("2804"), 20804); /* before 2.9: major*1000 + minor*100 + patch */
  assert_int_equal(ar_knownbad_version("2.29"), 22900);
  assert_int_equal(ar_knownbad_version("2.x"), -1);
  assert_int_equal(ar_knownbad_version(""), -1);
  assert_int_equal(ar_knownbad_version("v2.26.2"), -1);
  assert_int_equal(ar_knownbad_version("2.26.2 cuda"), -1);
  assert_int_equal(ar_knownbad_version("42"), -1);
  assert_int_equal(ar_knownbad_version(NULL), -1);
}

static void test_2418(void **st) {
  (void)st;
  const char *id = "nccl-2418-rtxpro6000-512k";
  assert_true(hit(id, "2.26.2", PRO, 2));
  assert_true(hit(id, "2.26.2+cuda12.2", PRO, 2));
  assert_true(hit(id, "22602", PRO, 2));
  assert_false(hit(id, "2.26.3", PRO, 2)); /* not reported: only 2.26.2 failing and 2.31.2 working were */
  assert_false(hit(id, "2.28.9", PRO, 2));
  assert_false(hit(id, "2.26.1", PRO, 2));
  assert_false(hit(id, "2.31.2", PRO, 2));
  assert_false(hit(id, "23102", PRO, 2));
  assert_false(hit(id, "2.26.2", PRO, 1)); /* dual GPUs */
  assert_false(hit(id, "2.26.2", G5090, 2));
  assert_true(hit(id, "2.26.2", "NVIDIA RTX PRO 6000 Blackwell Server Edition", 8));
  assert_true(hit(id, "2.26.2", "rtx pro 6000", 2)); /* case-insensitive */
  const char *g[2] = {PRO, PRO};
  const struct ar_knownbad *out[8];
  assert_int_equal(ar_knownbad_match("rccl", "2.26.2", g, 2, out, 8), 0); /* another library */
  assert_int_equal(ar_knownbad_match("nccl", NULL, g, 2, out, 8), 0);     /* version unknown */
}

static void test_2094(void **st) {
  (void)st;
  const char *id = "nccl-2094-small-allreduce-2.29";
  assert_true(hit(id, "2.29.0", "NVIDIA H100 80GB HBM3", 8));
  assert_true(hit(id, "2.32.3", PRO, 2)); /* no fixed version known */
  assert_true(hit(id, "2.29.2", PRO, 0));
  assert_false(hit(id, "2.28.9", "NVIDIA H100 80GB HBM3", 8));
  assert_false(hit(id, "22809", PRO, 2));
}

static void test_287(void **st) {
  (void)st;
  const char *id = "nccl-tests-287-sm120-smem";
  assert_true(hit(id, "2.25.1+cuda12.8", G5090, 2));
  assert_true(hit(id, "2.25.0", G5090, 1));
  assert_true(hit(id, "2.26.1", G5090, 1));
  assert_false(hit(id, "2.24.3", G5090, 2));
  assert_false(hit(id, "2.26.2", G5090, 2));
  assert_false(hit(id, "2.25.1", "NVIDIA GeForce RTX 4090", 2));
}

static void test_1852(void **st) {
  (void)st;
  const char *id = "nccl-1852-5090d-shm-512k";
  assert_true(hit(id, "2.27.5+cuda12.4", G5090D, 2));
  assert_false(hit(id, "2.27.4", G5090D, 2));
  assert_false(hit(id, "2.27.6", G5090D, 2));
  assert_false(hit(id, "2.27.5", G5090D, 1));
  assert_false(hit(id, "2.27.5", G5090, 2)); /* the D edition only */
}

static void test_gpu_only(void **st) {
  (void)st;
  const char *gns = "gpu-rtx5090-p2p-gns", *ipc = "trtllm-16899-pcie-ipc";
  assert_true(hit(gns, "2.28.9", G5090, 2));
  assert_true(hit(gns, NULL, G5090, 2)); /* no NCCL needed */
  assert_false(hit(gns, "2.28.9", G5090, 1));
  assert_false(hit(gns, "2.28.9", "NVIDIA GeForce RTX 4090", 2));
  assert_true(hit(ipc, NULL, G6000D, 8));
  assert_true(hit(ipc, "2.26.2", G5090, 2));
  assert_false(hit(ipc, NULL, G6000D, 1));
  assert_false(hit(ipc, NULL, PRO, 2)); /* RTX PRO 6000 is not the 6000D */
  const char *mixed[2] = {G5090, "NVIDIA GeForce RTX 4090"};
  const struct ar_knownbad *out[8];
  assert_int_equal(ar_knownbad_match(NULL, NULL, mixed, 2, out, 8), 0); /* one 5090 is not a pair */
}

static void test_table(void **st) {
  (void)st;
  size_t n;
  const struct ar_knownbad *t = ar_knownbad_table(&n);
  assert_int_equal(n, 6);
  for (size_t i = 0; i < n; i++) {
    assert_non_null(ar_knownbad_find(t[i].id));
    assert_ptr_equal(ar_knownbad_find(t[i].id), &t[i]);
    assert_true(!strncmp(t[i].source, "https://github.com/", 19));
    assert_true(*t[i].symptom && *t[i].todo && *t[i].says && *t[i].verified);
    if (t[i].min) assert_true(ar_knownbad_version(t[i].min) > 0);
    if (t[i].max) assert_true(ar_knownbad_version(t[i].max) > ar_knownbad_version(t[i].min ? t[i].min : "2.0.0"));
  }
  assert_null(ar_knownbad_find("no-such-entry"));
  char s[256];
  ar_knownbad_scope(ar_knownbad_find("nccl-tests-287-sm120-smem"), s, sizeof s);
  assert_string_equal(s, "NCCL 2.25.0 to before 2.26.2 on any GPU named RTX 5090");
  ar_knownbad_scope(ar_knownbad_find("nccl-2094-small-allreduce-2.29"), s, sizeof s);
  assert_string_equal(s, "NCCL 2.29.0 and newer");
  ar_knownbad_scope(ar_knownbad_find("nccl-2418-rtxpro6000-512k"), s, sizeof s);
  assert_string_equal(s, "NCCL 2.26.2 on 2 or more GPUs named RTX PRO 6000");
  ar_knownbad_scope(ar_knownbad_find("trtllm-16899-pcie-ipc"), s, sizeof s);
  assert_string_equal(s, "2 or more GPUs named RTX 6000D or RTX 5090");
}

static void test_record(void **st) {
  (void)st;
  json_t *run = json_pack("{s:{s:s}, s:[{s:s},{s:s}]}", "stack", "nccl_loaded", "2.26.2", "gpus", "name", PRO,
                          "name", PRO);
  char line[1024];
  assert_int_equal(ar_knownbad_record(run, line, sizeof line), 1);
  json_t *ids = json_object_get(run, "known_bad");
  assert_int_equal(json_array_size(ids), 1);
  assert_string_equal(json_string_value(json_array_get(ids, 0)), "nccl-2418-rtxpro6000-512k");
  assert_non_null(strstr(line, "known-bad stack: nccl-2418-rtxpro6000-512k (crash: illegal memory access"));
  assert_non_null(strstr(line, "https://github.com/NVIDIA/nccl/issues/2418"));
  char again[1024];
  assert_int_equal(ar_knownbad_line(run, again, sizeof again), 1); /* run's line: from the record as written */
  assert_string_equal(again, line);
  json_object_set_new(run, "known_bad", json_pack("[s,s]", "nccl-2418-rtxpro6000-512k", "from-a-newer-table"));
  assert_int_equal(ar_knownbad_line(run, again, sizeof again), 2);
  assert_non_null(strstr(again, "/issues/2418); from-a-newer-table"));
  json_decref(run);
  run = json_pack("{s:{s:s, s:s}, s:[{s:s},{s:s}]}", "stack", "nccl_loaded", "2.26.2", "library", "rccl", "gpus",
                  "name", PRO, "name", PRO);
  assert_int_equal(ar_knownbad_record(run, line, sizeof line), 0);
  assert_string_equal(line, "");
  assert_int_equal(json_array_size(json_object_get(run, "known_bad")), 0);
  json_decref(run);
  /* a slowdown only (#2094 matches every NCCL from 2.29): recorded, no warning line on every run and import */
  run = json_pack("{s:{s:s}, s:[{s:s}]}", "stack", "nccl_loaded", "2.29.7", "gpus", "name", "NVIDIA H100 80GB HBM3");
  assert_int_equal(ar_knownbad_record(run, line, sizeof line), 1);
  assert_string_equal(json_string_value(json_array_get(json_object_get(run, "known_bad"), 0)),
                      "nccl-2094-small-allreduce-2.29");
  assert_string_equal(line, "");
  assert_int_equal(ar_knownbad_line(run, again, sizeof again), 0);
  json_decref(run);
  run = json_pack("{s:{s:n}, s:[]}", "stack", "nccl_loaded", "gpus"); /* host-only: nothing known */
  assert_int_equal(ar_knownbad_record(run, line, sizeof line), 0);
  assert_true(json_is_array(json_object_get(run, "known_bad")));
  json_decref(run);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_versions), cmocka_unit_test(test_2418),
                                     cmocka_unit_test(test_2094),     cmocka_unit_test(test_287),
                                     cmocka_unit_test(test_1852),     cmocka_unit_test(test_gpu_only),
                                     cmocka_unit_test(test_table),    cmocka_unit_test(test_record)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
