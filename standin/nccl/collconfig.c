/* collconfig.c — the NCCL stand-in's per-collective config of 2.31 (ncclCollConfig_t, ncclAllReduceConfig): there only
 * when the version knob says 2.31+ (version.c); the header check, the algorithm selection and its pick, as 2.31 does. */
#include "standin_nccl.h"
#include "standin.h"
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* ncclCollConfig_v23100: include/nccl.h:178-201 of the nvidia-nccl-cu13 2.31.2 wheel (not in the stand-in's nccl.h,
 * which is 2.28.9's). */
typedef struct ncclConfigExt ncclConfigExt_t;
typedef struct {
  size_t size;
  unsigned int magic;
  unsigned int version;
  ncclConfigExt_t *ext;
  int minCTAs, maxCTAs, nvlsCTAs, cgaClusterSize;
  const char *algSelection;
  int forceAlgSelection;
  int CTAPolicy;
  uint64_t userProfilerTag;
} sn_coll_config_t;

#define SN_API_MAGIC 0xcafebeefu /* NCCL_API_MAGIC */
#define SN_CTA_POLICY_ALL 0x3    /* NCCL_CTA_POLICY_EFFICIENCY | NCCL_CTA_POLICY_ZERO (nccl.h:71-73) */

/* NCCL's selectable names and their bits (src/config/algorithm_registry.cc, github NVIDIA/nccl 889806836; the same
 * names are in the 2.31.2 wheel's libnccl.so.2): a general row's bit is algo * 3 + proto, the cost table's index;
 * symmetric kernels from bit 21 (none runs in the stand-in). */
#define F_AR 1u
#define F_OTHER 2u
static const struct { const char *name; int bit; unsigned funcs; } registry[] = {
  {"TREE_LL", 0, F_AR}, {"TREE_LL128", 1, F_AR}, {"TREE_SIMPLE", 2, F_AR},
  {"RING_LL", 3, F_AR | F_OTHER}, {"RING_LL128", 4, F_AR | F_OTHER}, {"RING_SIMPLE", 5, F_AR | F_OTHER},
  {"COLLNET_DIRECT_SIMPLE", 8, F_AR | F_OTHER}, {"COLLNET_CHAIN_SIMPLE", 11, F_AR}, {"NVLS_SIMPLE", 14, F_AR | F_OTHER},
  {"NVLSTREE_SIMPLE", 17, F_AR}, {"PAT_SIMPLE", 20, F_OTHER},
  {"SYMK_AGxLL_R", 21, F_AR}, {"SYMK_AGxLLMC_R", 22, F_AR}, {"SYMK_RSxTmaLD_AGxTmaST", 23, F_AR},
  {"SYMK_RSxLD_AGxST", 24, F_AR}, {"SYMK_RSxLDMC_AGxSTMC", 25, F_AR},
  {"SYMK_LL", 26, F_OTHER}, {"SYMK_LLMC", 27, F_OTHER}, {"SYMK_TmaST", 28, F_OTHER}, {"SYMK_ST", 29, F_OTHER},
  {"SYMK_TmaSTMC", 30, F_OTHER}, {"SYMK_STMC", 31, F_OTHER}, {"SYMK_RailRing_LsaSTMC", 32, F_OTHER},
  {"SYMK_LL", 33, F_OTHER}, {"SYMK_TmaLD", 34, F_OTHER}, {"SYMK_LD", 35, F_OTHER}, {"SYMK_LDMC", 36, F_OTHER},
  {"SYMK_RailA2A_LsaLD", 37, F_OTHER}, {"SYMK_RailA2A_LsaLDMC", 38, F_OTHER},
};
#define NREG (sizeof registry / sizeof registry[0])

static uint64_t mask_of(unsigned funcs) {
  uint64_t m = 0;
  for (size_t i = 0; i < NREG; i++)
    if (registry[i].funcs & funcs) m |= 1ull << registry[i].bit;
  return m;
}

/* A tag matches every name it is a prefix of, case-insensitively (ncclAlgTagMask). */
static uint64_t tag_mask(const char *tag, size_t n) {
  uint64_t m = 0;
  for (size_t i = 0; i < NREG; i++)
    if (strlen(registry[i].name) >= n && !strncasecmp(registry[i].name, tag, n)) m |= 1ull << registry[i].bit;
  return m;
}

/* ncclAlgParse (src/config/algorithm_parser.cc): whitespace dropped; ',' joins terms (or), '+' joins factors (and),
 * '^' negates one; an unknown tag, a bare '^', an empty or contradictory term make the whole text invalid (-1). */
static int alg_parse(const char *sel, uint64_t *out) {
  char s[512], *w = s, *tsave = NULL, *fsave = NULL;
  for (const char *p = sel; *p && w < s + sizeof s - 1; p++)
    if (!strchr(" \t\n\r", *p)) *w++ = *p;
  *w = 0;
  *out = 0;
  const uint64_t all = mask_of(F_AR | F_OTHER);
  for (char *term = strtok_r(s, ",", &tsave); term; term = strtok_r(NULL, ",", &tsave)) {
    uint64_t tm = all;
    int factors = 0;
    for (char *f = strtok_r(term, "+", &fsave); f; f = strtok_r(NULL, "+", &fsave)) {
      int neg = f[0] == '^';
      if (!f[neg]) return -1;
      uint64_t m = tag_mask(f + neg, strlen(f + neg));
      if (!m) return -1;
      tm &= neg ? (all & ~m) : m;
      factors++;
    }
    if (!factors || !tm) return -1;
    *out |= tm;
  }
  return 0;
}

static const char *general_name(int algo, int proto) {
  for (size_t i = 0; i < NREG; i++)
    if (registry[i].bit == algo * SN_NUM_PROTOS + proto && registry[i].bit < 21) return registry[i].name;
  return "?";
}

int sn_select_pick(const struct sn_select *sel, const float *table, int *algo, int *proto) {
  uint64_t mask = 0;
  if (alg_parse(sel->selection, &mask) || !(mask &= mask_of(F_AR))) { /* ncclCollConfigGetAlgMask */
    if (sel->force) {
      SN_WARN("config->algSelection \"%s\" cannot be honored for AllReduce (set forceAlgSelection=0 to if need to "
              "allow fall back to automatic selection)", sel->selection);
      return -1;
    }
    SN_INFO(SN_TUNING, "config->algSelection \"%s\" cannot be honored for AllReduce; falling back to automatic "
            "selection", sel->selection);
    return 0;
  }
  float masked[SN_NUM_ALGOS * SN_NUM_PROTOS];
  for (int i = 0; i < SN_NUM_ALGOS * SN_NUM_PROTOS; i++) masked[i] = mask >> i & 1 ? table[i] : SN_COST_IGNORE;
  if (!sn_model_pick(masked, algo, proto)) { /* ncclGetAlgoInfo's pick within the selected set */
    SN_INFO(SN_TUNING, "algSelection: %s picked within the selected set", general_name(*algo, *proto));
    return 1;
  }
  if (sel->force) {
    SN_WARN("algSelection: no algorithm in the selected set is available for AllReduce");
    return -1;
  }
  SN_INFO(SN_TUNING, "algSelection: selected set unavailable for AllReduce; falling back to automatic selection");
  return 0;
}

/* ncclParseCollConfig: at most the known layout is read (size bounds it), then magic, forceAlgSelection, CTAPolicy. */
static ncclResult_t parse(const sn_coll_config_t *user, sn_coll_config_t *c) {
  memset(c, 0, sizeof *c);
  c->forceAlgSelection = 1;
  c->CTAPolicy = INT_MIN;
  if (!user) return ncclSuccess;
  size_t n;
  memcpy(&n, user, sizeof n);
  memcpy(c, user, n < sizeof *c ? n : sizeof *c);
  if (c->magic != SN_API_MAGIC) {
    SN_WARN("ncclCollConfig_t magic mismatch (got 0x%x, expected 0x%x)", c->magic, SN_API_MAGIC);
    return ncclInvalidArgument;
  }
  if (c->forceAlgSelection != 0 && c->forceAlgSelection != 1) {
    SN_WARN("config->forceAlgSelection=%d is invalid, accepted values are 0 or 1", c->forceAlgSelection);
    return ncclInvalidArgument;
  }
  if (c->CTAPolicy != INT_MIN && (c->CTAPolicy < 0 || c->CTAPolicy > SN_CTA_POLICY_ALL)) {
    SN_WARN("config->CTAPolicy=%d is invalid, accepted values are [1, %d]", c->CTAPolicy, SN_CTA_POLICY_ALL);
    return ncclInvalidArgument;
  }
  return ncclSuccess;
}

/* ncclAllReduceConfig (nccl.h:665-666 of the 2.31.2 wheel). Before 2.31 libnccl has no such symbol: a caller that
 * reaches it at an older knob would have failed to resolve it there, so the process ends naming the mistake. */
SN_API ncclResult_t ncclAllReduceConfig(const void *send, void *recv, size_t count, ncclDataType_t dt, ncclRedOp_t op,
                                        ncclComm_t comm, cudaStream_t stream, const sn_coll_config_t *config) {
  char v[16];
  if (sn_version() < 23100) {
    sn_version_string(v, sizeof v);
    ar_standin_violation("NCCL stand-in: ncclAllReduceConfig called on NCCL %s: the symbol exists from 2.31.0 on "
                         "(look it up with dlsym after ncclGetVersion)", v);
  }
  sn_coll_config_t c;
  ncclResult_t rc = parse(config, &c);
  if (rc) return rc;
  int selected = c.algSelection && c.algSelection[0];
  struct sn_select sel = {c.algSelection, c.forceAlgSelection};
  return sn_allreduce(send, recv, count, dt, op, comm, stream, selected ? &sel : NULL);
}
