/* p2p_plan.c — variant parsing, launch shapes and the peer-access verdict of the custom GPU backends,
 * and the fp64 reference of the fused allreduce + residual add + RMSNorm. Pure C (no CUDA). */
#include "backends/p2p/p2p_plan.h"
#include "backends/p2p/variant.h"
#include "ar_core.h"
#include "dtype.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *p2p_name(int algo) {
  switch (algo) {
  case AR_CORE_ONESHOT: return "p2p-oneshot";
  case AR_CORE_TWOSHOT: return "p2p-twoshot";
  case AR_CORE_STAGED: return "p2p-staged";
  default: return "p2p-islands";
  }
}

/* blocks=1..64 or threads=64..1024 (a multiple of 32): the launch shape of a p2p kernel, for p2p-* and fused. */
static int shape_key(const char *who, const char *key, const char *val, int *blocks, int *threads, char *err,
                     size_t len) {
  if (!strcmp(key, "blocks")) return ar_variant_int(who, key, val, 1, AR_P2P_MAX_BLOCKS, blocks, err, len);
  int rc = ar_variant_int(who, key, val, AR_P2P_MIN_THREADS, AR_P2P_MAX_THREADS, threads, err, len);
  if (!rc && *threads % 32) {
    snprintf(err, len, "%s variant threads=%s: expected a multiple of 32 in %d..%d", who, val, AR_P2P_MIN_THREADS,
             AR_P2P_MAX_THREADS);
    return -AR_EINVAL;
  }
  return rc;
}

static int p2p_key(void *ctx, const char *key, const char *val, char *err, size_t len) {
  struct ar_p2p_variant *v = ctx;
  const char *who = p2p_name(v->algo);
  if (!strcmp(key, "mode")) {
    if (v->algo != AR_CORE_ONESHOT) {
      snprintf(err, len, "%s variant mode=%s: only p2p-oneshot has a mode (pull|push)", who, val);
      return -AR_EINVAL;
    }
    if (strcmp(val, "pull") && strcmp(val, "push")) {
      snprintf(err, len, "%s variant mode=%s: expected pull or push", who, val);
      return -AR_EINVAL;
    }
    v->push = !strcmp(val, "push");
    return 0;
  }
  if (!strcmp(key, "reg")) return ar_variant_int(who, key, val, 0, 1, &v->reg, err, len);
  if (!strcmp(key, "blocks") || !strcmp(key, "threads"))
    return shape_key(who, key, val, &v->blocks, &v->threads, err, len);
  snprintf(err, len, "%s variant: unknown key '%s' (known: %sreg, blocks, threads)", who, key,
           v->algo == AR_CORE_ONESHOT ? "mode, " : "");
  return -AR_EINVAL;
}

int ar_p2p_variant_parse(int algo, const char *text, struct ar_p2p_variant *v, char *err, size_t len) {
  memset(v, 0, sizeof *v);
  v->algo = algo;
  const char *keys = algo == AR_CORE_ONESHOT ? "mode, reg, blocks, threads" : "reg, blocks, threads";
  return ar_variant_each(p2p_name(algo), keys, text ? text : "", p2p_key, v, err, len);
}

void ar_p2p_variant_text(const struct ar_p2p_variant *v, char *buf, size_t len) {
  char b[16] = "auto", t[16] = "auto";
  if (v->blocks) snprintf(b, sizeof b, "%d", v->blocks);
  if (v->threads) snprintf(t, sizeof t, "%d", v->threads);
  snprintf(buf, len, "%s%sreg=%d,blocks=%s,threads=%s", v->algo == AR_CORE_ONESHOT ? "mode=" : "",
           v->algo == AR_CORE_ONESHOT ? (v->push ? "push," : "pull,") : "", v->reg, b, t);
}

/* Default blocks: one block per 8 vectors per thread of the bytes each rank reduces (the whole message
 * for one-shot, its 1/n slice for the two-shot family), at least 1, at most 32 and at most sm_count. */
struct ar_p2p_shape ar_p2p_shape(const struct ar_p2p_variant *v, size_t bytes, int nranks, int sm_count) {
  struct ar_p2p_shape s;
  s.threads = v->threads ? v->threads : 512;
  size_t work = v->algo == AR_CORE_ONESHOT || nranks < 2 ? bytes : bytes / (size_t)nranks;
  size_t per_block = (size_t)s.threads * AR_P2P_VEC * 8;
  size_t want = (work + per_block - 1) / per_block;
  if (want < 1) want = 1;
  if (want > 32) want = 32;
  s.blocks = v->blocks ? v->blocks : (int)want;
  if (sm_count > 0 && s.blocks > sm_count) s.blocks = sm_count;
  return s;
}

struct ar_p2p_staging ar_p2p_staging(const struct ar_p2p_variant *v, size_t max_bytes, int nranks) {
  struct ar_p2p_staging st;
  size_t chunk = ar_core_round(max_bytes ? max_bytes : 1, AR_CORE_LINE);
  if (chunk > AR_P2P_STAGING_BYTES) chunk = AR_P2P_STAGING_BYTES;
  st.push_stride = 0;
  if (v->push && nranks > 0) { /* the `in` slot holds a sub-slot per sender: the same region size as a pull */
    size_t cap = AR_P2P_STAGING_BYTES / (size_t)nranks / AR_CORE_LINE * AR_CORE_LINE - AR_CORE_LINE;
    if (chunk > cap) chunk = cap;
    st.push_stride = ar_core_push_stride(chunk);
    chunk = (size_t)nranks * st.push_stride;
  }
  st.chunk_bytes = ar_core_round(chunk, AR_CORE_LINE); /* as ar_core_layout_init_sets rounds it */
  st.piece_bytes = v->push ? st.push_stride - AR_CORE_LINE : st.chunk_bytes;
  return st;
}

struct ar_p2p_launch ar_p2p_launch_of(const struct ar_p2p_variant *v, size_t count, size_t es, size_t chunk, int nranks,
                                      int sm_count) {
  struct ar_p2p_shape s = ar_p2p_shape(v, count * es, nranks, sm_count);
  struct ar_p2p_launch l = {s.blocks, s.threads, 0};
  struct ar_span first = ar_part(count, es, s.blocks, 0);
  size_t mine = first.end - first.begin;
  l.pieces = chunk ? (mine + chunk - 1) / chunk : 0;
  return l;
}

struct ar_p2p_launch ar_fused_launch(struct ar_p2p_launch one, size_t tokens, int hidden, size_t chunk) {
  struct ar_p2p_launch l = one;
  if (tokens && (size_t)l.blocks > tokens) l.blocks = (int)tokens;
  size_t per = hidden > 0 ? chunk / (size_t)hidden : 0; /* rows per piece */
  struct ar_span rows = ar_part(tokens, AR_CORE_ALIGN, l.blocks, 0);
  size_t mine = rows.end - rows.begin;
  l.pieces = per ? (mine + per - 1) / per : 0;
  return l;
}

int ar_p2p_access_verdict(int n, const int *dev, const char *const *busid, const int *access, char *why,
                          size_t len) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (i == j || dev[i] == dev[j] || access[i * n + j] > 0) continue;
      if (access[i * n + j] < 0) {
        snprintf(why, len, "cannot check P2P between rank %d (GPU %s) and rank %d (GPU %s): rank %d does not see "
                 "that GPU (CUDA_VISIBLE_DEVICES per rank?)", i, busid && busid[i] ? busid[i] : "?", j,
                 busid && busid[j] ? busid[j] : "?", i);
        return -AR_EUNAVAIL;
      }
      snprintf(why, len, "no P2P between rank %d (GPU %s) and rank %d (GPU %s)", i,
               busid && busid[i] ? busid[i] : "?", j, busid && busid[j] ? busid[j] : "?");
      return -AR_EUNAVAIL;
    }
  return 0;
}

int ar_p2p_first_failure(const struct ar_p2p_status *st, int nblocks) {
  int best = -1;
  uint32_t best_code = 0, best_gen = 0;
  for (int b = 0; b < nblocks; b++) {
    uint32_t code = __atomic_load_n(&st[b].code, __ATOMIC_ACQUIRE); /* the kernel writes it last */
    if (code != AR_P2P_TIMEOUT && code != AR_P2P_PEER_ABORT) continue;
    uint32_t gen = st[b].gen;
    int better = best < 0 || (code == AR_P2P_TIMEOUT && best_code != AR_P2P_TIMEOUT) ||
                 (code == best_code && (int32_t)(gen - best_gen) < 0); /* generations wrap: compare the difference */
    if (better) best = b, best_code = code, best_gen = gen;
  }
  return best;
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

void ar_p2p_failure_text(const struct ar_p2p_status *st, int b, const char *who, int world_rank, double timeout_s,
                         char *msg, size_t len) {
  if (st->code == AR_P2P_TIMEOUT)
    snprintf(msg, len, "%s: rank %d: timeout after %g s in pass %s (generation %u, block %d) waiting for rank %u", who,
             world_rank, timeout_s, pass_name(st->pass), st->gen, b, st->peer);
  else
    snprintf(msg, len, "%s: rank %d: gave up in pass %s (generation %u, block %d) waiting for rank %u: rank %u timed "
             "out", who, world_rank, pass_name(st->pass), st->gen, b, st->peer, st->aborter);
}

/* ---- fused ---- */

static int fused_key(void *ctx, const char *key, const char *val, char *err, size_t len) {
  struct ar_fused_variant *v = ctx;
  if (!strcmp(key, "hidden")) {
    int rc = ar_variant_int("fused", key, val, 8, 1 << 16, &v->hidden, err, len);
    if (!rc && v->hidden % 8) {
      snprintf(err, len, "fused variant hidden=%s: expected a multiple of 8 (one 16-byte vector) in 8..65536",
               val);
      return -AR_EINVAL;
    }
    return rc;
  }
  if (!strcmp(key, "eps")) {
    char *end;
    errno = 0;
    double e = strtod(val, &end);
    if (!*val || *end || errno || !(e > 0.0) || e > 1.0) {
      snprintf(err, len, "fused variant eps=%s: expected a number in (0, 1]", val);
      return -AR_EINVAL;
    }
    v->eps = e;
    return 0;
  }
  if (!strcmp(key, "blocks") || !strcmp(key, "threads"))
    return shape_key("fused", key, val, &v->blocks, &v->threads, err, len);
  if (!strcmp(key, "unfused")) {
    if (!strcmp(val, "nccl")) v->unfused = AR_FUSED_NCCL;
    else if (!strcmp(val, "p2p")) v->unfused = AR_FUSED_P2P;
    else {
      snprintf(err, len, "fused variant unfused=%s: expected nccl or p2p", val);
      return -AR_EINVAL;
    }
    return 0;
  }
  snprintf(err, len, "fused variant: unknown key '%s' (known: hidden, eps, unfused, blocks, threads)", key);
  return -AR_EINVAL;
}

int ar_fused_variant_parse(const char *text, struct ar_fused_variant *v, char *err, size_t len) {
  v->hidden = 4096;
  v->eps = 1e-6;
  v->unfused = AR_FUSED_FUSED;
  v->blocks = v->threads = 0;
  int rc = ar_variant_each("fused", "hidden, eps, unfused, blocks, threads", text ? text : "", fused_key, v, err, len);
  if (!rc && v->unfused == AR_FUSED_NCCL && (v->blocks || v->threads)) {
    snprintf(err, len, "fused variant unfused=nccl takes no blocks= or threads= (NCCL picks its own launch; "
             "they shape the one-shot of fused and unfused=p2p)");
    return -AR_EINVAL;
  }
  return rc;
}

int ar_fused_inner_variant(const struct ar_fused_variant *v, char *buf, size_t len) {
  int n = snprintf(buf, len, "mode=pull,reg=0");
  if (v->blocks && n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, ",blocks=%d", v->blocks);
  if (v->threads && n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, ",threads=%d", v->threads);
  return n >= 0 && (size_t)n < len ? 0 : -AR_EINVAL;
}

int ar_fused_rows(size_t bytes, enum ar_dtype dt, int hidden, size_t *tokens, char *why, size_t len) {
  if (dt != AR_BF16) {
    snprintf(why, len, "fused works on bfloat16 only, not %s", ar_dtype_name(dt));
    return -AR_EUNAVAIL;
  }
  size_t row = (size_t)hidden * 2;
  if (!bytes || bytes % row) {
    snprintf(why, len, "%zu bytes is not a whole number of rows of hidden=%d bf16 (%zu bytes each)", bytes,
             hidden, row);
    return -AR_EUNAVAIL;
  }
  *tokens = bytes / row;
  return 0;
}

void ar_fused_reference(const uint16_t *const *x, int nranks, const uint16_t *residual, const uint16_t *weight,
                        size_t tokens, int hidden, double eps, double *out, double *res_out) {
  for (size_t t = 0; t < tokens; t++) {
    size_t at = t * (size_t)hidden;
    double ss = 0.0;
    for (int h = 0; h < hidden; h++) {
      double v = ar_core_bf16_to_f32(residual[at + h]);
      for (int r = 0; r < nranks; r++) v += ar_core_bf16_to_f32(x[r][at + h]);
      res_out[at + h] = v;
      ss += v * v;
    }
    double scale = 1.0 / sqrt(ss / hidden + eps);
    for (int h = 0; h < hidden; h++) out[at + h] = res_out[at + h] * scale * ar_core_bf16_to_f32(weight[h]);
  }
}

static int outside(uint16_t got, double ref, double tol) {
  double g = ar_core_bf16_to_f32(got);
  if (isnan(g) || isnan(ref)) return !(isnan(g) && isnan(ref));
  return fabs(g - ref) > tol * fabs(ref) + 1e-30;
}

uint64_t ar_fused_compare(const uint16_t *got_out, const uint16_t *got_res, const double *ref_out,
                          const double *ref_res, size_t n) {
  uint64_t wrong = 0;
  for (size_t i = 0; i < n; i++)
    wrong += (uint64_t)(outside(got_out[i], ref_out[i], AR_FUSED_TOL_OUT) |
                        outside(got_res[i], ref_res[i], AR_FUSED_TOL_RES));
  return wrong;
}

uint64_t ar_fused_check_host(const uint16_t *got_out, const uint16_t *got_res, size_t count, int hidden, double eps,
                             int nranks) {
  size_t h = (size_t)hidden, tokens = h ? count / h : 0;
  uint16_t *x = malloc(sizeof *x * count * (size_t)nranks), *res = malloc(sizeof *res * count);
  uint16_t *w = malloc(sizeof *w * h);
  double *ref = malloc(sizeof *ref * 2 * h);
  uint64_t wrong = UINT64_MAX;
  if (x && res && w && ref && nranks > 0 && nranks <= AR_CORE_MAX_RANKS) {
    for (int r = 0; r < nranks; r++) ar_host_fill(x + (size_t)r * count, count, AR_BF16, AR_SUM, r, nranks);
    ar_host_fill(res, count, AR_BF16, AR_SUM, AR_FUSED_RESIDUAL_RANK(nranks), nranks);
    ar_host_fill(w, h, AR_BF16, AR_PROD, AR_FUSED_WEIGHT_RANK(nranks), nranks);
    const uint16_t *xs[AR_CORE_MAX_RANKS];
    wrong = 0;
    for (size_t t = 0; t < tokens; t++) {
      for (int r = 0; r < nranks; r++) xs[r] = x + (size_t)r * count + t * h;
      ar_fused_reference(xs, nranks, res + t * h, w, 1, hidden, eps, ref, ref + h);
      wrong += ar_fused_compare(got_out + t * h, got_res + t * h, ref, ref + h, h);
    }
  }
  free(x);
  free(res);
  free(w);
  free(ref);
  return wrong;
}
