/* calc.c — one row of `arbench impact`: for one tokens value, the engine's default path, the best path it can take
 * unpatched and the pick (each from ar_grid_decide), their time per forward and the savings and tok/s they give. */
#include "impact/calc.h"
#include "ar.h"
#include "results.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NVLink (1) or PCIe (0) as NCCL reported the grid's path; PCIe when nothing says (the boxes impact is for). */
int ar_impact_nvlink(const struct ar_grid *g) {
  for (int c = 0; c < g->ncfg; c++)
    for (int s = 0; s < g->nsize; s++) {
      json_t *r = ar_grid_at(g, s, c);
      const char *path = ar_rec_str(json_object_get(r, "nccl"), "path", ""), *tr = ar_rec_str(r, "nccl_transport", "");
      if (strstr(path, "NVL") || strstr(tr, "NVL")) return 1;
    }
  return 0;
}

/* A column with the engine's defaults: no sweep point, no variant. */
static int plain(const struct ar_grid *g, int c) {
  char pt[256];
  ar_rec_point(g->cfgrec[c], pt, sizeof pt);
  return !*pt && !*ar_rec_str(g->cfgrec[c], "variant", "");
}

/* The path the engine takes by itself at this size (AR_SP_*). */
static int default_path(const struct ar_impact_ctx *x, size_t bytes) {
  char why[512];
  if (ar_serving_custom_on(x->e, x->g->ranks, x->g->nodes, x->nvlink, why, sizeof why) &&
      ar_serving_custom_at(x->e, bytes))
    return ar_serving_auto_kernel(x->g->ranks, x->nvlink, bytes);
  return AR_SP_NCCL;
}

int ar_impact_default_col(const struct ar_impact_ctx *x, size_t bytes, int *path) {
  *path = default_path(x, bytes);
  for (int c = 0; c < x->g->ncfg; c++)
    if (ar_grid_eligible(x->g, c) && ar_spath_of(x->g->cfgrec[c]) == *path && plain(x->g, c)) return c;
  for (int c = 0; c < x->g->ncfg; c++) /* a variant of the same path (e.g. nccl-tests' import) */
    if (ar_grid_eligible(x->g, c) && ar_spath_of(x->g->cfgrec[c]) == *path && *path != AR_SP_NCCL) return c;
  return -1;
}

const char *ar_impact_patch(const struct ar_impact_ctx *x, int c, size_t bytes, char *buf, size_t len) {
  int p = ar_spath_of(x->g->cfgrec[c]);
  char why[512];
  int on = ar_serving_custom_on(x->e, x->g->ranks, x->g->nodes, x->nvlink, why, sizeof why);
  *buf = 0;
  switch (p) {
  case AR_SP_NCCL: break; /* NCCL's env and arbench's tuner plugin are settings */
  case AR_SP_CUSTOM_1STAGE:
  case AR_SP_CUSTOM_2STAGE:
    if (!on) snprintf(buf, len, "custom allreduce forced on: %s", why);
    else if (!ar_serving_custom_at(x->e, bytes))
      snprintf(buf, len, "%s's custom allreduce cap raised to %zu bytes (%s)", x->e->label, bytes, x->e->cap_source);
    else if (!x->e->algo_env && p != ar_serving_auto_kernel(x->g->ranks, x->nvlink, bytes))
      snprintf(buf, len, "%s's kernel choice changed to the %s kernel", x->e->label,
               p == AR_SP_CUSTOM_1STAGE ? "one-stage" : "two-stage");
    break;
  case AR_SP_NCCL_SYMM: snprintf(buf, len, "NCCL symmetric memory in %s", x->e->label); break;
  case AR_SP_SYMM_MEM: snprintf(buf, len, "%s", x->e->symm_why); break;
  case AR_SP_FUSION:
  case AR_SP_FUSION_BASE: snprintf(buf, len, "%s", x->e->fusion_how); break;
  case -1: snprintf(buf, len, "not a path of %s on this box (an imported reference box's or a host backend)", x->e->label); break;
  default:
    snprintf(buf, len, "arbench's %s kernel ported into %s (no engine has it)", ar_rec_str(x->g->cfgrec[c], "spec", "?"),
             x->e->label);
  }
  return buf;
}

static int path_time(const struct ar_impact_ctx *x, int c, size_t bytes, struct ar_impact_path *p, char *why,
                     size_t len);

static int fusion_path(int p) { return p == AR_SP_FUSION || p == AR_SP_FUSION_BASE; }

char *ar_impact_plain_mask(const struct ar_grid *g) {
  char *m = calloc((size_t)g->ncfg, 1);
  for (int c = 0; m && c < g->ncfg; c++) m[c] = !fusion_path(ar_spath_of(g->cfgrec[c]));
  return m;
}

/* Mask of the columns the engine can reach without a patch at this size. */
static char *unpatched_mask(const struct ar_impact_ctx *x, size_t bytes) {
  char *m = calloc((size_t)x->g->ncfg, 1), buf[512];
  for (int c = 0; m && c < x->g->ncfg; c++)
    m[c] = ar_spath_of(x->g->cfgrec[c]) >= 0 && !fusion_path(ar_spath_of(x->g->cfgrec[c])) &&
           !*ar_impact_patch(x, c, bytes, buf, sizeof buf);
  return m;
}

/* A fused column (base 0) or a baseline of it with unfused=KIND (base 1), at the model's hidden size; -1 none. */
static int fusion_col(const struct ar_impact_ctx *x, int base, const char *kind) {
  for (int c = 0; c < x->g->ncfg; c++) {
    json_t *rec = x->g->cfgrec[c], *fu = json_object_get(rec, "fused");
    if (ar_spath_of(rec) != (base ? AR_SP_FUSION_BASE : AR_SP_FUSION) || !ar_grid_eligible(x->g, c)) continue;
    if ((long)ar_rec_num(fu, "hidden", 0) != x->m->hidden) continue;
    if (!base || !kind || !strcmp(ar_rec_str(fu, "unfused", ""), kind)) return c;
  }
  return -1;
}

/* The fused kernel against its unfused baseline at the 2 x layers places. */
static void fusion_row(const struct ar_impact_ctx *x, struct ar_impact_row *r) {
  struct ar_impact_path *p = &r->fusion;
  int f = fusion_col(x, 0, NULL);
  int b = fusion_col(x, 1, r->def_path == AR_SP_NCCL ? "nccl" : "p2p");
  if (b < 0) b = fusion_col(x, 1, NULL);
  r->fusion_base_col = b;
  if (f < 0 || b < 0) {
    snprintf(p->why, sizeof p->why, "no fused allreduce + RMSNorm %sat hidden %ld: measure fused:hidden=%ld%s",
             f < 0 ? "" : "baseline ", x->m->hidden, x->m->hidden, f < 0 ? "" : ",unfused=nccl");
    return;
  }
  if (path_time(x, f, r->bytes, p, p->why, sizeof p->why)) return;
  struct ar_impact_path bp;
  if (path_time(x, b, r->bytes, &bp, p->why, sizeof p->why)) return;
  r->fusion_base = bp.t;
  double n = 2.0 * (double)x->m->layers;
  p->ok = 1;
  p->fwd_us = n * p->t.us, p->fwd_lo = n * p->t.lo, p->fwd_hi = n * p->t.hi;
  p->save_us = n * (bp.t.us - p->t.us), p->save_lo = n * (bp.t.lo - p->t.hi), p->save_hi = n * (bp.t.hi - p->t.lo);
  p->tok_us = p->save_us / r->accept, p->tok_lo = p->save_lo / r->accept, p->tok_hi = p->save_hi / r->accept;
  p->tps = p->tps_lo = p->tps_hi = NAN;
  snprintf(p->patch, sizeof p->patch, "%s; %s", x->e->fusion_how, x->e->fusion_why);
}

/* The pick of d at bytes: the decision at a measured size, or the one both neighbours share. -1 with why. */
static int pick_at(const struct ar_impact_ctx *x, const struct ar_decisions *d, size_t bytes, char *why, size_t len) {
  int s0, s1;
  if (ar_impact_bracket(x->g, bytes, &s0, &s1)) {
    snprintf(why, len, "%zu B is outside the measured sizes %zu..%zu B: measure %zu B", bytes, x->g->size[0],
             x->g->size[x->g->nsize - 1], bytes);
    return -1;
  }
  int p0 = d->at[s0].pick, p1 = d->at[s1].pick;
  if (p0 < 0 || p1 < 0) {
    snprintf(why, len, "no eligible configuration at %zu B: measure %zu B", p0 < 0 ? x->g->size[s0] : x->g->size[s1],
             p0 < 0 ? x->g->size[s0] : x->g->size[s1]);
    return -1;
  }
  if (p0 != p1) {
    snprintf(why, len, "the pick changes between %zu B and %zu B: measure %zu B", x->g->size[s0], x->g->size[s1], bytes);
    return -1;
  }
  return p0;
}

/* One path's time per call at bytes into p; -1 with why when it cannot be had. */
static int path_time(const struct ar_impact_ctx *x, int c, size_t bytes, struct ar_impact_path *p, char *why,
                     size_t len) {
  p->col = c;
  if (ar_impact_time_at(x->g, c, bytes, &p->t)) {
    snprintf(why, len, "%s was measured at %zu..%zu B only: measure %zu B", x->g->cfg[c], p->t.below, p->t.above,
             bytes);
    if (!p->t.below || !p->t.above)
      snprintf(why, len, "%s has no measurement %s %zu B: measure %zu B", x->g->cfg[c],
               p->t.below ? "at or above" : "at or below", bytes, bytes);
    return -1;
  }
  return 0;
}

static void verdict_of(const struct ar_impact_ctx *x, const struct ar_decisions *d, size_t bytes, char *buf,
                       size_t len) {
  int s0, s1;
  ar_impact_bracket(x->g, bytes, &s0, &s1);
  const char *v0 = ar_verdict_name(d->at[s0].verdict), *v1 = ar_verdict_name(d->at[s1].verdict);
  snprintf(buf, len, "%s", !strcmp(v0, v1) ? v0 : !strcmp(v0, "undecided") || !strcmp(v1, "undecided") ? "undecided"
                                                                                                       : "equivalent");
}

int ar_impact_row(const struct ar_impact_ctx *x, long tokens, double step_ms, struct ar_impact_row *r) {
  memset(r, 0, sizeof *r);
  r->tokens = tokens;
  r->accept = x->accept > 0 ? x->accept : 1;
  r->bytes = ar_impact_bytes(x->m, tokens);
  r->calls = ar_impact_calls(x->m);
  r->step_ms = step_ms;
  struct ar_impact_path *ps[3] = {&r->def, &r->unpatched, &r->pick};
  for (int i = 0; i < 3; i++) ps[i]->col = -1, ps[i]->tps = ps[i]->tps_lo = ps[i]->tps_hi = NAN;
  r->fusion.tps = r->fusion.tps_lo = r->fusion.tps_hi = NAN;
  /* the engine's default */
  int c = ar_impact_default_col(x, r->bytes, &r->def_path);
  if (c < 0)
    snprintf(r->def.why, sizeof r->def.why, "no measurement of %s's default path here (%s with its defaults)",
             x->e->label, ar_spath_name(r->def_path));
  else r->def.ok = !path_time(x, c, r->bytes, &r->def, r->def.why, sizeof r->def.why);
  /* the best unpatched and the pick: the one decider over the engine's reachable columns, and over all */
  char *mask = unpatched_mask(x, r->bytes);
  struct ar_decisions du;
  const struct ar_decisions *dd[2] = {&du, x->all};
  if (!mask || ar_grid_decide(x->g, mask, x->nz, &du)) {
    free(mask);
    return -AR_ERUNTIME;
  }
  free(mask);
  for (int i = 0; i < 2; i++) {
    struct ar_impact_path *p = ps[i + 1];
    int k = pick_at(x, dd[i], r->bytes, p->why, sizeof p->why);
    if (k >= 0 && !path_time(x, k, r->bytes, p, p->why, sizeof p->why)) {
      p->ok = 1;
      verdict_of(x, dd[i], r->bytes, p->verdict, sizeof p->verdict);
      ar_impact_patch(x, k, r->bytes, p->patch, sizeof p->patch);
    }
  }
  ar_decisions_free(&du);
  fusion_row(x, r);
  /* per forward (us) and the savings against the default: saving interval from the ends of each side's runs */
  for (int i = 0; i < 3; i++) {
    struct ar_impact_path *p = ps[i];
    if (!p->ok) continue;
    p->fwd_us = (double)r->calls * p->t.us;
    p->fwd_lo = (double)r->calls * p->t.lo;
    p->fwd_hi = (double)r->calls * p->t.hi;
  }
  for (int i = 1; i < 3; i++) {
    struct ar_impact_path *p = ps[i];
    if (!p->ok || !r->def.ok) continue;
    p->save_us = r->def.fwd_us - p->fwd_us;
    p->save_lo = r->def.fwd_lo - p->fwd_hi;
    p->save_hi = r->def.fwd_hi - p->fwd_lo;
    p->tok_us = p->save_us / r->accept, p->tok_lo = p->save_lo / r->accept, p->tok_hi = p->save_hi / r->accept;
    p->tps = p->tps_lo = p->tps_hi = NAN;
    if (step_ms > 0) { /* tok/s of a sequence: accept output tokens per forward of step_ms */
      r->tps = 1000.0 * r->accept / step_ms;
      if (step_ms * 1000.0 > p->save_hi) {
        p->tps = 1000.0 * r->accept / (step_ms - p->save_us / 1000.0);
        p->tps_lo = 1000.0 * r->accept / (step_ms - p->save_lo / 1000.0);
        p->tps_hi = 1000.0 * r->accept / (step_ms - p->save_hi / 1000.0);
      }
    }
  }
  return 0;
}
