/* test_cuda_plan.c — bench/links/cuda_plan.c: the GPU side's deciding logic of `arbench links` (which methods
 * run, who starts which flow, the wait bounds, the ping-pong status decoding, smoke verdicts and lines, the
 * per-link score) with exact values; and the GPU options of opts.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "links/cuda_plan.h"
#include "links/cuda_status.h"
#include "links/measure.h"

static void test_methods(void **st) {
  (void)st;
  static const int gpu[AR_LM_N] = {0, 0, 1, 1, 1, 1}, sm[AR_LM_N] = {0, 0, 0, 0, 1, 1}, pull[AR_LM_N] = {1, 0, 1, 0, 1, 0};
  for (int m = 0; m < AR_LM_N; m++) {
    assert_int_equal(ar_lmethod_gpu(m), gpu[m]);
    assert_int_equal(ar_lmethod_sm(m), sm[m]);
    assert_int_equal(ar_lmethod_pull(m), pull[m]);
  }
  assert_string_equal(ar_lmethod_name(AR_LM_CE_READ), "ce-read");
  assert_string_equal(ar_lmethod_name(AR_LM_SM_WRITE), "sm-write");
  struct ar_flow f = {1, 3};
  assert_int_equal(ar_links_initiator(AR_LM_CE_READ, f), 3);
  assert_int_equal(ar_links_initiator(AR_LM_SM_READ, f), 3);
  assert_int_equal(ar_links_initiator(AR_LM_CE_WRITE, f), 1);
  assert_int_equal(ar_links_initiator(AR_LM_SM_WRITE, f), 1);
}

static void test_resolve(void **st) {
  (void)st;
  char err[AR_ERRLEN] = "";
  unsigned out = 0;
  /* no --method: the GPU methods on GPUs (sm-* only when compiled in), the host ones otherwise */
  assert_int_equal(ar_links_resolve_methods(AR_LM_HOST_SET, 0, 1, 1, "", "", &out, err, sizeof err), 0);
  assert_int_equal(out, AR_LM_CE_SET | AR_LM_SM_SET);
  assert_int_equal(ar_links_resolve_methods(AR_LM_HOST_SET, 0, 1, 0, "", "", &out, err, sizeof err), 0);
  assert_int_equal(out, AR_LM_CE_SET);
  assert_int_equal(ar_links_resolve_methods(AR_LM_HOST_SET, 0, 0, 1, "no CUDA device", "", &out, err, sizeof err), 0);
  assert_int_equal(out, AR_LM_HOST_SET);
  /* explicit: kept as given, host methods also on GPUs */
  assert_int_equal(ar_links_resolve_methods(1u << AR_LM_WRITE, 1, 1, 1, "", "", &out, err, sizeof err), 0);
  assert_int_equal(out, 1u << AR_LM_WRITE);
  assert_int_equal(ar_links_resolve_methods(AR_LM_SM_SET, 1, 1, 1, "", "", &out, err, sizeof err), 0);
  assert_int_equal(out, AR_LM_SM_SET);
  /* refused: a GPU method without GPUs, sm-* without the kernels; the first such method is named */
  out = 77;
  assert_int_equal(ar_links_resolve_methods((1u << AR_LM_READ) | (1u << AR_LM_CE_WRITE) | (1u << AR_LM_SM_READ), 1, 0,
                                            1, "no CUDA device", "", &out, err, sizeof err),
                   -AR_EINVAL);
  assert_string_equal(err, "--method ce-write needs a CUDA device on every rank: no CUDA device");
  assert_int_equal(out, 77);
  assert_int_equal(ar_links_resolve_methods(AR_LM_CE_SET | (1u << AR_LM_SM_WRITE), 1, 1, 0, "", "no nvcc", &out, err,
                                            sizeof err),
                   -AR_EINVAL);
  assert_string_equal(err, "--method sm-write: the SM copy kernels are not in this build: no nvcc");
}

static void test_started(void **st) {
  (void)st;
  struct ar_flow f[16];
  int idx[16];
  int nf = ar_links_flows(AR_LP_ALL, AR_LD_UNI, 3, 0, f, 16, NULL); /* 0>1 0>2 1>0 1>2 2>0 2>1 */
  assert_int_equal(nf, 6);
  assert_int_equal(ar_lcuda_started(AR_LM_CE_READ, f, nf, 1, idx, 16), 2); /* rank 1 pulls 0>1 and 2>1 */
  assert_int_equal(idx[0], 0);
  assert_int_equal(idx[1], 5);
  assert_int_equal(ar_lcuda_started(AR_LM_SM_WRITE, f, nf, 1, idx, 16), 2); /* rank 1 pushes 1>0 and 1>2 */
  assert_int_equal(idx[0], 2);
  assert_int_equal(idx[1], 3);
  assert_int_equal(ar_lcuda_started(AR_LM_CE_WRITE, f, nf, 1, idx, 1), 1); /* at most max */
  nf = ar_links_flows(AR_LP_TO_ONE, AR_LD_UNI, 4, 2, f, 16, NULL); /* everyone to 2 */
  assert_int_equal(ar_lcuda_started(AR_LM_SM_READ, f, nf, 2, idx, 16), 3);
  assert_int_equal(ar_lcuda_started(AR_LM_SM_READ, f, nf, 0, idx, 16), 0);
  assert_int_equal(ar_lcuda_started(AR_LM_SM_WRITE, f, nf, 0, idx, 16), 1);
}

static void test_bounds(void **st) {
  (void)st;
  assert_true(fabs(ar_lcuda_bound_s(100000000, 10) - 20.0) < 1e-9); /* 1 GB at 0.1 GB/s + 10 s */
  assert_true(fabs(ar_lcuda_bound_s(4096, 0) - 10.0) < 1e-9);
  assert_true(fabs(ar_lcuda_kernel_bound_s(2.0) - 7.0) < 1e-9);
  assert_true(fabs(ar_lcuda_gbs(1000000000, 2, 1000.0) - 2.0) < 1e-12);
  assert_true(fabs(ar_lcuda_gbs(4 << 20, 20, 2.0) - 41.943040) < 1e-9);
  assert_true(isnan(ar_lcuda_gbs(4096, 1, 0)));
}

static void test_pingpong_status(void **st) {
  (void)st;
  char why[200];
  unsigned long long s[AR_LKS_WORDS] = {0};
  s[AR_LKS_STATE] = AR_LKS_OK, s[AR_LKS_NS] = 2000000, s[AR_LKS_DONE] = 1010;
  assert_true(fabs(ar_lcuda_pingpong_us(AR_HW_DONE, s, 10, 1000, why, sizeof why) - 1.0) < 1e-12);
  assert_string_equal(why, "ok");
  assert_true(isnan(ar_lcuda_pingpong_us(AR_HW_TIMEOUT, s, 10, 1000, why, sizeof why)));
  assert_string_equal(why, "the ping-pong kernel did not end within its bound");
  assert_true(isnan(ar_lcuda_pingpong_us(AR_HW_ERROR, s, 10, 1000, why, sizeof why)));
  assert_string_equal(why, "the ping-pong kernel failed");
  s[AR_LKS_DONE] = 1009; /* one round trip short */
  assert_true(isnan(ar_lcuda_pingpong_us(AR_HW_DONE, s, 10, 1000, why, sizeof why)));
  s[AR_LKS_STATE] = AR_LKS_TIMEOUT, s[AR_LKS_DONE] = 7;
  assert_true(isnan(ar_lcuda_pingpong_us(AR_HW_DONE, s, 10, 1000, why, sizeof why)));
  assert_string_equal(why, "a flag did not arrive before the deadline (after 7 of 1010 round trips)");
  s[AR_LKS_STATE] = AR_LKS_UNSET, s[AR_LKS_DONE] = 1010;
  assert_true(isnan(ar_lcuda_pingpong_us(AR_HW_DONE, s, 10, 1000, NULL, 0)));
}

static void test_smoke(void **st) {
  (void)st;
  assert_int_equal(ar_lcuda_smoke_verdict(1, AR_HW_DONE, 0), AR_PAIR_OK);
  assert_int_equal(ar_lcuda_smoke_verdict(1, AR_HW_DONE, 3), AR_PAIR_CORRUPT);
  assert_int_equal(ar_lcuda_smoke_verdict(1, AR_HW_TIMEOUT, 0), AR_PAIR_TIMEOUT);
  assert_int_equal(ar_lcuda_smoke_verdict(1, AR_HW_ERROR, 0), AR_PAIR_TIMEOUT);
  assert_int_equal(ar_lcuda_smoke_verdict(0, AR_HW_DONE, 0), AR_PAIR_NOIPC);
  char line[600];
  ar_lcuda_bad_line(AR_PAIR_TIMEOUT, 2, 5, "0000:3b:00.0", "0000:d8:00.0", 4096, 2, line, sizeof line);
  assert_string_equal(line, "GPU pair 2->5 (0000:3b:00.0 -> 0000:d8:00.0): the copy did not finish in the P2P smoke "
                            "test (4096 bytes, 2 s timeout): skipped; the usual causes are PCIe ACS or the IOMMU on "
                            "the path (NVIDIA/nccl#1999, #2079: NCCL works there only with NCCL_P2P_DISABLE=1; see "
                            "arbench doctor)");
  ar_lcuda_bad_line(AR_PAIR_CORRUPT, 0, 1, "", NULL, 4096, 0.5, line, sizeof line);
  assert_non_null(strstr(line, "GPU pair 0->1 (? -> ?): the data arrived corrupted in the P2P smoke test (4096 bytes, "
                               "0.5 s timeout)"));
  ar_lcuda_bad_line(AR_PAIR_NOIPC, 0, 1, "a", "b", 4096, 2, line, sizeof line);
  assert_non_null(strstr(line, "the peer's memory could not be mapped through CUDA IPC"));
}

static void test_score(void **st) {
  (void)st;
  assert_true(fabs(ar_links_score(40.0, 50.0) - 0.8) < 1e-12);
  assert_true(isnan(ar_links_score(40.0, 0)));
  assert_true(isnan(ar_links_score(40.0, NAN)));
  assert_true(isnan(ar_links_score(NAN, 50.0)));
  assert_true(isnan(ar_links_score(0, 50.0)));
}

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

static void test_opts(void **st) {
  (void)st;
  struct ar_links_opts o;
  char err[AR_ERRLEN];
  assert_int_equal(parse(&o, err, 1), 0);
  assert_false(o.methods_given);
  assert_false(o.shared_gpu);
  assert_string_equal(o.devices, "");
  assert_int_equal(parse(&o, err, 6, "--method", "sm-read,ce-write", "--devices", "0,0", "--shared-gpu"), 0);
  assert_true(o.methods_given);
  assert_int_equal(o.methods, (1u << AR_LM_SM_READ) | (1u << AR_LM_CE_WRITE));
  assert_string_equal(o.devices, "0,0");
  assert_true(o.shared_gpu);
  static const char *const bad[] = {"", "x", "0,", ",0", "0,,1", "-1", "256", "1.5", " 1", "0,x"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(parse(&o, err, 3, "--devices", bad[i]), -AR_EINVAL);
    char want[200];
    snprintf(want, sizeof want, "bad --devices '%s' (expected comma-separated CUDA device indices like 0,1,2,3)", bad[i]);
    assert_string_equal(err, want);
  }
  assert_int_equal(parse(&o, err, 3, "--devices", "255,0,17"), 0);
}

/* table's view of GPU latency records: us, not GB/s */
static void test_table_latency(void **st) {
  (void)st;
  json_t *notes = json_pack("[{s:s, s:s, s:i, s:i, s:s, s:s, s:s, s:n, s:i, s:n, s:f, s:s}]", "type", "link", "command",
                            "links", "src", 0, "dst", 1, "method", "ce-write", "direction", "latency", "pattern", "pairs",
                            "root", "bytes", 4, "gbs", "us", 2.25, "path", "PIX");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(ar_links_table(f, notes), 1);
  fclose(f);
  assert_non_null(strstr(buf, "## links: ce-write latency pairs (us, median over runs)"));
  assert_non_null(strstr(buf, "| 0->1 | PIX | 2.25"));
  free(buf);
  json_decref(notes);
}

/* the write/read finding per GPU transport: ce-writes into rank 1 at 5% of its ce-reads */
static void test_findings_gpu(void **st) {
  (void)st;
  json_t *recs = json_array();
  static const struct { const char *m; int s, d; double gbs; } r[] = {
    {"ce-read", 0, 1, 52.0}, {"ce-read", 1, 0, 50.0}, {"ce-write", 0, 1, 2.6}, {"ce-write", 1, 0, 49.0},
    {"sm-read", 0, 1, 40.0}, {"sm-read", 1, 0, 40.0}, {"sm-write", 0, 1, 41.0}, {"sm-write", 1, 0, 39.0}};
  for (size_t i = 0; i < sizeof r / sizeof *r; i++)
    json_array_append_new(recs, json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:s, s:[f, f, f]}", "method", r[i].m,
                                           "direction", "uni", "pattern", "pairs", "src", r[i].s, "dst", r[i].d, "bytes",
                                           1 << 20, "gbs", r[i].gbs, "path", "PIX", "samples_gbs", r[i].gbs, r[i].gbs,
                                           r[i].gbs)); /* 3 repeats, no spread */
  json_t *out = json_array();
  ar_links_findings(recs, 2, out);
  int seen = 0;
  for (size_t i = 0; i < json_array_size(out); i++) {
    const char *line = json_string_value(json_array_get(out, i));
    seen += !strcmp(line, "ce-writes to rank 1 run at 5% of ce-reads (median over its 1 peers)");
    assert_null(strstr(line, "sm-"));
    seen += 100 * !strcmp(line, "ce-reads from rank 0 run at 2000% of ce-writes (median over its 1 peers)");
  }
  assert_int_equal(seen, 1);
  json_decref(out);
  json_decref(recs);
}

/* A GPU whose work passed its bound: its pairs not yet decided become STUCK (never started), the decided ones
 * keep their verdict; each stuck pair is counted under one stuck rank; the line names the rank and its GPU. */
static void test_stuck(void **st) {
  (void)st;
  int n = 4, bad[16] = {0}, stuck[4] = {0, 0, 1, 0};
  bad[0 * 4 + 2] = AR_PAIR_TIMEOUT; /* the pair whose copy hung */
  bad[1 * 4 + 3] = AR_PAIR_CORRUPT;
  assert_int_equal(ar_lcuda_stuck_pairs(stuck, n, bad), 5); /* 1->2 2->0 2->1 2->3 3->2 */
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++) {
      int want = s == d                      ? AR_PAIR_OK
                 : s == 0 && d == 2          ? AR_PAIR_TIMEOUT
                 : s == 1 && d == 3          ? AR_PAIR_CORRUPT
                 : s == 2 || d == 2          ? AR_PAIR_STUCK
                                             : AR_PAIR_OK;
      assert_int_equal(bad[s * n + d], want);
    }
  assert_int_equal(ar_lcuda_stuck_pairs(stuck, n, bad), 0); /* idempotent */
  int two[4] = {0, 1, 0, 1};
  assert_int_equal(ar_lcuda_stuck_owner(two, 1, 3), 1);
  assert_int_equal(ar_lcuda_stuck_owner(two, 3, 1), 1);
  assert_int_equal(ar_lcuda_stuck_owner(two, 0, 3), 3);
  assert_int_equal(ar_lcuda_stuck_owner(two, 3, 2), 3);
  char buf[400];
  assert_int_equal(ar_lcuda_names(two, 4, buf, sizeof buf), 2);
  assert_string_equal(buf, "ranks 1, 3");
  assert_int_equal(ar_lcuda_names(stuck, 4, buf, sizeof buf), 1);
  assert_string_equal(buf, "rank 2");
  assert_int_equal(ar_lcuda_names(bad, 0, buf, sizeof buf), 0);
  assert_string_equal(buf, "no rank");
  ar_lcuda_stuck_line(2, "0000:3b:00.0", 5, 2, buf, sizeof buf);
  assert_string_equal(buf, "GPU of rank 2 (0000:3b:00.0): work queued on it did not end within its bound (2 s for a "
                           "smoke-test copy, 10 s for staging): nothing more is queued on it and nothing waits for "
                           "it; its 5 untested pairs skipped");
  ar_lcuda_stuck_line(0, "", 1, 0.5, buf, sizeof buf);
  assert_non_null(strstr(buf, "GPU of rank 0 (?): "));
  assert_non_null(strstr(buf, "its 1 untested pair skipped"));
}

/* Held batches: at most AR_LCUDA_HELD_OPS operations queued behind a rank's holds (a hold, two events and the
 * copies per stream), the copies spread evenly over the batches the ranks agreed on. */
static void test_batches(void **st) {
  (void)st;
  assert_int_equal(ar_lcuda_batches(20, 0), 1);
  assert_int_equal(ar_lcuda_batches(20, 1), 1);    /* 253 copies fit */
  assert_int_equal(ar_lcuda_batches(253, 1), 1);
  assert_int_equal(ar_lcuda_batches(254, 1), 2);
  assert_int_equal(ar_lcuda_batches(1000, 7), 31); /* 256 / 7 - 3 = 33 a batch */
  assert_int_equal(ar_lcuda_batches(5, 200), 5);   /* one copy a batch at least */
  int sum = 0;
  for (int b = 0; b < 31; b++) {
    int c = ar_lcuda_batch_copies(1000, 31, b);
    assert_true(c == 32 || c == 33);
    assert_true(7 * (c + 3) <= AR_LCUDA_HELD_OPS);
    sum += c;
  }
  assert_int_equal(sum, 1000);
  assert_int_equal(ar_lcuda_batch_copies(1000, 31, 0), 33);
  assert_int_equal(ar_lcuda_batch_copies(1000, 31, 30), 32);
  assert_int_equal(ar_lcuda_batch_copies(1000, 31, 31), 0);
  assert_int_equal(ar_lcuda_batch_copies(7, 2, 0), 4);
  assert_int_equal(ar_lcuda_batch_copies(7, 2, 1), 3);
}

/* A repeat's steps: the destination checks only after every initiator's wait and an agreement (a barrier); each
 * batch is held, queued, then released after a barrier, waited for, agreed and timed. */
static void test_repeat_steps(void **st) {
  (void)st;
  static const int warm2[] = {AR_LS_FILL, AR_LS_AGREE, AR_LS_WARM, AR_LS_WAIT, AR_LS_AGREE,
                              AR_LS_HOLD, AR_LS_BARRIER, AR_LS_RELEASE, AR_LS_WAIT, AR_LS_AGREE, AR_LS_TIME,
                              AR_LS_HOLD, AR_LS_BARRIER, AR_LS_RELEASE, AR_LS_WAIT, AR_LS_AGREE, AR_LS_TIME,
                              AR_LS_CHECK, AR_LS_AGREE, AR_LS_END};
  static const int cold1[] = {AR_LS_FILL, AR_LS_AGREE, AR_LS_HOLD, AR_LS_BARRIER, AR_LS_RELEASE, AR_LS_WAIT,
                              AR_LS_AGREE, AR_LS_TIME, AR_LS_CHECK, AR_LS_AGREE, AR_LS_END};
  int b;
  for (size_t i = 0; i < sizeof warm2 / sizeof *warm2; i++) {
    assert_int_equal(ar_lcuda_repeat_step((int)i, 1, 2, &b), warm2[i]);
    assert_int_equal(b, i >= 5 && i < 11 ? 0 : i >= 11 && i < 17 ? 1 : -1);
  }
  for (size_t i = 0; i < sizeof cold1 / sizeof *cold1; i++) assert_int_equal(ar_lcuda_repeat_step((int)i, 0, 1, &b), cold1[i]);
  assert_int_equal(ar_lcuda_repeat_step(40, 0, 1, &b), AR_LS_END);
  assert_int_equal(ar_lcuda_repeat_step(-1, 0, 1, &b), AR_LS_END);
  /* the rule itself, for any shape: a CHECK comes after a WAIT and an AGREE with no WAIT between them */
  for (int w = 0; w < 2; w++)
    for (int nb = 1; nb < 5; nb++) {
      int last = -1, agreed = 0, checks = 0, s;
      for (int i = 0; (s = ar_lcuda_repeat_step(i, w, nb, &b)) != AR_LS_END; i++) {
        if (s == AR_LS_WAIT) last = i, agreed = 0;
        if (s == AR_LS_AGREE && last >= 0) agreed = 1;
        if (s == AR_LS_CHECK) assert_true(agreed), checks++;
      }
      assert_int_equal(checks, 1);
    }
}

/* The host's watch over the ping-pong kernel: it gives up only when the count stood still past the bound. */
static void test_watch(void **st) {
  (void)st;
  struct ar_lwatch w;
  ar_lcuda_watch_start(&w, 100.0, 7.0);
  assert_int_equal(ar_lcuda_watch_expired(&w, 106.0, 0), 0);
  assert_int_equal(ar_lcuda_watch_expired(&w, 107.5, 0), 1); /* 7.5 s without a round trip */
  ar_lcuda_watch_start(&w, 100.0, 7.0);
  for (int t = 1; t <= 100; t++) assert_int_equal(ar_lcuda_watch_expired(&w, 100.0 + 6.0 * t, (unsigned long long)t * 256), 0);
  assert_int_equal(ar_lcuda_watch_expired(&w, 706.0, 25600), 0); /* 600 s in all, moving: never cut */
  assert_int_equal(ar_lcuda_watch_expired(&w, 707.5, 25600), 1);
}

/* A hold that ended before its release is a loaded host, not the GPU: measured again, up to AR_LCUDA_HOLD_TRIES
 * tries, each next hold twice the longer of the last hold and what the hosts took, capped; the ranks' agreement
 * keeps the worst outcome, so a GPU error or timeout on any rank outranks an unheld try. */
static void test_unheld(void **st) {
  (void)st;
  assert_true(AR_HW_DONE < AR_HW_UNHELD && AR_HW_UNHELD < AR_HW_TIMEOUT && AR_HW_TIMEOUT < AR_HW_ERROR);
  assert_int_equal(AR_LCUDA_HOLD_TRIES, 3);
  assert_int_equal(ar_lcuda_hold_retry(1), 1);
  assert_int_equal(ar_lcuda_hold_retry(2), 1);
  assert_int_equal(ar_lcuda_hold_retry(3), 0);
  assert_true(ar_lcuda_hold_next_s(10, 0.001) == 20);  /* the hosts were quick: twice the last hold */
  assert_true(ar_lcuda_hold_next_s(10, 10.02) == 20.04); /* they took the hold's 10 s and a bit: twice that */
  assert_true(ar_lcuda_hold_next_s(20, 83.5) == 167);    /* a long stall: the next hold outlasts it twice */
  assert_true(ar_lcuda_hold_next_s(10, NAN) == 20);
  assert_true(ar_lcuda_hold_next_s(0, 0) == 2 * AR_LCUDA_HOLD_S);
  assert_true(ar_lcuda_hold_next_s(400, 1) == AR_LCUDA_HOLD_MAX_S);
  assert_true(ar_lcuda_hold_next_s(10, 1e9) == AR_LCUDA_HOLD_MAX_S);
  char line[600];
  ar_lcuda_retry_line("ce-write uni pairs 1->0, 65536 bytes", 1, 10, 10.02, 20.04, line, sizeof line);
  assert_string_equal(line, "ce-write uni pairs 1->0, 65536 bytes: try 1 of 3 ended unheld (its hold waited up to 10 s; "
                            "the hosts took 10 s to queue the copies and meet: a loaded host): measuring it again with a "
                            "20 s hold");
  ar_lcuda_unheld_line("ce-write uni pairs 1->0, 65536 bytes", 3, 40, 41.5, line, sizeof line);
  assert_string_equal(line, "ce-write uni pairs 1->0, 65536 bytes: not measured: its copies could not be held in 3 tries "
                            "(the last hold waited up to 40 s for its release; the hosts took 41.5 s to queue the copies "
                            "and meet): the host is too loaded to start the copies together, not a GPU fault; measure it "
                            "on a quieter host");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_stuck), cmocka_unit_test(test_batches), cmocka_unit_test(test_repeat_steps),
    cmocka_unit_test(test_watch), cmocka_unit_test(test_unheld),
    cmocka_unit_test(test_methods), cmocka_unit_test(test_resolve), cmocka_unit_test(test_started),
    cmocka_unit_test(test_bounds),  cmocka_unit_test(test_pingpong_status), cmocka_unit_test(test_smoke),
    cmocka_unit_test(test_score),   cmocka_unit_test(test_opts), cmocka_unit_test(test_table_latency),
    cmocka_unit_test(test_findings_gpu),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
