/* ar_tuner_plugin.c — libarbench-tuner.so: NCCL's tuner plugin ABI v2..v7 (ar_tuner_abi.h) over the
 * decisions `arbench tune` writes (ARBENCH_TUNER_FILE=tuner.json); no NCCL headers, no link to NCCL. */
#include "ar_tuner_abi.h"
#include "ar_tuner_decisions.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR_EXPORT __attribute__((visibility("default")))
#define AR_TUNER_NAME "arbench"

/* One communicator's state: the decisions that apply to it and which ranges were logged. */
struct ar_tuner_ctx {
  struct ar_tuner_decisions d;
  const struct ar_tuner_group *g; /* NULL: no opinion */
  ar_nccl_logger_t log;
  unsigned char *logged; /* per range of g: 1 choice logged, 2 "unavailable" logged */
};

/* WARN under every subsystem bit as NCCL's own WARN(), INFO under INIT|TUNING (ar_tuner_abi.h). */
#define LOG(c, lvl, ...)                                                                                      \
  do {                                                                                                        \
    if ((c)->log)                                                                                             \
      (c)->log((lvl), (lvl) == AR_NCCL_LOG_WARN ? AR_NCCL_WARN_FLAGS : AR_NCCL_INFO_FLAGS, __FILE__, __LINE__, \
               __VA_ARGS__);                                                                                  \
  } while (0)

static void ctx_free(struct ar_tuner_ctx *c) {
  if (!c) return;
  ar_tuner_free(&c->d);
  free(c->logged);
  free(c);
}

/* Every version's init: load the file, pick the group. A bad or missing file is one WARN line and no
 * opinion (NCCL's own tuning), because an error here would fail ncclCommInitRank (see the header);
 * ARBENCH_TUNER_STRICT=1 returns the error instead. */
static int init_common(size_t nRanks, size_t nNodes, ar_nccl_logger_t log, void **out) {
  char err[512];
  const char *path = getenv("ARBENCH_TUNER_FILE"), *strict = getenv("ARBENCH_TUNER_STRICT");
  struct ar_tuner_ctx *c = calloc(1, sizeof *c);
  *out = NULL;
  if (!c) return arNcclInternalError;
  c->log = log;
  if (ar_tuner_load(path, &c->d, err, sizeof err)) {
    int fail = strict && !strcmp(strict, "1");
    LOG(c, AR_NCCL_LOG_WARN, "%s; %s", err, fail ? "ARBENCH_TUNER_STRICT=1: communicator init fails"
                                                 : "NCCL's own tuning is used");
    if (fail) {
      ctx_free(c);
      return arNcclInvalidUsage;
    }
    *out = c;
    return arNcclSuccess;
  }
  int exact;
  c->g = ar_tuner_match(&c->d, (int)nRanks, (int)nNodes, &exact);
  if (c->g && !(c->logged = calloc((size_t)c->g->nranges, 1))) {
    ctx_free(c);
    return arNcclInternalError;
  }
  if (!c->g)
    LOG(c, AR_NCCL_LOG_INFO, "arbench tuner: %s has no decisions for %zu ranks on %zu node(s) (none within 2x on that "
        "node count): NCCL's own tuning is used", path, nRanks, nNodes);
  else if (!exact)
    LOG(c, AR_NCCL_LOG_INFO, "arbench tuner: %s has no decisions for %zu ranks on %zu node(s): using those of the nearest,"
        " %d ranks (%d ranges)", path, nRanks, nNodes, c->g->nranks, c->g->nranges);
  else
    LOG(c, AR_NCCL_LOG_INFO, "arbench tuner: %s: %d ranges for %zu ranks on %zu node(s)", path, c->g->nranges, nRanks,
        nNodes);
  *out = c;
  return arNcclSuccess;
}

static void log_choice(struct ar_tuner_ctx *c, int i, int applied) {
  const struct ar_tuner_range *r = &c->g->range[i];
  unsigned char bit = applied ? 1 : 2;
  if (__atomic_fetch_or(&c->logged[i], bit, __ATOMIC_RELAXED) & bit) return;
  char ch[128];
  if (ar_tuner_channels(r) > 0) snprintf(ch, sizeof ch, "%d channels at most (NCCL caps it at the communicator's)", r->channels);
  else if (r->channels > 0) snprintf(ch, sizeof ch, "NCCL's channel count (a CollNet range's %d is not set: NCCL "
                                     "does not bound it)", r->channels);
  else snprintf(ch, sizeof ch, "NCCL's channel count");
  if (applied)
    LOG(c, AR_NCCL_LOG_INFO, "arbench tuner: allreduce %llu..%llu B on %d ranks: %s/%s, %s (measured %s)",
        (unsigned long long)r->lo, (unsigned long long)r->hi, c->g->nranks, ar_tuner_algo_name(r->algo),
        ar_tuner_proto_name(r->proto), ch, *r->config ? r->config : "-");
  else
    LOG(c, AR_NCCL_LOG_INFO, "arbench tuner: allreduce %llu..%llu B: %s/%s is unavailable on this communicator: left "
        "to NCCL", (unsigned long long)r->lo, (unsigned long long)r->hi, ar_tuner_algo_name(r->algo),
        ar_tuner_proto_name(r->proto));
}

/* v3..v6 getCollInfo: the range holding nBytes, applied to the flat cost table. */
static int coll_common(void *ctx, int collType, size_t nBytes, float **table, int numAlgo, int numProto,
                       int *nChannels) {
  struct ar_tuner_ctx *c = ctx;
  if (!c || !c->g || collType != AR_NCCL_FUNC_ALLREDUCE) return arNcclSuccess;
  int i = ar_tuner_find(c->g, (uint64_t)nBytes);
  if (i < 0) return arNcclSuccess;
  log_choice(c, i, ar_tuner_apply(&c->g->range[i], (float *)table, numAlgo, numProto, nChannels));
  return arNcclSuccess;
}

static int fini_common(void *ctx) {
  ctx_free(ctx);
  return arNcclSuccess;
}

/* ---- v2: NCCL says whether CollNet / NVLS exist; the plugin returns algorithm and protocol ---- */
static int v2_coll(void *ctx, int collType, size_t nBytes, int collNetSupport, int nvlsSupport, int numPipeOps,
                   int *algorithm, int *protocol, int *nChannels) {
  (void)numPipeOps;
  struct ar_tuner_ctx *c = ctx;
  if (!c || !c->g || collType != AR_NCCL_FUNC_ALLREDUCE) return arNcclSuccess;
  int i = ar_tuner_find(c->g, (uint64_t)nBytes);
  if (i < 0) return arNcclSuccess;
  const struct ar_tuner_range *r = &c->g->range[i];
  int collnet = r->algo == AR_NCCL_ALGO_COLLNET_DIRECT || r->algo == AR_NCCL_ALGO_COLLNET_CHAIN;
  int nvls = r->algo == AR_NCCL_ALGO_NVLS || r->algo == AR_NCCL_ALGO_NVLS_TREE;
  int ok = !(collnet && !collNetSupport) && !(nvls && !nvlsSupport) && r->algo != AR_NCCL_ALGO_PAT;
  if (ok) {
    *algorithm = r->algo;
    *protocol = r->proto;
    if (ar_tuner_channels(r) > 0) *nChannels = r->channels;
  }
  log_choice(c, i, ok);
  return arNcclSuccess;
}
static int v2_init(size_t nRanks, size_t nNodes, ar_nccl_logger_t log, void **ctx) {
  return init_common(nRanks, nNodes, log, ctx);
}

/* ---- v3 (2.22) ---- */
static int v3_coll(void *ctx, int collType, size_t nBytes, int numPipeOps, float **table, int numAlgo, int numProto,
                   int *nChannels) {
  (void)numPipeOps;
  return coll_common(ctx, collType, nBytes, table, numAlgo, numProto, nChannels);
}

/* ---- v4 (2.23 .. 2.27): regBuff before nChannels ---- */
static int v4_coll(void *ctx, int collType, size_t nBytes, int numPipeOps, float **table, int numAlgo, int numProto,
                   int regBuff, int *nChannels) {
  (void)numPipeOps;
  (void)regBuff;
  return coll_common(ctx, collType, nBytes, table, numAlgo, numProto, nChannels);
}

/* ---- v5 (2.28, 2.29) and v6 (2.30 ..): context first; NVL domains and constants left untouched ---- */
static int v5_init(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes, ar_nccl_logger_t log,
                   ar_nccl_nvl_domain_v5_t *nvl, ar_nccl_tuner_constants_v5_t *constants) {
  (void)commId;
  (void)nvl;
  (void)constants;
  return init_common(nRanks, nNodes, log, ctx);
}

/* v7: the same, its larger constants (5 compute-capability rows) left untouched too. */
static int v7_init(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes, ar_nccl_logger_t log,
                   ar_nccl_nvl_domain_v5_t *nvl, ar_nccl_tuner_constants_v7_t *constants) {
  (void)commId, (void)nvl, (void)constants;
  return init_common(nRanks, nNodes, log, ctx);
}

/* No opinion on chunk sizes: NCCL's stays. */
static int v6_chunk(void *ctx, int collType, size_t nBytes, int algo, int proto, int nChannels, size_t *chunkSize) {
  (void)ctx, (void)collType, (void)nBytes, (void)algo, (void)proto, (void)nChannels, (void)chunkSize;
  return arNcclSuccess;
}

AR_EXPORT ar_nccl_tuner_v2_t ncclTunerPlugin_v2 = {AR_TUNER_NAME, v2_init, v2_coll, fini_common};
AR_EXPORT ar_nccl_tuner_v3_t ncclTunerPlugin_v3 = {AR_TUNER_NAME, v2_init, v3_coll, fini_common};
AR_EXPORT ar_nccl_tuner_v4_t ncclTunerPlugin_v4 = {AR_TUNER_NAME, v2_init, v4_coll, fini_common};
AR_EXPORT ar_nccl_tuner_v5_t ncclTunerPlugin_v5 = {AR_TUNER_NAME, v5_init, v4_coll, fini_common};
AR_EXPORT ar_nccl_tuner_v6_t ncclTunerPlugin_v6 = {AR_TUNER_NAME, v5_init, v4_coll, fini_common, v6_chunk};
AR_EXPORT ar_nccl_tuner_v7_t ncclTunerPlugin_v7 = {AR_TUNER_NAME, v7_init, v4_coll, fini_common, v6_chunk};
