/* test_standin_collconfig.c — the NCCL stand-in's per-collective config (standin/nccl/collconfig.c) alone, against
 * NCCL 2.31.2's rules: the symbol's version gate, ncclParseCollConfig's checks, the algSelection grammar (',' or,
 * '+' and, '^' not, case-insensitive prefix tags, whitespace dropped) and the pick within the selected set. The
 * file's neighbours (logger, version knob, ncclAllReduce, the model's pick) are stubs here. */
#include "standin_nccl.h"
#include "standin.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---- stubs of the stand-in's other files ---- */
static int version = 23102, calls;
static char last_warn[512], last_info[512], violation[512];
static struct sn_select got;
static int got_sel;
static jmp_buf ended;
int sn_version(void) { return version; }
void sn_version_string(char *buf, size_t len) {
  snprintf(buf, len, "%d.%d.%d", version / 10000, version / 100 % 100, version % 100);
}
void sn_log(int level, unsigned long flags, const char *file, int line, const char *fmt, ...) {
  (void)flags, (void)file, (void)line;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(level == SN_LOG_WARN ? last_warn : last_info, sizeof last_warn, fmt, ap);
  va_end(ap);
}
void ar_standin_violation(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(violation, sizeof violation, fmt, ap);
  va_end(ap);
  longjmp(ended, 1);
}
int sn_model_pick(const float *table, int *algo, int *proto) { /* the smallest entry >= 0 (tuning.c) */
  float best = 1e30f;
  *algo = *proto = -1;
  for (int i = 0; i < SN_NUM_ALGOS * SN_NUM_PROTOS; i++)
    if (table[i] >= 0.0f && table[i] < best) best = table[i], *algo = i / SN_NUM_PROTOS, *proto = i % SN_NUM_PROTOS;
  return *algo < 0 ? -1 : 0;
}
ncclResult_t sn_allreduce(const void *send, void *recv, size_t count, ncclDataType_t dt, ncclRedOp_t op, ncclComm_t c,
                          cudaStream_t stream, const struct sn_select *sel) {
  (void)send, (void)recv, (void)count, (void)dt, (void)op, (void)c, (void)stream;
  calls++;
  got_sel = sel != NULL;
  if (sel) got = *sel;
  return ncclSuccess;
}

/* ncclCollConfig_v23100 as the 2.31.2 wheel's nccl.h:178-201 lays it out, and the call's prototype (:665). */
typedef struct {
  size_t size;
  unsigned int magic, version;
  void *ext;
  int minCTAs, maxCTAs, nvlsCTAs, cgaClusterSize;
  const char *algSelection;
  int forceAlgSelection, CTAPolicy;
  uint64_t userProfilerTag;
} cfg_t;
ncclResult_t ncclAllReduceConfig(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t,
                                 const cfg_t *);
static cfg_t initializer(const char *selection) {
  cfg_t c = {sizeof c, 0xcafebeefu, 23102, NULL, INT_MIN, INT_MIN, INT_MIN, INT_MIN, selection, 1, INT_MIN, 0};
  return c;
}
static ncclResult_t call(const cfg_t *c) {
  *last_warn = *last_info = 0;
  calls = got_sel = 0;
  return ncclAllReduceConfig(NULL, NULL, 4, ncclFloat32, ncclSum, NULL, NULL, c);
}

static void test_version_gate(void **st) {
  (void)st;
  cfg_t c = initializer("RING");
  version = 22809;
  if (!setjmp(ended)) {
    call(&c);
    fail_msg("ncclAllReduceConfig ran on 2.28.9");
  }
  version = 23102;
  assert_non_null(strstr(violation, "ncclAllReduceConfig called on NCCL 2.28.9: the symbol exists from 2.31.0 on"));
  assert_int_equal(calls, 0);
}

static void test_header(void **st) {
  (void)st;
  cfg_t c = initializer("RING");
  assert_int_equal(call(&c), ncclSuccess);
  assert_int_equal(calls, 1);
  assert_true(got_sel && !strcmp(got.selection, "RING") && got.force == 1);
  c.magic = 0;
  assert_int_equal(call(&c), ncclInvalidArgument);
  assert_string_equal(last_warn, "ncclCollConfig_t magic mismatch (got 0x0, expected 0xcafebeef)");
  assert_int_equal(calls, 0);
  c = initializer("RING");
  c.forceAlgSelection = 2;
  assert_int_equal(call(&c), ncclInvalidArgument);
  assert_string_equal(last_warn, "config->forceAlgSelection=2 is invalid, accepted values are 0 or 1");
  c = initializer("RING");
  c.CTAPolicy = 4;
  assert_int_equal(call(&c), ncclInvalidArgument);
  assert_string_equal(last_warn, "config->CTAPolicy=4 is invalid, accepted values are [1, 3]");
  c.CTAPolicy = -1;
  assert_int_equal(call(&c), ncclInvalidArgument);
  c.CTAPolicy = 3;
  assert_int_equal(call(&c), ncclSuccess);
  /* A shorter struct: the fields past its size keep the initializer's values (no selection, force 1). */
  c = initializer("RING");
  c.size = offsetof(cfg_t, algSelection);
  assert_int_equal(call(&c), ncclSuccess);
  assert_true(calls == 1 && !got_sel);
  /* NULL config, and "" selection: the plain call. */
  assert_int_equal(call(NULL), ncclSuccess);
  assert_true(calls == 1 && !got_sel);
  c = initializer("");
  assert_int_equal(call(&c), ncclSuccess);
  assert_true(calls == 1 && !got_sel);
  c = initializer("TREE");
  c.forceAlgSelection = 0;
  assert_int_equal(call(&c), ncclSuccess);
  assert_true(got_sel && got.force == 0);
}

/* A cost table as the stand-in's model fills it: Tree/Ring all three protocols, RING_LL128 the cheapest, CollNet,
 * NVLS, NVLSTree unavailable (-1), PAT's entries present (as NCCL's table has them; PAT is no allreduce name). */
static void table(float *t) {
  for (int a = 0; a < SN_NUM_ALGOS; a++)
    for (int p = 0; p < SN_NUM_PROTOS; p++) t[a * SN_NUM_PROTOS + p] = 20.0f + (float)(a * SN_NUM_PROTOS + p);
  for (int i = SN_ALGO_COLLNET_DIRECT * SN_NUM_PROTOS; i < SN_ALGO_PAT * SN_NUM_PROTOS; i++) t[i] = SN_COST_IGNORE;
  t[SN_ALGO_RING * SN_NUM_PROTOS + SN_PROTO_LL128] = 1.0f;
  t[SN_ALGO_PAT * SN_NUM_PROTOS + SN_PROTO_SIMPLE] = 0.5f;
}
/* The pick of selection s: algo * 3 + proto, -1 error, -2 none (NCCL's own pick follows). */
static int pick(const char *s, int force) {
  float t[SN_NUM_ALGOS * SN_NUM_PROTOS];
  table(t);
  struct sn_select sel = {s, force};
  int a = -1, p = -1;
  *last_warn = *last_info = 0;
  int r = sn_select_pick(&sel, t, &a, &p);
  return r < 0 ? -1 : r == 0 ? -2 : a * SN_NUM_PROTOS + p;
}
#define AP(a, p) (SN_ALGO_##a * SN_NUM_PROTOS + SN_PROTO_##p)

static void test_grammar(void **st) {
  (void)st;
  assert_int_equal(pick("RING_LL", 1), AP(RING, LL128)); /* a prefix: RING_LL128 too */
  assert_string_equal(last_info, "algSelection: RING_LL128 picked within the selected set");
  assert_int_equal(pick(" ring_ll + ^RING_LL128 ", 1), AP(RING, LL));
  assert_string_equal(last_info, "algSelection: RING_LL picked within the selected set");
  assert_int_equal(pick("TREE,RING_SIMPLE", 1), AP(TREE, LL));
  assert_int_equal(pick("RING_SIMPLE,,TREE_SIMPLE", 1), AP(TREE, SIMPLE)); /* empty terms skipped */
  assert_int_equal(pick("^RING", 1), AP(TREE, LL));                         /* PAT is no allreduce name */
  assert_int_equal(pick("RING+^RING_LL128+^RING_LL", 1), AP(RING, SIMPLE));
  const char *bad[] = {"BOGUS", "^", "RING+TREE", "RING,+", "PAT", "RING_LL+BOGUS", "SYMK_LL"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char want[300];
    assert_int_equal(pick(bad[i], 1), -1);
    snprintf(want, sizeof want, "config->algSelection \"%s\" cannot be honored for AllReduce (set forceAlgSelection=0 "
             "to if need to allow fall back to automatic selection)", bad[i]);
    assert_string_equal(last_warn, want);
    assert_int_equal(pick(bad[i], 0), -2);
    assert_string_equal(last_warn, "");
    snprintf(want, sizeof want, "config->algSelection \"%s\" cannot be honored for AllReduce; falling back to "
             "automatic selection", bad[i]);
    assert_string_equal(last_info, want);
  }
}

/* A selection NCCL parses but cannot run here (NVLS needs NVSwitch; no symmetric kernel in the stand-in). */
static void test_unavailable(void **st) {
  (void)st;
  const char *sets[] = {"NVLS", "COLLNET", "SYMK_AGxLL_R"};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    assert_int_equal(pick(sets[i], 1), -1);
    assert_string_equal(last_warn, "algSelection: no algorithm in the selected set is available for AllReduce");
    assert_int_equal(pick(sets[i], 0), -2);
    assert_string_equal(last_info, "algSelection: selected set unavailable for AllReduce; falling back to automatic "
                                   "selection");
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_version_gate), cmocka_unit_test(test_header),
                                     cmocka_unit_test(test_grammar), cmocka_unit_test(test_unavailable)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
