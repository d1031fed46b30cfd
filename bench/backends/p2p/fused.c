/* fused.c — the fused backend: one kernel doing a one-shot allreduce (pull over CUDA IPC, p2p.c's state) +
 * residual add + RMSNorm on bf16 rows, its unfused baselines, and the check against an fp64 host reference. */
#include "ar_config.h"
#include "agree.h"
#include "backends/p2p/p2p_plan.h"
#include "backends/p2p/p2p_priv.h"
#include "device/device.h"
#include "device/platform.h"
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUSED_NORM_BLOCKS 1024 /* most blocks of the norm-only kernel (rows are split over them) */

extern const struct ar_backend ar_be_fused, ar_be_nccl;

/* Variant unfused=nccl runs the nccl backend inside (ncclAllReduce), the others a p2p-oneshot pull state
 * whose call arguments the fused kernel takes over. */
struct ar_fused {
  struct ar_fused_variant v;
  const struct ar_backend *inner;
  void *inner_state;
  int nranks;
  size_t max_count;            /* elements of the residual buffers */
  void *residual, *res_out;    /* bf16, max_count each: the residual input and the new residual */
  void *weight;                /* bf16, hidden */
  size_t last_tokens;
  struct ar_p2p_launch last_launch; /* unfused=no: the fused kernel's shape and pieces per block */
};

static const char *unfused_name(int u) { return u == AR_FUSED_NCCL ? "nccl" : u == AR_FUSED_P2P ? "p2p" : "no"; }

/* The device loop's hooks (backend.h) go to the inner backend, whose state waits on the peers. */
static int fused_health(void *state, char *err, size_t len) {
  struct ar_fused *s = state;
  return s && s->inner->health ? s->inner->health(s->inner_state, err, len) : 0;
}

static int fused_aborted(void *state, char *err, size_t len) {
  struct ar_fused *s = state;
  return s && s->inner->aborted ? s->inner->aborted(s->inner_state, err, len) : 0;
}

static void fused_quiet(void *state, int quiet) {
  struct ar_fused *s = state;
  if (s && s->inner->quiet) s->inner->quiet(s->inner_state, quiet);
}

static void fused_progress(void *state, const volatile uint64_t *progress, int per) {
  struct ar_fused *s = state;
  if (s && s->inner->progress) s->inner->progress(s->inner_state, progress, per);
}

static int fused_check_variant(const char *variant, char *err, size_t len) {
  struct ar_fused_variant v;
  return ar_fused_variant_parse(variant, &v, err, len);
}

static int fused_init(const struct ar_env *env, const char *variant, void **state, char *err, size_t len) {
  struct ar_fused_variant v;
  int rc = ar_fused_variant_parse(variant, &v, err, len);
  if (rc) return rc;
  if (v.unfused == AR_FUSED_NCCL && !ar_backend_built(&ar_be_nccl)) { /* the nccl backend is not in this build */
    char why[AR_ERRLEN];
    ar_be_nccl.available(env, why, sizeof why);
    snprintf(err, len, "fused:unfused=nccl runs the nccl backend inside: %s", why);
    return -AR_EUNAVAIL;
  }
  if (v.unfused == AR_FUSED_NCCL) { /* decided alike on every rank before NCCL's collective init */
    if (env->device_shared)
      snprintf(err, len, "fused:unfused=nccl needs >= 2 GPUs, one per rank: NCCL refuses two ranks on one GPU "
               "(ranks share a GPU here)");
    if ((rc = ar_agree(env->comm, NULL, env->device_shared ? -AR_EUNAVAIL : 0, err, len))) return rc;
  }
#if AR_HAVE_RTC /* the norm kernel runs with either inner backend: load the NVRTC-built kernels before it */
  if (v.unfused == AR_FUSED_NCCL && (rc = ar_rtc_load(env->device, env->comm, "fused", err, len))) return rc;
#endif
  struct ar_fused *s = calloc(1, sizeof *s);
  if (!s) return -AR_ERUNTIME;
  s->v = v;
  s->nranks = env->nranks;
  s->inner = v.unfused == AR_FUSED_NCCL ? &ar_be_nccl : &ar_be_p2p_oneshot;
  char inner[96];
  rc = ar_fused_inner_variant(&v, inner, sizeof inner);
  if (!rc)
    rc = v.unfused == AR_FUSED_NCCL ? ar_be_nccl.init(env, "", &s->inner_state, err, len)
                                    : ar_p2p_open(env, inner, &s->inner_state, err, len, &ar_be_fused,
                                                  AR_CORE_ONESHOT);
  if (rc) {
    free(s);
    return rc;
  }
  *state = s;
  return 0;
}

/* The residual and weight: the engine's patterns (p2p_plan.h: AR_FUSED_*_RANK), written once here. */
static int fused_setup(void *state, size_t max_bytes, char *err, size_t len) {
  struct ar_fused *s = state;
  int rc = s->inner->setup ? s->inner->setup(s->inner_state, max_bytes, err, len) : 0;
  if (rc) return rc;
  const struct ar_platform *dev = ar_device_platform();
  s->max_count = (max_bytes + 1) / 2;
  size_t bytes = (s->max_count ? s->max_count : 1) * 2;
  cudaError_t e = cudaMalloc(&s->residual, bytes);
  if (e == cudaSuccess) e = cudaMalloc(&s->res_out, bytes);
  if (e == cudaSuccess) e = cudaMalloc(&s->weight, (size_t)s->v.hidden * 2);
  if (e != cudaSuccess) {
    cudaGetLastError();
    snprintf(err, len, "fused: cannot allocate the residual and weight buffers (%zu bytes): %s", 2 * bytes,
             cudaGetErrorString(e));
    return -AR_ERUNTIME;
  }
  rc = dev->fill(s->residual, s->max_count, AR_BF16, AR_SUM, AR_FUSED_RESIDUAL_RANK(s->nranks), s->nranks);
  if (!rc) rc = dev->fill(s->weight, (size_t)s->v.hidden, AR_BF16, AR_PROD, AR_FUSED_WEIGHT_RANK(s->nranks), s->nranks);
  if (!rc) rc = dev->fill(s->res_out, s->max_count, AR_BF16, AR_SUM, -1, s->nranks); /* poison: see fused_check */
  if (!rc && cudaDeviceSynchronize() != cudaSuccess) rc = -AR_ERUNTIME;
  if (rc) {
    cudaGetLastError();
    snprintf(err, len, "fused: filling the residual and weight failed");
  }
  return rc;
}

static int fused_supports(void *state, enum ar_dtype dt, enum ar_op op, char *why, size_t len) {
  (void)state;
  if (dt != AR_BF16) {
    snprintf(why, len, "fused works on bfloat16 only, not %s", ar_dtype_name(dt));
    return -AR_EUNAVAIL;
  }
  if (op != AR_SUM) {
    snprintf(why, len, "fused reduces with sum only (allreduce + residual add + RMSNorm), not %s", ar_op_name(op));
    return -AR_EUNAVAIL;
  }
  return 0;
}

static int fused_fits(void *state, size_t count, enum ar_dtype dt, char *why, size_t len) {
  struct ar_fused *s = state;
  size_t tokens = 0;
  return ar_fused_rows(count * ar_dtype_size(dt), dt, s->v.hidden, &tokens, why, len);
}

/* The norm-only kernel on the allreduce result in out (in place). */
static int norm(struct ar_fused *s, void *out, size_t count, void *stream) {
  struct ar_p2p_args a;
  memset(&a, 0, sizeof a);
  a.in = out;
  a.out = out;
  a.count = count;
  a.residual = s->residual;
  a.weight = s->weight;
  a.res_out = s->res_out;
  a.hidden = (unsigned long long)s->v.hidden;
  a.eps = (float)s->v.eps;
  size_t tokens = count / (size_t)s->v.hidden;
  int blocks = tokens < FUSED_NORM_BLOCKS ? (int)tokens : FUSED_NORM_BLOCKS;
  int threads = s->v.hidden / 8 < 512 ? (s->v.hidden / 8 + 31) / 32 * 32 : 512;
  return ar_cu_fused(&a, 0, blocks, threads < 64 ? 64 : threads, stream);
}

static int fused_allreduce(void *state, const void *in, void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                           void *stream) {
  struct ar_fused *s = state;
  size_t tokens = count / (size_t)s->v.hidden;
  if (dt != AR_BF16 || op != AR_SUM || !tokens || count % (size_t)s->v.hidden || count > s->max_count) {
    fprintf(stderr, "arbench: fused: a call of %zu %s elements (%s) is not whole rows of hidden=%d within %zu\n",
            count, ar_dtype_name(dt), ar_op_name(op), s->v.hidden, s->max_count);
    return -AR_ERUNTIME;
  }
  s->last_tokens = tokens;
  int e;
  if (s->v.unfused != AR_FUSED_FUSED) {
    int rc = s->inner->allreduce(s->inner_state, in, out, count, dt, op, stream);
    if (rc) return rc;
    e = norm(s, out, count, stream);
  } else {
    struct ar_p2p_args a;
    struct ar_p2p_launch one;
    int rc = ar_p2p_prepare(s->inner_state, in, out, count, dt, op, &a, &one);
    if (rc) return rc < 0 ? rc : 0;
    if (!a.vec || a.chunk < (unsigned long long)s->v.hidden) {
      fprintf(stderr, "arbench: fused: buffers not 16-byte aligned or staging chunk of %llu elements under one row\n",
              a.chunk);
      return -AR_ERUNTIME;
    }
    a.residual = s->residual;
    a.weight = s->weight;
    a.res_out = s->res_out;
    a.hidden = (unsigned long long)s->v.hidden;
    a.eps = (float)s->v.eps;
    s->last_launch = ar_fused_launch(one, tokens, s->v.hidden, a.chunk); /* a block takes whole rows */
    e = ar_cu_fused(&a, 1, s->last_launch.blocks, s->last_launch.threads, stream);
  }
  if (e == cudaSuccess) return 0;
  fprintf(stderr, "arbench: fused: kernel launch failed: %s\n", cudaGetErrorString((cudaError_t)e));
  return -AR_ERUNTIME;
}

/* Both outputs (normalised in out, new residual in res_out) against the fp64 reference, within the bf16
 * tolerances of p2p_plan.h. */
static int fused_check(void *state, const void *out, size_t count, enum ar_dtype dt, enum ar_op op, uint64_t *wrong) {
  struct ar_fused *s = state;
  (void)dt, (void)op;
  uint16_t *h = malloc(4 * count);
  if (!h) return -AR_ERUNTIME;
  cudaError_t e = cudaMemcpy(h, out, 2 * count, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(h + count, s->res_out, 2 * count, cudaMemcpyDeviceToHost);
  uint64_t w = e == cudaSuccess ? ar_fused_check_host(h, h + count, count, s->v.hidden, s->v.eps, s->nranks) : 0;
  free(h);
  /* Poison the new residual again (the engine poisons out): the next checked call must write both. */
  if (e == cudaSuccess && ar_device_platform()->fill(s->res_out, count, AR_BF16, AR_SUM, -1, s->nranks))
    e = cudaErrorUnknown;
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess || w == UINT64_MAX) {
    cudaGetLastError();
    return -AR_ERUNTIME;
  }
  *wrong = w;
  return 0;
}

static int fused_describe(void *state, json_t *rec) {
  struct ar_fused *s = state;
  if (s->inner->describe) s->inner->describe(s->inner_state, rec);
  json_t *p2p = json_object_get(rec, "p2p"); /* the fused kernel takes whole rows: its own block count */
  if (p2p && s->v.unfused == AR_FUSED_FUSED && s->last_launch.blocks) {
    json_object_set_new(p2p, "blocks", json_integer(s->last_launch.blocks));
    json_object_set_new(p2p, "pieces_per_block", json_integer((json_int_t)s->last_launch.pieces));
  }
  json_object_set_new(rec, "impl", json_string(s->v.unfused == AR_FUSED_FUSED ? "oneshot+rmsnorm (one kernel)"
                                               : s->v.unfused == AR_FUSED_P2P ? "p2p-oneshot, then rmsnorm kernel"
                                                                              : "ncclAllReduce, then rmsnorm kernel"));
  json_object_set_new(rec, "fused", json_pack("{s:i, s:I, s:f, s:s, s:f, s:f}", "hidden", s->v.hidden, "tokens",
                                              (json_int_t)s->last_tokens, "eps", s->v.eps, "unfused",
                                              unfused_name(s->v.unfused), "tol_out", AR_FUSED_TOL_OUT, "tol_res",
                                              AR_FUSED_TOL_RES));
  return 0;
}

static int fused_alloc(void *state, size_t bytes, void **p, char *err, size_t len) {
  struct ar_fused *s = state;
  return s->inner->alloc(s->inner_state, bytes, p, err, len);
}

static void fused_release(void *state, void *p) {
  struct ar_fused *s = state;
  s->inner->release(s->inner_state, p);
}

static void fused_fini(void *state) {
  struct ar_fused *s = state;
  if (!s) return;
  s->inner->fini(s->inner_state);
  if (s->residual) cudaFree(s->residual);
  if (s->res_out) cudaFree(s->res_out);
  if (s->weight) cudaFree(s->weight);
  cudaGetLastError();
  free(s);
}

const struct ar_backend ar_be_fused = {
  .name = "fused",
  .summary = "custom allreduce + residual add + RMSNorm, one kernel (bf16; hidden=N; blocks=,threads=; unfused=p2p|nccl baselines, "
             "nccl needs >= 2 GPUs)",
  .flags = AR_BE_DEVICE | AR_BE_GRAPH | AR_BE_FUSED,
  .family = AR_BE_FAM_FUSED,
  .check_variant = fused_check_variant,
  .available = ar_p2p_available,
  .init = fused_init,
  .setup = fused_setup,
  .supports = fused_supports,
  .allreduce = fused_allreduce,
  .describe = fused_describe,
  .fini = fused_fini,
  .alloc = fused_alloc,
  .release = fused_release,
  .fits = fused_fits,
  .check = fused_check,
  .health = fused_health,
  .aborted = fused_aborted,
  .quiet = fused_quiet,
  .progress = fused_progress,
};
