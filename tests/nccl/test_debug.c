/* test_debug.c — the NCCL stand-in's logger and tuner loader against NCCL 2.28.9's rules (src/debug.cc,
 * src/plugin/tuner.cc, plugin_open.cc): which lines NCCL_DEBUG / NCCL_DEBUG_SUBSYS let through (default mask
 * INIT,BOOTSTRAP,ENV; a WARN passes its own flags), NCCL_DEBUG_FILE's %h/%p and when it is opened, re-reading after
 * ncclResetDebugInit, and NCCL_TUNER_PLUGIN as a path or a name, v5 before v2, "none". A logging tuner plugin
 * (log_plugin.c) says one line per case from its init, on a one-rank communicator. */
#include "../lib/ar_cmocka.h"
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *plugin5, *plugin2, *dir;
static const char *const markers[] = {"w-tuning", "w-all", "i-init", "i-env", "i-bootstrap", "i-tuning", "i-coll"};
#define NMARK (sizeof markers / sizeof markers[0])

static void env(const char *name, const char *value) {
  if (value) setenv(name, value, 1);
  else unsetenv(name);
}

/* One communicator's init under this logging; the markers the log file got ("" when no file), and its text. */
static void run(const char *debug, const char *subsys, const char *tuner, char *seen, size_t len, char *text, size_t tlen) {
  static int n;
  char pattern[512], path[600];
  snprintf(pattern, sizeof pattern, "%s/case%d-%%p.log", dir, ++n);
  snprintf(path, sizeof path, "%s/case%d-%d.log", dir, n, (int)getpid());
  env("NCCL_DEBUG", debug);
  env("NCCL_DEBUG_SUBSYS", subsys);
  env("NCCL_DEBUG_FILE", pattern);
  env("NCCL_TUNER_PLUGIN", tuner);
  ncclResetDebugInit();
  ncclUniqueId id;
  ncclComm_t c = NULL;
  assert_int_equal(ncclGetUniqueId(&id), ncclSuccess);
  assert_int_equal(ncclCommInitRank(&c, 1, id, 0), ncclSuccess);
  assert_int_equal(ncclCommDestroy(c), ncclSuccess);
  env("NCCL_DEBUG", NULL);
  ncclResetDebugInit();
  ncclGetErrorString(ncclSuccess);
  *seen = *text = 0;
  FILE *f = fopen(path, "r");
  if (!f) return;
  size_t k = fread(text, 1, tlen - 1, f);
  text[k] = 0;
  fclose(f);
  for (size_t i = 0; i < NMARK; i++) {
    char m[32];
    snprintf(m, sizeof m, "marker %s\n", markers[i]);
    if (strstr(text, m)) snprintf(seen + strlen(seen), len - strlen(seen), "%s%s", *seen ? " " : "", markers[i]);
  }
}

static char seen[256], text[65536];

static void test_default_mask(void **st) {
  (void)st;
  run("WARN", NULL, plugin5, seen, sizeof seen, text, sizeof text);
  assert_string_equal(seen, "w-all"); /* a plugin's WARN with TUNING is under the default mask: not shown */
  run("INFO", NULL, plugin5, seen, sizeof seen, text, sizeof text);
  assert_string_equal(seen, "w-all i-init i-env i-bootstrap");
  assert_non_null(strstr(text, "NCCL INFO TUNER/Plugin: Using logtest (v5)"));
  assert_non_null(strstr(text, " NCCL WARN marker w-all\n"));
}

static void test_subsys(void **st) {
  (void)st;
  run("INFO", "TUNING", plugin5, seen, sizeof seen, text, sizeof text);
  assert_string_equal(seen, "w-tuning w-all i-tuning");
  run("info", "^INIT,COLL", plugin5, seen, sizeof seen, text, sizeof text); /* names are case-blind; ^ inverts */
  assert_string_equal(seen, "w-tuning w-all i-env i-bootstrap i-tuning");
  run("INFO", "ALL", plugin5, seen, sizeof seen, text, sizeof text);
  assert_string_equal(seen, "w-tuning w-all i-init i-env i-bootstrap i-tuning i-coll");
  run("WARN", "TUNING,BOGUS", plugin5, seen, sizeof seen, text, sizeof text); /* unknown names ignored */
  assert_string_equal(seen, "w-tuning w-all");
}

/* No NCCL_DEBUG, or VERSION: no file is opened (only above VERSION). */
static void test_file_levels(void **st) {
  (void)st;
  run(NULL, "ALL", plugin5, seen, sizeof seen, text, sizeof text);
  assert_string_equal(text, "");
  run("VERSION", "ALL", plugin5, seen, sizeof seen, text, sizeof text);
  assert_string_equal(text, "");
}

/* NCCL_TUNER_PLUGIN as a bare name: libnccl-tuner-NAME.so on the library path; an older-only plugin as v2; none. */
static void test_plugin_lookup(void **st) {
  (void)st;
  run("INFO", "TUNING", "logtest", seen, sizeof seen, text, sizeof text);
  assert_string_equal(seen, "w-tuning w-all i-tuning");
  assert_non_null(strstr(text, "TUNER/Plugin: Using logtest (v5)"));
  assert_non_null(strstr(text, "Successfully loaded external tuner plugin "));
  assert_non_null(strstr(text, "/libnccl-tuner-logtest.so\n"));
  run("INFO", "TUNING", plugin2, seen, sizeof seen, text, sizeof text);
  assert_non_null(strstr(text, "TUNER/Plugin: Using logtest2 (v2)"));
  run("INFO", "TUNING", "no-such-tuner", seen, sizeof seen, text, sizeof text);
  assert_non_null(strstr(text, "TUNER/Plugin: Could not find: no-such-tuner libnccl-tuner-no-such-tuner.so\n"));
  assert_string_equal(seen, "");
  /* NCCL keeps a failed load for the process: a good plugin is not loaded afterwards */
  run("INFO", "TUNING", plugin5, seen, sizeof seen, text, sizeof text);
  assert_string_equal(seen, "");
  assert_null(strstr(text, "Using logtest"));
}

int main(int argc, char **argv) {
  static char tmp[] = "/tmp/ar-sn-debug-XXXXXX";
  if (argc < 3) return fprintf(stderr, "usage: test_debug PLUGIN_V5 PLUGIN_V2\n"), 2;
  plugin5 = argv[1];
  plugin2 = argv[2];
  if (!(dir = mkdtemp(tmp))) return perror("mkdtemp"), 99;
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_default_mask),
    cmocka_unit_test(test_subsys),
    cmocka_unit_test(test_file_levels),
    cmocka_unit_test(test_plugin_lookup), /* last: it leaves the loader failed for the process */
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  char rm[128];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  if (system(rm)) fprintf(stderr, "could not remove %s\n", dir);
  return ar_cmocka_status(failed);
}
