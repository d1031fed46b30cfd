/* stats.h — summary statistics over per-iteration samples and the bandwidth formulas.
 * Percentiles use linear interpolation between closest ranks (numpy's default). */
#ifndef AR_STATS_H
#define AR_STATS_H

#include <stddef.h>

struct ar_stats {
  double min, p10, p50, p90, p99, max, mean, stddev;
  int n;
};

/* Sorts samples in place (callers keep an unsorted copy if they need one). */
int ar_stats_compute(double *samples, int n, struct ar_stats *out);
double ar_percentile_sorted(const double *sorted, int n, double q); /* q in [0,1] */
double ar_algbw_gbs(size_t bytes, double us);                       /* bytes / time, GB/s (1e9) */
double ar_busbw_factor(int nranks);                                 /* 2(n-1)/n */
double ar_efficiency(double busbw_gbs, double link_gbs);            /* busbw / link; 0: link unknown */

#endif
