/* comm.c — the NCCL stand-in's communicators: version, unique id, init with ncclConfig_t (2.28.9's reads and
 * checks), the staging buffers every rank maps (cudaMalloc + CUDA IPC), finalize, destroy, abort, errors. */
#include "standin_nccl.h"
#include "standin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COMM_MAGIC 0x0123456789abcdefULL
#define RING_PATTERN 4 /* NCCL_TOPO_PATTERN_RING: the first graph line's pattern */
#define SEARCH_CHANNELS 2 /* what the stand-in's "topology search" finds on its PCIe machine */

/* Communicators that went stay reachable (never freed): stream work queued or captured before ncclCommAbort or
 * ncclCommDestroy may still run, and finds them dead by their magic. */
static pthread_mutex_t graveyard_lock = PTHREAD_MUTEX_INITIALIZER;
static struct graveyard { ncclComm_t c; struct graveyard *next; } *graveyard;

static void retire(ncclComm_t c) {
  struct graveyard *g = malloc(sizeof *g);
  __atomic_store_n(&c->magic, 0, __ATOMIC_SEQ_CST);
  pthread_mutex_lock(&graveyard_lock);
  if (g) {
    g->c = c;
    g->next = graveyard;
    graveyard = g;
  }
  pthread_mutex_unlock(&graveyard_lock);
}

/* The unique id's hash NCCL prints as commId (FNV-1a here). */
static uint64_t id_hash(const ncclUniqueId *id) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++) h = (h ^ (unsigned char)id->internal[i]) * 0x100000001b3ULL;
  return h;
}

static ncclResult_t ptr_check(const void *p, const char *op, const char *name) {
  if (p) return ncclSuccess;
  SN_WARN("%s : %s argument is NULL", op, name);
  return ncclInvalidArgument;
}

ncclResult_t sn_comm_check(ncclComm_t c, const char *op) {
  ncclResult_t rc = ptr_check(c, op, "comm");
  if (rc) return rc;
  if (__atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) != COMM_MAGIC) {
    SN_WARN("Error: corrupted comm object detected");
    return ncclInvalidArgument;
  }
  return ncclSuccess;
}

SN_API ncclResult_t ncclGetVersion(int *version) {
  if (!version) return ncclInvalidArgument;
  *version = sn_version();
  return ncclSuccess;
}

SN_API ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  ncclResult_t rc = ptr_check(id, "GetUniqueId", "out");
  return rc ? rc : sn_area_create(id);
}

SN_API const char *ncclGetErrorString(ncclResult_t code) {
  switch (code) {
  case ncclSuccess: return "no error";
  case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
  case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
  case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
  case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
  case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
  case ncclRemoteError: return "remote process exited or there was a network error";
  case ncclInProgress: return "NCCL operation in progress";
  default: return "unknown result code";
  }
}

SN_API const char *ncclGetLastError(ncclComm_t comm) {
  (void)comm; /* NCCL keeps one last error per process */
  return sn_last_error();
}

/* parseCommConfig: the user's config (only `size` bytes of it), fields newer than its version left at NCCL's
 * defaults, bad values refused, defaults filled in (a value the user set is said at ENV). */
static ncclResult_t parse_config(ncclComm_t c, const ncclConfig_t *user) {
  ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER, def = NCCL_CONFIG_INITIALIZER;
  if (user) {
    size_t size = user->size < sizeof cfg ? user->size : sizeof cfg;
    cfg.magic = 0;
    memcpy(&cfg, user, size);
    if (cfg.magic != 0xcafebeef) {
      SN_WARN("ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER");
      return ncclInvalidArgument;
    }
    if (cfg.version < NCCL_VERSION(2, 14, 0)) cfg.blocking = def.blocking;
    if (cfg.version < NCCL_VERSION(2, 17, 0)) cfg.cgaClusterSize = def.cgaClusterSize, cfg.minCTAs = def.minCTAs,
                                              cfg.maxCTAs = def.maxCTAs, cfg.netName = def.netName;
    if (cfg.version < NCCL_VERSION(2, 27, 0)) cfg.collnetEnable = def.collnetEnable, cfg.CTAPolicy = def.CTAPolicy;
  }
  const int U = NCCL_CONFIG_UNDEF_INT;
  if (cfg.blocking != U && cfg.blocking != 0 && cfg.blocking != 1) {
    SN_WARN("Invalid config blocking attribute value %d", cfg.blocking);
    return ncclInvalidArgument;
  }
  if ((cfg.minCTAs != U && cfg.minCTAs <= 0) || (cfg.maxCTAs != U && cfg.maxCTAs <= 0) || cfg.minCTAs > cfg.maxCTAs) {
    SN_WARN("Invalid config min/max channels attribute value %d/%d", cfg.minCTAs, cfg.maxCTAs);
    return ncclInvalidArgument;
  }
  if (cfg.blocking == U) cfg.blocking = 1;
  else SN_INFO(SN_ENV, "Comm config Blocking set to %d", cfg.blocking);
  if (cfg.minCTAs == U) cfg.minCTAs = 1;
  else SN_INFO(SN_ENV, "Comm config Min CTAs set to %d", cfg.minCTAs);
  if (cfg.maxCTAs == U) cfg.maxCTAs = SN_MAXCHANNELS;
  else SN_INFO(SN_ENV, "Comm config Max CTAs set to %d", cfg.maxCTAs);
  if (cfg.CTAPolicy == U) cfg.CTAPolicy = NCCL_CTA_POLICY_DEFAULT;
  c->config = cfg;
  return ncclSuccess;
}

/* envConfigOverride: NCCL_COMM_BLOCKING, NCCL_MIN_CTAS, NCCL_MAX_CTAS (cached at their first read in the process)
 * win over the config; then the channel limits are made consistent. */
static void env_override(ncclComm_t c) {
  int64_t b = sn_param_comm_blocking(), mn = sn_param_min_ctas(), mx = sn_param_max_ctas();
  ncclConfig_t *cfg = &c->config;
  if (b == 0 || b == 1) cfg->blocking = (int)b;
  if (mn != NCCL_CONFIG_UNDEF_INT && mn <= 0) SN_INFO(SN_ENV, "NCCL_MIN_CTAS %d is too low, leaving it set at %d", (int)mn, cfg->minCTAs);
  else if (mn != NCCL_CONFIG_UNDEF_INT) SN_INFO(SN_ENV, "Comm config minCTAs reset to NCCL_MIN_CTAS=%d", (int)mn), cfg->minCTAs = (int)mn;
  if (mx != NCCL_CONFIG_UNDEF_INT && mx <= 0) SN_INFO(SN_ENV, "NCCL_MAX_CTAS %d is too low, leaving it set at %d", (int)mx, cfg->maxCTAs);
  else if (mx != NCCL_CONFIG_UNDEF_INT) SN_INFO(SN_ENV, "Comm config maxCTAs reset to NCCL_MAX_CTAS=%d", (int)mx), cfg->maxCTAs = (int)mx;
  if (cfg->minCTAs > SN_MAXCHANNELS) cfg->minCTAs = SN_MAXCHANNELS;
  if (cfg->maxCTAs > SN_MAXCHANNELS) { /* src/init.cc:1765-1768 at v2.28.9-1 (the same to v2.30.7-1) */
    SN_INFO(SN_ENV, "maxCTAs %d is larger than #channels upper limit %d, cap it to %d", cfg->maxCTAs, SN_MAXCHANNELS,
            SN_MAXCHANNELS);
    cfg->maxCTAs = SN_MAXCHANNELS;
  }
  if (cfg->minCTAs > cfg->maxCTAs) {
    SN_INFO(SN_ENV, "minCTAs %d is larger than maxCTAs %d, set both to %d", cfg->minCTAs, cfg->maxCTAs, cfg->maxCTAs);
    cfg->minCTAs = cfg->maxCTAs;
  }
}

static int is_joined(const struct sn_peer *p, uint64_t v) {
  (void)v;
  return __atomic_load_n(&p->joined, __ATOMIC_ACQUIRE);
}

static ncclResult_t cuda_check(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return ncclSuccess;
  SN_WARN("Cuda failure %d '%s' (%s)", (int)e, cudaGetErrorString(e), what);
  return ncclUnhandledCudaError;
}

/* NCCL's busId number: the hex digits of the PCI bus id ("0000:01:00.0" is 0x1000). */
static unsigned long long busid_num(const char *s) {
  unsigned long long v = 0;
  for (; *s; s++) {
    char ch = *s;
    int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
    if (d >= 0) v = v * 16 + (unsigned long long)d;
  }
  return v;
}

/* My staging buffer, published with my device and version; then every rank's, checked as NCCL checks peers. */
static ncclResult_t meet(ncclComm_t c) {
  struct sn_peer *me = &c->area->peer[c->rank];
  me->pid = (int)getpid();
  me->device = c->device;
  me->version = sn_version();
  snprintf(me->busid, sizeof me->busid, "%s", c->busid);
  if (c->nranks > 1) {
    ncclResult_t rc = cuda_check(cudaMalloc((void **)&c->staging, (size_t)SN_STEP_SLOTS * SN_CHUNK), "staging buffer");
    if (!rc) rc = cuda_check(cudaIpcGetMemHandle(&me->staging, c->staging), "cudaIpcGetMemHandle");
    if (rc) return rc;
  }
  __atomic_store_n(&me->joined, 1, __ATOMIC_RELEASE);
  c->published = 1;
  sn_wait_all(c, is_joined, 0);
  if (__atomic_load_n(&c->area->mismatch, __ATOMIC_ACQUIRE)) {
    SN_WARN("Bootstrap : ranks of one unique id were given different nranks (rank %d: %d)", c->rank, c->nranks);
    return ncclInvalidUsage;
  }
  for (int r = 0; r < c->nranks; r++) {
    const struct sn_peer *p = &c->area->peer[r];
    if (p->version != sn_version()) {
      SN_WARN("Mismatched NCCL version detected : rank %d version %d rank %d version %d", c->rank, sn_version(), r,
              p->version);
      return ncclInvalidUsage;
    }
    if (r != c->rank && !strcmp(p->busid, me->busid)) {
      SN_WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %llx", c->rank, r, busid_num(me->busid));
      return ncclInvalidUsage;
    }
  }
  /* symmetricSupport = isAllCudaP2p && NCCL_WIN_ENABLE && cuMem (src/init.cc:1376): every pair's CUDA P2P, whatever
   * the distance (src/transport.cc:78-111 ncclTransportCheckP2pType) */
  const char *win = sn_getenv("NCCL_WIN_ENABLE");
  c->symmetric = !(win && *win && atoi(win) == 0);
  for (int a = 0; a < c->nranks; a++)
    for (int b = a + 1; b < c->nranks; b++)
      if (ar_standin_bus_p2p(c->area->peer[a].busid, c->area->peer[b].busid) != 1) c->symmetric = 0;
  for (int r = 0; r < c->nranks; r++) {
    if (r == c->rank) {
      c->peer_staging[r] = c->staging;
      continue;
    }
    void *p = NULL;
    /* P2P/IPC where the pair has peer access, else NCCL's SHM transport through host memory (here: the same mapping) */
    int p2p = ar_standin_bus_p2p(c->busid, c->area->peer[r].busid);
    if (!p2p) sn_param_shm_ce();
    ncclResult_t rc = cuda_check(p2p ? cudaIpcOpenMemHandle(&p, c->area->peer[r].staging, cudaIpcMemLazyEnablePeerAccess)
                                     : ar_standin_ipc_open_host(&p, c->area->peer[r].staging),
                                 "cudaIpcOpenMemHandle of a peer's buffer");
    if (rc) return rc;
    c->peer_staging[r] = p;
  }
  return ncclSuccess;
}

/* What NCCL says about its graphs and connections at init, for this machine (arbench's parser reads them). */
static void say_topology(ncclComm_t c) {
  int n = c->nranks, nch = c->model.nchannels, next = (c->rank + 1) % n;
  SN_INFO(SN_GRAPH, "Pattern %d, crossNic 0, nChannels %d, bw %f/%f, type PIX/PIX, sameChannels 1", RING_PATTERN,
          SEARCH_CHANNELS, 12.0, 12.0);
  if (n < 2) return;
  for (int ch = 0; ch < nch; ch++)
    SN_INFO(SN_INIT | SN_P2P, "Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/IPC", ch, 0, c->rank, c->device, next,
            c->area->peer[next].device);
  SN_INFO(SN_INIT, "Connected all rings, use ring PXN 0 GDR 0");
  SN_INFO(SN_INIT, "Connected all trees");
}

/* initTransportsRank's tail: the tuner plugin (loaded and initialised before the model, as NCCL does), then the
 * model with NCCL_PROTO/NCCL_ALGO. */
static ncclResult_t tuning(ncclComm_t c) {
  c->tuner = sn_tuner_load();
  if (c->tuner) {
    ncclResult_t rc = sn_tuner_init(c->tuner, &c->tuner_ctx, c->comm_hash, (size_t)c->nranks, 1);
    if (rc) {
      sn_tuner_unload(c->tuner);
      c->tuner = NULL;
      return rc;
    }
  }
  return sn_model_init(&c->model, c->nranks, c->model.nchannels, c->rank);
}

static ncclResult_t init_job(ncclComm_t c, const ncclUniqueId *id, const char *func) {
  cudaDeviceGetPCIBusId(c->busid, (int)sizeof c->busid, c->device);
  c->comm_hash = id_hash(id);
  SN_INFO(SN_INIT, "%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %llx commId 0x%llx - Init START", func,
          (void *)c, c->rank, c->nranks, c->device, c->device, busid_num(c->busid), (unsigned long long)c->comm_hash);
  ncclResult_t rc = sn_area_join(c, id);
  if (!rc) rc = meet(c);
  if (rc) return rc;
  /* connect.cc: the search's channels, at most maxCTAs, duplicated up to minCTAs */
  int nch = SEARCH_CHANNELS < c->config.maxCTAs ? SEARCH_CHANNELS : c->config.maxCTAs;
  c->model.nchannels = nch > c->config.minCTAs ? nch : c->config.minCTAs;
  say_topology(c);
  sn_param_thread_context(); /* the proxy thread starts with the connections */
  rc = tuning(c);
  if (rc) return rc;
  SN_INFO(SN_INIT, "%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer",
          c->model.nchannels, c->model.nchannels, 0, c->model.nchannels, 1);
  sn_env_report(c->rank);
  SN_INFO(SN_INIT, "%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %llx commId 0x%llx - Init COMPLETE", func,
          (void *)c, c->rank, c->nranks, c->device, c->device, busid_num(c->busid), (unsigned long long)c->comm_hash);
  return ncclSuccess;
}

static ncclResult_t init_rank(ncclComm_t *out, int nranks, const ncclUniqueId *id, int rank, ncclConfig_t *config,
                              const char *func) {
  int dev = 0;
  ncclResult_t rc = ptr_check(out, "CommInitRank", "newcomm");
  if (rc) return rc;
  *out = NULL;
  if ((rc = cuda_check(cudaGetDevice(&dev), "cudaGetDevice"))) return rc;
  sn_log_version(rank);
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    SN_WARN("Invalid rank requested : %d/%d", rank, nranks);
    return ncclInvalidArgument;
  }
  if (nranks > SN_MAX_RANKS) {
    SN_WARN("arbench NCCL stand-in: %d ranks requested, it runs at most %d", nranks, SN_MAX_RANKS);
    return ncclInvalidArgument;
  }
  ncclComm_t c = calloc(1, sizeof *c);
  if (!c) return ncclSystemError;
  c->area_fd = c->root_fd = -1;
  pthread_mutex_init(&c->lock, NULL);
  if ((rc = parse_config(c, config))) {
    free(c);
    return rc;
  }
  env_override(c);
  c->rank = rank;
  c->nranks = nranks;
  c->device = dev;
  c->magic = COMM_MAGIC;
  *out = c; /* from here a failed init leaves a communicator to abort, as NCCL's */
  rc = init_job(c, id, func);
  c->async = rc;
  if (rc) SN_INFO(SN_INIT, "arbench NCCL stand-in: rank %d: communicator init failed: %s", rank, ncclGetErrorString(rc));
  if (!c->config.blocking) return rc ? rc : ncclInProgress; /* done already: the async state says so */
  return rc;
}

SN_API ncclResult_t ncclCommInitRankConfig(ncclComm_t *out, int nranks, ncclUniqueId id, int rank, ncclConfig_t *config) {
  return init_rank(out, nranks, &id, rank, config, "ncclCommInitRankConfig");
}

SN_API ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  return init_rank(comm, nranks, &id, rank, &config, "ncclCommInitRank");
}

SN_API ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *err) {
  ncclResult_t rc = sn_comm_check(c, "ncclGetAsyncError");
  if (!rc) rc = ptr_check(err, "ncclGetAsyncError", "asyncError");
  if (!rc) *err = __atomic_load_n(&c->async, __ATOMIC_ACQUIRE);
  return rc;
}

SN_API ncclResult_t ncclCommCount(const ncclComm_t c, int *count) {
  ncclResult_t rc = sn_comm_check(c, "CommCount");
  if (!rc) rc = ptr_check(count, "CommCount", "count");
  if (!rc) *count = c->nranks;
  return rc;
}

SN_API ncclResult_t ncclCommCuDevice(const ncclComm_t c, int *device) {
  ncclResult_t rc = sn_comm_check(c, "CommCuDevice");
  if (!rc) rc = ptr_check(device, "CommCuDevice", "devid");
  if (!rc) *device = c->device;
  return rc;
}

SN_API ncclResult_t ncclCommUserRank(const ncclComm_t c, int *rank) {
  ncclResult_t rc = sn_comm_check(c, "CommUserRank");
  if (!rc) rc = ptr_check(rank, "CommUserRank", "rank");
  if (!rc) *rank = c->rank;
  return rc;
}

/* Stream work of this communicator still running (not merely queued) has left: after `aborted` or the last
 * queued collective, nothing reads the peers' buffers any more. */
static void wait_quiet(ncclComm_t c) {
  unsigned spins = 0;
  while (__atomic_load_n(&c->inflight, __ATOMIC_SEQ_CST)) sn_pause(&spins);
}

static int has_closed(const struct sn_peer *p, uint64_t v) {
  (void)v;
  return __atomic_load_n(&p->closed, __ATOMIC_ACQUIRE);
}

static void close_peers(ncclComm_t c) {
  for (int r = 0; r < c->nranks; r++) {
    if (r != c->rank && c->peer_staging[r]) cudaIpcCloseMemHandle(c->peer_staging[r]);
    c->peer_staging[r] = NULL;
  }
}

/* NCCL's commDestroySync (src/init.cc:2212-2245, v2.28.9): "keep polling until all graphs referencing us die"
 * (localPersistentRefs, one per captured plan, dropped by the graph's user-object destructor). A graph or
 * executable graph never destroyed keeps ncclCommFinalize, ncclCommDestroy and ncclCommAbort here for good. */
static void wait_graphs(ncclComm_t c, const char *call) {
  int n = __atomic_load_n(&c->persistent, __ATOMIC_SEQ_CST);
  if (!n) return;
  fprintf(stderr, "arbench NCCL stand-in: rank %d: %s waits for %d captured allreduce(s) of CUDA graphs still alive "
          "(NCCL's commDestroySync waits until every graph and executable graph holding them is destroyed)\n",
          c->rank, call, n);
  fflush(stderr);
  unsigned spins = 0;
  while (__atomic_load_n(&c->persistent, __ATOMIC_SEQ_CST)) sn_pause(&spins);
}

/* Collective: every queued collective done, my mappings of the peers' buffers closed, then every peer's closed
 * too (so my buffer may go). A peer that never comes keeps this rank here, as in NCCL, until ncclCommAbort. */
SN_API ncclResult_t ncclCommFinalize(ncclComm_t c) {
  ncclResult_t rc = sn_comm_check(c, "ncclCommFinalize");
  if (rc) return rc;
  if (c->finalized) {
    SN_WARN("ncclCommFinalize: comm %p (rank = %d) was finalized already", (void *)c, c->rank);
    return ncclInvalidUsage;
  }
  unsigned spins = 0;
  while (__atomic_load_n(&c->pending, __ATOMIC_SEQ_CST) && !__atomic_load_n(&c->aborted, __ATOMIC_SEQ_CST))
    sn_pause(&spins);
  wait_quiet(c);
  wait_graphs(c, "ncclCommFinalize");
  c->finalized = 1;
  if (c->published && c->area) {
    close_peers(c);
    __atomic_store_n(&c->area->peer[c->rank].closed, 1, __ATOMIC_RELEASE);
    if (sn_wait_all(c, has_closed, 0)) return ncclSuccess; /* aborted meanwhile */
    c->peers_closed = 1;
  }
  return c->config.blocking ? ncclSuccess : ncclInProgress;
}

static void release(ncclComm_t c, int free_staging) {
  if (c->tuner) {
    sn_tuner_finalize(c->tuner, c->tuner_ctx);
    sn_tuner_unload(c->tuner);
    c->tuner = NULL;
  }
  close_peers(c);
  if (c->staging && free_staging) cudaFree(c->staging);
  c->staging = NULL; /* else left mapped by peers that may still read it: never freed under them */
  sn_area_leave(c);
  retire(c);
}

SN_API ncclResult_t ncclCommDestroy(ncclComm_t c) {
  if (!c) return ncclSuccess;
  ncclResult_t rc = sn_comm_check(c, "ncclCommDestroy");
  if (rc) return rc;
  if (!c->finalized && (rc = ncclCommFinalize(c)) != ncclSuccess && rc != ncclInProgress) return rc;
  release(c, c->peers_closed || !c->published);
  return ncclSuccess;
}

/* Local and bounded: waits of stream work give up, running work leaves, then the communicator goes. The staging
 * buffer stays allocated unless every peer is known to have closed its mapping. */
SN_API ncclResult_t ncclCommAbort(ncclComm_t c) {
  if (!c) return ncclSuccess;
  ncclResult_t rc = sn_comm_check(c, "ncclCommAbort");
  if (rc) return rc;
  __atomic_store_n(&c->aborted, 1, __ATOMIC_SEQ_CST);
  wait_quiet(c);
  if (!c->finalized) wait_graphs(c, "ncclCommAbort"); /* commReclaim runs commDestroySync unless finalized */
  SN_INFO(SN_INIT, "comm %p rank %d nranks %d cudaDev %d busId %llx - Abort COMPLETE", (void *)c, c->rank, c->nranks,
          c->device, busid_num(c->busid));
  release(c, c->peers_closed || !c->published);
  return ncclSuccess;
}
