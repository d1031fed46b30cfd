/* p2p.c — the p2p-oneshot (pull and push), p2p-twoshot, p2p-staged and p2p-islands backends: kernels/ar_p2p.cu
 * over regions shared with CUDA IPC between the ranks of one node (peer access checked for every pair first). */
#include "run/fault.h"
#include "ar_config.h"
#include "agree.h"
#include "device/gpu.h"
#include "backends/p2p/p2p_plan.h"
#include "backends/p2p/p2p_priv.h"
#include "device/device.h"
#include "islands.h"
#include "ar_p2p.h"
#include "opts.h"
#include "topo.h"
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P2P_DEFAULT_TIMEOUT 300.0           /* seconds, when -T 0 turned the watchdog off */
#define P2P_BUSID 32

/* One allocation shared with every local rank: mine, and each peer's opened through IPC. */
struct p2p_shared {
  char *mine;
  char *peer[AR_CORE_MAX_RANKS]; /* peer[rank] == mine */
  size_t bytes;
};

struct ar_p2p {
  const struct ar_backend *be;
  struct ar_p2p_variant v;
  MPI_Comm comm; /* duplicate of the node communicator */
  int rank, n, sm_count, world_rank;
  int per_gpu;              /* most ranks sharing one GPU (--shared-gpu) */
  int atomics_all;          /* every pair reports native atomics (recorded, not used) */
  int perf_rank_max;        /* worst cudaDevP2PAttrPerformanceRank over the pairs */
  struct p2p_shared region; /* flags + staging slots */
  struct p2p_shared pool;   /* reg=1: the engine's buffers */
  void *acc;                /* staged: one fp32/int32 accumulator of a chunk per block */
  size_t acc_stride;
  struct ar_core_layout lay;
  size_t push_stride;       /* mode=push: bytes between the senders' sub-slots of an `in` slot */
  struct ar_islands isl;    /* p2p-islands */
  struct ar_p2p_status *status; /* mapped host memory, AR_P2P_MAX_BLOCKS entries */
  double timeout_s;
  int broken;               /* a kernel gave up: the flags no longer agree, refuse further calls */
  int stall;                /* ARBENCH_P2P_STALL names this rank: it never launches (device-check) */
  size_t last_bytes;
  int last_dtype;
  struct ar_p2p_launch last_launch; /* shape and pieces per block of the last call */
  char msg[AR_ERRLEN];
};

static const char *cuerr(cudaError_t e) { return cudaGetErrorString(e); }

int ar_p2p_available(const struct ar_env *env, char *why, size_t len) {
  if (env->nnodes > 1) {
    snprintf(why, len, "ranks span %d nodes (p2p-* needs every rank on one node)", env->nnodes);
    return -AR_EUNAVAIL;
  }
  if (env->local_nranks > AR_CORE_MAX_RANKS) {
    snprintf(why, len, "%d ranks on this node, at most %d supported", env->local_nranks, AR_CORE_MAX_RANKS);
    return -AR_EUNAVAIL;
  }
  int count = ar_gpu_count(why, len);
  if (!count) return -AR_EUNAVAIL;
  if (env->device < 0) { /* ar_gpu_select decided, from every local rank's PCI bus ids */
    snprintf(why, len, "rank %d has no GPU: %d ranks on this node, %d GPU%s visible to it (use --devices or --shared-gpu)",
             env->rank, env->local_nranks, count, count == 1 ? "" : "s");
    return -AR_EUNAVAIL;
  }
#if AR_HAVE_RTC /* NVRTC-built kernels, loaded at run time: is there an image for this GPU? */
  if (ar_rtc_ready(env->device, why, len)) return -AR_EUNAVAIL;
#endif
  return 0;
}

/* Peer access of every pair, by PCI bus id (ranks may see different device numberings). Collective over
 * s->comm; every rank gets the same verdict. */
static int check_access(struct ar_p2p *s, int dev, char *err, size_t len) {
  char busid[AR_CORE_MAX_RANKS][P2P_BUSID], mine[P2P_BUSID] = "";
  cudaDeviceGetPCIBusId(mine, P2P_BUSID, dev);
  MPI_Allgather(mine, P2P_BUSID, MPI_CHAR, busid, P2P_BUSID, MPI_CHAR, s->comm);
  int row[3 * AR_CORE_MAX_RANKS], all[3 * AR_CORE_MAX_RANKS * AR_CORE_MAX_RANKS], devs[AR_CORE_MAX_RANKS];
  for (int q = 0; q < s->n; q++) {
    int d = -1, can = 0, perf = 0, atom = 0;
    if (cudaDeviceGetByPCIBusId(&d, busid[q]) != cudaSuccess) cudaGetLastError(), d = -1;
    if (d < 0) can = -1; /* not visible here (CUDA_VISIBLE_DEVICES): peer access cannot be checked */
    else if (d == dev) can = 1, atom = 1;
    else if (d >= 0 && cudaDeviceCanAccessPeer(&can, dev, d) == cudaSuccess && can) {
      cudaDeviceGetP2PAttribute(&perf, cudaDevP2PAttrPerformanceRank, dev, d);
      cudaDeviceGetP2PAttribute(&atom, cudaDevP2PAttrNativeAtomicSupported, dev, d);
    }
    cudaGetLastError();
    row[q] = can, row[s->n + q] = perf, row[2 * s->n + q] = atom;
  }
  MPI_Allgather(row, 3 * s->n, MPI_INT, all, 3 * s->n, MPI_INT, s->comm);
  int access[AR_CORE_MAX_RANKS * AR_CORE_MAX_RANKS];
  const char *names[AR_CORE_MAX_RANKS];
  s->atomics_all = 1;
  s->perf_rank_max = 0;
  s->per_gpu = 1;
  for (int r = 0; r < s->n; r++) {
    names[r] = busid[r];
    devs[r] = r; /* distinct unless two ranks name one bus id */
    int sharing = 1;
    for (int j = 0; j < r; j++)
      if (!strcmp(busid[j], busid[r])) devs[r] = devs[j], sharing++;
    if (sharing > s->per_gpu) s->per_gpu = sharing;
    for (int q = 0; q < s->n; q++) {
      access[r * s->n + q] = all[r * 3 * s->n + q];
      int perf = all[r * 3 * s->n + s->n + q];
      if (perf > s->perf_rank_max) s->perf_rank_max = perf;
      s->atomics_all &= all[r * 3 * s->n + 2 * s->n + q];
    }
  }
  return ar_p2p_access_verdict(s->n, devs, names, access, err, len);
}

/* Island of every local rank: --islands N splits them evenly, else the NUMA node of each rank's GPU
 * (from the topology, by PCI bus id); unknown anywhere -> one island. Collective over s->comm. */
static int build_islands(struct ar_p2p *s, const struct ar_env *env, char *err, size_t len) {
  char busid[P2P_BUSID] = "";
  int numa = -1;
  if (env->topo && cudaDeviceGetPCIBusId(busid, P2P_BUSID, env->device) == cudaSuccess) {
    int g = ar_topo_gpu_of_busid(env->topo, busid);
    if (g >= 0) numa = ar_topo_gpu(env->topo, g)->numa;
  }
  cudaGetLastError();
  return ar_islands_agree(s->comm, s->n, env->opts ? env->opts->islands : 0, numa, &s->isl, err, len);
}

static int p2p_check_variant(const char *variant, char *err, size_t len, int algo) {
  struct ar_p2p_variant v;
  int rc = ar_p2p_variant_parse(algo, variant, &v, err, len);
  if (!rc && v.push && v.reg) {
    snprintf(err, len, "p2p-oneshot variant mode=push,reg=1: push always writes into the peers' staging slots, "
             "there is no zero-copy push (allowed with mode=push: reg=0)");
    return -AR_EINVAL;
  }
  return rc;
}

int ar_p2p_open(const struct ar_env *env, const char *variant, void **state, char *err, size_t len,
                const struct ar_backend *be, int algo) {
  int rc = p2p_check_variant(variant, err, len, algo);
  if (rc) return rc;
  struct ar_p2p *s = calloc(1, sizeof *s);
  if (!s) return -AR_ERUNTIME;
  s->be = be;
  ar_p2p_variant_parse(algo, variant, &s->v, err, len);
  s->world_rank = env->rank;
  MPI_Comm_dup(env->node_comm, &s->comm);
  MPI_Comm_rank(s->comm, &s->rank);
  MPI_Comm_size(s->comm, &s->n);
  int sm = 0;
  cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, env->device);
  cudaGetLastError();
  /* Blocks of one index wait on each other across GPUs: every rank must launch the same shape. */
  MPI_Allreduce(&sm, &s->sm_count, 1, MPI_INT, MPI_MIN, s->comm);
  if (s->sm_count > AR_P2P_MAX_BLOCKS) s->sm_count = AR_P2P_MAX_BLOCKS;
  rc = check_access(s, env->device, err, len);
#if AR_HAVE_RTC /* load the kernels now, not at the first launch (which may be inside a graph capture) */
  if (!rc) rc = ar_rtc_load(env->device, s->comm, be->name, err, len);
#endif
  /* Ranks sharing a GPU (MPS) compete for its SMs: every block of every rank must still be resident. */
  s->sm_count /= s->per_gpu;
  if (s->sm_count < 1) s->sm_count = 1;
  if (!rc && s->v.algo == AR_CORE_ISLANDS) rc = build_islands(s, env, err, len);
  double t = env->opts ? env->opts->timeout : 0;
  /* Give up a little before the watchdog (-T) would end the run, so the error names the peer. */
  s->timeout_s = t > 0 ? 0.9 * t : P2P_DEFAULT_TIMEOUT;
  if (!rc && cudaHostAlloc((void **)&s->status, AR_P2P_MAX_BLOCKS * sizeof *s->status, cudaHostAllocMapped) !=
                 cudaSuccess) {
    snprintf(err, len, "%s: cannot allocate mapped host memory for the kernel status", be->name);
    rc = -AR_ERUNTIME;
  }
  if (rc) {
    cudaGetLastError();
    MPI_Comm_free(&s->comm);
    free(s);
    return rc;
  }
  memset(s->status, 0, AR_P2P_MAX_BLOCKS * sizeof *s->status);
  /* Test hook: ARBENCH_P2P_STALL=R makes world rank R skip every launch, as a rank stuck on its host
   * would, so the device check proves that its peers end in a timeout naming it instead of hanging. */
  s->stall = env->fault && env->fault->p2p_stall == env->rank; /* parsed by fault.c (ar_fault_hooks) */
  *state = s;
  return 0;
}

/* Allocate bytes and open every peer's allocation (collective over s->comm). */
static int share(struct ar_p2p *s, struct p2p_shared *sh, size_t bytes, char *err, size_t len) {
  memset(sh, 0, sizeof *sh);
  cudaError_t e = cudaMalloc((void **)&sh->mine, bytes);
  cudaIpcMemHandle_t h, all[AR_CORE_MAX_RANKS];
  memset(&h, 0, sizeof h);
  if (e == cudaSuccess) e = cudaIpcGetMemHandle(&h, sh->mine);
  MPI_Allgather(&h, (int)sizeof h, MPI_BYTE, all, (int)sizeof h, MPI_BYTE, s->comm);
  for (int q = 0; q < s->n && e == cudaSuccess; q++)
    if (q == s->rank) sh->peer[q] = sh->mine;
    else e = cudaIpcOpenMemHandle((void **)&sh->peer[q], all[q], cudaIpcMemLazyEnablePeerAccess);
  sh->bytes = bytes;
  if (e == cudaSuccess) return 0;
  cudaGetLastError();
  snprintf(err, len, "%s: sharing %zu bytes of device memory through CUDA IPC failed: %s", s->be->name, bytes, cuerr(e));
  return -AR_ERUNTIME;
}

/* Close my mappings of the peers' allocations (local). Each owner frees its own allocation only in
 * fini, after a barrier that every rank reaches: freeing memory a peer still maps is undefined. */
static void unmap_peers(struct ar_p2p *s, struct p2p_shared *sh) {
  cudaDeviceSynchronize();
  for (int q = 0; q < s->n; q++)
    if (q != s->rank && sh->peer[q]) cudaIpcCloseMemHandle(sh->peer[q]);
  for (int q = 0; q < s->n; q++) sh->peer[q] = NULL;
  cudaGetLastError();
}

/* Flags of every set: START/MID/END/INLINE one generation before the first, ABORT clear; with push also
 * the flag line of every sender's sub-slot, in both parities of every slot set. */
static int flags_init(struct ar_p2p *s, char *err, size_t len) {
  size_t bytes = (size_t)s->lay.nsets * AR_CORE_NFLAGS * AR_CORE_LINE;
  char *h = calloc(1, bytes);
  if (!h) return -AR_ERUNTIME;
  for (int b = 0; b < s->lay.nsets; b++)
    for (int f = 0; f < AR_CORE_NFLAGS; f++) *ar_core_flag_of_set(h, b, f) = f == AR_FLAG_ABORT ? 0u : AR_CORE_GEN0 - 1u;
  cudaError_t e = cudaMemcpy(s->region.mine, h, bytes, cudaMemcpyHostToDevice);
  free(h);
  uint32_t before[AR_CORE_MAX_RANKS];
  for (int q = 0; q < AR_CORE_MAX_RANKS; q++) before[q] = AR_CORE_GEN0 - 1u;
  for (int b = 0; s->v.push && e == cudaSuccess && b < s->lay.nsets; b++)
    for (int p = 0; p < 2 && e == cudaSuccess; p++)
      e = cudaMemcpy2D(s->region.mine + s->lay.in_off[p] + (size_t)b * s->lay.set_stride, s->push_stride, before,
                       sizeof before[0], sizeof before[0], (size_t)s->n, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) return 0;
  snprintf(err, len, "%s: initialising the flags failed: %s", s->be->name, cuerr(e));
  return -AR_ERUNTIME;
}

int ar_p2p_setup(void *state, size_t max_bytes, char *err, size_t len) {
  struct ar_p2p *s = state;
  struct ar_p2p_staging st = ar_p2p_staging(&s->v, max_bytes, s->n);
  s->push_stride = st.push_stride;
  ar_core_layout_init_sets(&s->lay, s->v.algo, st.chunk_bytes, s->sm_count); /* one flag and slot set per block */
  s->acc_stride = 2 * s->lay.chunk_bytes; /* 4 bytes per element of a 2-byte type's chunk */
  int rc = share(s, &s->region, s->lay.region_bytes, err, len);
  if (!rc) rc = flags_init(s, err, len);
  if (!rc && s->v.algo == AR_CORE_STAGED &&
      cudaMalloc(&s->acc, (size_t)s->sm_count * s->acc_stride) != cudaSuccess) {
    snprintf(err, len, "%s: cannot allocate the %zu-byte accumulators", s->be->name, (size_t)s->sm_count * s->acc_stride);
    rc = -AR_ERUNTIME;
  }
  cudaGetLastError();
  /* Every region's flags are set before any kernel reads them, and every rank returns the same status:
   * the engine's next step (alloc) is collective for reg=1. */
  return ar_agree(s->comm, NULL, rc, err, len);
}

/* reg=1: the engine's buffers are shared too, so peers read my input where the engine wrote it. */
int ar_p2p_alloc(void *state, size_t bytes, void **p, char *err, size_t len) {
  struct ar_p2p *s = state;
  if (!s->v.reg) {
    cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaSuccess) return 0;
    snprintf(err, len, "%s: cudaMalloc of %zu bytes failed: %s", s->be->name, bytes, cuerr(e));
    return -AR_ERUNTIME;
  }
  if (s->pool.mine) {
    snprintf(err, len, "%s: reg=1 shares one buffer pool per backend", s->be->name);
    return -AR_ERUNTIME;
  }
  /* Peers find my input at the offset of theirs: every rank's pool must be laid out alike. */
  unsigned long long mine = bytes, lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, s->comm);
  MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, s->comm);
  if (lo != hi) {
    snprintf(err, len, "%s:reg=1 needs the same buffer pool on every rank (%llu to %llu bytes: GPUs with different L2 "
             "sizes); use reg=0", s->be->name, lo, hi);
    return -AR_EUNAVAIL;
  }
  int rc = share(s, &s->pool, bytes, err, len);
  *p = s->pool.mine;
  return rc;
}

/* Not collective (the engine may release on some ranks only after a failed alloc): the shared pool is
 * unmapped here and freed in fini. */
void ar_p2p_release(void *state, void *p) {
  struct ar_p2p *s = state;
  if (s->v.reg && p == s->pool.mine) unmap_peers(s, &s->pool);
  else cudaFree(p);
}

static int p2p_supports(void *state, enum ar_dtype dt, enum ar_op op, char *why, size_t len) {
  (void)state;
  if ((unsigned)dt >= AR_NDTYPES || (unsigned)op >= AR_NOPS) {
    snprintf(why, len, "unknown dtype %d or op %d", (int)dt, (int)op);
    return -AR_EUNAVAIL;
  }
  return 0;
}

/* Did a kernel give up? Then the message of the first failure (once) and the backend refuses further calls. */
static int failed(struct ar_p2p *s) {
  if (s->broken) return -AR_ETIMEOUT;
  int b = ar_p2p_first_failure(s->status, AR_P2P_MAX_BLOCKS);
  if (b < 0) return 0;
  char v[96], who[192];
  ar_p2p_variant_text(&s->v, v, sizeof v);
  snprintf(who, sizeof who, "%s:%s %s size %zu", s->be->name, v, ar_dtype_name((enum ar_dtype)s->last_dtype),
           s->last_bytes);
  ar_p2p_failure_text(&s->status[b], b, who, s->world_rank, s->timeout_s, s->msg, sizeof s->msg);
  fprintf(stderr, "arbench: %s\n", s->msg);
  fflush(stderr);
  s->broken = 1;
  return -AR_ETIMEOUT;
}

int ar_p2p_prepare(void *state, const void *in, void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                   struct ar_p2p_args *ap, struct ar_p2p_launch *launch) {
  struct ar_p2p *s = state;
  int rc = failed(s);
  if (rc) return rc;
  struct ar_p2p_args a;
  memset(&a, 0, sizeof a);
  size_t es = ar_dtype_size(dt), off = (size_t)((const char *)in - s->pool.mine);
  if (s->v.reg && (!s->pool.mine || (const char *)in < s->pool.mine || off + count * es > s->pool.bytes)) {
    fprintf(stderr, "arbench: %s: reg=1 input %p is not in the shared pool\n", s->be->name, in);
    return -AR_ERUNTIME;
  }
  for (int q = 0; q < s->n; q++) {
    a.region[q] = s->region.peer[q];
    a.peer_in[q] = s->v.reg ? s->pool.peer[q] + off : NULL;
  }
  a.in = in;
  a.out = out;
  a.acc = s->acc;
  a.acc_stride = s->acc_stride;
  a.status = s->status;
  a.lay = s->lay;
  a.isl = s->isl;
  a.count = count;
  size_t piece = s->v.push ? s->push_stride - AR_CORE_LINE : s->lay.chunk_bytes; /* staging bytes per sender */
  a.chunk = ar_chunk_count(piece, es);
  a.push = s->v.push;
  a.push_stride = s->push_stride;
  a.timeout_ns = (unsigned long long)(s->timeout_s * 1e9);
  a.rank = s->rank;
  a.n = s->n;
  a.algo = s->v.algo;
  a.dtype = (int)dt;
  a.op = (int)op;
  a.reg = s->v.reg;
  a.vec = !(((uintptr_t)in | (uintptr_t)out | off) % AR_CORE_ALIGN);
  s->last_bytes = count * es;
  s->last_dtype = (int)dt;
  /* Shaped by the whole message (not one piece): a block walks its part of the call in pieces of a.chunk. */
  s->last_launch = ar_p2p_launch_of(&s->v, count, es, a.chunk, s->n, s->sm_count);
  *ap = a;
  *launch = s->last_launch;
  return s->stall; /* 1: this rank skips the launch (ARBENCH_P2P_STALL) */
}

static int p2p_allreduce(void *state, const void *in, void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                         void *stream) {
  struct ar_p2p *s = state;
  struct ar_p2p_args a;
  struct ar_p2p_launch l;
  if (!count) return failed(s);
  int rc = ar_p2p_prepare(s, in, out, count, dt, op, &a, &l);
  if (rc) return rc < 0 ? rc : 0;
  int e = ar_cu_p2p(&a, l.blocks, l.threads, stream);
  if (e == cudaSuccess) return 0;
  fprintf(stderr, "arbench: rank %d: %s: kernel launch failed: %s\n", s->world_rank, s->be->name,
          cuerr((cudaError_t)e));
  return -AR_ERUNTIME;
}

/* health and aborted (backend.h): a kernel that gave up ended normally; its status says so. */
static int p2p_health(void *state, char *err, size_t len) {
  struct ar_p2p *s = state;
  if (!s) return 0;
  int rc = failed(s);
  if (rc) snprintf(err, len, "%s", s->msg);
  return rc;
}

int ar_p2p_describe(void *state, json_t *rec) {
  struct ar_p2p *s = state;
  char v[96];
  ar_p2p_variant_text(&s->v, v, sizeof v);
  json_object_set_new(rec, "impl", json_string(ar_core_algo_name(s->v.algo)));
  if (s->v.algo == AR_CORE_ISLANDS) {
    json_t *sizes = json_array();
    for (int i = 0; i < s->isl.n; i++) json_array_append_new(sizes, json_integer(s->isl.size[i]));
    json_object_set_new(rec, "island_sizes", sizes);
  }
  json_object_set_new(rec, "p2p", json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:i, s:b}", "variant", v, "memory",
                                            s->v.reg ? "registered (zero copy)" : "staging copy", "blocks",
                                            s->last_launch.blocks, "threads", s->last_launch.threads,
                                            "pieces_per_block", (json_int_t)s->last_launch.pieces, "chunk_bytes",
                                            (json_int_t)s->lay.chunk_bytes, "perf_rank_max", s->perf_rank_max,
                                            "native_atomics", s->atomics_all));
  return 0;
}

void ar_p2p_fini(void *state) {
  struct ar_p2p *s = state;
  if (!s) return;
  unmap_peers(s, &s->pool);
  unmap_peers(s, &s->region);
  MPI_Barrier(s->comm); /* every rank reaches it: nobody maps my allocations any more */
  if (s->pool.mine) cudaFree(s->pool.mine);
  if (s->region.mine) cudaFree(s->region.mine);
  if (s->acc) cudaFree(s->acc);
  if (s->status) cudaFreeHost(s->status);
  cudaGetLastError();
  MPI_Comm_free(&s->comm);
  free(s);
}

#define P2P_BACKEND(SYM, NAME, ALGO, SUMMARY)                                                                  \
  extern const struct ar_backend SYM;                                                                        \
  static int SYM##_check(const char *variant, char *err, size_t len) {                                       \
    return p2p_check_variant(variant, err, len, ALGO);                                                       \
  }                                                                                                          \
  static int SYM##_init(const struct ar_env *env, const char *variant, void **state, char *err, size_t len) { \
    return ar_p2p_open(env, variant, state, err, len, &SYM, ALGO);                                           \
  }                                                                                                          \
  const struct ar_backend SYM = {                                                                            \
    .name = NAME, .summary = SUMMARY, .flags = AR_BE_DEVICE | AR_BE_GRAPH, .family = AR_BE_FAM_P2P,          \
    .check_variant = SYM##_check,                                                                            \
    .available = ar_p2p_available, .init = SYM##_init, .setup = ar_p2p_setup, .supports = p2p_supports,      \
    .allreduce = p2p_allreduce, .describe = ar_p2p_describe, .fini = ar_p2p_fini, .alloc = ar_p2p_alloc,     \
    .release = ar_p2p_release, .health = p2p_health, .aborted = p2p_health,                                  \
  }

P2P_BACKEND(ar_be_p2p_oneshot, "p2p-oneshot", AR_CORE_ONESHOT,
            "custom one-shot kernel over CUDA IPC (every rank reduces all inputs; mode=pull|push)");
P2P_BACKEND(ar_be_p2p_twoshot, "p2p-twoshot", AR_CORE_TWOSHOT,
            "custom two-shot kernel over CUDA IPC (reduce-scatter + all-gather)");
P2P_BACKEND(ar_be_p2p_staged, "p2p-staged", AR_CORE_STAGED,
            "custom staged two-shot kernel (one inbound, one outbound peer per pass)");
P2P_BACKEND(ar_be_p2p_islands, "p2p-islands", AR_CORE_ISLANDS,
            "custom two-level kernel (reduce in each NUMA island, one exchange across; --islands N)");
