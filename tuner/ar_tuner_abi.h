/* ar_tuner_abi.h — arbench's own declarations of NCCL's tuner-plugin ABI (versions 2 to 7), written
 * from reading NCCL's plugin headers; the plugin is built against these alone (no nccl.h).
 *
 * What was read, and what it says (NCCL source, github NVIDIA/nccl):
 *  - v2.22.3-1: src/include/nccl_tuner.h declares v2 and v3; src/misc/tuner.cc dlopen()s
 *    NCCL_TUNER_PLUGIN (as a path or name, then libnccl-tuner-NAME.so; unset: libnccl-tuner.so, then
 *    the net plugin) and dlsym()s "ncclTunerPlugin_v3", then "ncclTunerPlugin_v2" (adapted to v3).
 *    NCCL_NUM_ALGORITHMS is 6 there (no PAT): the cost table is float[6][3].
 *  - v2.26.x (read at v2.26.6-1): src/include/plugin/tuner/tuner_v{2,3,4}.h, src/plugin/tuner.cc looks
 *    up v4, then v3, then v2. NCCL_NUM_ALGORITHMS 7 (PAT = 6).
 *  - v2.28.9-1: adds tuner_v5.h (init takes the comm id, NVLink-domain info and the tuner constants;
 *    destroy renamed finalize); lookup order v5, v4, v3, v2 (the CUDA 13.0 toolkit's libnccl.so.2
 *    holds exactly those four names).
 *  - v2.30.7-1 and dev (2.31.0a7; the mirror has no v2.32 tag): adds tuner_v6.h (v5 plus an optional
 *    getChunkSize, which NCCL only calls when not NULL); lookup order v6, v5, v4, v3, v2. No v7 exists
 *    at any of these tags. NCCL_TUNER_PLUGIN=none disables plugins from 2.30 on. The 2.32.3 PyPI wheel's
 *    libnccl.so.2 (the cu130-nccl232 stack) holds the names v2..v6 and no other (tests/tuner/abi.sh checks
 *    each stack's library this way).
 *  - v7: no tag of the mirror (newest v2.30.7-1; dev is 2.31.0a7) has it. Its header is published in
 *    github NVIDIA/nccl at commit 2449986fd9ec7df240c202511a0170fc1bc74b08, src/include/plugin/tuner/tuner_v7.h
 *    (with src/plugin/tuner/tuner_v7.cc: dlsym "ncclTunerPlugin_v7", "TUNER/Plugin: Using %s (v7)"): v6's
 *    functions unchanged; its constants have 5 compute-capability rows (NCCL_NUM_COMPCAPS_V7 5) where v5/v6
 *    have 4, so the struct init receives is larger (ncclTunerConstants_v7_t). The 2.32.6 PyPI wheel's
 *    libnccl.so.2 (nvidia-nccl-cu13 2.32.6) holds ncclTunerPlugin_v2..v7 and "Using %s (v7)"; 2.31.2's holds
 *    v2..v6 only.
 *  The first name found wins; the older ones are never called. The library is loaded once per process
 *  (reference counted over communicators); init is called per communicator. In every version
 *  init.cc calls init through NCCLCHECK: an init that returns an error makes ncclCommInitRank* fail
 *  (it does not fall back to NCCL's tuning). A getCollInfo that returns an error fails the collective
 *  launch. So this plugin's init reports a bad decisions file with one WARN line and returns success
 *  with no decisions, unless ARBENCH_TUNER_STRICT=1 asks for the failure (tuner/ar_tuner_plugin.c).
 *  Cost table (getCollInfo v3+): NCCL passes a local float table[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS]
 *  cast to float**: it is a flat row-major array, entry (a, p) at index a * numProto + p, never an
 *  array of row pointers. Entries NCCL cannot use hold -1.0 (NCCL_ALGO_PROTO_IGNORE); NCCL then picks
 *  the lowest entry >= 0, so a plugin prefers (a, p) by writing 0.0 there. *nChannels (0 on entry)
 *  set > 0 overrides the channel count of the chosen algorithm. nBytes is the message size
 *  (count x element size for allreduce). */
#ifndef AR_TUNER_ABI_H
#define AR_TUNER_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ncclResult_t values (nccl.h, unchanged 2.22 .. 2.31). */
typedef enum {
  arNcclSuccess = 0,
  arNcclInternalError = 3,
  arNcclInvalidArgument = 4,
  arNcclInvalidUsage = 5
} ar_nccl_result_t;

/* ncclDebugLogLevel and the subsystem flags (nccl_common.h). NCCL prints a line when its level is at most
 * NCCL_DEBUG's and its flags meet the subsystem mask; the mask without NCCL_DEBUG_SUBSYS is INIT|ENV at 2.22
 * (debug.cc), INIT|BOOTSTRAP|ENV at 2.26, 2.28 and 2.30 (debug.cc; a parameter's default at 2.30), so a
 * TUNING-only line is dropped at every level. NCCL's own WARN() passes NCCL_ALL (~0, debug.h at every tag):
 * the plugin's WARN does the same, its INFO lines go under INIT|TUNING (printed by default at NCCL_DEBUG=INFO,
 * and with NCCL_DEBUG_SUBSYS=TUNING). NCCL_DEBUG unset is level NONE: no line at all, NCCL's own WARNs too. */
enum { AR_NCCL_LOG_NONE = 0, AR_NCCL_LOG_WARN = 2, AR_NCCL_LOG_INFO = 3 };
#define AR_NCCL_INIT 0x1UL
#define AR_NCCL_TUNING 0x40UL
#define AR_NCCL_ENV 0x80UL
#define AR_NCCL_BOOTSTRAP 0x1000UL
#define AR_NCCL_ALL (~0UL)
#define AR_NCCL_WARN_FLAGS AR_NCCL_ALL
#define AR_NCCL_INFO_FLAGS (AR_NCCL_INIT | AR_NCCL_TUNING)
typedef void (*ar_nccl_logger_t)(int level, unsigned long flags, const char *file, int line, const char *fmt, ...);

/* ncclFunc_t: allreduce is 4 at every tag read. */
#define AR_NCCL_FUNC_ALLREDUCE 4

/* Algorithm and protocol indices of the cost table (the same at every tag; PAT only from 2.23). */
enum {
  AR_NCCL_ALGO_TREE = 0,
  AR_NCCL_ALGO_RING = 1,
  AR_NCCL_ALGO_COLLNET_DIRECT = 2,
  AR_NCCL_ALGO_COLLNET_CHAIN = 3,
  AR_NCCL_ALGO_NVLS = 4,
  AR_NCCL_ALGO_NVLS_TREE = 5,
  AR_NCCL_ALGO_PAT = 6,
  AR_NCCL_NUM_ALGOS_MAX = 7
};
enum { AR_NCCL_PROTO_LL = 0, AR_NCCL_PROTO_LL128 = 1, AR_NCCL_PROTO_SIMPLE = 2, AR_NCCL_NUM_PROTOS = 3 };
#define AR_NCCL_COST_IGNORE (-1.0f)

/* v5/v6 init's extra inputs: the plugin only passes them through untouched. */
typedef struct {
  int nNvlDomains, minRanksPerNvlDomain, maxRanksPerNvlDomain;
} ar_nccl_nvl_domain_v5_t;
typedef struct {
  double baseLatencies[7][3];
  double hwLatencies[3][7][3];
  double llMaxBws[4][3];
  double perChMaxRingLL128Bws[4][3];
  double perChMaxTreeLL128Bws[4][3];
  double perChMaxTreeBws[4][3];
  double perChMaxNVLSTreeBws[4][3];
} ar_nccl_tuner_constants_v5_t;
/* v7's constants (tuner_v7.h): the per-compute-capability tables have 5 rows. */
#define AR_NCCL_NUM_COMPCAPS_V7 5
typedef struct {
  double baseLatencies[7][3];
  double hwLatencies[3][7][3];
  double llMaxBws[AR_NCCL_NUM_COMPCAPS_V7][3];
  double perChMaxRingLL128Bws[AR_NCCL_NUM_COMPCAPS_V7][3];
  double perChMaxTreeLL128Bws[AR_NCCL_NUM_COMPCAPS_V7][3];
  double perChMaxTreeBws[AR_NCCL_NUM_COMPCAPS_V7][3];
  double perChMaxNVLSTreeBws[AR_NCCL_NUM_COMPCAPS_V7][3];
} ar_nccl_tuner_constants_v7_t;

/* v2 (2.19 .. 2.21 primary; still looked up last): NCCL passes availability, the plugin returns
 * algorithm and protocol. */
typedef struct {
  const char *name;
  int (*init)(size_t nRanks, size_t nNodes, ar_nccl_logger_t log, void **ctx);
  int (*getCollInfo)(void *ctx, int collType, size_t nBytes, int collNetSupport, int nvlsSupport, int numPipeOps,
                     int *algorithm, int *protocol, int *nChannels);
  int (*destroy)(void *ctx);
} ar_nccl_tuner_v2_t;

/* v3 (2.22): the cost table. */
typedef struct {
  const char *name;
  int (*init)(size_t nRanks, size_t nNodes, ar_nccl_logger_t log, void **ctx);
  int (*getCollInfo)(void *ctx, int collType, size_t nBytes, int numPipeOps, float **collCostTable, int numAlgo,
                     int numProto, int *nChannels);
  int (*destroy)(void *ctx);
} ar_nccl_tuner_v3_t;

/* v4 (2.23 .. 2.27): v3 plus regBuff (buffers registered) before nChannels. */
typedef struct {
  const char *name;
  int (*init)(size_t nRanks, size_t nNodes, ar_nccl_logger_t log, void **ctx);
  int (*getCollInfo)(void *ctx, int collType, size_t nBytes, int numPipeOps, float **collCostTable, int numAlgo,
                     int numProto, int regBuff, int *nChannels);
  int (*destroy)(void *ctx);
} ar_nccl_tuner_v4_t;

/* v5 (2.28, 2.29): init(ctx first, comm id, nRanks, nNodes, logger, NVL domains, constants); finalize. */
typedef struct {
  const char *name;
  int (*init)(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes, ar_nccl_logger_t log,
              ar_nccl_nvl_domain_v5_t *nvl, ar_nccl_tuner_constants_v5_t *constants);
  int (*getCollInfo)(void *ctx, int collType, size_t nBytes, int numPipeOps, float **collCostTable, int numAlgo,
                     int numProto, int regBuff, int *nChannels);
  int (*finalize)(void *ctx);
} ar_nccl_tuner_v5_t;

/* v6 (2.30 ..): v5 plus getChunkSize (optional). */
typedef struct {
  const char *name;
  int (*init)(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes, ar_nccl_logger_t log,
              ar_nccl_nvl_domain_v5_t *nvl, ar_nccl_tuner_constants_v5_t *constants);
  int (*getCollInfo)(void *ctx, int collType, size_t nBytes, int numPipeOps, float **collCostTable, int numAlgo,
                     int numProto, int regBuff, int *nChannels);
  int (*finalize)(void *ctx);
  int (*getChunkSize)(void *ctx, int collType, size_t nBytes, int algo, int proto, int nChannels, size_t *chunkSize);
} ar_nccl_tuner_v6_t;

/* v7 (2.32.6 ..): v6's functions, init takes the v7 constants (ncclTuner_v7_t, tuner_v7.h). */
typedef struct {
  const char *name;
  int (*init)(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes, ar_nccl_logger_t log,
              ar_nccl_nvl_domain_v5_t *nvl, ar_nccl_tuner_constants_v7_t *constants);
  int (*getCollInfo)(void *ctx, int collType, size_t nBytes, int numPipeOps, float **collCostTable, int numAlgo,
                     int numProto, int regBuff, int *nChannels);
  int (*finalize)(void *ctx);
  int (*getChunkSize)(void *ctx, int collType, size_t nBytes, int algo, int proto, int nChannels, size_t *chunkSize);
} ar_nccl_tuner_v7_t;

#endif
