/* test_nccl_parse.c — the nccl backend's variant parser against NCCL versions, and the parser of
 * NCCL's INFO lines on fixtures in the formats NCCL 2.26–2.28 print. No GPU needed. */
#include "ar.h"
#include "backends/nccl/nccl_parse.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#define V2289 22809
#define V2262 22602
#define V2165 21605

static void test_version_codes(void **st) {
  (void)st;
  char buf[32];
  assert_int_equal(ar_nccl_code(2, 28, 9), 22809);
  assert_int_equal(ar_nccl_code(2, 27, 0), 22700);
  assert_int_equal(ar_nccl_code(2, 8, 4), 2804); /* old encoding */
  ar_nccl_code_str(22809, buf, sizeof buf);
  assert_string_equal(buf, "2.28.9");
  ar_nccl_code_str(2804, buf, sizeof buf);
  assert_string_equal(buf, "2.8.4");
}

static void test_variant_ok(void **st) {
  (void)st;
  struct ar_nccl_variant v;
  char err[256] = "";
  assert_int_equal(ar_nccl_variant_parse("", V2289, &v, err, sizeof err), 0);
  assert_string_equal(v.algo, "");
  assert_int_equal(v.ctas, 0);
  assert_int_equal(ar_nccl_variant_parse("algo=ring,proto=ll128,ctas=8", V2289, &v, err, sizeof err), 0);
  assert_string_equal(v.algo, "Ring");
  assert_string_equal(v.proto, "LL128");
  assert_int_equal(v.ctas, 8);
  assert_int_equal(ar_nccl_variant_parse("algo=Ring+Tree,proto=LL+Simple,reg=1", V2289, &v, err, sizeof err), 0);
  assert_string_equal(v.algo, "Ring,Tree");
  assert_string_equal(v.proto, "LL,Simple");
  assert_int_equal(v.reg, 1);
  assert_int_equal(ar_nccl_variant_parse("algo=CollnetDirect", V2289, &v, err, sizeof err), 0);
  assert_string_equal(v.algo, "CollNetDirect");
  assert_int_equal(ar_nccl_variant_parse("algo=NVLS,proto=Simple,symm=1", V2289, &v, err, sizeof err), 0);
  assert_int_equal(v.symm, 1);
}

static void test_variant_bad(void **st) {
  (void)st;
  struct ar_nccl_variant v;
  char err[256] = "";
  assert_int_equal(ar_nccl_variant_parse("algo=Foo", V2289, &v, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "algo=Foo"));
  assert_non_null(strstr(err, "Tree, Ring")); /* lists what is allowed */
  assert_non_null(strstr(err, "NVLSTree"));
  assert_int_equal(ar_nccl_variant_parse("algo=PAT", V2289, &v, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "does not implement allreduce"));
  assert_int_equal(ar_nccl_variant_parse("algo=NVLS", V2165, &v, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "needs NCCL >= 2.17"));
  assert_null(strstr(err, "NVLS,")); /* 2.16 does not offer NVLS */
  assert_int_equal(ar_nccl_variant_parse("symm=1", V2262, &v, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "2.27"));
  assert_int_equal(ar_nccl_variant_parse("algo=NVLS,proto=LL", V2289, &v, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "proto=Simple"));
  assert_int_equal(ar_nccl_variant_parse("ctas=0", V2289, &v, err, sizeof err), -AR_EINVAL);
  assert_int_equal(ar_nccl_variant_parse("ctas=65", V2289, &v, err, sizeof err), -AR_EINVAL);
  assert_int_equal(ar_nccl_variant_parse("ctas=4x", V2289, &v, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "1..64"));
  assert_int_equal(ar_nccl_variant_parse("proto=LL256", V2289, &v, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "LL, LL128, Simple"));
  assert_int_equal(ar_nccl_variant_parse("channels=4", V2289, &v, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "known: algo, proto, ctas, reg, symm"));
  assert_int_equal(ar_nccl_variant_parse("Ring", V2289, &v, err, sizeof err), -AR_EINVAL);
  assert_int_equal(ar_nccl_variant_parse("algo=", V2289, &v, err, sizeof err), -AR_EINVAL);
}

/* Fixtures: NCCL's line formats (prefix "host:pid:tid [dev] NCCL INFO "). */
static const char *const fixture[] = {
  "box:4242:4242 [0] NCCL INFO NCCL_ALGO set by environment to Ring",
  "box:4242:4242 [0] NCCL INFO NCCL_PROTO set by environment to LL128",
  "box:4242:4250 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 20.000000/20.000000, type PIX/PIX, sameChannels 1",
  "box:4242:4250 [0] NCCL INFO Pattern 1, crossNic 0, nChannels 2, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1",
  "box:4242:4250 [0] NCCL INFO 2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer",
  "box:4242:4250 [0] NCCL INFO ncclCommInitRankConfig comm 0x55d0c0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x1234 - Init COMPLETE",
  "box:4242:4260 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
  "box:4242:4260 [0] NCCL INFO Channel 01 : 0[0] -> 1[1] via SHM/direct/direct",
  "box:4242:4242 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}",
  "box:4242:4242 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo TREE proto LL128 channel{Lo..Hi}={0..1}",
  "box:4242:4242 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={2..5}",
  "box:4242:4242 [0] transport.cc:123 NCCL WARN Cuda failure 'out of memory'",
};

static void test_log_lines(void **st) {
  (void)st;
  static struct ar_nccl_log log;
  ar_nccl_log_init(&log);
  for (size_t i = 0; i < sizeof fixture / sizeof fixture[0]; i++) ar_nccl_log_line(&log, fixture[i]);
  assert_string_equal(log.env_algo, "Ring");
  assert_string_equal(log.env_proto, "LL128");
  assert_string_equal(log.path_intra, "PIX"); /* the first graph (ring) */
  assert_int_equal(log.coll_channels, 2);
  assert_int_equal(log.init_complete, 1);
  assert_int_equal(log.nranks, 2);
  assert_int_equal(log.transports, AR_NCCL_T_P2P | AR_NCCL_T_SHM);
  assert_string_equal(log.transport, "P2P/CUMEM/read");
  assert_string_equal(ar_nccl_transport_name(log.transports), "P2P+SHM");
  assert_int_equal(log.ntuned, 3);
  /* The probe's calls: float 8 B, float 1 MiB, then 8 B again (float): every line gets its dtype. */
  const struct ar_nccl_call calls[3] = {{8, AR_FLOAT}, {1048576, AR_FLOAT}, {8, AR_FLOAT}};
  ar_nccl_log_key(&log, calls, 3);
  const struct ar_nccl_tuned *t = ar_nccl_log_find(&log, 1048576, AR_FLOAT);
  assert_non_null(t);
  assert_string_equal(t->algo, "TREE");
  assert_string_equal(t->proto, "LL128");
  assert_int_equal(t->channels, 2);
  t = ar_nccl_log_find(&log, 8, AR_FLOAT); /* the last decision for a size wins */
  assert_string_equal(t->proto, "SIMPLE");
  assert_int_equal(t->channels, 4);
  assert_null(ar_nccl_log_find(&log, 16, AR_FLOAT));
  assert_null(ar_nccl_log_find(&log, 8, AR_HALF)); /* another dtype's choice is never reported */
  assert_int_equal(log.warnings, 1);
  assert_non_null(strstr(log.first_warning, "out of memory"));
  assert_int_equal(ar_nccl_ll128_unsafe(&log, 2), 1); /* PIX: PCIe switch, no NVLink */
  assert_int_equal(ar_nccl_ll128_unsafe(&log, 1), 0);
}

static void test_ll128_nvlink(void **st) {
  (void)st;
  static struct ar_nccl_log log;
  ar_nccl_log_init(&log);
  ar_nccl_log_line(&log, "h:1:1 [3] NCCL INFO Pattern 4, crossNic 0, nChannels 16, bw 75.000000/75.000000, type NVL/PIX, sameChannels 1");
  assert_string_equal(log.path_intra, "NVL");
  assert_int_equal(ar_nccl_ll128_unsafe(&log, 8), 0);
  ar_nccl_log_init(&log); /* nothing known: treated as unsafe */
  assert_int_equal(ar_nccl_ll128_unsafe(&log, 8), 1);
  ar_nccl_log_line(&log, "h:1:1 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via NET/IB/0");
  ar_nccl_log_line(&log, "not an nccl line at all");
  assert_int_equal(log.transports, AR_NCCL_T_NET);
  assert_int_equal(log.ntuned, 0);
}

/* One size in two dtypes: 4096 B of float (1024 elements) and of half (2048) may get different
 * choices; each record must get its own dtype's, not the last line for 4096 B. Calls without a line
 * (0 bytes) are skipped. */
static void test_key_by_dtype(void **st) {
  (void)st;
  static struct ar_nccl_log log;
  ar_nccl_log_init(&log);
  ar_nccl_log_line(&log, "h:1:1 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}");
  ar_nccl_log_line(&log, "h:1:1 [0] NCCL INFO AllReduce: 65536 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..3}");
  ar_nccl_log_line(&log, "h:1:1 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo TREE proto SIMPLE channel{Lo..Hi}={0..0}");
  const struct ar_nccl_call calls[4] = {{4096, AR_FLOAT}, {65536, AR_FLOAT}, {4096, AR_HALF}, {65536, AR_HALF}};
  ar_nccl_log_key(&log, calls, 4);
  const struct ar_nccl_tuned *f = ar_nccl_log_find(&log, 4096, AR_FLOAT), *h = ar_nccl_log_find(&log, 4096, AR_HALF);
  assert_non_null(f);
  assert_non_null(h);
  assert_string_equal(f->algo, "RING");
  assert_string_equal(f->proto, "LL");
  assert_int_equal(f->channels, 2);
  assert_string_equal(h->algo, "TREE");
  assert_string_equal(h->proto, "SIMPLE");
  assert_int_equal(ar_nccl_log_find(&log, 65536, AR_FLOAT)->channels, 4);
  assert_null(ar_nccl_log_find(&log, 65536, AR_HALF)); /* that call printed no line */
}

/* NCCL 2.28's symmetric kernels log on their own line; a symm=1 record must say the kernel ran. */
static void test_symmetric_line(void **st) {
  (void)st;
  static struct ar_nccl_log log;
  ar_nccl_log_init(&log);
  ar_nccl_log_line(&log, "box:7:7 [0] NCCL INFO AllReduce [Symmetric]: 1048576 Bytes -> Kernel AllReduce_AGxLL_R "
                         "nchannels 8 nthreads 512 nWorks 1");
  ar_nccl_log_line(&log, "box:7:7 [0] NCCL INFO AllReduce: 268435456 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..15}");
  const struct ar_nccl_call calls[2] = {{1048576, AR_BF16}, {268435456, AR_BF16}};
  ar_nccl_log_key(&log, calls, 2);
  assert_int_equal(log.ntuned, 2);
  const struct ar_nccl_tuned *t = ar_nccl_log_find(&log, 1048576, AR_BF16);
  assert_non_null(t);
  assert_int_equal(t->symmetric, 1);
  assert_string_equal(t->algo, "SYMMETRIC");
  assert_string_equal(t->kernel, "AllReduce_AGxLL_R");
  assert_int_equal(t->channels, 8);
  t = ar_nccl_log_find(&log, 268435456, AR_BF16); /* fell back to a regular kernel */
  assert_int_equal(t->symmetric, 0);
  assert_string_equal(t->algo, "RING");
}

/* ctas= wins over the user's NCCL_MIN_CTAS/NCCL_MAX_CTAS; without ctas= the user's values apply. */
static void test_ctas(void **st) {
  (void)st;
  int mn, mx;
  ar_nccl_ctas(4, "16", "32", &mn, &mx);
  assert_int_equal(mn, 4);
  assert_int_equal(mx, 4);
  ar_nccl_ctas(0, "16", NULL, &mn, &mx); /* NCCL refuses minCTAs 16 with maxCTAs unset: its default maximum */
  assert_int_equal(mn, 16);
  assert_int_equal(mx, 64);
  ar_nccl_ctas(0, NULL, "8", &mn, &mx);
  assert_int_equal(mn, 0);
  assert_int_equal(mx, 8);
  ar_nccl_ctas(0, "16", "8", &mn, &mx); /* as NCCL takes the variables: both the maximum */
  assert_int_equal(mn, 8);
  assert_int_equal(mx, 8);
  ar_nccl_ctas(0, "0x10", "100", &mn, &mx); /* strtoll base 0, capped at MAXCHANNELS */
  assert_int_equal(mn, 16);
  assert_int_equal(mx, 64);
  ar_nccl_ctas(0, "-1", "x2", &mn, &mx); /* NCCL ignores these too */
  assert_int_equal(mn, 0);
  assert_int_equal(mx, 0);
}

static void test_debug_path(void **st) {
  (void)st;
  char out[128];
  ar_nccl_debug_path("/tmp/nccl.%h.%p.log", "box", 42, out, sizeof out);
  assert_string_equal(out, "/tmp/nccl.box.42.log");
  ar_nccl_debug_path("a%%b%xc%", "h", 1, out, sizeof out);
  assert_string_equal(out, "a%b%xc%");
  ar_nccl_debug_path("/long/%h", "hostname", 1, out, 10);
  assert_string_equal(out, "/long/hos");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_version_codes), cmocka_unit_test(test_variant_ok), cmocka_unit_test(test_variant_bad),
    cmocka_unit_test(test_log_lines), cmocka_unit_test(test_ll128_nvlink), cmocka_unit_test(test_key_by_dtype),
    cmocka_unit_test(test_symmetric_line), cmocka_unit_test(test_ctas), cmocka_unit_test(test_debug_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
