/* symm.c — the `symm` backend: arbench's own one-shot / two-shot kernel (kernels/ar_symm.cu) on NCCL's
 * device API (>= 2.28): the engine's buffers in one symmetric window, peers reached by LSA pointers. */
#include "run/fault.h"
#include "ar_config.h"
#include "agree.h"
#include "device/gpu.h"
#include "device/device.h"
#include "backends/symm/symm_plan.h"
#include "ar_symm.h"
#include "opts.h"
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ar_backend ar_be_symm;

struct ar_symm {
  struct ar_symm_variant v;
  const struct ar_env *env;
  int rank, n, sm_count, version;
  ncclComm_t comm;
  void *dev;         /* the ncclDevComm (heap copy, kernels/ar_symm.cu) */
  int lsa_size;
  char *pool;        /* the engine's buffers: ncclMemAlloc'd, one symmetric window */
  size_t pool_bytes;
  ncclWindow_t win;
  void *scratch;     /* one-shot in place: max_bytes */
  size_t scratch_bytes;
  int stall;         /* ARBENCH_SYMM_STALL names this rank: it never launches (device check) */
  struct ar_symm_shape last;
};

static int symm_available(const struct ar_env *env, char *why, size_t len) {
  int version = 0;
  ncclGetVersion(&version);
  /* Runtime gate: the headers were >= 2.28 (else this file is not built), the library may be older. */
  if (ar_symm_gate(1, 1, NCCL_VERSION_CODE, version, why, len)) return -AR_EUNAVAIL;
  if (env->nnodes > 1) {
    snprintf(why, len, "ranks span %d nodes (symm needs every rank in one LSA team: one node)", env->nnodes);
    return -AR_EUNAVAIL;
  }
  int count = ar_gpu_count(why, len);
  if (!count) return -AR_EUNAVAIL;
  if (env->device < 0) {
    snprintf(why, len, "rank %d has no GPU: %d ranks on this node, %d GPU%s visible to it (use --devices)", env->rank,
             env->local_nranks, count, count == 1 ? "" : "s");
    return -AR_EUNAVAIL;
  }
  if (env->device_shared) {
    snprintf(why, len, "several ranks share one GPU (same PCI bus id); NCCL refuses duplicate GPUs");
    return -AR_EUNAVAIL;
  }
  return 0;
}

static int symm_check_variant(const char *variant, char *err, size_t len) {
  struct ar_symm_variant v;
  return ar_symm_variant_parse(variant, &v, err, len);
}

/* Every rank's verdict of a step (the next one is collective): ar_agree, with what failed named. */
static int agree(struct ar_symm *s, int rc, const char *what, char *err, size_t len) {
  if (rc && !*err) snprintf(err, len, "symm: %s failed", what);
  return ar_agree(s->env->comm, NULL, rc, err, len);
}

static int comm_create(struct ar_symm *s, char *err, size_t len) {
  struct { int rc; ncclUniqueId id; } u;
  memset(&u, 0, sizeof u);
  if (s->rank == 0) u.rc = (int)ncclGetUniqueId(&u.id);
  MPI_Bcast(&u, (int)sizeof u, MPI_BYTE, 0, s->env->comm);
  if (u.rc != ncclSuccess) {
    snprintf(err, len, "symm: ncclGetUniqueId failed on rank 0: %s", ncclGetErrorString((ncclResult_t)u.rc));
    return -AR_ERUNTIME;
  }
  /* Blocking communicator: ncclDevCommCreate and window registration then return when done. A peer
   * that never joins leaves this rank in NCCL's bootstrap; the engine's watchdog (-T) ends the run. */
  ncclResult_t rc = ncclCommInitRank(&s->comm, s->n, u.id, s->rank);
  if (rc == ncclSuccess) return 0;
  s->comm = NULL;
  snprintf(err, len, "symm: ncclCommInitRank failed: %s", ncclGetErrorString(rc));
  return -AR_ERUNTIME;
}

/* The device communicator: collective over s->comm (every rank calls it right after comm init, before
 * any window registration, so NCCL's collective setup steps line up). It also proves symmetric support:
 * NCCL refuses it (ncclInvalidUsage) unless every GPU pair is P2P and cuMem is on. */
static int devcomm_create(struct ar_symm *s, char *err, size_t len) {
  int lsa_rank = -1;
  int rc = ar_cu_symm_devcomm_create(s->comm, AR_SYMM_MAX_BLOCKS, &s->dev, &lsa_rank, &s->lsa_size);
  if (rc == ncclInvalidUsage) {
    snprintf(err, len, "NCCL has no symmetric memory here (needs P2P between every GPU pair and cuMem; "
             "NCCL_CUMEM_ENABLE=0?)");
    return -AR_EUNAVAIL;
  }
  if (rc) {
    snprintf(err, len, "symm: ncclDevCommCreate failed: %s", ncclGetErrorString((ncclResult_t)rc));
    return -AR_ERUNTIME;
  }
  /* LSA pointers reach only the LSA team; the kernel indexes peers by world rank. */
  if (s->lsa_size != s->n || lsa_rank != s->rank) {
    snprintf(err, len, "NCCL's LSA team has %d of %d ranks (rank %d is LSA rank %d): symm needs every rank "
             "load/store accessible", s->lsa_size, s->n, s->rank, lsa_rank);
    return -AR_EUNAVAIL;
  }
  return 0;
}

/* clean = 1: every rank is here (fini): ncclCommFinalize (collective) then ncclCommDestroy. Otherwise
 * (init failed, maybe on another rank only) ncclCommAbort, which waits for no peer. */
static void symm_free(struct ar_symm *s, int clean) {
  if (s->dev) ar_cu_symm_devcomm_destroy(s->comm, s->dev);
  if (s->comm && clean && ncclCommFinalize(s->comm) == ncclSuccess) ncclCommDestroy(s->comm);
  else if (s->comm) ncclCommAbort(s->comm);
  free(s);
}

static int symm_init(const struct ar_env *env, const char *variant, void **state, char *err, size_t len) {
  struct ar_symm *s = calloc(1, sizeof *s);
  if (!s) return -AR_ERUNTIME;
  int rc = ar_symm_variant_parse(variant, &s->v, err, len);
  if (rc) {
    free(s);
    return rc;
  }
  s->env = env;
  s->rank = env->rank;
  s->n = env->nranks;
  ncclGetVersion(&s->version);
  int sm = 0;
  cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, env->device);
  cudaGetLastError();
  /* Block b waits for block b of every peer: every rank launches the same shape, all blocks resident. */
  MPI_Allreduce(&sm, &s->sm_count, 1, MPI_INT, MPI_MIN, env->comm);
  rc = agree(s, comm_create(s, err, len), "ncclCommInitRank", err, len);
  if (!rc) rc = agree(s, devcomm_create(s, err, len), "ncclDevCommCreate", err, len);
  if (rc) {
    symm_free(s, 0);
    return rc;
  }
  s->stall = env->fault && env->fault->symm_stall == env->rank; /* ARBENCH_SYMM_STALL, parsed by fault.c */
  *state = s;
  return 0;
}

/* One-shot in place needs a private result buffer per call (local, plain cudaMalloc). */
static int symm_setup(void *state, size_t max_bytes, char *err, size_t len) {
  struct ar_symm *s = state;
  int rc = 0;
  if (s->v.algo == AR_CORE_ONESHOT && max_bytes) {
    s->scratch_bytes = max_bytes;
    if (cudaMalloc(&s->scratch, max_bytes) != cudaSuccess) {
      cudaGetLastError();
      s->scratch = NULL;
      snprintf(err, len, "symm: cannot allocate the %zu-byte in-place result buffer", max_bytes);
      rc = -AR_ERUNTIME;
    }
  }
  return agree(s, rc, "setup", err, len);
}

/* The engine's buffers: ncclMemAlloc (symmetric windows need cuMem memory) and one window over them.
 * ncclCommWindowRegister is collective: every rank reaches it, after agreeing that every allocation
 * succeeded and that all pools have one size (a peer's input sits at my input's offset). */
static int symm_alloc(void *state, size_t bytes, void **p, char *err, size_t len) {
  struct ar_symm *s = state;
  *p = NULL;
  if (s->pool) {
    snprintf(err, len, "symm: one buffer pool per backend (one window)");
    return -AR_ERUNTIME;
  }
  unsigned long long mine = bytes, lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, s->env->comm);
  MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, s->env->comm);
  if (lo != hi) {
    snprintf(err, len, "symm needs the same buffer pool on every rank (%llu to %llu bytes: GPUs with different L2 "
             "sizes)", lo, hi);
    return -AR_EUNAVAIL;
  }
  void *mem = NULL;
  ncclResult_t nrc = ncclMemAlloc(&mem, bytes);
  int rc = 0;
  if (nrc != ncclSuccess) {
    snprintf(err, len, "symm: ncclMemAlloc of %zu bytes failed: %s", bytes, ncclGetErrorString(nrc));
    mem = NULL;
    rc = -AR_ERUNTIME;
  }
  rc = agree(s, rc, "ncclMemAlloc", err, len);
  if (!rc) {
    nrc = ncclCommWindowRegister(s->comm, mem, bytes, &s->win, NCCL_WIN_COLL_SYMMETRIC);
    /* Without symmetric support NCCL returns success and no window. */
    if (nrc != ncclSuccess || !s->win) {
      snprintf(err, len, "symm: ncclCommWindowRegister of %zu bytes failed: %s", bytes,
               nrc != ncclSuccess ? ncclGetErrorString(nrc) : "no window (no symmetric memory support)");
      rc = -AR_ERUNTIME;
    }
    rc = agree(s, rc, "ncclCommWindowRegister", err, len);
  }
  if (rc) {
    if (s->win) ncclCommWindowDeregister(s->comm, s->win);
    s->win = NULL;
    if (mem) ncclMemFree(mem);
    return rc;
  }
  s->pool = mem;
  s->pool_bytes = bytes;
  *p = mem;
  return 0;
}

/* Not collective (the engine may release on some ranks only). Safe locally: when my last kernel ended,
 * its second barrier had seen every peer finish with my window (peers only touch it between the two
 * barriers), so after this sync no peer reads or writes it; deregistration and ncclMemFree are local
 * (a peer's mapping, if any were left, holds its own reference to the physical memory). */
static void symm_release(void *state, void *p) {
  struct ar_symm *s = state;
  if (!p) return;
  cudaDeviceSynchronize();
  if (p == s->pool) {
    if (s->win) ncclCommWindowDeregister(s->comm, s->win);
    s->win = NULL;
    s->pool = NULL;
  }
  ncclMemFree(p);
  cudaGetLastError();
}

static int symm_supports(void *state, enum ar_dtype dt, enum ar_op op, char *why, size_t len) {
  (void)state;
  if ((unsigned)dt >= AR_NDTYPES || (unsigned)op >= AR_NOPS) {
    snprintf(why, len, "unknown dtype %d or op %d", (int)dt, (int)op);
    return -AR_EUNAVAIL;
  }
  return 0;
}

static int symm_allreduce(void *state, const void *in, void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                          void *stream) {
  struct ar_symm *s = state;
  if (!count) return 0;
  size_t es = ar_dtype_size(dt), bytes = count * es;
  const char *pin = in, *pout = out;
  if (!s->pool || pin < s->pool || pout < s->pool || (size_t)(pin - s->pool) + bytes > s->pool_bytes ||
      (size_t)(pout - s->pool) + bytes > s->pool_bytes) {
    fprintf(stderr, "arbench: symm: buffers %p/%p are not in the symmetric window\n", in, out);
    return -AR_ERUNTIME;
  }
  struct ar_symm_args a;
  memset(&a, 0, sizeof a);
  a.win = s->win;
  a.in_off = (unsigned long long)(pin - s->pool);
  a.out_off = (unsigned long long)(pout - s->pool);
  a.out = out;
  a.scratch = s->scratch;
  a.count = count;
  a.rank = s->rank;
  a.n = s->n;
  a.algo = s->v.algo;
  a.dtype = (int)dt;
  a.op = (int)op;
  a.vec = !((a.in_off | a.out_off | (uintptr_t)s->scratch) % AR_CORE_ALIGN);
  if (s->v.algo == AR_CORE_ONESHOT && in == out && (!s->scratch || bytes > s->scratch_bytes)) {
    fprintf(stderr, "arbench: symm: in-place call of %zu bytes beyond the setup size %zu\n", bytes, s->scratch_bytes);
    return -AR_ERUNTIME;
  }
  s->last = ar_symm_shape(&s->v, bytes, s->n, s->sm_count);
  if (s->stall) return 0;
  int e = ar_cu_symm(&a, s->dev, s->last.blocks, s->last.threads, stream);
  if (e == cudaSuccess) return 0;
  fprintf(stderr, "arbench: rank %d: symm: kernel launch failed: %s\n", s->rank, cudaGetErrorString((cudaError_t)e));
  return -AR_ERUNTIME;
}

static int symm_describe(void *state, json_t *rec) {
  struct ar_symm *s = state;
  char v[96], nv[32];
  ar_symm_variant_text(&s->v, v, sizeof v);
  snprintf(nv, sizeof nv, "%d.%d.%d", s->version / 10000, s->version % 10000 / 100, s->version % 100);
  json_object_set_new(rec, "impl", json_string(ar_core_algo_name(s->v.algo)));
  json_object_set_new(rec, "symm", json_pack("{s:s, s:i, s:i, s:i, s:s}", "variant", v, "blocks", s->last.blocks,
                                             "threads", s->last.threads, "lsa_size", s->lsa_size, "nccl", nv));
  return 0;
}

/* Order: my kernels are done (sync), then every rank's are (barrier: peers' last barrier arrivals
 * write into my barrier memory), then the device communicator (local), then the communicator
 * (ncclCommDestroy after every window and the device communicator are gone, as NCCL's examples do). */
static void symm_fini(void *state) {
  struct ar_symm *s = state;
  if (!s) return;
  cudaDeviceSynchronize();
  MPI_Barrier(s->env->comm);
  if (s->pool) symm_release(s, s->pool); /* the engine released it already in the normal order */
  if (s->scratch) cudaFree(s->scratch);
  cudaGetLastError();
  symm_free(s, 1);
}

const struct ar_backend ar_be_symm = {
  .name = "symm",
  .summary = "custom one-/two-shot kernel on NCCL's device API (symmetric window, LSA)",
  .flags = AR_BE_DEVICE | AR_BE_GRAPH | AR_BE_WATCHDOG_ONLY, /* the kernels' LSA barriers wait until the run's watchdog */
  .family = AR_BE_FAM_SYMM,
  .check_variant = symm_check_variant,
  .available = symm_available,
  .init = symm_init,
  .setup = symm_setup,
  .supports = symm_supports,
  .allreduce = symm_allreduce,
  .describe = symm_describe,
  .fini = symm_fini,
  .alloc = symm_alloc,
  .release = symm_release,
};
