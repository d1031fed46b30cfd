/* standin_nccl.h — the NCCL stand-in's internals shared by its files: the communicator, the logger, the
 * tuning model and plugin, the rendezvous area shared by the ranks of one communicator. */
#ifndef AR_STANDIN_NCCL_H
#define AR_STANDIN_NCCL_H

#include "nccl.h"
#include <pthread.h>
#include <stdint.h>

/* The library exports NCCL's API only (built with -fvisibility=hidden, as NCCL's libnccl.so exports its own). */
#define SN_API __attribute__((visibility("default")))

/* ---- NCCL's constants the stand-in mimics (2.28.9) ---- */
enum { SN_ALGO_TREE, SN_ALGO_RING, SN_ALGO_COLLNET_DIRECT, SN_ALGO_COLLNET_CHAIN, SN_ALGO_NVLS, SN_ALGO_NVLS_TREE,
       SN_ALGO_PAT, SN_NUM_ALGOS };
enum { SN_PROTO_LL, SN_PROTO_LL128, SN_PROTO_SIMPLE, SN_NUM_PROTOS };
enum { SN_FUNC_BROADCAST, SN_FUNC_REDUCE, SN_FUNC_ALLGATHER, SN_FUNC_REDUCESCATTER, SN_FUNC_ALLREDUCE, SN_NUM_FUNCS };
#define SN_MAXCHANNELS 64
#define SN_COST_IGNORE (-1.0f)

/* ncclDebugLogLevel and the sub-system bits (nccl_common.h). */
enum { SN_LOG_NONE, SN_LOG_VERSION, SN_LOG_WARN, SN_LOG_INFO, SN_LOG_ABORT, SN_LOG_TRACE };
enum {
  SN_INIT = 0x1, SN_COLL = 0x2, SN_P2P = 0x4, SN_SHM = 0x8, SN_NET = 0x10, SN_GRAPH = 0x20, SN_TUNING = 0x40,
  SN_ENV = 0x80, SN_ALLOC = 0x100, SN_CALL = 0x200, SN_PROXY = 0x400, SN_NVLS = 0x800, SN_BOOTSTRAP = 0x1000,
  SN_REG = 0x2000, SN_PROFILE = 0x4000, SN_RAS = 0x8000
};
#define SN_ALL (~0UL)

/* ---- logging (debug.c): NCCL_DEBUG, NCCL_DEBUG_SUBSYS, NCCL_DEBUG_FILE as ncclDebugInit reads them ---- */
/* The logger, with ncclDebugLogger_t's signature: handed to tuner plugins as is. */
void sn_log(int level, unsigned long flags, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define SN_WARN(...) sn_log(SN_LOG_WARN, SN_ALL, __FILE__, __LINE__, __VA_ARGS__)
#define SN_INFO(flags, ...) sn_log(SN_LOG_INFO, (flags), __func__, __LINE__, __VA_ARGS__)
/* The level after (re)initialisation: -1 before the first line. */
int sn_log_level(void);
/* "NCCL version 2.28.9+cuda13.0", once per process, as ncclCommInitRankDev does (the caller's rank decides). */
void sn_log_version(int rank);
const char *sn_last_error(void);

/* ---- the modelled release (version.c): ARBENCH_STANDIN_NCCL_VERSION, 2.28.9 by default ---- */
/* NCCL_VERSION_CODE of the release whose behaviour the stand-in follows (e.g. 23102 for 2.31.2). */
int sn_version(void);
/* "2.31.2" */
void sn_version_string(char *buf, size_t len);
/* The rules that differ between the modelled releases; sn_since(r): the modelled release has rule r. */
enum sn_rule {
  SN_SYMK_NEEDS_NVLINK, /* 2.29.2: symmetric kernels only when every pair is NVLink-connected */
  SN_SHM_CE_GONE,       /* 2.30.7: NCCL_SHM_USE_CUDA_MEMCPY, NCCL_SHM_MEMCPY_MODE no longer read */
  SN_THREAD_CTX_GONE,   /* 2.30.7: NCCL_CREATE_THREAD_CONTEXT no longer read */
  SN_TUNER_V6,          /* 2.30.3: the tuner loader looks up ncclTunerPlugin_v6 first */
  SN_RULE_COUNT
};
int sn_since(enum sn_rule rule);

/* ---- environment (env.c) ---- */
/* NCCL_PARAM: read once per process at first use, then cached; NCCL_CONFIG_UNDEF_INT when unset. */
int64_t sn_param_min_ctas(void);
int64_t sn_param_max_ctas(void);
int64_t sn_param_comm_blocking(void);
/* Variables NCCL reads only by some releases (none read from 2.30.7): read and said where the release has them. */
void sn_param_shm_ce(void);
void sn_param_thread_context(void);
/* The stand-in's own line at init: the NCCL_* and ARBENCH_TUNER_* variables it saw (tests read it). */
void sn_env_report(int rank);

/* ---- tuner plugin (tuner.c): NCCL's loader, v5 .. v2, one library per process ---- */
struct sn_tuner; /* the plugin as a v5 interface (older versions adapted) */
/* Loads (or shares) the plugin per NCCL_TUNER_PLUGIN; NULL when none. */
struct sn_tuner *sn_tuner_load(void);
void sn_tuner_unload(struct sn_tuner *t);
ncclResult_t sn_tuner_init(struct sn_tuner *t, void **ctx, uint64_t comm_id, size_t nranks, size_t nnodes);
ncclResult_t sn_tuner_coll(struct sn_tuner *t, void *ctx, int func, size_t bytes, float *table, int reg, int *nch);
ncclResult_t sn_tuner_finalize(struct sn_tuner *t, void *ctx);

/* ---- the tuning model (tuning.c) ---- */
struct sn_model {
  int nranks, nchannels;
  int enabled[SN_NUM_ALGOS][SN_NUM_PROTOS]; /* allreduce, after NCCL_ALGO/NCCL_PROTO and the topology */
  float lat[SN_NUM_ALGOS][SN_NUM_PROTOS];   /* us */
  float bw[SN_NUM_ALGOS][SN_NUM_PROTOS];    /* GB/s of algorithm bandwidth, 0 = cannot run */
  int max_threads[SN_NUM_ALGOS][SN_NUM_PROTOS];
  int thread_threshold[SN_NUM_ALGOS][SN_NUM_PROTOS];
};
/* At init: NCCL_PROTO and NCCL_ALGO read and parsed (ncclInvalidUsage with NCCL's WARN on a bad list). */
ncclResult_t sn_model_init(struct sn_model *m, int nranks, int nchannels, int rank);
/* The flat cost table of one allreduce (-1 for what cannot run). */
void sn_model_costs(const struct sn_model *m, size_t bytes, float *table);
/* NCCL's pick from a table: the lowest entry >= 0, or -1 (no algorithm). */
int sn_model_pick(const float *table, int *algo, int *proto);
/* Channels NCCL's own tuning gives a call of bytes on (algo, proto). */
int sn_model_channels(const struct sn_model *m, size_t bytes, int algo, int proto);
/* The range of channels one call occupies in its plan: task_max channels asked, comm_channels the
 * communicator's, count elements of es bytes; NCCL's partition into 16 KiB-traffic cells. */
void sn_channel_range(size_t count, int es, int proto, int task_max, int comm_channels, int *lo, int *hi);
const char *sn_algo_name(int algo);  /* "RING" as the tuning line prints it */
const char *sn_proto_name(int proto); /* "SIMPLE" */
const char *sn_datatype_name(ncclDataType_t t);
int sn_type_size(ncclDataType_t t);

/* ---- symmetric kernels (sym.c): 2.28.x runs them on any all-P2P node, from 2.29.2 only on all-NVLink ---- */
/* 1 with NCCL's kernel name and blocks when this call runs a symmetric kernel (both buffers in symmetric windows). */
int sn_symk_pick(ncclComm_t c, const void *send, const void *recv, size_t count, ncclDataType_t dt, ncclRedOp_t op,
                 const char **kernel, int *blocks);

/* ---- the rendezvous area of one communicator (bootstrap.c): shared memory named by the unique id ---- */
#define SN_MAX_RANKS 64
struct sn_peer {
  int joined;        /* 1 once this rank's fields are set */
  int pid, device, version;
  char busid[32];
  cudaIpcMemHandle_t staging; /* the rank's staging buffer (cudaMalloc + cudaIpcGetMemHandle) */
  uint64_t posted;   /* steps whose input this rank has put in its staging buffer */
  uint64_t consumed; /* steps this rank has finished reading from every peer's staging buffer */
  int closed;        /* finalize: this rank closed its mappings of every peer's buffer */
  int finalized;     /* ncclCommFinalize reached */
  uint64_t windows;  /* symmetric window registrations this rank reached (NCCL's bootstrapBarrier 0xbeef) */
  char pad[64];
};
struct sn_area {
  uint64_t magic;
  uint64_t tag;      /* random per unique id */
  int nranks;        /* set by the first rank that joins */
  int mismatch;      /* a rank joined with another nranks */
  struct sn_peer peer[SN_MAX_RANKS];
};

/* ---- the communicator ---- */
#define SN_STEP_SLOTS 2
#define SN_CHUNK (1u << 20) /* bytes of one step per rank (staging slot size) */
struct sn_reg {
  void *base;
  size_t size;
  int window, symmetric;
  int flags; /* a window's winFlags (NCCL_WIN_COLL_SYMMETRIC) */
};
struct ncclComm {
  uint64_t magic;
  int rank, nranks, device, blocking;
  ncclConfig_t config;
  uint64_t comm_hash;
  struct sn_area *area;
  int area_fd, root_fd;
  char *staging;             /* mine: SN_STEP_SLOTS x SN_CHUNK */
  char *peer_staging[SN_MAX_RANKS];
  struct sn_model model;
  struct sn_tuner *tuner;
  void *tuner_ctx;
  int aborted;               /* atomic: ncclCommAbort was called: waits give up */
  int inflight;              /* atomic: stream work of this communicator running now */
  uint64_t step;             /* the next step (stream work only) */
  ncclResult_t async;        /* ncclCommGetAsyncError */
  int finalized;             /* ncclCommFinalize done (or begun) */
  int published;             /* my slot was set: peers may map my staging buffer */
  int peers_closed;          /* every peer closed its mapping of my staging buffer: it may be freed */
  int pending;               /* atomic: collectives queued on a stream (not in a graph) and not yet run */
  int symmetric;             /* NCCL's symmetricSupport: windows take the symmetric branch (collective) */
  uint64_t windows;          /* symmetric windows registered (each a barrier over the ranks) */
  int persistent;            /* atomic: collectives captured into graphs (or their executable graphs) still alive */
  char busid[32];
  pthread_mutex_t lock;      /* registrations */
  int nreg;
  struct sn_reg reg[64];
};

/* env.c: NCCL's ncclGetEnv: the conf files applied once per process at the first read, then getenv */
const char *sn_getenv(const char *name);

/* comm.c: NULL or a communicator that went: NCCL's WARN and ncclInvalidArgument */
ncclResult_t sn_comm_check(ncclComm_t c, const char *op);

/* bootstrap.c */
ncclResult_t sn_area_create(ncclUniqueId *id);
ncclResult_t sn_area_join(ncclComm_t c, const ncclUniqueId *id);
void sn_area_leave(ncclComm_t c);
/* Waits until pred(peer) holds for every peer, or the communicator was aborted (1). */
int sn_wait_all(ncclComm_t c, int (*pred)(const struct sn_peer *p, uint64_t v), uint64_t v);
void sn_pause(unsigned *spins);

/* coll.c: the element math of one reduction step */
void sn_reduce(void *out, const void *const *in, int n, size_t count, ncclDataType_t dt, ncclRedOp_t op);

/* ---- the per-collective config of 2.31 (collconfig.c): ncclAllReduceConfig's algorithm selection ---- */
struct sn_select {
  const char *selection; /* ncclCollConfig_t.algSelection, non-empty */
  int force;             /* forceAlgSelection */
};
/* The pick within the selection on the call's cost table (after the plugin): 1 picked (algo, proto set), 0 none and
 * not forced (NCCL's own pick follows), -1 NCCL's error (WARN said; ncclInvalidArgument). */
int sn_select_pick(const struct sn_select *sel, const float *table, int *algo, int *proto);
/* ncclAllReduce with a selection (NULL: none), coll.c. */
ncclResult_t sn_allreduce(const void *send, void *recv, size_t count, ncclDataType_t dt, ncclRedOp_t op, ncclComm_t c,
                          cudaStream_t stream, const struct sn_select *sel);

#endif
