/* interp.c — a configuration's time at a message size: the measured cell, or log-log interpolation between the
 * measured sizes either side; outside them nothing (impact refuses that cell and names the size to measure). */
#include "impact/impact.h"
#include <math.h>

double ar_impact_loglog(double x0, double y0, double x1, double y1, double x) {
  double f = (log(x) - log(x0)) / (log(x1) - log(x0));
  return exp(log(y0) + f * (log(y1) - log(y0)));
}

/* The median over runs (the grid's p50) and the lowest and highest run's p50 of one cell; -1 when unmeasured. */
static int cell(const struct ar_grid *g, int s, int c, double *p50, double *lo, double *hi) {
  json_t *runs = ar_grid_runs(g, s, c), *r;
  *p50 = ar_grid_p50(g, s, c);
  if (!runs || isnan(*p50) || *p50 <= 0) return -1;
  *lo = *hi = *p50;
  size_t i;
  json_array_foreach(runs, i, r) {
    double v = ar_rec_p50(r);
    if (isnan(v) || v <= 0) continue;
    if (v < *lo) *lo = v;
    if (v > *hi) *hi = v;
  }
  return 0;
}

int ar_impact_time_at(const struct ar_grid *g, int c, size_t bytes, struct ar_impact_time *t) {
  int b = -1, a = -1;
  double v;
  double lo, hi;
  for (int s = 0; s < g->nsize; s++) {
    if (cell(g, s, c, &v, &lo, &hi)) continue;
    if (g->size[s] <= bytes) b = s;
    if (g->size[s] >= bytes && a < 0) a = s;
  }
  t->below = b >= 0 ? g->size[b] : 0;
  t->above = a >= 0 ? g->size[a] : 0;
  t->interpolated = 0;
  if (b < 0 || a < 0) return -1;
  double v0, l0, h0, v1, l1, h1;
  cell(g, b, c, &v0, &l0, &h0);
  if (a == b) {
    t->us = v0, t->lo = l0, t->hi = h0;
    return 0;
  }
  cell(g, a, c, &v1, &l1, &h1);
  double x0 = (double)g->size[b], x1 = (double)g->size[a], x = (double)bytes;
  t->us = ar_impact_loglog(x0, v0, x1, v1, x);
  t->lo = ar_impact_loglog(x0, l0, x1, l1, x);
  t->hi = ar_impact_loglog(x0, h0, x1, h1, x);
  t->interpolated = 1;
  return 0;
}

int ar_impact_bracket(const struct ar_grid *g, size_t bytes, int *s0, int *s1) {
  *s0 = *s1 = -1;
  for (int s = 0; s < g->nsize; s++) {
    if (g->size[s] <= bytes) *s0 = s;
    if (g->size[s] >= bytes && *s1 < 0) *s1 = s;
  }
  return *s0 < 0 || *s1 < 0 ? -1 : 0;
}
