/* ostat.h — the ranks of a bootstrap resample's median (the k-th and k+1-th smallest of n draws with replacement
 * from n sorted values), drawn from their exact joint distribution by one table lookup (ostat.c). */
#ifndef AR_OSTAT_H
#define AR_OSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

/* One column of Walker's alias table: its own outcome when the draw's fraction (2^64 scale) is below thresh, else
 * its alias; an outcome is the pair of 0-based ranks (the k-th smallest's, the next one's). One cache line a draw. */
struct ar_ostat_col {
  uint64_t thresh;
  int32_t ik, inext, alias_ik, alias_inext;
};

/* The table for n values: m outcomes, m columns. */
struct ar_ostat {
  int n, m;
  struct ar_ostat_col *col;
};

/* k of a resample's median, 1-based (ar_stats' median: the middle value, or the mean of ranks k and k + 1 for even n). */
int ar_ostat_median_rank(int n);
/* The table for n >= 1 values (NULL: out of memory); free with ar_ostat_free. */
struct ar_ostat *ar_ostat_new(int n);
void ar_ostat_free(struct ar_ostat *t);
/* Its memory (the columns); a comparison's tables stay within AR_OSTAT_BUDGET (noise.c: past it, the gamma draws). */
static inline size_t ar_ostat_bytes(const struct ar_ostat *t) { return sizeof *t + sizeof *t->col * (size_t)t->m; }
#define AR_OSTAT_BUDGET ((size_t)8 << 20)
#define AR_OSTAT_CACHE ((size_t)16 << 20) /* a call's cache shared by its comparisons (noise.c) */
/* One draw from one 64-bit uniform r: the ranks of the k-th and k+1-th smallest (the same for odd n: unused). */
void ar_ostat_draw(const struct ar_ostat *t, uint64_t r, int *ik, int *inext);

#endif
