/* calc.h — one row of `arbench impact` (calc.c): a tokens value's default path, best unpatched path and pick,
 * each from the one decider, their time per forward, the savings and the predicted tok/s. */
#ifndef AR_IMPACT_CALC_H
#define AR_IMPACT_CALC_H

#include "analysis/serving.h"
#include "impact/impact.h"

/* What a row is computed from. */
struct ar_impact_ctx {
  const struct ar_impact_model *m;
  const struct ar_grid *g;            /* the (dtype, ranks = TP) grid */
  const struct ar_decisions *all;     /* ar_grid_decide over every column: the pick */
  const struct ar_noise *nz;
  const struct ar_serving_engine *e;  /* --engine */
  int nvlink;                         /* ar_impact_nvlink(g) */
  double accept;                      /* output tokens of a sequence per forward (--accept, 1) */
};

/* One path at one tokens value. */
struct ar_impact_path {
  int ok, col;            /* ok: computed; else why says what to measure */
  char why[512];
  struct ar_impact_time t; /* time per call */
  double fwd_us, fwd_lo, fwd_hi;   /* per forward: calls x time per call (us) */
  double save_us, save_lo, save_hi; /* against the default, per forward (us; not for the default itself) */
  double tok_us, tok_lo, tok_hi;   /* the same per output token of a sequence (/ accept) */
  double tps, tps_lo, tps_hi;      /* predicted tok/s of a sequence (NAN without --tps / --step-ms) */
  char verdict[16];                /* the decider's verdict at this size */
  char patch[512];                 /* what the engine needs to take it ("" none) */
};
struct ar_impact_row {
  long tokens, calls;
  size_t bytes;
  double accept, step_ms, tps; /* the measured step (ms per forward) and its tok/s, 0 when not given */
  int def_path;                /* AR_SP_* the engine takes by itself */
  struct ar_impact_path def, unpatched, pick;
  /* allreduce + residual add + RMSNorm fused, at the 2 x layers places (the embedding's allreduce stays): fusion.t the
   * fused kernel, fusion_base its unfused baseline (the default's transport); saving = 2 x layers x (base - fused).
   * fusion.ok 0: not measured at the model's hidden size (why says so). */
  struct ar_impact_path fusion;
  struct ar_impact_time fusion_base;
  int fusion_base_col;
};
/* Columns of the plain allreduce (every one but the fused kernel and its baselines, whose times include the residual
 * add and RMSNorm): the mask the picks are decided over (malloc'd). */
char *ar_impact_plain_mask(const struct ar_grid *g);

int ar_impact_nvlink(const struct ar_grid *g);
/* The column of the engine's default path at bytes (its AR_SP_* in *path), -1 when not measured. */
int ar_impact_default_col(const struct ar_impact_ctx *x, size_t bytes, int *path);
/* What the engine needs to take column c at bytes, "" when nothing (buf). */
const char *ar_impact_patch(const struct ar_impact_ctx *x, int c, size_t bytes, char *buf, size_t len);
/* 0, or -AR_ERUNTIME (out of memory). step_ms: the measured forward with the default, 0 when not given. */
int ar_impact_row(const struct ar_impact_ctx *x, long tokens, double step_ms, struct ar_impact_row *r);

#endif
