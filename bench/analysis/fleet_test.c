/* fleet_test.c — each box against its fleet: per cell the fleet's time (median over the group's boxes), and per
 * box the one-sided test "no slower than (1 + margin) x the fleet", Holm over every box x cell of the call.
 *
 * The test of one (box, cell) is ar_fleet_p() below, the one call site of the decision statistics: a box
 * with two or more runs is tested on its runs' log times (a t test whose spread is the larger of the box's
 * own and the pooled spread of the cell's boxes, plus the fleet median's own error); a box measured in one
 * run by the sign test on that run's samples (exact binomial: under "no slower", a sample exceeds
 * (1 + margin) x the fleet with probability at most 1/2). */
#include "analysis/analysis.h"
#include "analysis/fleet.h"
#include "ar.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* P(X >= k) for X ~ Binomial(n, 1/2), summed in log space from k up until the terms vanish. */
static double binom_upper(int n, int k) {
  if (k <= 0) return 1;
  if (k > n) return 0;
  double lc = lgamma(n + 1.0) - n * log(2.0), sum = 0;
  for (int j = k; j <= n; j++) {
    double t = exp(lc - lgamma(j + 1.0) - lgamma(n - j + 1.0));
    sum += t;
    if (j > n / 2 && t < sum * 1e-17) break;
  }
  return sum > 1 ? 1 : sum;
}

/* One-sided upper-tail p of Student's t (df), from the library's two-sided one. */
static double t_upper(double t, double df) {
  double p2 = ar_t_two_sided(t, df);
  return t > 0 ? p2 / 2 : 1 - p2 / 2;
}

/* Samples of a single-run measurement above and at-or-below us, as bounds the window allows: *above and
 * *below are lower bounds (samples outside the window are counted only when their side is certain). */
static void sign_counts(const struct ar_fl_meas *m, double us, int *above, int *below) {
  int in_above = 0;
  for (int i = 0; i < m->nwin; i++) in_above += m->win[i] > us;
  int lo_out = m->woff, hi_out = m->wn - m->woff - m->nwin;
  *above = in_above + (us < m->win[m->nwin - 1] ? hi_out : 0) + (us < m->win[0] ? lo_out : 0);
  *below = (m->nwin - in_above) + (us >= m->win[0] ? lo_out : 0) + (us >= m->win[m->nwin - 1] ? hi_out : 0);
}

/* THE test (see the header comment): p of "box no slower than (1 + margin) x the fleet" in *p_slow and p of
 * "box as slow as that or slower" in *p_within; NAN when the box cannot be tested (one value, no samples). */
static void ar_fleet_p(const struct ar_fl_meas *m, const struct cell_ref *r, double margin, double *p_slow,
                       double *p_within) {
  double bound = r->level + log1p(margin); /* log us of (1 + margin) x the fleet */
  *p_slow = *p_within = NAN;
  if (m->nv >= 2) {
    double mean, var;
    mean_var(m->v, m->nv, &mean, &var);
    double s2 = var > r->pooled ? var : r->pooled, df = var > r->pooled ? m->nv - 1 : r->df;
    double se = sqrt(s2 / m->nv + r->se2);
    if (!(se > 0)) { /* no spread anywhere: the values decide */
      *p_slow = mean > bound ? 0 : 1;
      *p_within = mean < bound ? 0 : 1;
      return;
    }
    *p_slow = t_upper((mean - bound) / se, df);
    *p_within = t_upper((bound - mean) / se, df);
  } else if (m->nwin > 0 && r->se2 == 0) { /* the fleet median's own error is not in a sign test: exact refs only */
    int above, below;
    sign_counts(m, exp(bound), &above, &below);
    *p_slow = binom_upper(m->wn, above);
    *p_within = binom_upper(m->wn, below);
  } else if (m->nwin > 0) { /* one run, an uncertain fleet: the run's median against the fleet's interval */
    double med = log(median_sorted(m->win, m->nwin)), se = sqrt(r->se2);
    *p_slow = t_upper((med - bound) / se, r->boxes - 1);
    *p_within = t_upper((bound - med) / se, r->boxes - 1);
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
