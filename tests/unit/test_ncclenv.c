/* test_ncclenv.c — NCCL_* names against the releases that read them (bench/ncclenv.c, the list generated from
 * NCCL's tags v2.3.5-1 .. v2.30.7-1): near misses refused naming the real name, others warned once, exact lines. */
#include "../lib/ar_cmocka.h"
#include "ncclenv.h"
#include <string.h>

#define V(x, y, z) ((x) * 10000 + (y) * 100 + (z))

/* Facts read at the tags (src/ at each tag; the note lists file and line). */
static void test_list(void **st) {
  (void)st;
  const struct ar_ncclenv_name *e = ar_ncclenv_find("NCCL_PROTO");
  assert_non_null(e);
  assert_int_equal(e->first, V(2, 5, 6)); /* v2.5.6-2 src/graph/tuning.cc: NCCL_PROTO */
  assert_int_equal(e->last, V(2, 30, 7));
  e = ar_ncclenv_find("NCCL_SHM_USE_CUDA_MEMCPY"); /* v2.30.4-1 src/transport/shm.cc:68; gone at v2.30.7-1 */
  assert_non_null(e);
  assert_int_equal(e->last, V(2, 30, 4));
  e = ar_ncclenv_find("NCCL_P2P_MAX_PEERS"); /* new in v2.30.3-1 */
  assert_non_null(e);
  assert_int_equal(e->first, V(2, 30, 3));
  e = ar_ncclenv_find("NCCL_CHECK_MODE"); /* v2.29.7-1 src/init.cc ncclGetEnv("NCCL_CHECK_MODE") */
  assert_non_null(e);
  assert_int_equal(e->first, V(2, 29, 7));
  assert_non_null(ar_ncclenv_find("NCCL_P2P_DISABLE")); /* a literal passed on to ncclGetEnv (graph/paths.cc) */
  assert_non_null(ar_ncclenv_find("NCCL_DEBUG"));       /* 2.30's DEFINE_NCCL_PARAM key */
  assert_null(ar_ncclenv_find("NCCL_PROTOCOL"));
  assert_null(ar_ncclenv_find("NCCL_COMM_PROPERTIES_INITIALIZER")); /* a macro of nccl.h, no variable */
  assert_int_equal(ar_ncclenv_versions[ar_ncclenv_nversions - 1], V(2, 30, 7));
  for (int i = 1; i < ar_ncclenv_nnames; i++) /* bsearch needs the order */
    assert_true(strcmp(ar_ncclenv_names[i - 1].name, ar_ncclenv_names[i].name) < 0);
}

static void test_suggest(void **st) {
  (void)st;
  char s[400];
  assert_int_equal(ar_ncclenv_suggest("NCCL_PROTOCOL", s, sizeof s), 1);
  assert_string_equal(s, "NCCL_PROTO");
  assert_int_equal(ar_ncclenv_suggest("NCCL_ALGORITHM", s, sizeof s), 1);
  assert_string_equal(s, "NCCL_ALGO");
  assert_int_equal(ar_ncclenv_suggest("NCCL_P2P_DISABLED", s, sizeof s), 1);
  assert_string_equal(s, "NCCL_P2P_DISABLE");
  assert_int_equal(ar_ncclenv_suggest("NCCL_NCHANNELS", s, sizeof s), 2);
  assert_string_equal(s, "NCCL_MIN_NCHANNELS or NCCL_MAX_NCHANNELS");
  assert_int_equal(ar_ncclenv_suggest("NCCL_SOCKET_IFNAM", s, sizeof s), 1);
  assert_string_equal(s, "NCCL_SOCKET_IFNAME");
  assert_int_equal(ar_ncclenv_suggest("NCCL_IB_HCAS", s, sizeof s), 1);
  assert_string_equal(s, "NCCL_IB_HCA");
  assert_int_equal(ar_ncclenv_suggest("NCCL_CHANNELS", s, sizeof s), 2); /* two rules: NCHANNELS, then MIN_/MAX_ */
  assert_string_equal(s, "NCCL_MIN_NCHANNELS or NCCL_MAX_NCHANNELS");
  assert_int_equal(ar_ncclenv_suggest("NCCL_GDR_LEVEL", s, sizeof s), 1);
  assert_string_equal(s, "NCCL_NET_GDR_LEVEL");
  assert_int_equal(ar_ncclenv_suggest("NCCL_MYPLUGIN_FOO", s, sizeof s), 0);
  assert_string_equal(s, "");
  assert_int_equal(ar_ncclenv_suggest("NCCL_PROTO", s, sizeof s), 0); /* read: no near miss */
  assert_int_equal(ar_ncclenv_suggest("NCCL_IB", s, sizeof s), 0);    /* too short to guess */
}

static void test_check(void **st) {
  (void)st;
  char m[600];
  assert_int_equal(ar_ncclenv_check("NCCL_PROTOCOL", "LL", 0, 0, m, sizeof m), AR_NCCLENV_REFUSE);
  assert_string_equal(m, "NCCL_PROTOCOL=LL: no NCCL release reads NCCL_PROTOCOL (2.3.5 to 2.30.7 read): did you "
                         "mean NCCL_PROTO? (--allow-unknown-env passes it as it is)");
  assert_int_equal(ar_ncclenv_check("NCCL_PROTOCOL", "LL", 0, 1, m, sizeof m), AR_NCCLENV_WARN);
  assert_string_equal(m, "warning: NCCL_PROTOCOL=LL: no NCCL release reads NCCL_PROTOCOL (a near miss of "
                         "NCCL_PROTO); passed as it is (--allow-unknown-env)");
  assert_int_equal(ar_ncclenv_check("NCCL_MYPLUGIN_FOO", "1", 0, 0, m, sizeof m), AR_NCCLENV_WARN);
  assert_string_equal(m, "warning: NCCL_MYPLUGIN_FOO=1: no NCCL release from 2.3.5 to 2.30.7 reads "
                         "NCCL_MYPLUGIN_FOO: NCCL ignores it (a plugin's or a site's own variable is passed as it is)");
  assert_int_equal(ar_ncclenv_check("NCCL_PROTO", "LL", 0, 0, m, sizeof m), AR_NCCLENV_OK);
  assert_string_equal(m, "");
  assert_int_equal(ar_ncclenv_check("NCCL_IB_SPLIT_DATA_ON_QPS", "0", V(2, 28, 9), 0, m, sizeof m), AR_NCCLENV_OK);
  assert_int_equal(ar_ncclenv_check("CUDA_VISIBLE_DEVICES", "0", 0, 0, m, sizeof m), AR_NCCLENV_OK);
  assert_int_equal(ar_ncclenv_check("NCCL_HOME", "/opt/nccl", 0, 0, m, sizeof m), AR_NCCLENV_OK); /* a location */
  assert_string_equal(m, "");
  /* removed: read by 2.30.4, not by 2.30.7 */
  assert_int_equal(ar_ncclenv_check("NCCL_SHM_USE_CUDA_MEMCPY", "1", V(2, 30, 4), 0, m, sizeof m), AR_NCCLENV_OK);
  assert_int_equal(ar_ncclenv_check("NCCL_SHM_USE_CUDA_MEMCPY", "1", V(2, 30, 7), 0, m, sizeof m), AR_NCCLENV_WARN);
  assert_string_equal(m, "warning: NCCL_SHM_USE_CUDA_MEMCPY=1: NCCL 2.30.7 does not read NCCL_SHM_USE_CUDA_MEMCPY: "
                         "removed in 2.30.7 (last read by 2.30.4), it does nothing");
  assert_int_equal(ar_ncclenv_check("NCCL_CREATE_THREAD_CONTEXT", NULL, 0, 0, m, sizeof m), AR_NCCLENV_WARN);
  assert_string_equal(m, "warning: NCCL_CREATE_THREAD_CONTEXT: NCCL 2.30.7 (the newest release read: which NCCL runs "
                         "is not known here) does not read NCCL_CREATE_THREAD_CONTEXT: removed in 2.30.7 (last read by "
                         "2.30.4), it does nothing");
  /* added later than the NCCL asked about */
  assert_int_equal(ar_ncclenv_check("NCCL_P2P_MAX_PEERS", "4", V(2, 28, 9), 0, m, sizeof m), AR_NCCLENV_WARN);
  assert_string_equal(m, "warning: NCCL_P2P_MAX_PEERS=4: NCCL 2.28.9 does not read NCCL_P2P_MAX_PEERS (first read "
                         "by 2.30.3), it does nothing");
  assert_int_equal(ar_ncclenv_check("NCCL_P2P_MAX_PEERS", "4", V(2, 30, 3), 0, m, sizeof m), AR_NCCLENV_OK);
}

static int nwarn;
static char last[600];
static void warn(void *ctx, const char *line) {
  (void)ctx;
  nwarn++;
  strcpy(last, line);
}

/* A whole environment: a near miss anywhere is the one line and no warning; else one warning per entry. */
static void test_env(void **st) {
  (void)st;
  char err[600] = "";
  char *bad[] = {"NCCL_MYPLUGIN_FOO=1", "PATH=/bin", "NCCL_ALGORITHM=Ring", NULL};
  nwarn = 0;
  assert_int_equal(ar_ncclenv_check_env(bad, 0, 0, warn, NULL, err, sizeof err), -2);
  assert_int_equal(nwarn, 0);
  assert_non_null(strstr(err, "NCCL_ALGORITHM=Ring: no NCCL release reads NCCL_ALGORITHM"));
  assert_int_equal(ar_ncclenv_check_env(bad, 0, 1, warn, NULL, err, sizeof err), 0);
  assert_int_equal(nwarn, 2);
  assert_non_null(strstr(last, "(a near miss of NCCL_ALGO)"));
  char *good[] = {"NCCL_PROTO=LL", "NCCL_DEBUG=INFO", "HOME=/root", NULL};
  nwarn = 0;
  assert_int_equal(ar_ncclenv_check_env(good, V(2, 28, 9), 0, warn, NULL, err, sizeof err), 0);
  assert_int_equal(nwarn, 0);
}

/* Once the loaded NCCL is known: only the names some release reads, at that version; -1 before it is known. */
static void test_version(void **st) {
  (void)st;
  char m[600];
  assert_int_equal(ar_ncclenv_version_code("2.28.9"), V(2, 28, 9));
  assert_int_equal(ar_ncclenv_version_code("2.30.7"), V(2, 30, 7));
  assert_int_equal(ar_ncclenv_version_code(NULL), 0);
  assert_int_equal(ar_ncclenv_version_code("2.28"), 0);
  assert_int_equal(ar_ncclenv_version_code("2.28.9x"), 0);
  assert_int_equal(ar_ncclenv_check("NCCL_SHM_USE_CUDA_MEMCPY", "1", -1, 0, m, sizeof m), AR_NCCLENV_OK);
  assert_int_equal(ar_ncclenv_check("NCCL_PROTOCOL", "LL", -1, 0, m, sizeof m), AR_NCCLENV_REFUSE);
  char *envp[] = {"NCCL_P2P_MAX_PEERS=2", "NCCL_MYPLUGIN_FOO=1", "NCCL_SHM_MEMCPY_MODE=1", "NCCL_PROTO=LL", NULL};
  nwarn = 0;
  ar_ncclenv_warn_version(envp, V(2, 28, 9), warn, NULL); /* 2.28.9: P2P_MAX_PEERS not yet, SHM_MEMCPY_MODE still */
  assert_int_equal(nwarn, 1);
  assert_string_equal(last, "warning: NCCL_P2P_MAX_PEERS=2: NCCL 2.28.9 does not read NCCL_P2P_MAX_PEERS (first read "
                            "by 2.30.3), it does nothing");
  nwarn = 0;
  ar_ncclenv_warn_version(envp, V(2, 30, 7), warn, NULL);
  assert_int_equal(nwarn, 1);
  assert_string_equal(last, "warning: NCCL_SHM_MEMCPY_MODE=1: NCCL 2.30.7 does not read NCCL_SHM_MEMCPY_MODE: removed "
                            "in 2.30.7 (last read by 2.30.4), it does nothing");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_list),
    cmocka_unit_test(test_suggest),
    cmocka_unit_test(test_check),
    cmocka_unit_test(test_env),
    cmocka_unit_test(test_version),
  };
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
