/* test_opts.c — bench/links/opts.c: `arbench links`' options (sizes, lists, bad values named in one line)
 * and the pattern generator (the exact flows of every instance of every pattern). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "links/links.h"

static int parse(struct ar_links_opts *o, char *err, int argc, ...) {
  char *argv[16] = {"links"};
  va_list ap;
  va_start(ap, argc);
  for (int i = 1; i < argc; i++) argv[i] = va_arg(ap, char *);
  va_end(ap);
  ar_links_defaults(o);
  err[0] = 0;
  return ar_links_parse(o, argc, argv, err, AR_ERRLEN);
}

static void test_defaults(void **st) {
  (void)st;
  struct ar_links_opts o;
  char err[AR_ERRLEN];
  assert_int_equal(parse(&o, err, 1), 0);
  assert_int_equal(o.nsizes, 4); /* 64K 256K 1M 4M */
  assert_int_equal(o.sizes[0], 64 << 10);
  assert_int_equal(o.sizes[3], 4 << 20);
  assert_int_equal(o.methods, 3);
  assert_int_equal(o.dirs, 3);
  assert_int_equal(o.patterns, 63);
  assert_int_equal(o.repeat, 3);
  assert_true(o.bind);
  assert_int_equal(parse(&o, err, 10, "-b", "4K", "-e", "16K", "-f", "2", "--method", "write", "--pattern=pairs,ring"), 0);
  assert_int_equal(o.nsizes, 3);
  assert_int_equal(o.sizes[2], 16 << 10);
  assert_int_equal(o.methods, 1u << AR_LM_WRITE);
  assert_int_equal(o.patterns, 1u << AR_LP_PAIRS | 1u << AR_LP_RING);
  assert_int_equal(parse(&o, err, 2, "--help"), 1);
}

static void bad(const char *want, int argc, ...) {
  char *argv[16] = {"links"};
  va_list ap;
  va_start(ap, argc);
  for (int i = 1; i < argc; i++) argv[i] = va_arg(ap, char *);
  va_end(ap);
  struct ar_links_opts o;
  char err[AR_ERRLEN] = "";
  ar_links_defaults(&o);
  assert_int_equal(ar_links_parse(&o, argc, argv, err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, want);
}

static void test_bad_input(void **st) {
  (void)st;
  bad("bad --method 'pull' (allowed: read, write, ce-read, ce-write, sm-read, sm-write)", 3, "--method", "pull");
  bad("bad --method 'ce-pull' (allowed: read, write, ce-read, ce-write, sm-read, sm-write)", 3, "--method",
      "read,ce-pull");
  bad("bad --devices '' (expected comma-separated CUDA device indices like 0,1,2,3)", 3, "--devices", "");
  bad("bad --direction 'both' (allowed: uni, bi)", 3, "--direction", "both");
  bad("bad --pattern 'tree' (allowed: pairs, all, to-one, from-one, oneshot, ring)", 3, "--pattern", "pairs,tree");
  bad("--pattern without pairs: the loaded patterns are measured against pairs alone (add pairs to the list)", 3,
      "--pattern", "ring");
  bad("bad size '8X' (expected a number with optional K, M or G suffix, e.g. 8, 4K, 1M)", 3, "-b", "8X");
  bad("minimum size 1048576 is larger than maximum size 8", 5, "-b", "1M", "-e", "8");
  bad("size 6 is not a multiple of 4 bytes (the data check's word)", 5, "-b", "6", "-e", "6");
  bad("bad -n '0' (allowed: an integer from 1 to 1000000)", 3, "-n", "0");
  bad("bad --smoke-timeout '0' (allowed: a number from 0.001 to 3600)", 3, "--smoke-timeout", "0");
  bad("unknown option '--frob' for links (see arbench links --help)", 2, "--frob");
  bad("unexpected argument 'extra' for links (see arbench links --help)", 2, "extra");
  bad("bad --method ',' (expected a comma list)", 3, "--method", ",");
}

/* The flows of instance k as "s>d s>d ...". */
static const char *flows(int pat, int dir, int n, int k, int *root) {
  static char buf[512];
  struct ar_flow f[64];
  int nf = ar_links_flows(pat, dir, n, k, f, 64, root);
  buf[0] = 0;
  for (int i = 0; i < nf; i++) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d>%d", i ? " " : "", f[i].src, f[i].dst);
  return buf;
}

static void test_patterns(void **st) {
  (void)st;
  int root;
  assert_int_equal(ar_links_ninstances(AR_LP_PAIRS, AR_LD_UNI, 4), 12);
  assert_int_equal(ar_links_ninstances(AR_LP_PAIRS, AR_LD_BI, 4), 6);
  assert_int_equal(ar_links_ninstances(AR_LP_TO_ONE, AR_LD_UNI, 4), 4);
  assert_int_equal(ar_links_ninstances(AR_LP_RING, AR_LD_BI, 4), 1);
  assert_int_equal(ar_links_ninstances(AR_LP_ALL, AR_LD_UNI, 1), 0);
  assert_string_equal(flows(AR_LP_PAIRS, AR_LD_UNI, 4, 0, &root), "0>1");
  assert_int_equal(root, 0);
  assert_string_equal(flows(AR_LP_PAIRS, AR_LD_UNI, 4, 3, &root), "1>0");
  assert_string_equal(flows(AR_LP_PAIRS, AR_LD_UNI, 4, 11, &root), "3>2");
  assert_string_equal(flows(AR_LP_PAIRS, AR_LD_UNI, 4, 12, &root), "");
  assert_string_equal(flows(AR_LP_PAIRS, AR_LD_BI, 4, 5, &root), "2>3 3>2");
  assert_int_equal(root, 2);
  assert_string_equal(flows(AR_LP_ALL, AR_LD_UNI, 3, 0, &root), "0>1 0>2 1>0 1>2 2>0 2>1");
  assert_int_equal(root, -1);
  assert_string_equal(flows(AR_LP_ALL, AR_LD_BI, 3, 0, NULL), "0>1 0>2 1>0 1>2 2>0 2>1");
  assert_string_equal(flows(AR_LP_ONESHOT, AR_LD_UNI, 3, 0, NULL), "0>1 0>2 1>0 1>2 2>0 2>1");
  assert_string_equal(flows(AR_LP_TO_ONE, AR_LD_UNI, 4, 2, &root), "0>2 1>2 3>2");
  assert_int_equal(root, 2);
  assert_string_equal(flows(AR_LP_FROM_ONE, AR_LD_UNI, 4, 1, &root), "1>0 1>2 1>3");
  assert_string_equal(flows(AR_LP_TO_ONE, AR_LD_BI, 3, 0, NULL), "0>1 0>2 1>0 2>0");
  assert_string_equal(flows(AR_LP_RING, AR_LD_UNI, 4, 0, NULL), "0>1 1>2 2>3 3>0");
  assert_string_equal(flows(AR_LP_RING, AR_LD_BI, 4, 0, NULL), "0>1 0>3 1>0 1>2 2>1 2>3 3>0 3>2");
  assert_string_equal(flows(AR_LP_RING, AR_LD_UNI, 2, 0, NULL), "0>1 1>0");
  assert_int_equal(ar_links_initiator(AR_LM_READ, (struct ar_flow){1, 3}), 3);
  assert_int_equal(ar_links_initiator(AR_LM_WRITE, (struct ar_flow){1, 3}), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_defaults),
    cmocka_unit_test(test_bad_input),
    cmocka_unit_test(test_patterns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
