/* decide.c — the one decider: per size of a grid the pick (the fastest p50, unless others are shown
 * equivalent within the margin, then the preference), its verdict and what would decide it. */
#include "analysis/analysis.h"
#include "ar.h"
#include "results.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int in_play(const struct ar_grid *g, const char *use, int s, int c) {
  return (!use || use[c]) && ar_grid_cell_eligible(g, s, c) && !isnan(ar_grid_p50(g, s, c));
}

/* Fastest column in play at s by p50 over runs (equal p50s: the simpler, then the earlier column), -1 when
 * none. */
static int fastest(const struct ar_grid *g, int s, const char *use) {
  int f = -1;
  for (int c = 0; c < g->ncfg; c++) {
    if (!in_play(g, use, s, c)) continue;
    double v = ar_grid_p50(g, s, c), b = f < 0 ? INFINITY : ar_grid_p50(g, s, f);
    if (v < b || (v == b && ar_simplicity(g->cfgrec[c]) < ar_simplicity(g->cfgrec[f]))) f = c;
  }
  return f;
}

/* One comparison of the table's families: column c against the fastest f at size s. */
struct cmp {
  int s, c;
};

/* A comparison whose p-values are all above this with the asked resamples is not redrawn with the family's
 * (up to 200,000): Holm rejects nothing above alpha <= 0.05, and a bootstrap p of 0.2 from 2,000 resamples
 * (400 in the tail) is not one of 0.05 or less from more. Only the decisions read these p-values. */
#define AR_SCREEN_P 0.2

/* Test every comparison, then Holm over each family: the relation of each column to its size's fastest. */
static int test_families(const struct ar_grid *g, const struct cmp *cm, int m, const struct ar_noise *nz,
                         struct ar_decisions *d) {
  double alpha = AR_FAMILY_ALPHA / (nz->grids > 1 ? nz->grids : 1);
  struct ar_noise az = *nz, fz = *nz;
  az.tails = fz.tails = 1; /* each comparison's interval at its Holm level (ar_pair_judge) */
  fz.resamples = ar_family_resamples(nz->resamples, m, alpha);
  fz.screen = nz->resamples, fz.screen_p = AR_SCREEN_P; /* the asked resamples first: the same first draws */
  struct ar_ostats *tabs = ar_ostats_new(); /* each sample count's table built once for the whole family */
  az.ostats = fz.ostats = tabs;
  struct ar_pair *t = malloc(sizeof *t * (size_t)(m + 1));
  int *v = malloc(sizeof *v * (size_t)(m + 1)), have = 0, rc = t && v ? 0 : -AR_ERUNTIME;
  for (int k = 0; !rc && k < m; k++) {
    int s = cm[k].s, c = cm[k].c, f = d->at[s].fastest;
    char key[600];
    snprintf(key, sizeof key, "%s|%s|%zu", g->cfg[f], g->cfg[c], g->size[s]);
    json_t *rf = ar_grid_runs(g, s, f), *rc_ = ar_grid_runs(g, s, c);
    ar_pair_test(rf, rc_, key, fz.resamples > nz->resamples ? &fz : &az, 1, &t[k]);
    have += !isnan(t[k].p_diff);
  }
  if (!rc) rc = ar_pair_judge(t, m, alpha, v, NULL); /* the verdicts, and the intervals they are judged on */
  for (int k = 0; !rc && k < m; k++) {
    size_t i = (size_t)cm[k].s * g->ncfg + cm[k].c;
    d->pair[i] = t[k];
    d->rel[i] = v[k] == AR_PV_EQUIVALENT ? AR_REL_EQUIV : v[k] == AR_PV_SLOWER ? AR_REL_SLOWER : AR_REL_OPEN;
  }
  d->fam = d->efam = (struct ar_family){have, alpha};
  ar_ostats_free(tabs);
  free(t);
  free(v);
  return rc;
}

/* The verdict of size s from its relations, the equivalent set's size, the open ones and the runs. */
static void size_verdict(const struct ar_grid *g, struct ar_decisions *d, int s) {
  struct ar_decision *a = &d->at[s];
  const char *rel = d->rel + (size_t)s * g->ncfg;
  int known = 1, need = 0;
  a->runs_min = a->runs_max = 0;
  for (int c = 0; c < g->ncfg; c++) {
    if (rel[c] == AR_REL_OUT) continue;
    int n = (int)json_array_size(ar_grid_runs(g, s, c));
    if (!a->runs_max || n < a->runs_min) a->runs_min = n;
    if (n > a->runs_max) a->runs_max = n;
    a->nequiv += rel[c] == AR_REL_EQUIV || rel[c] == AR_REL_FASTEST;
    if (rel[c] != AR_REL_OPEN) continue;
    a->nopen++;
    const struct ar_pair *t = &d->pair[(size_t)s * g->ncfg + c];
    int n1 = ar_runs_needed(log(t->ratio), t->sd, d->margin, d->fam.alpha / (d->fam.tests > 1 ? d->fam.tests : 1));
    int have = ar_pair_reps(t, 0) < ar_pair_reps(t, 1) ? ar_pair_reps(t, 0) : ar_pair_reps(t, 1);
    if (t->between) a->launches = a->launches > 1 || have < 2 ? 2 : 1;
    if (n1 >= 0 && n1 <= have) n1 = have + 1; /* never the replicates already there */
    if (n1 < 0) known = 0;
    else if (n1 > need) need = n1;
  }
  a->verdict = a->nopen ? AR_V_UNDECIDED : a->nequiv > 1 ? AR_V_EQUIVALENT : AR_V_CLEAR;
  a->runs_needed = !a->nopen ? 0 : known ? need : -1;
}

static int in_set(const struct ar_decisions *d, int s, int c) {
  int r = c >= 0 ? ar_decision_rel(d, s, c) : AR_REL_OUT;
  return r == AR_REL_FASTEST || r == AR_REL_EQUIV;
}

/* The preference among the equivalent set of size s: the previous size's pick, else the next size's pick
 * when that one is not chosen by preference itself, else the simplest algorithm, else the faster. */
static int prefer(const struct ar_grid *g, const struct ar_decisions *d, int s) {
  if (s > 0 && in_set(d, s, d->at[s - 1].pick)) return d->at[s - 1].pick;
  for (int n = s + 1; n < g->nsize; n++) {
    if (d->at[n].verdict == AR_V_EQUIVALENT) continue;
    if (d->at[n].verdict != AR_V_NONE && in_set(d, s, d->at[n].pick)) return d->at[n].pick;
    if (d->at[n].verdict != AR_V_NONE) break;
  }
  int best = -1;
  for (int c = 0; c < g->ncfg; c++) {
    if (!in_set(d, s, c)) continue;
    int sc = ar_simplicity(g->cfgrec[c]), sb = best < 0 ? 0 : ar_simplicity(g->cfgrec[best]);
    if (best < 0 || sc < sb || (sc == sb && ar_grid_p50(g, s, c) < ar_grid_p50(g, s, best))) best = c;
  }
  return best;
}

/* The 95% interval [lo, hi] of p50(pick) / p50(c) at s from the pairs against the fastest f (c / f): the pick
 * itself the fastest, 1 / (c / f); c the fastest, pick / f; else (pick / f) / (c / f) at the ends (wider than
 * either: conservative). 0, or -1 when an interval is missing. */
static int pick_vs(const struct ar_grid *g, const struct ar_decisions *d, int s, int c, double *lo, double *hi) {
  int p = d->at[s].pick, f = d->at[s].fastest;
  const struct ar_pair *pc = &d->pair[(size_t)s * g->ncfg + c], *pp = &d->pair[(size_t)s * g->ncfg + p];
  if (p == f) *lo = 1 / pc->hi, *hi = 1 / pc->lo;
  else if (c == f) *lo = pp->lo, *hi = pp->hi;
  else *lo = pp->lo / pc->hi, *hi = pp->hi / pc->lo;
  return isnan(*lo) || isnan(*hi) || !(*lo > 0) ? -1 : 0;
}

/* The pick's bound against its best alternative, and the smallest ratio that comparison could detect. */
static void pick_bound(const struct ar_grid *g, struct ar_decisions *d, int s) {
  struct ar_decision *a = &d->at[s];
  a->bound = a->detectable = NAN;
  a->bound_vs = -1;
  if (a->pick < 0) return;
  double worst = -INFINITY, wlo = NAN;
  int unknown = 0;
  for (int c = 0; c < g->ncfg; c++) {
    double lo, hi;
    if (c == a->pick || ar_decision_rel(d, s, c) == AR_REL_OUT) continue;
    if (pick_vs(g, d, s, c, &lo, &hi)) unknown = 1;
    else if (hi > worst) worst = hi, wlo = lo, a->bound_vs = c;
  }
  if (unknown || a->bound_vs < 0) {
    a->bound_vs = unknown ? -1 : a->bound_vs;
    return;
  }
  a->bound = worst - 1;
  /* 80% power at the per-comparison level: the half-width of the log interval (1.96 standard errors) scaled to
   * z(1 - alpha / 2) + z(0.80) standard errors */
  const struct ar_pair *t = &d->pair[(size_t)s * g->ncfg + (a->pick == a->fastest ? a->bound_vs : a->pick)];
  double lvl = t->level > 0 && t->level < 1 ? t->level : 0.05; /* the level the interval is at (its Holm level) */
  double alpha = d->fam.alpha / (d->fam.tests > 1 ? d->fam.tests : 1);
  double se = (log(worst) - log(wlo)) / (2 * ar_t_quantile(1 - lvl / 2, 1e6));
  double df = 1e6; /* the bootstrap's interval: normal quantiles */
  int na = ar_pair_reps(t, 0), nb = ar_pair_reps(t, 1);
  if (!isnan(t->sd) && na >= 2 && nb >= 2) { /* the runs' (launches') t test decides: its standard error */
    se = t->sd * sqrt(1.0 / na + 1.0 / nb);
    df = na + nb - 2;
  }
  a->detectable = exp(se * (ar_t_quantile(1 - alpha / 2, df) + ar_t_quantile(AR_POWER, df)));
}

void ar_decisions_free(struct ar_decisions *d) {
  free(d->at);
  free(d->rel);
  free(d->pair);
  memset(d, 0, sizeof *d);
}

int ar_grid_decide(const struct ar_grid *g, const char *use, const struct ar_noise *nz, struct ar_decisions *d) {
  size_t cells = (size_t)g->nsize * (size_t)g->ncfg;
  memset(d, 0, sizeof *d);
  d->nsize = g->nsize;
  d->ncfg = g->ncfg;
  d->margin = nz->margin;
  d->at = calloc((size_t)g->nsize + 1, sizeof *d->at);
  d->rel = calloc(cells + 1, 1);
  d->pair = calloc(cells + 1, sizeof *d->pair);
  struct cmp *cm = malloc(sizeof *cm * (cells + 1));
  int m = 0, rc = d->at && d->rel && d->pair && cm ? 0 : -AR_ERUNTIME;
  for (size_t i = 0; !rc && i < cells; i++)
    d->pair[i] = (struct ar_pair){NAN, NAN, NAN, NAN, NAN, NAN, NAN, 1, 0, 0, 0, 0, 0, 0, NAN, NAN, .level = NAN};
  for (int s = 0; !rc && s < g->nsize; s++) {
    int f = fastest(g, s, use), ex = 0;
    for (int c = 0; c < g->ncfg; c++) /* measured here, in use, not eligible: wrong results or unsafe */
      ex += (!use || use[c]) && !g->predicted[c] && ar_grid_cell_why(g, s, c) != NULL;
    d->at[s] = (struct ar_decision){.pick = f, .fastest = f, .excluded = ex, .verdict = f < 0 && ex ? AR_V_INVALID : AR_V_NONE};
    if (f < 0) continue;
    d->rel[(size_t)s * g->ncfg + f] = AR_REL_FASTEST;
    for (int c = 0; c < g->ncfg; c++)
      if (c != f && in_play(g, use, s, c)) cm[m++] = (struct cmp){s, c};
  }
  if (!rc) rc = test_families(g, cm, m, nz, d);
  for (int s = 0; !rc && s < g->nsize; s++)
    if (d->at[s].fastest >= 0) size_verdict(g, d, s);
  for (int s = 0; !rc && s < g->nsize; s++)
    if (d->at[s].verdict == AR_V_EQUIVALENT) d->at[s].pick = prefer(g, d, s);
  for (int s = 0; !rc && s < g->nsize; s++) pick_bound(g, d, s);
  free(cm);
  if (rc) ar_decisions_free(d);
  return rc;
}

const char *ar_verdict_name(int v) {
  return v == AR_V_CLEAR        ? "clear"
         : v == AR_V_EQUIVALENT ? "equivalent"
         : v == AR_V_UNDECIDED  ? "undecided"
         : v == AR_V_INVALID    ? "no valid configuration"
                                : "";
}

/* ---- ranges and JSON ---- */

int ar_decision_ranges(const struct ar_grid *g, const struct ar_decisions *d, struct ar_range **out) {
  struct ar_range *r = calloc((size_t)g->nsize + 1, sizeof *r);
  int n = 0;
  *out = r;
  if (!r) return -1;
  int gap = 0; /* a size with no valid configuration since the last range: no range spans it */
  for (int s = 0; s < g->nsize; s++) {
    const struct ar_decision *a = &d->at[s];
    gap |= a->verdict == AR_V_INVALID;
    if (a->pick < 0) continue;
    if (!n || r[n - 1].pick != a->pick || gap) r[n++] = (struct ar_range){.from = s, .pick = a->pick};
    gap = 0;
    struct ar_range *cur = &r[n - 1];
    cur->to = s;
    cur->clear += a->verdict == AR_V_CLEAR;
    cur->equivalent += a->verdict == AR_V_EQUIVALENT;
    if (a->verdict != AR_V_UNDECIDED) continue;
    if (a->launches > cur->launches) cur->launches = a->launches;
    if (!cur->undecided++ || cur->runs_needed >= 0)
      cur->runs_needed = a->runs_needed < 0 ? -1 : a->runs_needed > cur->runs_needed ? a->runs_needed : cur->runs_needed;
  }
  return n;
}

const char *ar_range_verdict(const struct ar_range *r) {
  return r->undecided ? "undecided" : r->equivalent ? "equivalent" : "clear";
}

/* p50 of the fastest column at s outside the pick's equivalent set / the pick's p50 - 1; NAN when none. */
static double lead(const struct ar_grid *g, const struct ar_decisions *d, int s) {
  double best = NAN;
  for (int c = 0; c < g->ncfg; c++) {
    int r = ar_decision_rel(d, s, c);
    if (r == AR_REL_OUT || in_set(d, s, c)) continue;
    double v = ar_grid_p50(g, s, c);
    if (isnan(best) || v < best) best = v;
  }
  return best / ar_grid_p50(g, s, d->at[s].pick) - 1;
}

/* The columns measured at s that are not eligible there, with why: [{"config": c, "why": "..."}]. */
static json_t *excluded_json(const struct ar_grid *g, int s) {
  json_t *ex = json_array();
  for (int c = 0; c < g->ncfg; c++) {
    const char *why = g->predicted[c] ? NULL : ar_grid_cell_why(g, s, c);
    if (why) json_array_append_new(ex, json_pack("{s:i, s:s}", "config", c, "why", why));
  }
  return ex;
}

json_t *ar_decision_json(const struct ar_grid *g, const struct ar_decisions *d, int s) {
  const struct ar_decision *a = &d->at[s];
  if (a->verdict == AR_V_INVALID)
    return json_pack("{s:I, s:n, s:n, s:n, s:s, s:[], s:[], s:f, s:n, s:n, s:[i, i], s:n, s:o, s:n, s:n, s:n}", "size",
                     (json_int_t)g->size[s], "pick", "pick_label", "fastest", "verdict", ar_verdict_name(a->verdict),
                     "equivalent", "open", "margin", d->margin, "p50_us", "lead", "runs", 0, 0, "runs_needed",
                     "excluded", excluded_json(g, s), "bound_pct", "bound_vs", "detectable_ratio");
  if (a->pick < 0) return NULL;
  json_t *eq = json_array(), *open = json_array();
  for (int c = 0; c < g->ncfg; c++) {
    if (in_set(d, s, c)) json_array_append_new(eq, json_integer(c));
    if (ar_decision_rel(d, s, c) == AR_REL_OPEN) json_array_append_new(open, json_integer(c));
  }
  double l = lead(g, d, s);
  json_t *j = json_pack("{s:I, s:i, s:s, s:i, s:s, s:o, s:o, s:f, s:f, s:o, s:[i, i], s:o}", "size", (json_int_t)g->size[s],
                   "pick", a->pick, "pick_label", g->cfg[a->pick], "fastest", a->fastest, "verdict",
                   ar_verdict_name(a->verdict), "equivalent", eq, "open", open, "margin", d->margin, "p50_us",
                   ar_grid_p50(g, s, a->pick), "lead", isnan(l) ? json_null() : json_real(l), "runs", a->runs_min,
                   a->runs_max, "runs_needed", a->runs_needed < 0 ? json_null() : json_integer(a->runs_needed));
  if (!j) return NULL;
  /* what runs_needed counts: launches a side when an open comparison is between launches ("one launch a side": one
   * of them has a single launch on a side, so nothing between launches was tested) */
  json_object_set_new(j, "runs_needed_unit", json_string(a->launches ? "launches" : "runs"));
  json_object_set_new(j, "one_launch", json_boolean(a->launches == 2));
  json_object_set_new(j, "excluded", excluded_json(g, s));
  json_object_set_new(j, "bound_pct", isnan(a->bound) ? json_null() : json_real(a->bound * 100));
  json_object_set_new(j, "bound_vs", a->bound_vs < 0 ? json_null() : json_string(g->cfg[a->bound_vs]));
  json_object_set_new(j, "detectable_ratio", isnan(a->detectable) ? json_null() : json_real(a->detectable));
  return j;
}

void ar_bound_text(const struct ar_grid *g, const struct ar_decisions *d, int s, char *buf, size_t len) {
  const struct ar_decision *a = &d->at[s];
  if (a->pick < 0 || isnan(a->bound) || a->bound_vs < 0) {
    snprintf(buf, len, "%s", "");
    return;
  }
  double pct = a->bound * 100;
  snprintf(buf, len, "at %s %.*f%% %s than %s", pct >= 0 ? "most" : "least", fabs(pct) < 9.95 ? 1 : 0, fabs(pct),
           pct >= 0 ? "slower" : "faster", g->cfg[a->bound_vs]);
}

void ar_family_text(const struct ar_decisions *d, char *buf, size_t len) {
  int split = d->fam.alpha < AR_FAMILY_ALPHA * 0.999;
  if (!d->fam.tests) {
    snprintf(buf, len, "Tested: no comparison of this table has samples on both sides: every size with more than one "
             "configuration is undecided.");
    return;
  }
  snprintf(buf, len, "Tested: %d comparisons (each configuration against its size's fastest), Holm-Bonferroni at "
           "family-wise %.3g%%%s for the differences and for the equivalences.", d->fam.tests, d->fam.alpha * 100,
           split ? " (5% split over the tables of this call)" : "");
}

void ar_explain_hint(const char *cmd, char *buf, size_t len) {
  snprintf(buf, len, "How the picks, verdicts and bounds are decided: arbench %s --explain (docs/analysis.md#decisions).",
           cmd);
}

void ar_rule_text(const struct ar_noise *nz, char *buf, size_t len) {
  snprintf(buf, len,
           "Decisions: the pick at each size is the fastest (lowest p50, the median over runs) unless another "
           "configuration is shown equivalent to it within %.3g%% (--margin; two one-sided tests: the ratio inside "
           "[1/%.3g, %.3g]); then the previous size's pick, else the next clear size's, else the simplest algorithm "
           "is chosen among the equivalent ones. clear = every other configuration slower beyond the noise; "
           "equivalent = every other one shown equivalent or slower; undecided = the data cannot tell some from the "
           "fastest, and 'repeat N' is the runs per side a power calculation on the measured spread says give 80%% "
           "power to decide. Each p-value is the larger of the bootstrap's (over runs and samples) and, with two or more "
           "runs a side, a t test on the runs' log p50s (Student's pooled at equal run counts, else Welch's); a side with "
           "one run cannot show drift between runs, so its tests allow --drift %.3g%% more. Records without samples "
           "(nccl-tests logs, -N runs: one value per size per launch) are tested on their runs alone, each one launch. "
           "Between launches (two configurations not measured in the same launches: files, sweep points) the launch is the "
           "replicate: each launch one value (the mean of its runs' log p50s), a t test on those alone, 'N launches a side' "
           "what would decide, and one launch a side decides nothing. "
           "Eligible: a configuration whose correctness check reported wrong elements at a size (in any run) or that is "
           "unsafe is never the pick there; where none is left the size has no valid configuration. Bound: the pick is "
           "at most X%% slower than its best alternative (the upper end of the interval of their ratio); every comparison's "
           "interval is the one its verdict is judged on, at the level Holm judged it (95%% family-wise): one shown "
           "different excludes 1, one shown equivalent lies inside the margin, an undecided one holds 1, so 'at least X%% "
           "faster' means clear. "
           "'repeat N' is printed up to %d runs a side; beyond, the pick's bound stands.",
           nz->margin * 100, 1 + nz->margin, 1 + nz->margin, nz->drift * 100, AR_REPEAT_CAP);
}
