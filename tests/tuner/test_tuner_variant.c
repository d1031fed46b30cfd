/* test_tuner_variant.c — the nccl backend's tuner=FILE variant (checked before anything runs) and
 * its record: the plugin's own lines, sent through a logger that prints as NCCL's does, parsed back
 * by nccl_parse.c into the record's nccl_tuner object. No GPU, no NCCL. */
#include "ar.h"
#include "ar_tuner_abi.h"
#include "backends/nccl/nccl_parse.h"
#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include <unistd.h>

static const char *lib;
static char dir[64], good[128];
static struct ar_nccl_log nlog;

static void put(const char *name, const char *text, char *path, size_t len) {
  snprintf(path, len, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static const char *GOOD = "{\"schema\": \"arbench.tuner\", \"version\": 1, \"groups\": [{\"collective\": \"allreduce\","
  " \"nranks\": 8, \"nnodes\": 1, \"ranges\": ["
  "{\"min_bytes\": 0, \"max_bytes\": 65536, \"algorithm\": \"ring\", \"protocol\": \"ll\", \"channels\": -1},"
  "{\"min_bytes\": 65537, \"max_bytes\": 1048576, \"algorithm\": \"ring\", \"protocol\": \"ll128\", \"channels\": 8},"
  "{\"min_bytes\": 1048577, \"max_bytes\": 4194304, \"algorithm\": \"tree\", \"protocol\": \"simple\"}]}]}\n";

static void test_variant_ok(void **st) {
  (void)st;
  struct ar_nccl_variant v;
  char err[512] = "", text[256], abs[PATH_MAX];
  assert_non_null(realpath(good, abs));
  snprintf(text, sizeof text, "algo=Ring,tuner=%s", good);
  int rc = ar_nccl_variant_parse(text, 22809, &v, err, sizeof err);
  if (rc) fprintf(stderr, "%s\n", err);
  assert_int_equal(rc, 0);
  assert_string_equal(v.algo, "Ring");
  assert_string_equal(v.tuner, abs);
  assert_string_equal(v.tuner_lib, lib);
  assert_int_equal(ar_nccl_variant_parse("algo=Ring", 22809, &v, err, sizeof err), 0);
  assert_string_equal(v.tuner, ""); /* no tuner=: nothing set around init */
}

static void bad(const char *text, const char *want) {
  struct ar_nccl_variant v;
  char err[512] = "";
  int rc = ar_nccl_variant_parse(text, 22809, &v, err, sizeof err);
  if (rc != -AR_EINVAL) fprintf(stderr, "variant '%s' accepted\n", text);
  assert_int_equal(rc, -AR_EINVAL);
  if (!strstr(err, want)) fprintf(stderr, "variant '%s': error '%s' lacks '%s'\n", text, err, want);
  assert_non_null(strstr(err, want));
  assert_null(strchr(err, '\n'));
}

static void test_variant_bad(void **st) {
  (void)st;
  char p[128], t[256];
  bad("tuner=", "nccl variant tuner=: expected a file");
  snprintf(t, sizeof t, "tuner=%s/none.json", dir);
  bad(t, "none.json: No such file or directory");
  put("schema.json", "{\"schema\": \"nccl\", \"version\": 1, \"groups\": []}", p, sizeof p);
  snprintf(t, sizeof t, "tuner=%s", p);
  bad(t, "schema 'nccl' is not 'arbench.tuner'");
  put("torn.json", "{\"schema\": \"arbench.tuner\", \"vers", p, sizeof p);
  snprintf(t, sizeof t, "tuner=%s", p);
  bad(t, "not valid JSON");
  put("neg.json", "{\"schema\": \"arbench.tuner\", \"version\": 1, \"groups\": [{\"collective\": \"allreduce\", "
      "\"nranks\": 8, \"nnodes\": 1, \"ranges\": [{\"min_bytes\": 0, \"max_bytes\": -1, \"algorithm\": \"ring\", "
      "\"protocol\": \"ll\"}]}]}", p, sizeof p);
  snprintf(t, sizeof t, "tuner=%s", p);
  bad(t, "max_bytes = -1 is negative");
  snprintf(t, sizeof t, "tuner=%s", good);
  setenv("ARBENCH_TUNER_PLUGIN", "/nonexistent/libarbench-tuner.so", 1);
  bad(t, "ARBENCH_TUNER_PLUGIN=/nonexistent/libarbench-tuner.so: no such readable file");
  setenv("ARBENCH_TUNER_PLUGIN", lib, 1);
  bad("tunr=x", "unknown key 'tunr' (known: algo, proto, ctas, reg, symm, tuner)");
}

/* NCCL's logger: "host:pid:tid [dev] NCCL INFO msg" (WARN lines: "NCCL WARN msg"), here fed straight
 * to the nccl backend's log parser. */
static void nccl_like_log(int level, unsigned long flags, const char *file, int line, const char *fmt, ...) {
  (void)flags, (void)file, (void)line;
  char msg[900], full[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(full, sizeof full, "node1:4242:4243 [0] NCCL %s %s\n", level == AR_NCCL_LOG_WARN ? "WARN" : "INFO", msg);
  ar_nccl_log_line(&nlog, full);
}

static ar_nccl_tuner_v5_t *plugin(void **h) {
  *h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
  assert_non_null(*h);
  ar_nccl_tuner_v5_t *t = dlsym(*h, "ncclTunerPlugin_v5");
  assert_non_null(t);
  return t;
}

static void test_record_from_plugin_lines(void **st) {
  (void)st;
  void *h, *ctx = NULL;
  ar_nccl_tuner_v5_t *t = plugin(&h);
  ar_nccl_log_init(&nlog);
  ar_nccl_log_line(&nlog, "node1:4242:4243 [0] NCCL INFO TUNER/Plugin: Using arbench (v5)");
  setenv("ARBENCH_TUNER_FILE", good, 1);
  assert_int_equal(t->init(&ctx, 1, 8, 1, nccl_like_log, NULL, NULL), 0);
  float table[7 * 3];
  for (size_t n = 0; n < 3; n++) { /* two ranges applied (each logged once), one entry unavailable */
    static const size_t sizes[3] = {4096, 8192, 2097152};
    for (int i = 0; i < 21; i++) table[i] = 5.0f;
    table[0 * 3 + 2] = -1.0f; /* tree/simple unavailable */
    int nch = 0;
    assert_int_equal(t->getCollInfo(ctx, AR_NCCL_FUNC_ALLREDUCE, sizes[n], 1, (float **)table, 7, 3, 0, &nch), 0);
  }
  t->finalize(ctx);
  dlclose(h);
  json_t *j = ar_nccl_tuner_json(&nlog.tuner, "/abs/tuner.json", lib, NULL);
  assert_non_null(j);
  char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
  char want[2048];
  snprintf(want, sizeof want, "{\"abi\":\"v5\",\"applied\":[\"0..65536 B on 8 ranks: ring/ll, NCCL's channel count "
           "(measured -)\"],\"applied_ranges\":1,\"file\":\"/abs/tuner.json\",\"group_nranks\":8,\"match\":\"exact\","
           "\"plugin\":\"%s\",\"ran\":true,\"ranges\":3,\"unavailable_ranges\":1}", lib);
  if (strcmp(s, want)) fprintf(stderr, "got  %s\nwant %s\n", s, want);
  assert_string_equal(s, want);
  free(s);
  json_decref(j);
}

static void test_record_notes(void **st) {
  (void)st;
  void *h, *ctx = NULL;
  char p[128];
  ar_nccl_tuner_v5_t *t = plugin(&h);
  /* a file the plugin cannot load (changed after the variant was checked): error + note */
  put("later-bad.json", "{", p, sizeof p);
  setenv("ARBENCH_TUNER_FILE", p, 1);
  ar_nccl_log_init(&nlog);
  assert_int_equal(t->init(&ctx, 1, 8, 1, nccl_like_log, NULL, NULL), 0);
  t->finalize(ctx);
  json_t *j = ar_nccl_tuner_json(&nlog.tuner, p, lib, NULL);
  assert_true(json_is_true(json_object_get(j, "ran")));
  assert_non_null(strstr(json_string_value(json_object_get(j, "error")), "later-bad.json: not valid JSON"));
  assert_string_equal(json_string_value(json_object_get(j, "note")), "the decisions file did not load: NCCL tuned on its own");
  json_decref(j);
  /* nearest group */
  setenv("ARBENCH_TUNER_FILE", good, 1);
  ar_nccl_log_init(&nlog);
  assert_int_equal(t->init(&ctx, 1, 6, 1, nccl_like_log, NULL, NULL), 0);
  t->finalize(ctx);
  j = ar_nccl_tuner_json(&nlog.tuner, good, lib, NULL);
  assert_string_equal(json_string_value(json_object_get(j, "match")), "nearest");
  assert_int_equal(json_integer_value(json_object_get(j, "group_nranks")), 8);
  json_decref(j);
  /* no group within 2x (64 ranks): the plugin ran and had no opinion */
  ar_nccl_log_init(&nlog);
  assert_int_equal(t->init(&ctx, 1, 64, 1, nccl_like_log, NULL, NULL), 0);
  t->finalize(ctx);
  j = ar_nccl_tuner_json(&nlog.tuner, good, lib, NULL);
  assert_true(json_is_true(json_object_get(j, "ran")));
  assert_string_equal(json_string_value(json_object_get(j, "match")), "none");
  json_decref(j);
  /* tuner= set but no plugin line: did not run */
  ar_nccl_log_init(&nlog);
  j = ar_nccl_tuner_json(&nlog.tuner, good, lib, NULL);
  assert_true(json_is_false(json_object_get(j, "ran")));
  assert_non_null(strstr(json_string_value(json_object_get(j, "note")), "the tuner plugin did not run"));
  json_decref(j);
  /* plain variant, plugin lines anyway (held by an earlier communicator): said */
  ar_nccl_log_init(&nlog);
  assert_int_equal(t->init(&ctx, 1, 8, 1, nccl_like_log, NULL, NULL), 0);
  t->finalize(ctx);
  j = ar_nccl_tuner_json(&nlog.tuner, "", "", NULL);
  assert_true(json_is_null(json_object_get(j, "file")));
  assert_non_null(strstr(json_string_value(json_object_get(j, "note")), "earlier nccl:tuner= communicator"));
  json_decref(j);
  /* plain variant, the user's own NCCL_TUNER_PLUGIN loaded it: said so, not blamed on a tuner= variant */
  j = ar_nccl_tuner_json(&nlog.tuner, "", "", "/opt/lib/libarbench-tuner.so");
  assert_string_equal(json_string_value(json_object_get(j, "plugin")), "/opt/lib/libarbench-tuner.so");
  assert_non_null(strstr(json_string_value(json_object_get(j, "note")), "this environment's NCCL_TUNER_PLUGIN"));
  assert_null(strstr(json_string_value(json_object_get(j, "note")), "earlier"));
  json_decref(j);
  /* plain variant, no plugin: no object */
  ar_nccl_log_init(&nlog);
  assert_null(ar_nccl_tuner_json(&nlog.tuner, "", "", NULL));
  dlclose(h);
}

int main(int argc, char **argv) {
  lib = argc > 1 ? argv[1] : NULL;
  if (!lib) return fprintf(stderr, "usage: test_tuner_variant LIB\n"), 2;
  snprintf(dir, sizeof dir, "/tmp/ar-tvar-XXXXXX");
  if (!mkdtemp(dir)) return perror("mkdtemp"), 99;
  setenv("ARBENCH_TUNER_PLUGIN", lib, 1);
  unsetenv("ARBENCH_TUNER_STRICT");
  put("good.json", GOOD, good, sizeof good);
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_variant_ok), cmocka_unit_test(test_variant_bad),
                                     cmocka_unit_test(test_record_from_plugin_lines),
                                     cmocka_unit_test(test_record_notes)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) fprintf(stderr, "note: %s left\n", dir);
  return rc;
}
