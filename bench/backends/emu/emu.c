/* emu.c — the emu-p2p-* and emu-fused backends: the custom GPU kernels' own source (kernels/ar_p2p_kernel.cuh)
 * on CPU threads (kernels/emu/), peer memory the ranks' MPI shared-memory windows: a correctness check, not a speed. */
#include "fault.h"
#include "backend.h"
#include "backends/p2p/p2p_plan.h"
#include "islands.h"
#include "dtype.h"
#include "emu/ar_emu.h"
#include "opts.h"
#include "topo.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EMU_CHUNK ((size_t)256 << 10) /* staging bytes per block and generation (p2p.c's) */
#define EMU_DEFAULT_TIMEOUT 300.0     /* seconds, when -T 0 turned the watchdog off */
#define EMU_SMS 4                     /* emulated SMs: the most blocks a default shape takes */
#define EMU_THREADS 64                /* default threads per block: each GPU thread is a pthread */

extern const struct ar_backend ar_be_emu_p2p_oneshot, ar_be_emu_p2p_twoshot, ar_be_emu_p2p_staged,
    ar_be_emu_p2p_islands, ar_be_emu_fused;

/* One MPI shared-memory window: my part and every rank's, mapped here. */
struct emu_shared {
  MPI_Win win;
  char *peer[AR_CORE_MAX_RANKS];
  size_t bytes;
};

struct emu {
  const struct ar_backend *be;
  struct ar_p2p_variant v;
  struct ar_fused_variant fv; /* emu-fused */
  MPI_Comm comm;
  int rank, n, world_rank;
  struct ar_emu_dev *dev;
  struct emu_shared region, pool; /* flags + slots; reg=1: the engine's buffers */
  void *acc;
  size_t acc_stride;
  struct ar_core_layout lay;
  size_t push_stride;
  struct ar_islands isl;
  struct ar_p2p_status status[AR_P2P_MAX_BLOCKS];
  double timeout_s;
  int broken, stall;
  int fused; /* emu-fused */
  size_t last_bytes;
  int last_dtype;
  struct ar_p2p_shape last_shape;
  /* emu-fused: residual, new residual, weight (bf16) */
  void *residual, *res_out, *weight;
  size_t max_count, last_tokens;
  char msg[AR_ERRLEN];
};

static int emu_available(const struct ar_env *env, char *why, size_t len) {
  if (env->nnodes > 1) {
    snprintf(why, len, "ranks span %d nodes (emu-* needs every rank on one node)", env->nnodes);
    return -AR_EUNAVAIL;
  }
  if (env->local_nranks > AR_CORE_MAX_RANKS) {
    snprintf(why, len, "%d ranks on this node, at most %d supported", env->local_nranks, AR_CORE_MAX_RANKS);
    return -AR_EUNAVAIL;
  }
  return 0;
}

/* The GPU twin's parser names the GPU backend: errors here name the emu one. */
static int emu_err(int rc, char *err, size_t len) {
  if (!rc) return 0;
  char tmp[AR_ERRLEN];
  snprintf(tmp, sizeof tmp, "%s", err);
  snprintf(err, len, "emu-%s", tmp);
  return rc;
}

static int variant_p2p(int algo, const char *variant, struct ar_p2p_variant *v, char *err, size_t len) {
  int rc = emu_err(ar_p2p_variant_parse(algo, variant, v, err, len), err, len);
  if (!rc && v->push && v->reg) {
    snprintf(err, len, "emu-p2p-oneshot variant mode=push,reg=1: push always writes into the peers' staging slots, "
             "there is no zero-copy push (allowed with mode=push: reg=0)");
    return -AR_EINVAL;
  }
  return rc;
}

static int variant_fused(const char *variant, struct ar_fused_variant *v, char *err, size_t len) {
  int rc = emu_err(ar_fused_variant_parse(variant, v, err, len), err, len);
  if (!rc && v->unfused == AR_FUSED_NCCL) {
    snprintf(err, len, "emu-fused variant unfused=nccl: NCCL has no CPU execution (allowed: unfused=p2p, or none)");
    return -AR_EINVAL;
  }
  return rc;
}

static int check_p2p(const char *variant, char *err, size_t len, int algo) {
  struct ar_p2p_variant v;
  return variant_p2p(algo, variant, &v, err, len);
}
static int check_fused(const char *variant, char *err, size_t len) {
  struct ar_fused_variant v;
  return variant_fused(variant, &v, err, len);
}

static int build_islands(struct emu *s, const struct ar_env *env, char *err, size_t len) {
  int numa = env->topo ? ar_topo_numa_of_self(env->topo) : -1;
  return ar_islands_agree(s->comm, s->n, env->opts ? env->opts->islands : 0, numa, &s->isl, err, len);
}

/* algo: AR_CORE_* of a p2p twin; emu-fused (AR_BE_FUSED) runs a one-shot state inside. */
static int emu_open(const struct ar_env *env, const char *variant, void **state, char *err, size_t len,
                    const struct ar_backend *be, int algo) {
  struct emu *s = calloc(1, sizeof *s);
  if (!s) return -AR_ERUNTIME;
  s->be = be;
  s->region.win = s->pool.win = MPI_WIN_NULL;
  int rc;
  s->fused = (be->flags & AR_BE_FUSED) != 0;
  if (s->fused) {
    rc = variant_fused(variant, &s->fv, err, len);
    char inner[96];
    if (!rc) rc = ar_fused_inner_variant(&s->fv, inner, sizeof inner);
    if (!rc) rc = variant_p2p(AR_CORE_ONESHOT, inner, &s->v, err, len);
  } else {
    rc = variant_p2p(algo, variant, &s->v, err, len);
  }
  if (rc) {
    free(s);
    return rc;
  }
  if (!s->v.threads) s->v.threads = EMU_THREADS; /* the GPU default (512) would be 512 pthreads a block */
  s->world_rank = env->rank;
  MPI_Comm_dup(env->node_comm, &s->comm);
  MPI_Comm_rank(s->comm, &s->rank);
  MPI_Comm_size(s->comm, &s->n);
  if (s->v.algo == AR_CORE_ISLANDS) rc = build_islands(s, env, err, len);
  s->dev = rc ? NULL : ar_emu_dev_open(0, 0, 0);
  if (!rc && !s->dev) {
    snprintf(err, len, "%s: cannot create the emulated GPU", be->name);
    rc = -AR_ERUNTIME;
  }
  if (rc) {
    MPI_Comm_free(&s->comm);
    free(s);
    return rc;
  }
  double t = env->opts ? env->opts->timeout : 0;
  s->timeout_s = t > 0 ? 0.9 * t : EMU_DEFAULT_TIMEOUT; /* give up before the watchdog: the error names the peer */
  /* Test hook: ARBENCH_EMU_STALL=R makes world rank R skip every launch (a rank whose grid never runs). */
  s->stall = env->fault && env->fault->emu_stall == env->rank; /* parsed by fault.c (ar_fault_hooks) */
  *state = s;
  return 0;
}

/* bytes of MPI shared memory per rank, every rank's part mapped (collective over s->comm). */
static int emu_share(struct emu *s, struct emu_shared *sh, size_t bytes, char *err, size_t len) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  char *mine = NULL;
  /* A line more than asked: every part starts on a line (pages map alike in every process, so each rank
   * rounds a peer's base up to the same byte). */
  int rc = MPI_Win_allocate_shared((MPI_Aint)(bytes + AR_CORE_LINE), 1, info, s->comm, &mine, &sh->win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    sh->win = MPI_WIN_NULL;
    snprintf(err, len, "%s: cannot allocate %zu bytes of MPI shared memory per rank", s->be->name, bytes);
    return -AR_ERUNTIME;
  }
  for (int q = 0; q < s->n; q++) {
    MPI_Aint size;
    int disp;
    char *base = NULL;
    MPI_Win_shared_query(sh->win, q, &size, &disp, &base);
    sh->peer[q] = base + (AR_CORE_LINE - (uintptr_t)base % AR_CORE_LINE) % AR_CORE_LINE;
  }
  sh->bytes = bytes;
  memset(sh->peer[s->rank], 0, bytes);
  return 0;
}

static void emu_unshare(struct emu_shared *sh) {
  if (sh->win != MPI_WIN_NULL) MPI_Win_free(&sh->win);
  sh->win = MPI_WIN_NULL;
  memset(sh->peer, 0, sizeof sh->peer);
}

/* The flags as p2p.c's flags_init sets them: one generation before the first, ABORT clear, push sub-slot lines. */
static void flags_init(struct emu *s) {
  char *mine = s->region.peer[s->rank];
  for (int b = 0; b < s->lay.nsets; b++)
    for (int f = 0; f < AR_CORE_NFLAGS; f++)
      ar_flag_store(ar_core_flag_of_set(mine, b, f), f == AR_FLAG_ABORT ? 0u : AR_CORE_GEN0 - 1u);
  for (int b = 0; s->v.push && b < s->lay.nsets; b++)
    for (int p = 0; p < 2; p++)
      for (int q = 0; q < s->n; q++)
        ar_flag_store((uint32_t *)(mine + s->lay.in_off[p] + (size_t)b * s->lay.set_stride + (size_t)q * s->push_stride),
                      AR_CORE_GEN0 - 1u);
}

static int emu_p2p_setup(struct emu *s, size_t max_bytes, char *err, size_t len) {
  size_t chunk = ar_core_round(max_bytes ? max_bytes : 1, AR_CORE_LINE);
  if (chunk > EMU_CHUNK) chunk = EMU_CHUNK;
  if (s->v.push) {
    size_t cap = EMU_CHUNK / (size_t)s->n / AR_CORE_LINE * AR_CORE_LINE - AR_CORE_LINE;
    if (chunk > cap) chunk = cap;
    s->push_stride = ar_core_push_stride(chunk);
    chunk = (size_t)s->n * s->push_stride;
  }
  ar_core_layout_init_sets(&s->lay, s->v.algo, chunk, EMU_SMS);
  s->acc_stride = 2 * s->lay.chunk_bytes;
  emu_unshare(&s->region);
  int rc = emu_share(s, &s->region, s->lay.region_bytes, err, len);
  free(s->acc);
  s->acc = NULL;
  if (!rc && s->v.algo == AR_CORE_STAGED && !(s->acc = aligned_alloc(AR_CORE_LINE, EMU_SMS * s->acc_stride))) {
    snprintf(err, len, "%s: cannot allocate the accumulators", s->be->name);
    rc = -AR_ERUNTIME;
  }
  if (!rc) flags_init(s);
  memset(s->status, 0, sizeof s->status);
  s->broken = 0;
  int bad = rc != 0, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, s->comm); /* also: every rank's flags are set */
  if (any && !rc) {
    snprintf(err, len, "%s: setup failed on another rank of this node", s->be->name);
    rc = -AR_ERUNTIME;
  }
  return rc;
}

static int emu_setup(void *state, size_t max_bytes, char *err, size_t len) {
  struct emu *s = state;
  int rc = emu_p2p_setup(s, max_bytes, err, len);
  if (rc || !s->fused) return rc;
  s->max_count = (max_bytes + 1) / 2;
  size_t bytes = ar_core_round((s->max_count ? s->max_count : 1) * 2, AR_CORE_LINE);
  free(s->residual), free(s->res_out), free(s->weight);
  s->residual = aligned_alloc(AR_CORE_LINE, bytes);
  s->res_out = aligned_alloc(AR_CORE_LINE, bytes);
  s->weight = aligned_alloc(AR_CORE_LINE, ar_core_round((size_t)s->fv.hidden * 2, AR_CORE_LINE));
  if (!s->residual || !s->res_out || !s->weight) {
    snprintf(err, len, "emu-fused: cannot allocate the residual and weight buffers (%zu bytes)", 2 * bytes);
    return -AR_ERUNTIME;
  }
  ar_host_fill(s->residual, s->max_count, AR_BF16, AR_SUM, AR_FUSED_RESIDUAL_RANK(s->n), s->n);
  ar_host_fill(s->weight, (size_t)s->fv.hidden, AR_BF16, AR_PROD, AR_FUSED_WEIGHT_RANK(s->n), s->n);
  ar_host_fill(s->res_out, s->max_count, AR_BF16, AR_SUM, -1, s->n);
  return 0;
}

/* reg=1: the engine's buffers are in a shared window too (every rank's the same size); else local memory. */
static int emu_alloc(void *state, size_t bytes, void **p, char *err, size_t len) {
  struct emu *s = state;
  if (!s->v.reg) {
    *p = aligned_alloc(4096, ar_core_round(bytes ? bytes : 1, 4096));
    if (*p) return 0;
    snprintf(err, len, "%s: cannot allocate %zu bytes", s->be->name, bytes);
    return -AR_ERUNTIME;
  }
  unsigned long long mine = bytes, lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, s->comm);
  MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, s->comm);
  if (lo != hi) {
    snprintf(err, len, "%s:reg=1 needs the same buffer pool on every rank (%llu to %llu bytes); use reg=0",
             s->be->name, lo, hi);
    return -AR_EUNAVAIL;
  }
  if (s->pool.win != MPI_WIN_NULL) {
    snprintf(err, len, "%s: reg=1 shares one buffer pool per backend", s->be->name);
    return -AR_ERUNTIME;
  }
  int rc = emu_share(s, &s->pool, bytes, err, len);
  *p = rc ? NULL : s->pool.peer[s->rank];
  return rc;
}

/* Not collective: the shared pool's window is freed in fini. */
static void emu_release(void *state, void *p) {
  struct emu *s = state;
  if (s->pool.win != MPI_WIN_NULL && p == s->pool.peer[s->rank]) return;
  free(p);
}

static int emu_supports(void *state, enum ar_dtype dt, enum ar_op op, char *why, size_t len) {
  struct emu *s = state;
  if (s->fused && dt != AR_BF16) {
    snprintf(why, len, "emu-fused works on bfloat16 only, not %s", ar_dtype_name(dt));
    return -AR_EUNAVAIL;
  }
  if (s->fused && op != AR_SUM) {
    snprintf(why, len, "emu-fused reduces with sum only (allreduce + residual add + RMSNorm), not %s", ar_op_name(op));
    return -AR_EUNAVAIL;
  }
  if ((unsigned)dt >= AR_NDTYPES || (unsigned)op >= AR_NOPS) {
    snprintf(why, len, "unknown dtype %d or op %d", (int)dt, (int)op);
    return -AR_EUNAVAIL;
  }
  return 0;
}

static int emu_fits(void *state, size_t count, enum ar_dtype dt, char *why, size_t len) {
  struct emu *s = state;
  size_t tokens = 0;
  if (!s->fused) return 0;
  return ar_fused_rows(count * ar_dtype_size(dt), dt, s->fv.hidden, &tokens, why, len);
}

static const char *pass_name(uint32_t pass) {
  switch (pass) {
  case AR_P2P_PASS_START: return "start";
  case AR_P2P_PASS_END: return "end";
  case AR_P2P_PASS_STAGED: return "staged reduce-scatter";
  case AR_P2P_PASS_ISLANDS: return "islands exchange";
  default: return "all-gather";
  }
}

/* Did a grid give up? Then one line and the backend refuses further calls (the flags no longer agree). */
static int failed(struct emu *s) {
  if (s->broken) return -AR_ETIMEOUT;
  for (int b = 0; b < AR_P2P_MAX_BLOCKS; b++) {
    const struct ar_p2p_status *st = &s->status[b];
    uint32_t code = __atomic_load_n(&st->code, __ATOMIC_ACQUIRE);
    if (code == AR_P2P_OK) continue;
    char v[96];
    ar_p2p_variant_text(&s->v, v, sizeof v);
    if (code == AR_P2P_TIMEOUT)
      snprintf(s->msg, sizeof s->msg, "%s:%s %s size %zu: rank %d: timeout after %g s in pass %s (generation %u, block %d) "
               "waiting for rank %u", s->be->name, v, ar_dtype_name((enum ar_dtype)s->last_dtype), s->last_bytes,
               s->world_rank, s->timeout_s, pass_name(st->pass), st->gen, b, st->peer);
    else
      snprintf(s->msg, sizeof s->msg, "%s:%s %s size %zu: rank %d: gave up in pass %s (generation %u, block %d) "
               "waiting for rank %u: rank %u timed out", s->be->name, v, ar_dtype_name((enum ar_dtype)s->last_dtype),
               s->last_bytes, s->world_rank, pass_name(st->pass), st->gen, b, st->peer, st->aborter);
    fprintf(stderr, "arbench: %s\n", s->msg);
    fflush(stderr);
    s->broken = 1;
    return -AR_ETIMEOUT;
  }
  return 0;
}

/* The kernel arguments of one call, as p2p.c's ar_p2p_prepare builds them; 1 when this rank stalls. */
static int prepare(struct emu *s, const void *in, void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                   struct ar_p2p_args *a, struct ar_p2p_shape *shape) {
  int rc = failed(s);
  if (rc) return rc;
  memset(a, 0, sizeof *a);
  size_t es = ar_dtype_size(dt), off = 0;
  if (s->v.reg) {
    const char *base = s->pool.peer[s->rank];
    off = (size_t)((const char *)in - base);
    if (!base || (const char *)in < base || off + count * es > s->pool.bytes) {
      fprintf(stderr, "arbench: %s: reg=1 input %p is not in the shared pool\n", s->be->name, in);
      return -AR_ERUNTIME;
    }
  }
  for (int q = 0; q < s->n; q++) {
    a->region[q] = s->region.peer[q];
    a->peer_in[q] = s->v.reg ? s->pool.peer[q] + off : NULL;
  }
  a->in = in;
  a->out = out;
  a->acc = s->acc;
  a->acc_stride = s->acc_stride;
  a->status = s->status;
  a->lay = s->lay;
  a->isl = s->isl;
  a->count = count;
  size_t piece = s->v.push ? s->push_stride - AR_CORE_LINE : s->lay.chunk_bytes;
  a->chunk = ar_chunk_count(piece, es);
  a->push = s->v.push;
  a->push_stride = s->push_stride;
  a->timeout_ns = (unsigned long long)(s->timeout_s * 1e9);
  a->rank = s->rank;
  a->n = s->n;
  a->algo = s->v.algo;
  a->dtype = (int)dt;
  a->op = (int)op;
  a->reg = s->v.reg;
  a->vec = !(((uintptr_t)in | (uintptr_t)out | off) % AR_CORE_ALIGN);
  s->last_bytes = count * es;
  s->last_dtype = (int)dt;
  size_t call = count * es < piece ? count * es : piece;
  s->last_shape = ar_p2p_shape(&s->v, call, s->n, EMU_SMS);
  *shape = s->last_shape;
  return s->stall;
}

static int launched(struct emu *s, int e) {
  if (!e) return failed(s); /* the grid has ended: a give-up is known now */
  fprintf(stderr, "arbench: rank %d: %s: the emulated grid could not start (threads)\n", s->world_rank, s->be->name);
  return -AR_ERUNTIME;
}

static int emu_p2p_allreduce(void *state, const void *in, void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                             void *stream) {
  (void)stream;
  struct emu *s = state;
  struct ar_p2p_args a;
  struct ar_p2p_shape shape;
  if (!count) return failed(s);
  int rc = prepare(s, in, out, count, dt, op, &a, &shape);
  if (rc) return rc < 0 ? rc : 0;
  return launched(s, ar_emu_p2p(s->dev, &a, shape.blocks, shape.threads));
}

/* The norm-only kernel (unfused=p2p) on the allreduce result in out, as fused.c's norm(). */
static int emu_norm(struct emu *s, void *out, size_t count) {
  struct ar_p2p_args a;
  memset(&a, 0, sizeof a);
  a.in = out;
  a.out = out;
  a.count = count;
  a.residual = s->residual;
  a.weight = s->weight;
  a.res_out = s->res_out;
  a.hidden = (unsigned long long)s->fv.hidden;
  a.eps = (float)s->fv.eps;
  size_t tokens = count / (size_t)s->fv.hidden;
  int blocks = tokens < EMU_SMS ? (int)tokens : EMU_SMS;
  return ar_emu_fused(s->dev, &a, 0, blocks, EMU_THREADS);
}

static int emu_fused_allreduce(void *state, const void *in, void *out, size_t count, enum ar_dtype dt,
                               enum ar_op op, void *stream) {
  struct emu *s = state;
  size_t tokens = count / (size_t)s->fv.hidden;
  if (dt != AR_BF16 || op != AR_SUM || !tokens || count % (size_t)s->fv.hidden || count > s->max_count) {
    fprintf(stderr, "arbench: emu-fused: a call of %zu %s elements (%s) is not whole rows of hidden=%d within %zu\n",
            count, ar_dtype_name(dt), ar_op_name(op), s->fv.hidden, s->max_count);
    return -AR_ERUNTIME;
  }
  s->last_tokens = tokens;
  if (s->fv.unfused == AR_FUSED_P2P) {
    int rc = emu_p2p_allreduce(s, in, out, count, dt, op, stream);
    if (rc || s->stall) return rc;
    return launched(s, emu_norm(s, out, count));
  }
  struct ar_p2p_args a;
  struct ar_p2p_shape shape;
  int rc = prepare(s, in, out, count, dt, op, &a, &shape);
  if (rc) return rc < 0 ? rc : 0;
  if (!a.vec || a.chunk < (unsigned long long)s->fv.hidden) {
    fprintf(stderr, "arbench: emu-fused: buffers not 16-byte aligned or staging chunk of %llu elements under one row\n",
            a.chunk);
    return -AR_ERUNTIME;
  }
  a.residual = s->residual;
  a.weight = s->weight;
  a.res_out = s->res_out;
  a.hidden = (unsigned long long)s->fv.hidden;
  a.eps = (float)s->fv.eps;
  int blocks = (size_t)shape.blocks < tokens ? shape.blocks : (int)tokens;
  return launched(s, ar_emu_fused(s->dev, &a, 1, blocks, shape.threads));
}

/* Both outputs against the fp64 reference within the bf16 tolerances of p2p_plan.h (fused.c's check). */
static int emu_fused_check(void *state, const void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                           uint64_t *wrong) {
  struct emu *s = state;
  (void)dt, (void)op;
  uint64_t w = ar_fused_check_host(out, s->res_out, count, s->fv.hidden, s->fv.eps, s->n);
  ar_host_fill(s->res_out, count, AR_BF16, AR_SUM, -1, s->n); /* the next checked call must write it again */
  if (w == UINT64_MAX) return -AR_ERUNTIME;
  *wrong = w;
  return 0;
}

static int emu_describe(void *state, json_t *rec) {
  struct emu *s = state;
  char v[96];
  ar_p2p_variant_text(&s->v, v, sizeof v);
  json_object_set_new(rec, "impl", json_string(ar_core_algo_name(s->v.algo)));
  if (s->v.algo == AR_CORE_ISLANDS) {
    json_t *sizes = json_array();
    for (int i = 0; i < s->isl.n; i++) json_array_append_new(sizes, json_integer(s->isl.size[i]));
    json_object_set_new(rec, "island_sizes", sizes);
  }
  json_object_set_new(rec, "emu", json_pack("{s:s, s:s, s:i, s:i, s:I}", "variant", v, "memory",
                                            s->v.reg ? "registered (zero copy)" : "staging copy", "blocks",
                                            s->last_shape.blocks, "threads", s->last_shape.threads, "chunk_bytes",
                                            (json_int_t)s->lay.chunk_bytes));
  if (s->fused) {
    json_object_set_new(rec, "impl", json_string(s->fv.unfused == AR_FUSED_P2P ? "p2p-oneshot, then rmsnorm kernel"
                                                                               : "oneshot+rmsnorm (one kernel)"));
    json_object_set_new(rec, "fused", json_pack("{s:i, s:I, s:f, s:s, s:f, s:f}", "hidden", s->fv.hidden, "tokens",
                                                (json_int_t)s->last_tokens, "eps", s->fv.eps, "unfused",
                                                s->fv.unfused == AR_FUSED_P2P ? "p2p" : "no", "tol_out",
                                                AR_FUSED_TOL_OUT, "tol_res", AR_FUSED_TOL_RES));
  }
  return 0;
}

static void emu_fini(void *state) {
  struct emu *s = state;
  if (!s) return;
  ar_emu_dev_close(s->dev);
  MPI_Barrier(s->comm); /* every rank's grids have ended: nobody reads my windows any more */
  emu_unshare(&s->pool);
  emu_unshare(&s->region);
  free(s->acc);
  free(s->residual), free(s->res_out), free(s->weight);
  MPI_Comm_free(&s->comm);
  free(s);
}

#define EMU_BACKEND(SYM, NAME, ALGO, SUMMARY)                                                                  \
  static int SYM##_check(const char *variant, char *err, size_t len) {                                        \
    return check_p2p(variant, err, len, ALGO);                                                                \
  }                                                                                                           \
  static int SYM##_init(const struct ar_env *env, const char *variant, void **state, char *err, size_t len) { \
    return emu_open(env, variant, state, err, len, &SYM, ALGO);                                               \
  }                                                                                                           \
  const struct ar_backend SYM = {                                                                             \
    .name = NAME, .summary = SUMMARY, .flags = AR_BE_HOST | AR_BE_EMU, .family = AR_BE_FAM_EMU,              \
    .check_variant = SYM##_check,                                                                             \
    .available = emu_available, .init = SYM##_init, .setup = emu_setup, .supports = emu_supports,             \
    .allreduce = emu_p2p_allreduce, .describe = emu_describe, .fini = emu_fini, .alloc = emu_alloc,           \
    .release = emu_release,                                                                                   \
  }

#define EMU_WHAT "the GPU kernel source on CPU threads: a correctness check, not a speed"
EMU_BACKEND(ar_be_emu_p2p_oneshot, "emu-p2p-oneshot", AR_CORE_ONESHOT, "p2p-oneshot's kernel (mode=pull|push): " EMU_WHAT);
EMU_BACKEND(ar_be_emu_p2p_twoshot, "emu-p2p-twoshot", AR_CORE_TWOSHOT, "p2p-twoshot's kernel: " EMU_WHAT);
EMU_BACKEND(ar_be_emu_p2p_staged, "emu-p2p-staged", AR_CORE_STAGED, "p2p-staged's kernel: " EMU_WHAT);
EMU_BACKEND(ar_be_emu_p2p_islands, "emu-p2p-islands", AR_CORE_ISLANDS, "p2p-islands' kernel: " EMU_WHAT);

static int fused_init(const struct ar_env *env, const char *variant, void **state, char *err, size_t len) {
  return emu_open(env, variant, state, err, len, &ar_be_emu_fused, AR_CORE_ONESHOT);
}

const struct ar_backend ar_be_emu_fused = {
  .name = "emu-fused",
  .summary = "fused's kernel (allreduce + residual add + RMSNorm, bf16; hidden=N): " EMU_WHAT,
  .flags = AR_BE_HOST | AR_BE_FUSED | AR_BE_EMU,
  .family = AR_BE_FAM_EMU,
  .check_variant = check_fused,
  .available = emu_available,
  .init = fused_init,
  .setup = emu_setup,
  .supports = emu_supports,
  .allreduce = emu_fused_allreduce,
  .describe = emu_describe,
  .fini = emu_fini,
  .alloc = emu_alloc,
  .release = emu_release,
  .fits = emu_fits,
  .check = emu_fused_check,
};
