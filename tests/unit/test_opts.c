/* test_opts.c — size parsing, size series and `arbench run` option parsing, incl. bad input.
 * Every bad value must give -AR_EINVAL and a message naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>
#include "opts.h"

static void test_size_parse_good(void **st) {
  (void)st;
  char err[256];
  size_t v;
  static const struct { const char *s; size_t v; } cases[] = {
    {"8", 8}, {"1K", 1024}, {"4k", 4096}, {"1M", 1048576}, {"2G", 2147483648u}, {"3KB", 3072},
    {"1MiB", 1048576}, {"1048577", 1048577}, {"64M", 67108864},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(ar_size_parse(cases[i].s, &v, err, sizeof err), 0);
    assert_int_equal(v, cases[i].v);
  }
}

static void test_size_parse_bad(void **st) {
  (void)st;
  char err[256];
  size_t v;
  const char *bad[] = {"", "-8", "abc", "8X", "1.5M", "0", "M", "99999999999999999999", "2048G", " 8"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    assert_int_equal(ar_size_parse(bad[i], &v, err, sizeof err), -AR_EINVAL);
    assert_non_null(strstr(err, bad[i]));
  }
}

static void test_size_format(void **st) {
  (void)st;
  char b[32];
  ar_size_format(1048576, b, sizeof b);
  assert_string_equal(b, "1M");
  ar_size_format(1536 * 1024, b, sizeof b);
  assert_string_equal(b, "1536K");
  ar_size_format(7, b, sizeof b);
  assert_string_equal(b, "7");
}

static void test_series(void **st) {
  (void)st;
  size_t s[64];
  char err[256];
  assert_int_equal(ar_size_series(8, 1024, 2, s, 64, err, sizeof err), 8);
  assert_int_equal(s[0], 8);
  assert_int_equal(s[7], 1024);
  assert_int_equal(ar_size_series(8, 100, 4, s, 64, err, sizeof err), 2); /* 8, 32; 128 > 100 */
  assert_int_equal(s[1], 32);
  assert_int_equal(ar_size_series(1000, 3000, 1.5, s, 64, err, sizeof err), 3); /* 1000 1500 2250 */
  assert_int_equal(s[2], 2250);
  assert_int_equal(ar_size_series(100, 8, 2, s, 64, err, sizeof err), -AR_EINVAL);
}

static int parse(struct ar_opts *o, const char *line, char *err, size_t len) {
  char buf[1024], *argv[64];
  int argc = 0;
  snprintf(buf, sizeof buf, "run %s", line);
  for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  ar_opts_defaults(o);
  return ar_opts_parse(o, argc, argv, err, len);
}

static void test_opts_good(void **st) {
  (void)st;
  struct ar_opts o;
  char err[512];
  assert_int_equal(parse(&o, "-b 8 -e 1M -f 2 -d float,bfloat16 -o max -n 7 -w 2 -c 3 -T 9 -J r.jsonl "
                             "--inplace both --backend mpi,shm-oneshot --quiet", err, sizeof err), 0);
  assert_int_equal(o.nsizes, 18);
  assert_int_equal(o.sizes[17], 1048576);
  assert_int_equal(o.ndtypes, 2);
  assert_int_equal(o.dtypes[1], AR_BF16);
  assert_int_equal(o.op, AR_MAX);
  assert_int_equal(o.iters, 7);
  assert_int_equal(o.warmup, 2);
  assert_int_equal(o.check, 3);
  assert_true(o.timeout == 9);
  assert_string_equal(o.json, "r.jsonl");
  assert_int_equal(o.placement, AR_PLACE_BOTH);
  assert_int_equal(o.nbackends, 2);
  assert_string_equal(o.backends[1], "shm-oneshot");
  assert_true(o.quiet);
}

static void test_opts_variants(void **st) {
  (void)st;
  struct ar_opts o;
  char err[512];
  assert_int_equal(parse(&o, "--backend nccl:algo=Ring,proto=LL;nccl:algo=Tree,mpi --sizes 8,4K", err, sizeof err), 0);
  assert_int_equal(o.nbackends, 3);
  assert_string_equal(o.backends[0], "nccl:algo=Ring,proto=LL");
  assert_string_equal(o.backends[1], "nccl:algo=Tree");
  assert_string_equal(o.backends[2], "mpi");
  assert_int_equal(o.nsizes, 2);
  assert_int_equal(o.sizes[1], 4096);
  assert_int_equal(parse(&o, "--counts 1,7,1023,1048577 -d half", err, sizeof err), 0);
  assert_true(o.by_count);
  assert_int_equal(o.sizes[3], 1048577);
}

static void test_opts_bad(void **st) {
  (void)st;
  struct ar_opts o;
  char err[512];
  static const struct { const char *line, *needle; } bad[] = {
    {"-b 8X", "8X"}, {"-d float,quad", "quad"}, {"-o mean", "mean"}, {"-n 0", "-n"},
    {"--inplace maybe", "maybe"}, {"--bogus", "--bogus"}, {"-b 16 -e 8", "larger"},
    {"--sizes 8 -b 8", "--sizes"}, {"--sizes 6 -d float", "6"}, {"-f 1", "-f"}, {"-d float,,half", "float,,half"},
    {"-G 3 -n 10", "-G"}, {"extra", "extra"}, {"--backend algo=Ring", "algo=Ring"}, {"-T -1", "-T"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    int rc = parse(&o, bad[i].line, err, sizeof err);
    if (rc != -AR_EINVAL || !strstr(err, bad[i].needle))
      fail_msg("'%s' gave rc %d, message '%s'", bad[i].line, rc, err);
    assert_null(strchr(err, '\n'));
  }
}

/* Single-valued options and sizes given twice are refused (the later would silently win; a size would be
 * measured twice); --devices with only host backends is refused; flags and --backend may repeat. */
static void test_given_twice(void **st) {
  (void)st;
  struct ar_opts o;
  char err[512] = "";
  static const struct { const char *line, *msg; } bad[] = {
    {"-d float -d half", "option -d given twice (give it once; the later would silently win)"},
    {"-J a.jsonl -J b.jsonl", "option -J given twice (give it once; the later would silently win)"},
    {"--json=a.jsonl -J b.jsonl", "option -J given twice (give it once; the later would silently win)"},
    {"--repeat 2 --repeat 3", "option --repeat given twice (give it once; the later would silently win)"},
    {"--sizes 16,8,16,8", "size 16 given twice (give each once)"},
    {"--counts 4,4", "count 4 given twice (give each once)"},
    {"--backend mpi,mpi", "backend 'mpi' given twice (give each configuration once; --repeat N measures it N times)"},
    {"--backend mpi;shm-oneshot --backend mpi", "backend 'mpi' given twice (give each configuration once; --repeat N measures it N times)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(parse(&o, bad[i].line, err, sizeof err), -AR_EINVAL);
    assert_string_equal(err, bad[i].msg);
  }
  assert_int_equal(parse(&o, "--quiet --quiet --backend mpi --backend shm-oneshot", err, sizeof err), 0);
  assert_int_equal(o.nbackends, 2);
  assert_int_equal(parse(&o, "--backend mpi,shm-oneshot --devices 0,1", err, sizeof err), 0);
  char warn[256];
  assert_int_equal(ar_opts_check_backends(&o, warn, sizeof warn, err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, "--devices: every chosen backend runs on the host (CPU ranks), none uses a GPU: drop it, or "
                           "add a GPU backend (nccl, p2p-*, fused, symm)");
  assert_int_equal(parse(&o, "--backend mpi,nccl --devices 0,1", err, sizeof err), 0);
  assert_int_equal(ar_opts_check_backends(&o, warn, sizeof warn, err, sizeof err), 0);
}

/* A size the -b/-e/-f series made that no element divides: the message says which term of which series. */
static void test_series_term_named(void **st) {
  (void)st;
  struct ar_opts o;
  char err[512] = "";
  assert_int_equal(parse(&o, "-b 8 -e 1M -f 1.5", err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, "size 18, term 3 of -b 8 -e 1048576 -f 1.5 is not a multiple of the float element size 4 "
                           "(use --counts for element counts, or a factor whose terms stay multiples of it)");
  assert_int_equal(parse(&o, "-b 4 -e 16 -i 6 -d float", err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, "size 10, term 2 of -b 4 -e 16 -i 6 is not a multiple of the float element size 4 "
                           "(use --counts for element counts, or a factor whose terms stay multiples of it)");
  assert_int_equal(parse(&o, "--sizes 6 -d float", err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, "size 6 is not a multiple of the float element size 4 (use --counts for element counts)");
}

/* --buffers, --timing, -a, --repeat: nccl-tests' defaults for buffers, arbench's for timing and -a. */
static void test_opts_method(void **st) {
  (void)st;
  struct ar_opts o;
  char err[512];
  assert_int_equal(parse(&o, "-b 8", err, sizeof err), 0);
  assert_int_equal(o.buffers, AR_BUF_HOT);
  assert_int_equal(o.timing, AR_TIME_ITER);
  assert_int_equal(o.average, AR_AVG_MAX);
  assert_int_equal(o.repeat, 1);
  assert_int_equal(parse(&o, "--buffers cold --timing loop -a 1 --repeat 4", err, sizeof err), 0);
  assert_int_equal(o.buffers, AR_BUF_COLD);
  assert_int_equal(o.timing, AR_TIME_LOOP);
  assert_int_equal(o.average, AR_AVG_MEAN);
  assert_int_equal(o.repeat, 4);
  assert_string_equal(ar_buffers_name(o.buffers), "cold");
  assert_string_equal(ar_timing_name(o.timing), "loop");
  assert_string_equal(ar_average_name(0), "rank0");
  assert_string_equal(ar_average_name(2), "min");
  static const struct { const char *line, *needle; } bad[] = {
    {"--buffers warm", "'warm' for --buffers (expected hot or cold)"},
    {"--timing each", "'each' for --timing (expected iter or loop)"},
    {"-a 4", "'4' for -a"}, {"-a x", "'x' for -a"}, {"--repeat 0", "'0' for --repeat"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    int rc = parse(&o, bad[i].line, err, sizeof err);
    if (rc != -AR_EINVAL || !strstr(err, bad[i].needle))
      fail_msg("'%s' gave rc %d, message '%s'", bad[i].line, rc, err);
  }
}

static void test_hash(void **st) {
  (void)st;
  struct ar_opts a, b;
  char err[512];
  parse(&a, "-b 8 -e 1K", err, sizeof err);
  parse(&b, "-b 8 -e 1K", err, sizeof err);
  assert_true(ar_opts_hash(&a) == ar_opts_hash(&b));
  parse(&b, "-b 8 -e 2K", err, sizeof err);
  assert_true(ar_opts_hash(&a) != ar_opts_hash(&b));
  parse(&b, "-b 8 -e 1K -n 101", err, sizeof err);
  assert_true(ar_opts_hash(&a) != ar_opts_hash(&b));
  static const char *const method[] = {"-b 8 -e 1K --buffers cold", "-b 8 -e 1K --timing loop", "-b 8 -e 1K -a 1",
                                       "-b 8 -e 1K --repeat 2"};
  for (int i = 0; i < 4; i++) {
    parse(&b, method[i], err, sizeof err);
    if (ar_opts_hash(&a) == ar_opts_hash(&b)) fail_msg("'%s' hashes like the defaults", method[i]);
  }
}

/* Every run option that changes what is measured changes the hash ranks compare (one at a time). */
static void test_hash_every_option(void **st) {
  (void)st;
  static const char *const extra[] = {
    "-o max", "-o prod", "-c 0", "-c 3", "-w 3", "-n 7", "-G 2", "-T 9", "--inplace both", "--inplace yes",
    "-d half", "-d float,half", "--backend shm-oneshot", "--max-samples 5", "--no-bind", "--islands 2",
    "--xml t.xml", "--point {\"a\":1}",
  };
  struct ar_opts a, b;
  char err[512];
  assert_int_equal(parse(&a, "-b 8 -e 1K", err, sizeof err), 0);
  for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) {
    char line[128];
    snprintf(line, sizeof line, "-b 8 -e 1K %s", extra[i]);
    assert_int_equal(parse(&b, line, err, sizeof err), 0);
    if (ar_opts_hash(&a) == ar_opts_hash(&b)) fail_msg("'%s' does not change the options hash", extra[i]);
  }
  /* the same sizes given as counts are other messages */
  assert_int_equal(parse(&a, "--sizes 8,16", err, sizeof err), 0);
  assert_int_equal(parse(&b, "--counts 8,16", err, sizeof err), 0);
  assert_true(ar_opts_hash(&a) != ar_opts_hash(&b));
}

/* -i adds a fixed step: sizes from -b up to -e inclusive. */
static void test_step_bytes(void **st) {
  (void)st;
  struct ar_opts o;
  char err[512];
  assert_int_equal(parse(&o, "-b 8 -e 64 -i 8", err, sizeof err), 0);
  assert_int_equal(o.nsizes, 8);
  for (int i = 0; i < 8; i++) assert_int_equal(o.sizes[i], 8 * (i + 1));
  assert_int_equal(parse(&o, "-b 8 -e 64 -i 24", err, sizeof err), 0);
  assert_int_equal(o.nsizes, 3);
  assert_int_equal(o.sizes[0], 8);
  assert_int_equal(o.sizes[1], 32);
  assert_int_equal(o.sizes[2], 56);
  assert_int_equal(parse(&o, "-b 1K -e 4K -i 1K", err, sizeof err), 0);
  assert_int_equal(o.nsizes, 4);
  assert_int_equal(o.sizes[3], 4096);
}

/* nccl-tests' flags get one line mapping them to arbench (issue 24), short and long forms. */
static void test_opts_nccl_tests_flags(void **st) {
  (void)st;
  struct ar_opts o;
  char err[512];
  static const struct { const char *line, *needle; } cases[] = {
    {"-g 8", "-g/--ngpus is an nccl-tests option, not an arbench one: arbench runs one rank per GPU: launch N ranks (mpirun -np N"},
    {"--ngpus=8", "-g/--ngpus is an nccl-tests option"},
    {"-t 2", "-t/--nthreads is an nccl-tests option, not an arbench one: ranks are processes here"},
    {"-R 1", "-R 1 (registered buffers) is --backend nccl:reg=1; -R 2 (symmetric memory) is --backend nccl:symm=1"},
    {"--local_register 2", "nccl:symm=1"},
    {"-z 1", "there is no blocking mode"},
    {"--blocking 1", "-z/--blocking"},
    {"-N 5", "-N/--run_cycles is an nccl-tests option, not an arbench one: use --repeat N"},
    {"-m 4", "-m/--agg_iters is an nccl-tests option, not an arbench one: aggregated collectives per group are not measured"},
    {"-x", "unknown option '-x'"},
    {"--gpus 8", "unknown option '--gpus'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    err[0] = 0;
    int rc = parse(&o, cases[i].line, err, sizeof err);
    if (rc != -AR_EINVAL || !strstr(err, cases[i].needle))
      fail_msg("'%s' gave rc %d, message '%s'", cases[i].line, rc, err);
    assert_null(strchr(err, '\n'));
  }
}

/* nccl-tests 2.19's flags (src/common.cu at v2.19.6): -I 1 and -z 3 are --timing iter, -I 0 and -z 0 its
 * defaults (nothing changes), --format nccl-tests-2.19 its layout; -z 1/2, -K, -D, -V, and -I 1 against
 * --timing loop, 2.18.5's layout or -G get one line each (issue 49). */
static void test_opts_nccl_tests_219(void **st) {
  (void)st;
  struct ar_opts o;
  char err[512];
  static const struct { const char *line; int timing, format, layout; } maps[] = {
    {"-I 1", AR_TIME_ITER, AR_FMT_TABLE, 218},
    {"--per_iter_timing=1", AR_TIME_ITER, AR_FMT_TABLE, 218},
    {"-z 3", AR_TIME_ITER, AR_FMT_TABLE, 218},
    {"--blocking 0", AR_TIME_ITER, AR_FMT_TABLE, 218},
    {"--format nccl-tests-2.19 -I 1", AR_TIME_ITER, AR_FMT_NCCL_TESTS, 219},
    {"--format nccl-tests-2.19 -z 3 -I 1", AR_TIME_ITER, AR_FMT_NCCL_TESTS, 219},
    {"--format nccl-tests-2.19 -I 0", AR_TIME_LOOP, AR_FMT_NCCL_TESTS, 219},
    {"--format nccl-tests-2.19 -z 0", AR_TIME_LOOP, AR_FMT_NCCL_TESTS, 219},
    {"--format nccl-tests-2.18", AR_TIME_LOOP, AR_FMT_NCCL_TESTS, 218},
    {"--format nccl-tests", AR_TIME_LOOP, AR_FMT_NCCL_TESTS, 218},
    {"-I 1 --timing iter", AR_TIME_ITER, AR_FMT_TABLE, 218},
  };
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
    err[0] = 0;
    int rc = parse(&o, maps[i].line, err, sizeof err);
    if (rc || o.timing != maps[i].timing || o.format != maps[i].format || o.nt_layout != maps[i].layout)
      fail_msg("'%s': rc %d (%s), timing %d format %d layout %d", maps[i].line, rc, err, o.timing, o.format, o.nt_layout);
  }
  static const struct { const char *line, *msg; } bad[] = {
    {"-z 1", "-z/--blocking 1 is an nccl-tests mode arbench does not take: there is no blocking mode that waits and "
             "barriers after each call; -z 3 (each -n iteration waited for and timed alone, barrier excluded) is "
             "--timing iter, -z 0 the default"},
    {"-z 2", "-z/--blocking 2 is an nccl-tests mode arbench does not take: there is no blocking mode that waits after "
             "each call;"},
    {"-z 4", "bad value '4' for -z (expected an integer from 0 to 3)"},
    {"-I 2", "bad value '2' for -I (expected an integer from 0 to 1)"},
    {"-K 2", "-K/--per_iter_skip is an nccl-tests option, not an arbench one: -K N leaves the first N timed iterations "
             "out of -I's summary; arbench never times its warm-up, so add N to -w (and -I 1 is --timing iter)"},
    {"--per_iter_skip=2", "-K/--per_iter_skip is an nccl-tests option"},
    {"-D 1", "-D/--device_implementation is an nccl-tests option, not an arbench one: -D N runs nccl-tests' own "
             "device-API (ncclDevComm) kernels, which arbench does not have: the nearest are --backend nccl:symm=1"},
    {"--device_implementation 1", "-D/--device_implementation is an nccl-tests option"},
    {"-V 16", "-V/--device_cta_count is an nccl-tests option, not an arbench one: -V N sets the CTAs of nccl-tests' -D "
              "device-API kernels, which arbench does not run; NCCL's own CTA count is --backend nccl:ctas=N"},
    {"--device_cta_count=16", "-V/--device_cta_count is an nccl-tests option"},
    {"-R 2", "-R 2 (symmetric memory) is --backend nccl:symm=1"},
    {"-I 1 --timing loop", "-I 1 times every iteration (arbench's --timing iter), which --timing loop (one interval "
                           "around -n calls) contradicts: drop one"},
    {"--timing loop -z 3", "-z 3 times every iteration (arbench's --timing iter), which --timing loop"},
    {"-I 1 -G 4 -n 8", "-I 1 times every iteration (arbench's --timing iter), which nccl-tests turns off under CUDA "
                       "graphs (-G;"},
    {"-I 1 --format nccl-tests", "-I 1: nccl-tests 2.18.5's layout (--format nccl-tests) has no per-iteration "
                                 "columns: give --format nccl-tests-2.19"},
    {"-z 3 --format nccl-tests-2.18", "-z 3: nccl-tests 2.18.5's layout"},
    {"--format nccl-tests-2.20", "bad value 'nccl-tests-2.20' for --format (expected arbench, nccl-tests (2.18.5's "
                                 "layout), nccl-tests-2.18 or nccl-tests-2.19)"},
    {"-I 1 -I 1", "option -I given twice"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    int rc = parse(&o, bad[i].line, err, sizeof err);
    if (rc != -AR_EINVAL || !strstr(err, bad[i].msg)) fail_msg("'%s' gave rc %d, message '%s'", bad[i].line, rc, err);
    assert_null(strchr(err, '\n'));
  }
}

/* -G on backends that are never captured in graphs: refused when none of the chosen ones is, a warning naming
 * them when some are; nothing without -G. */
static void test_opts_graph_backends(void **st) {
  (void)st;
  struct ar_opts o;
  char err[512], warn[512];
  assert_int_equal(parse(&o, "-G 4 -n 8 --backend mpi,shm-oneshot", err, sizeof err), 0);
  err[0] = 0;
  assert_int_equal(ar_opts_check_backends(&o, warn, sizeof warn, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "-G 4 captures CUDA graphs, but none of the chosen backends (mpi, shm-oneshot) can be captured"));
  assert_int_equal(parse(&o, "-G 4 -n 8 --backend nccl,mpi", err, sizeof err), 0);
  err[0] = 0;
  assert_int_equal(ar_opts_check_backends(&o, warn, sizeof warn, err, sizeof err), 0);
  assert_string_equal(warn, "warning: -G 4 does nothing for mpi (not captured in CUDA graphs; timed as plain calls)");
  assert_int_equal(parse(&o, "-G 4 -n 8 --backend nccl:algo=Ring,p2p-oneshot", err, sizeof err), 0);
  assert_int_equal(ar_opts_check_backends(&o, warn, sizeof warn, err, sizeof err), 0);
  assert_string_equal(warn, "");
  assert_int_equal(parse(&o, "--backend mpi", err, sizeof err), 0);
  assert_int_equal(ar_opts_check_backends(&o, warn, sizeof warn, err, sizeof err), 0);
  assert_string_equal(warn, "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hash_every_option), cmocka_unit_test(test_step_bytes),
    cmocka_unit_test(test_size_parse_good), cmocka_unit_test(test_size_parse_bad),
    cmocka_unit_test(test_size_format),     cmocka_unit_test(test_series),
    cmocka_unit_test(test_opts_good),       cmocka_unit_test(test_opts_variants),
    cmocka_unit_test(test_opts_bad),        cmocka_unit_test(test_series_term_named), cmocka_unit_test(test_given_twice),        cmocka_unit_test(test_hash),
    cmocka_unit_test(test_opts_method),     cmocka_unit_test(test_opts_nccl_tests_flags),
    cmocka_unit_test(test_opts_graph_backends), cmocka_unit_test(test_opts_nccl_tests_219),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
