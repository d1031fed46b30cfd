/* ostat.c — the ranks of a bootstrap resample's median, drawn from their exact joint distribution by one table
 * lookup (Walker's alias method) instead of two gamma variates and a power per draw (issue 46 Wanted 6). */
#include "analysis/ostat.h"

#include <math.h>
#include <stdlib.h>

/* P(Bin(n, p) = k), 0 <= k <= n. */
static double binom_pmf(int n, int k, double p) {
  if (p <= 0) return k == 0;
  if (p >= 1) return k == n;
  return exp(lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) + k * log(p) + (n - k) * log1p(-p));
}

/* P(Bin(n, p) >= k) = I_p(k, n - k + 1), k >= 1. */
static double binom_ge(int n, int k, double p) {
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  return ar_inc_beta(p, k, n - k + 1.0);
}

int ar_ostat_median_rank(int n) { return n % 2 ? n / 2 + 1 : n / 2; }

/* Outcomes (ik, inext) with their probabilities, as the alias table's input. Draws: n indices uniform on 0..n-1,
 * C(j) the draws <= j ~ Bin(n, (j + 1) / n); ik = min{j: C(j) >= k}, inext = min{j: C(j) >= k + 1}.
 *   P(ik = j) = P(C(j) >= k) - P(C(j - 1) >= k);
 *   P(ik = j, C(j) = k) = P(C(j) = k) - P(C(j - 1) = k) (1 - 1 / (n - j))^(n - k)  (C(j - 1) = k and none at j: ik < j);
 *   then inext > j: the other n - k draws are uniform on the L = n - 1 - j indices above j, inext - j their least,
 *   P(inext - j > d) = (1 - d / L)^(n - k); otherwise (C(j) >= k + 1) inext = j.
 * Ranks j beyond 13 standard deviations of ik (sqrt(n) / 2) and gaps whose remaining tail is below 1e-18 are left
 * out (their mass, below 1e-30 and 1e-18, is spread over the rest by the normalisation). */
static int outcomes(int n, double **pp, int **ikp, int **inp) {
  int k = ar_ostat_median_rank(n), even = n % 2 == 0, h = (int)ceil(6.5 * sqrt((double)n)) + 3;
  int jlo = k - 1 - h < 0 ? 0 : k - 1 - h, jhi = k - 1 + h > n - 1 ? n - 1 : k - 1 + h, cap = 0, m = 0;
  for (int j = jlo; j <= jhi; j++) cap += 1 + (even ? (n - 1 - j < 64 ? n - 1 - j : 64) : 0);
  double *p = malloc(sizeof *p * (size_t)cap);
  int *ik = malloc(sizeof *ik * (size_t)cap), *in = malloc(sizeof *in * (size_t)cap);
  if (!p || !ik || !in) return free(p), free(ik), free(in), -1;
  double prev = jlo > 0 ? binom_ge(n, k, (double)jlo / n) : 0;
  for (int j = jlo; j <= jhi; j++) {
    double t = binom_ge(n, k, (j + 1.0) / n), pj = t - prev;
    prev = t;
    if (pj < 0) pj = 0;
    if (!even) {
      p[m] = pj, ik[m] = j, in[m++] = j;
      continue;
    }
    int L = n - 1 - j, e = n - k;
    double pe = binom_pmf(n, k, (j + 1.0) / n) - (j > 0 ? binom_pmf(n, k, (double)j / n) * pow(1 - 1.0 / (n - j), e) : 0);
    if (pe < 0) pe = 0;
    if (pe > pj) pe = pj;
    p[m] = pj - pe, ik[m] = j, in[m++] = j;
    double above = 1; /* P(inext - j > d - 1 | inext > j) */
    for (int d = 1; d <= L && d <= 64 && above > 1e-18; d++) {
      double next = d == L ? 0 : pow(1 - (double)d / L, e);
      p[m] = pe * (above - next), ik[m] = j, in[m++] = j + d;
      above = next;
    }
  }
  *pp = p, *ikp = ik, *inp = in;
  return m;
}

void ar_ostat_free(struct ar_ostat *t) {
  if (!t) return;
  free(t->col);
  free(t);
}

struct ar_ostat *ar_ostat_new(int n) {
  if (n < 1) return NULL;
  double *p;
  int *ik, *in, m = outcomes(n, &p, &ik, &in);
  if (m <= 0) return NULL;
  struct ar_ostat *t = calloc(1, sizeof *t);
  int *small = malloc(sizeof *small * (size_t)m), *large = malloc(sizeof *large * (size_t)m), ns = 0, nl = 0;
  if (t) t->col = calloc((size_t)m, sizeof *t->col);
  if (!t || !small || !large || !t->col) {
    free(p), free(ik), free(in), free(small), free(large), ar_ostat_free(t);
    return NULL;
  }
  double sum = 0;
  for (int i = 0; i < m; i++) sum += p[i];
  /* Walker/Vose: column i holds outcome i with probability p[i] (scaled to a mean of 1) and an alias otherwise */
  for (int i = 0; i < m; i++) {
    p[i] = p[i] / sum * m;
    t->col[i] = (struct ar_ostat_col){UINT64_MAX, ik[i], in[i], ik[i], in[i]};
    if (p[i] < 1) small[ns++] = i;
    else large[nl++] = i;
  }
  while (ns && nl) {
    int s = small[--ns], l = large[nl - 1];
    t->col[s].thresh = (uint64_t)ldexp(p[s], 64); /* p[s] < 1: below 2^64 */
    t->col[s].alias_ik = ik[l], t->col[s].alias_inext = in[l];
    p[l] -= 1 - p[s];
    if (p[l] < 1) nl--, small[ns++] = l;
  }
  /* what is left (rounding) keeps its own outcome: thresh UINT64_MAX, and the draw compares below it or equal */
  free(p), free(ik), free(in), free(small), free(large);
  t->n = n, t->m = m;
  return t;
}

void ar_ostat_draw(const struct ar_ostat *t, uint64_t r, int *ik, int *inext) {
  /* one 64-bit uniform: its product with m gives the column (high word) and a uniform fraction (low word) */
  unsigned __int128 x = (unsigned __int128)r * (uint64_t)t->m;
  const struct ar_ostat_col *c = &t->col[(size_t)(x >> 64)];
  int own = (uint64_t)x < c->thresh || c->thresh == UINT64_MAX;
  *ik = own ? c->ik : c->alias_ik;
  *inext = own ? c->inext : c->alias_inext;
}
