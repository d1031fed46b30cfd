/* test_ostat.c — bench/analysis/ostat.c: the alias table's probabilities of a bootstrap resample's median ranks against
 * every resample of n <= 8 values enumerated, and for larger n against the multinomial formula; the draw's own/alias cut. */
#include "../lib/ar_cmocka.h"
#include "analysis/ostat.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The probability the table gives each outcome (ik, inext): column i holds its own outcome for a fraction thresh / 2^64
 * of its 1/m, its alias for the rest (thresh UINT64_MAX: all of it). p[ik * n + inext] summed over the columns. */
static void table_probs(const struct ar_ostat *t, double *p) {
  int n = t->n;
  memset(p, 0, sizeof *p * (size_t)n * (size_t)n);
  for (int i = 0; i < t->m; i++) {
    const struct ar_ostat_col *c = &t->col[i];
    double own = c->thresh == UINT64_MAX ? 1 : ldexp((double)c->thresh, -64);
    p[c->ik * n + c->inext] += own / t->m;
    p[c->alias_ik * n + c->alias_inext] += (1 - own) / t->m;
  }
}

/* Every one of the n^n resamples (draws with replacement of the indices 0..n-1), its k-th and k+1-th smallest
 * (k = ar_stats' median rank; odd n: the k-th twice, as the table keeps it), each of probability n^-n. The table's
 * probabilities agree to 1e-12 (the incomplete beta's continued fraction: ~1e-13 off; a wrong outcome is off by 1e-3 or more). */
static void enumerate(int n, double *p) {
  int k = (n + 1) / 2, d[8] = {0}, cnt[8]; /* ar_stats' median: the middle value, or the mean of ranks n/2, n/2 + 1 */
  double each = pow(n, -n);
  memset(p, 0, sizeof *p * (size_t)n * (size_t)n);
  for (;;) {
    memset(cnt, 0, sizeof cnt);
    for (int i = 0; i < n; i++) cnt[d[i]]++;
    int ik = -1, in = -1, c = 0;
    for (int j = 0; j < n; j++) {
      c += cnt[j];
      if (ik < 0 && c >= k) ik = j;
      if (in < 0 && c >= k + 1) in = j;
    }
    if (n % 2 || in < 0) in = ik;
    p[ik * n + in] += each;
    int i = 0;
    while (i < n && ++d[i] == n) d[i++] = 0;
    if (i == n) return;
  }
}

static void test_enumerated(void **st) {
  (void)st;
  for (int n = 1; n <= 8; n++) {
    struct ar_ostat *t = ar_ostat_new(n);
    assert_non_null(t);
    assert_int_equal(t->n, n);
    double *got = malloc(sizeof *got * (size_t)(n * n)), *want = malloc(sizeof *want * (size_t)(n * n));
    table_probs(t, got);
    enumerate(n, want);
    for (int i = 0; i < n * n; i++) {
      if (fabs(got[i] - want[i]) > 1e-12) fail_msg("n=%d ik=%d inext=%d: table %.17g, exact %.17g", n, i / n, i % n, got[i], want[i]);
    }
    free(got), free(want), ar_ostat_free(t);
  }
  /* exact values by hand: n = 2, k = 1: P(ik 0, inext 0) = 1/4 (both 0), P(0, 1) = 1/2, P(1, 1) = 1/4 */
  struct ar_ostat *t = ar_ostat_new(2);
  double p[4];
  table_probs(t, p);
  assert_true(fabs(p[0] - 0.25) < 1e-15 && fabs(p[1] - 0.5) < 1e-15 && fabs(p[3] - 0.25) < 1e-15 && p[2] == 0);
  ar_ostat_free(t);
  /* n = 3, k = 2 (the middle of three): P(ik = 1) = 1 - 2 (7/27) = 13/27, P(0) = P(2) = 7/27 */
  t = ar_ostat_new(3);
  double q[9];
  table_probs(t, q);
  assert_true(fabs(q[0] - 7.0 / 27) < 1e-15 && fabs(q[4] - 13.0 / 27) < 1e-15 && fabs(q[8] - 7.0 / 27) < 1e-15);
  ar_ostat_free(t);
}

/* The multinomial formula's probability that the k-th smallest is j and the next j + d (d >= 1): a of the draws
 * below j (a < k), k - a at j, none in (j, j + d), the other n - k at or above j + d with one at j + d at least. */
static double joint_formula(int n, int k, int j, int d) {
  long double s = 0, e = n - k;
  for (int a = 0; a < k; a++) {
    if (a > 0 && j == 0) break;
    long double l = lgammal(n + 1.0L) - lgammal(a + 1.0L) - lgammal(k - a + 1.0L) - lgammal(e + 1) +
                    (a ? a * logl((long double)j / n) : 0) + (k - a) * logl(1.0L / n);
    s += expl(l);
  }
  long double hi = powl((long double)(n - j - d) / n, e), lo = n - j - d - 1 > 0 ? powl((long double)(n - j - d - 1) / n, e) : 0;
  return (double)(s * (hi - lo));
}

/* P(the k-th smallest is j) by the binomial sum: P(C(j) >= k) - P(C(j - 1) >= k), C(j) ~ Bin(n, (j + 1) / n). */
static double marginal_formula(int n, int k, int j) {
  long double a = 0, b = 0;
  for (int c = k; c <= n; c++) {
    long double lc = lgammal(n + 1.0L) - lgammal(c + 1.0L) - lgammal(n - c + 1.0L);
    a += expl(lc + c * logl((j + 1.0L) / n) + (n - c) * log1pl(-(j + 1.0L) / n));
    if (j > 0) b += expl(lc + c * logl((long double)j / n) + (n - c) * log1pl(-(long double)j / n));
  }
  return (double)(a - b);
}

static void test_formula(void **st) {
  (void)st;
  static const int ns[] = {9, 10, 41, 64, 101, 200};
  for (size_t x = 0; x < sizeof ns / sizeof *ns; x++) {
    int n = ns[x], k = (n + 1) / 2;
    assert_int_equal(ar_ostat_median_rank(n), k);
    struct ar_ostat *t = ar_ostat_new(n);
    assert_non_null(t);
    double *p = malloc(sizeof *p * (size_t)(n * n)), mass = 0;
    table_probs(t, p);
    for (int j = 0; j < n; j++) {
      double row = 0;
      for (int i = 0; i < n; i++) row += p[j * n + i], mass += p[j * n + i];
      double want = marginal_formula(n, k, j);
      if (fabs(row - want) > 1e-12) fail_msg("n=%d P(ik=%d): table %.17g, binomial %.17g", n, j, row, want);
      if (n % 2) continue;
      for (int dd = 1; j + dd < n; dd++) {
        double w = joint_formula(n, k, j, dd);
        if (fabs(p[j * n + j + dd] - w) > 1e-12) fail_msg("n=%d P(%d, %d): table %.17g, formula %.17g", n, j, j + dd, p[j * n + j + dd], w);
      }
      for (int i = 0; i < j; i++) assert_true(p[j * n + i] == 0); /* inext >= ik */
    }
    assert_true(fabs(mass - 1) < 1e-12);
    free(p), ar_ostat_free(t);
  }
}

/* The draw: r's product with m picks column r * m >> 64; its low word below thresh gives the column's own outcome,
 * at or above it the alias. */
static void test_draw(void **st) {
  (void)st;
  struct ar_ostat *t = ar_ostat_new(10);
  int own = 0, alias = 0;
  for (int i = 0; i < t->m; i++) {
    const struct ar_ostat_col *c = &t->col[i];
    int ik, in;
    unsigned __int128 base = (unsigned __int128)i << 64;
    if (c->thresh == UINT64_MAX || c->thresh < 2 * (uint64_t)t->m) continue;
    /* r = ceil((base + f) / m): the low word of r * m lies in [f, f + m) */
    uint64_t below = (uint64_t)((base + c->thresh - 2 * (uint64_t)t->m + t->m - 1) / t->m),
             at = (uint64_t)((base + c->thresh + t->m - 1) / t->m);
    ar_ostat_draw(t, below, &ik, &in);
    assert_true(ik == c->ik && in == c->inext);
    ar_ostat_draw(t, at, &ik, &in);
    assert_true(ik == c->alias_ik && in == c->alias_inext);
    own += c->ik != c->alias_ik || c->inext != c->alias_inext;
    alias++;
  }
  assert_true(alias > 0 && own > 0); /* the cut was looked at on columns whose two outcomes differ */
  ar_ostat_free(t);
  /* test_noise's many_counts: 24 counts near 1000 pass a comparison's budget (some runs draw by the gamma variates) */
  t = ar_ostat_new(1000);
  assert_true(24 * ar_ostat_bytes(t) > AR_OSTAT_BUDGET && 4 * ar_ostat_bytes(t) < AR_OSTAT_BUDGET);
  ar_ostat_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_enumerated), cmocka_unit_test(test_formula),
                                     cmocka_unit_test(test_draw)};
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
