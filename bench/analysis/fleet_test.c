/* fleet_test.c — each box against its fleet: per cell the fleet's time (median over the group's boxes), and per
 * box the one-sided test "no slower than (1 + margin) x the fleet", Holm over every box x cell of the call.
 *
 * The test of one (box, cell) is ar_fleet_p() below, the one call site of the decision statistics: a box
 * with two or more runs is tested on its runs' log times by a moderated t (Smyth 2004, limma's answer to
 * thousands of parallel tests of three replicates each): the box's run variance shrunk toward the pooled
 * variance of the cell's boxes, plus the fleet median's own error; a box measured in one
 * run on that run's median, with the median's error from the run's samples plus the fleet median's (one run
 * cannot show drift between runs: the margin has to cover it). */
#include "analysis/analysis.h"
#include "analysis/fleet.h"
#include "ar.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The weight (degrees of freedom) of the cell's pooled run variance in a box's moderated variance, at most:
 * with three runs a box's own variance alone has 2 df, and Student's t with 2 df cannot reach the p-values a
 * family of thousands of box x cell tests needs (t = 43 gives p = 3e-4); the cap keeps a box whose runs really
 * are noisier than the fleet's from hiding behind the pool. */
#define AR_FLEET_PRIOR_DF 10.0

static int cmp_d(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static double median_sorted(const double *v, int n) { return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2; }

/* A box's level in a cell: the median of its runs' log times. */
static double box_level(const struct ar_fl_meas *m, double *tmp) {
  memcpy(tmp, m->v, sizeof *tmp * (size_t)m->nv);
  qsort(tmp, (size_t)m->nv, sizeof *tmp, cmp_d);
  return median_sorted(tmp, m->nv);
}

static void mean_var(const double *v, int n, double *mean, double *var) {
  double s = 0, q = 0;
  for (int i = 0; i < n; i++) s += v[i];
  *mean = s / n;
  for (int i = 0; i < n; i++) q += (v[i] - *mean) * (v[i] - *mean);
  *var = n > 1 ? q / (n - 1) : 0;
}

/* What one cell's boxes share: the fleet's level (log us), its standard error, the pooled run spread. */
struct cell_ref {
  double level, se2, pooled, df;
  int boxes;
};

/* One-sided upper-tail p of Student's t (df), from the library's two-sided one. */
static double t_upper(double t, double df) {
  double p2 = ar_t_two_sided(t, df);
  return t > 0 ? p2 / 2 : 1 - p2 / 2;
}

/* One run's level and its noise from the window of its samples: the median (log us) and its standard error,
 * half the log distance between the ranks a median's order statistic falls on within one standard deviation
 * (n/2 -+ sqrt(n)/2; the window keeps ten). */
static double window_level(const struct ar_fl_meas *m, double *se) {
  int n = m->wn, h = (int)ceil(sqrt((double)n) / 2), lo = n / 2 - h, hi = (n - 1) / 2 + h;
  double med = (m->win[(n - 1) / 2 - m->woff] + m->win[n / 2 - m->woff]) / 2;
  lo = lo < m->woff ? m->woff : lo;
  hi = hi >= m->woff + m->nwin ? m->woff + m->nwin - 1 : hi;
  *se = m->win[lo - m->woff] > 0 ? (log(m->win[hi - m->woff]) - log(m->win[lo - m->woff])) / 2 : NAN;
  return log(med);
}

/* Both one-sided p-values of a level (log us) against the bound, with standard error se and df degrees of
 * freedom: "no slower than the bound" (p_slow) and "as slow as the bound or slower" (p_within). */
static void one_sided(double level, double bound, double se, double df, double *p_slow, double *p_within) {
  if (isnan(se)) return;
  if (!(se > 0)) { /* no spread anywhere: the values decide */
    *p_slow = level > bound ? 0 : 1;
    *p_within = level < bound ? 0 : 1;
    return;
  }
  *p_slow = t_upper((level - bound) / se, df);
  *p_within = t_upper((bound - level) / se, df);
}

/* THE test (see the header comment): p of "box no slower than (1 + margin) x the fleet" in *p_slow and p of
 * "box as slow as that or slower" in *p_within; NAN when the box cannot be tested (one value, no samples). */
static void ar_fleet_p(const struct ar_fl_meas *m, const struct cell_ref *r, double margin, double *p_slow,
                       double *p_within) {
  double bound = r->level + log1p(margin); /* log us of (1 + margin) x the fleet */
  *p_slow = *p_within = NAN;
  if (m->nv >= 2) { /* runs: their mean log time, their spread moderated by the cell's (see AR_FLEET_PRIOR_DF) */
    double mean, var, d0 = r->df < AR_FLEET_PRIOR_DF ? r->df : AR_FLEET_PRIOR_DF, d = m->nv - 1;
    mean_var(m->v, m->nv, &mean, &var);
    double s2 = (d0 * r->pooled + d * var) / (d0 + d);
    one_sided(mean, bound, sqrt(s2 / m->nv + r->se2), d0 + d, p_slow, p_within);
  } else if (m->nwin > 0) { /* one run: its median against the fleet, the run's own noise and the fleet's */
    double se_run, med = window_level(m, &se_run);
    one_sided(med, bound, sqrt(se_run * se_run + r->se2), r->boxes > 2 ? r->boxes - 1 : 1, p_slow, p_within);
  }
}

/* The fleet's level of one cell from its boxes' measurements (idx[0..n)), and the spreads the tests use. */
static void cell_reference(const struct ar_fleet *f, const int *idx, int n, struct cell_ref *r) {
  double *levels = malloc(sizeof *levels * (size_t)n), *dev = malloc(sizeof *dev * (size_t)n);
  double num = 0, df = 0;
  memset(r, 0, sizeof *r);
  r->boxes = n;
  if (!levels || !dev) {
    free(levels), free(dev);
    r->level = NAN;
    return;
  }
  for (int i = 0; i < n; i++) {
    const struct ar_fl_meas *m = &f->m[idx[i]];
    double *v = malloc(sizeof *v * (size_t)m->nv);
    levels[i] = v ? box_level(m, v) : NAN;
    free(v);
    if (m->nv >= 2) {
      double mean, var;
      mean_var(m->v, m->nv, &mean, &var);
      num += (m->nv - 1) * var;
      df += m->nv - 1;
    }
  }
  qsort(levels, (size_t)n, sizeof *levels, cmp_d);
  r->level = median_sorted(levels, n);
  for (int i = 0; i < n; i++) dev[i] = fabs(levels[i] - r->level);
  qsort(dev, (size_t)n, sizeof *dev, cmp_d);
  double sd = 1.4826 * median_sorted(dev, n);      /* the boxes' spread, robust to the box that is off */
  r->se2 = 1.5708 * sd * sd / n;                   /* a median's variance: pi/2 x sd^2 / n */
  r->pooled = df > 0 ? num / df : 0;
  r->df = df > 0 ? df : 1;
  free(levels), free(dev);
}

static int cmp_cell(const void *x, const void *y, void *arg) {
  const struct ar_fleet *f = arg;
  int a = *(const int *)x, b = *(const int *)y;
  return f->m[a].cell != f->m[b].cell ? f->m[a].cell - f->m[b].cell : a - b;
}

int ar_fleet_compare(const struct ar_fleet *f, double margin, double alpha, struct ar_fl_verdict *v, int *fam_tests) {
  int *ord = malloc(sizeof *ord * (size_t)(f->nm + 1)), *tid = malloc(sizeof *tid * (size_t)(f->nm + 1));
  double *p = malloc(sizeof *p * (size_t)(f->nm + 1));
  char *rej = malloc((size_t)f->nm + 1);
  if (!ord || !tid || !p || !rej) return free(ord), free(tid), free(p), free(rej), -AR_ERUNTIME;
  for (int i = 0; i < f->nm; i++) ord[i] = i;
  qsort_r(ord, (size_t)f->nm, sizeof *ord, cmp_cell, (void *)f);
  int m = 0;
  for (int a = 0; a < f->nm;) {
    int b = a;
    while (b < f->nm && f->m[ord[b]].cell == f->m[ord[a]].cell) b++;
    struct cell_ref r;
    cell_reference(f, ord + a, b - a, &r);
    for (int k = a; k < b; k++) {
      int i = ord[k];
      const struct ar_fl_meas *me = &f->m[i];
      double *tmp = malloc(sizeof *tmp * (size_t)me->nv), ps = NAN, pw = NAN;
      double lvl = tmp ? box_level(me, tmp) : NAN;
      free(tmp);
      if (b - a >= 2) ar_fleet_p(me, &r, margin, &ps, &pw);
      v[i] = (struct ar_fl_verdict){exp(r.level), exp(lvl), exp(lvl - r.level), ps, 0, !isnan(pw) && pw <= alpha};
      tid[i] = -1;
      if (!isnan(ps)) p[m] = ps, tid[i] = m++;
    }
    a = b;
  }
  int rc = ar_holm(p, m, alpha, rej, NULL);
  for (int i = 0; !rc && i < f->nm; i++) v[i].slow = tid[i] >= 0 && rej[tid[i]];
  *fam_tests = m;
  free(ord), free(tid), free(p), free(rej);
  return rc;
}
