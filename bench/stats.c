/* stats.c — min/percentiles/mean/stddev over per-iteration samples; algbw and busbw.
 * Percentile q uses linear interpolation at position q*(n-1) of the sorted samples. */
#include "stats.h"
#include "ar.h"
#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double ar_percentile_sorted(const double *s, int n, double q) {
  if (n <= 0) return NAN;
  if (q <= 0) return s[0];
  if (q >= 1) return s[n - 1];
  double pos = q * (n - 1);
  int lo = (int)floor(pos);
  double frac = pos - lo;
  if (lo + 1 >= n) return s[n - 1];
  return s[lo] + (s[lo + 1] - s[lo]) * frac;
}

int ar_stats_compute(double *samples, int n, struct ar_stats *o) {
  if (n <= 0) return -AR_EINVAL;
  qsort(samples, (size_t)n, sizeof *samples, cmp_double);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += samples[i];
  double mean = sum / n, var = 0;
  for (int i = 0; i < n; i++) var += (samples[i] - mean) * (samples[i] - mean);
  o->n = n;
  o->min = samples[0];
  o->max = samples[n - 1];
  o->p10 = ar_percentile_sorted(samples, n, 0.10);
  o->p50 = ar_percentile_sorted(samples, n, 0.50);
  o->p90 = ar_percentile_sorted(samples, n, 0.90);
  o->p99 = ar_percentile_sorted(samples, n, 0.99);
  o->mean = mean;
  o->stddev = n > 1 ? sqrt(var / (n - 1)) : 0;
  return 0;
}

double ar_algbw_gbs(size_t bytes, double us) { return us > 0 ? (double)bytes / (us * 1e3) : 0; }

double ar_busbw_factor(int nranks) { return nranks > 0 ? 2.0 * (nranks - 1) / nranks : 0; }

double ar_efficiency(double busbw_gbs, double link_gbs) { return link_gbs > 0 ? busbw_gbs / link_gbs : 0; }
