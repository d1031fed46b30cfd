/* noise.c — what separates a real difference from noise: a bootstrap over runs and their samples
 * (ratio of medians), and per size the winner only when it is faster beyond that noise, else a tie. */
#include "analysis/analysis.h"
#include "backend.h"
#include "ar.h"
#include "results.h"
#include "stats.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void ar_noise_defaults(struct ar_noise *nz) {
  nz->resamples = AR_NOISE_RESAMPLES;
  nz->seed = AR_NOISE_SEED;
  nz->drift = AR_NOISE_DRIFT;
  nz->grids = 1;
}

int ar_noise_drift_parse(struct ar_noise *nz, const char *arg, char *err, size_t len) {
  char *end;
  double v = strtod(arg, &end);
  if (end == arg || *end || !(v >= 0 && v <= 100)) {
    snprintf(err, len, "bad --drift '%s' (expected a percentage from 0 to 100, e.g. 5)", arg);
    return -AR_EINVAL;
  }
  nz->drift = v / 100;
  return 0;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* ---- bootstrap ---- */

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double unif(uint64_t *rng) { return ((double)(splitmix(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

static double normal(uint64_t *rng) { return sqrt(-2 * log(unif(rng))) * cos(6.283185307179586 * unif(rng)); }

/* Gamma(a, 1) for a >= 1 (Marsaglia and Tsang). */
static double gamma_ge1(double a, uint64_t *rng) {
  double d = a - 1.0 / 3, c = 1 / sqrt(9 * d);
  for (;;) {
    double x = normal(rng), v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    double u = unif(rng);
    if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) return d * v;
  }
}

/* Index of the k-th smallest (1-based) of n draws with replacement from 0..n-1, and of the next one:
 * the k-th of n uniforms is Beta(k, n - k + 1); the next is above it by (1 - u) Beta(1, n - k). */
static void order_stat(int n, int k, uint64_t *rng, int *ik, int *inext) {
  double x = gamma_ge1(k, rng), y = gamma_ge1(n - k + 1, rng), u = x / (x + y);
  double next = n > k ? u + (1 - u) * (1 - pow(unif(rng), 1.0 / (n - k))) : u;
  *ik = (int)(u * n);
  *inext = (int)(next * n);
  if (*ik >= n) *ik = n - 1;
  if (*inext >= n) *inext = n - 1;
}

/* Value of sorted rank i of a run kept as the window of ranks off .. off + w (ar_samples_window: a
 * resampled median's rank lies outside only beyond ten standard deviations; then the nearest end). */
static double at_rank(const double *win, int off, int w, int i) {
  i -= off;
  return win[i < 0 ? 0 : i >= w ? w - 1 : i];
}

/* The median of one bootstrap resample of a run of n sorted samples (win: ranks off.. of them), as
 * ar_stats computes a median (mean of the two middle values for even n), drawn in O(1) from the
 * distribution of its order statistics. */
static double resampled_median(const double *win, int n, int off, int w, uint64_t *rng) {
  int ik, inext;
  order_stat(n, n % 2 ? n / 2 + 1 : n / 2, rng, &ik, &inext);
  return n % 2 ? at_rank(win, off, w, ik) : (at_rank(win, off, w, ik) + at_rank(win, off, w, inext)) / 2;
}

static int cmp_dbl(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* The sampled runs of one side: run r has n[r] samples, of which the sorted ranks woff[r] .. are
 * at s[off[r] .. off[r + 1]). */
struct side {
  double *s, *tmp;
  int *off, *n, *woff, nruns, total;
};

static void side_free(struct side *sd) {
  free(sd->s);
  free(sd->tmp);
  free(sd->off);
  free(sd->n);
  free(sd->woff);
}

/* Values a run keeps (its window, or all its samples_us), how many samples it had, where they start. */
static int run_kept(json_t *rec, int *nsamp, int *woff) {
  json_t *win = json_object_get(rec, "_win");
  *nsamp = (int)ar_rec_nsamples(rec);
  *woff = win ? (int)json_integer_value(json_object_get(rec, "_woff")) : 0;
  return win ? (int)(json_string_length(win) / sizeof(double)) : *nsamp;
}

static int side_load(json_t *runs, struct side *sd) {
  memset(sd, 0, sizeof *sd);
  size_t n = json_array_size(runs);
  int ns, wo;
  for (size_t i = 0; i < n; i++) sd->total += run_kept(json_array_get(runs, i), &ns, &wo);
  if (!sd->total) return -1;
  sd->s = malloc(sizeof *sd->s * (size_t)sd->total);
  sd->off = malloc(sizeof *sd->off * (n + 1));
  sd->n = malloc(sizeof *sd->n * (n + 1));
  sd->woff = malloc(sizeof *sd->woff * (n + 1));
  sd->tmp = malloc(sizeof *sd->tmp * (n + 1));
  if (!sd->s || !sd->off || !sd->n || !sd->woff || !sd->tmp) return side_free(sd), -1;
  int k = 0;
  for (size_t i = 0; i < n; i++) {
    json_t *rec = json_array_get(runs, i), *win = json_object_get(rec, "_win");
    int m = run_kept(rec, &ns, &wo);
    if (!m || !ns) continue;
    sd->off[sd->nruns] = k;
    sd->n[sd->nruns] = ns;
    sd->woff[sd->nruns++] = wo;
    if (win) memcpy(sd->s + k, json_string_value(win), (size_t)m * sizeof *sd->s); /* sorted already */
    else {
      json_t *a = json_object_get(rec, "samples_us");
      for (int j = 0; j < m; j++) sd->s[k + j] = json_number_value(json_array_get(a, (size_t)j));
      qsort(sd->s + k, (size_t)m, sizeof *sd->s, cmp_dbl);
    }
    k += m;
  }
  sd->off[sd->nruns] = k;
  return 0;
}

/* One resample: the side's runs drawn with replacement (no draw when there is one), each drawn run's
 * samples resampled; the median over the runs of their resampled medians (a side's p50 is the median
 * of its runs' p50s). */
static double side_resample(struct side *sd, uint64_t *rng) {
  for (int r = 0; r < sd->nruns; r++) {
    int run = sd->nruns == 1 ? 0 : (int)(splitmix(rng) % (uint64_t)sd->nruns);
    sd->tmp[r] = resampled_median(sd->s + sd->off[run], sd->n[run], sd->woff[run], sd->off[run + 1] - sd->off[run], rng);
  }
  if (sd->nruns == 1) return sd->tmp[0];
  qsort(sd->tmp, (size_t)sd->nruns, sizeof *sd->tmp, cmp_dbl);
  int m = sd->nruns;
  return m % 2 ? sd->tmp[m / 2] : (sd->tmp[m / 2 - 1] + sd->tmp[m / 2]) / 2;
}

static uint64_t fnv(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

int ar_boot_test(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double *lo,
                 double *hi, double *p) {
  struct side a, b;
  if (side_load(runs_a, &a)) return -1;
  if (side_load(runs_b, &b)) return side_free(&a), -1;
  double *ratio = malloc(sizeof *ratio * (size_t)nz->resamples);
  int rc = ratio ? 0 : -1, below = 0, above = 0;
  uint64_t rng = nz->seed ^ fnv(key); /* per match: independent of file order */
  for (int k = 0; !rc && k < nz->resamples; k++) {
    double ma = side_resample(&a, &rng), mb = side_resample(&b, &rng);
    ratio[k] = mb / ma;
    below += ratio[k] <= 1.0;
    above += ratio[k] >= 1.0;
  }
  if (!rc) {
    qsort(ratio, (size_t)nz->resamples, sizeof *ratio, cmp_double);
    *lo = ar_percentile_sorted(ratio, nz->resamples, 0.025);
    *hi = ar_percentile_sorted(ratio, nz->resamples, 0.975);
    if (p) { /* two-sided bootstrap p of "ratio = 1": twice the smaller tail, +1 so it is never 0 by chance */
      int tail = below < above ? below : above;
      *p = fmin(1.0, 2.0 * (tail + 1) / (nz->resamples + 1.0));
      if (*lo == *hi && *lo != 1.0) *p = 0; /* degenerate: every resample gives the same ratio, not 1 */
    }
  }
  free(ratio);
  side_free(&a);
  side_free(&b);
  return rc;
}

int ar_boot_ratio(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double *lo,
                  double *hi) {
  return ar_boot_test(runs_a, runs_b, key, nz, lo, hi, NULL);
}

/* Regularized incomplete beta I_x(a, b): the continued fraction (modified Lentz) where it converges
 * fast, x < (a + 1) / (a + b + 2), else through the symmetry I_x(a, b) = 1 - I_{1-x}(b, a). */
static double beta_cf(double x, double a, double b) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (fabs(d) < tiny ? tiny : d);
  double f = d;
  for (int m = 1; m <= 300; m++) {
    for (int odd = 0; odd < 2; odd++) {
      double num = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
                       : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
      d = 1 + num * d;
      d = 1 / (fabs(d) < tiny ? tiny : d);
      c = 1 + num / c;
      if (fabs(c) < tiny) c = tiny;
      f *= c * d;
      if (odd && fabs(c * d - 1) < 1e-14) return f;
    }
  }
  return f;
}

static double inc_beta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_cf(x, a, b) / a;
  return 1 - front * beta_cf(1 - x, b, a) / b;
}

double ar_t_two_sided(double t, double df) {
  if (isnan(t) || !(df > 0)) return NAN;
  if (isinf(t)) return 0;
  return inc_beta(df / (df + t * t), df / 2, 0.5);
}

/* log p50 of each run with one (up to 64). */
static int log_p50s(json_t *runs, double *v) {
  int k = 0;
  for (size_t i = 0; i < json_array_size(runs) && k < 64; i++) {
    double p = ar_rec_p50(json_array_get(runs, i));
    if (p > 0) v[k++] = log(p);
  }
  return k;
}

double ar_runs_welch_p(json_t *runs_a, json_t *runs_b) {
  double a[64], b[64], ma = 0, mb = 0, va = 0, vb = 0;
  int na = log_p50s(runs_a, a), nb = log_p50s(runs_b, b);
  if (na < 2 || nb < 2) return NAN;
  for (int i = 0; i < na; i++) ma += a[i] / na;
  for (int i = 0; i < nb; i++) mb += b[i] / nb;
  for (int i = 0; i < na; i++) va += (a[i] - ma) * (a[i] - ma) / (na - 1);
  for (int i = 0; i < nb; i++) vb += (b[i] - mb) * (b[i] - mb) / (nb - 1);
  double sa = va / na, sb = vb / nb, se = sqrt(sa + sb), df;
  if (na == nb) { /* Student's pooled t: exact under the null of one distribution, robust to unequal spread at
                   * equal run counts, and with na + nb - 2 degrees of freedom where Welch's would fall to ~2 */
    double pooled = ((na - 1) * va + (nb - 1) * vb) / (na + nb - 2);
    se = sqrt(pooled * (1.0 / na + 1.0 / nb));
    df = na + nb - 2;
  } else {
    df = (sa + sb) * (sa + sb) / (sa * sa / (na - 1) + sb * sb / (nb - 1));
  }
  if (!(se > 1e-12 * (fabs(ma) + fabs(mb) + 1))) return fabs(ma - mb) > 1e-12 ? 0 : 1; /* no spread at all */
  return ar_t_two_sided((mb - ma) / se, df);
}

/* Holm–Bonferroni: which of the m hypotheses with p-values p[] are rejected at family-wise error
 * alpha. Sorted ascending, the k-th (0-based) is rejected while p <= alpha / (m - k); the first that is
 * not stops the rest. Ties in p are ordered by index, so the result is deterministic. */
static int cmp_holm(const void *x, const void *y, void *arg) {
  const double *p = arg;
  int a = *(const int *)x, b = *(const int *)y;
  return p[a] < p[b] ? -1 : p[a] > p[b] ? 1 : a - b;
}

int ar_holm(const double *p, int m, double alpha, char *reject, double *padj) {
  int *ord = malloc(sizeof *ord * (size_t)(m + 1));
  if (!ord) return -AR_ERUNTIME;
  for (int i = 0; i < m; i++) ord[i] = i, reject[i] = 0;
  qsort_r(ord, (size_t)m, sizeof *ord, cmp_holm, (void *)p);
  double run = 0;
  int stop = 0;
  for (int k = 0; k < m; k++) {
    int i = ord[k];
    double adj = fmin(1.0, (m - k) * p[i]);
    run = fmax(run, adj); /* adjusted p-values are monotone in the order */
    if (padj) padj[i] = run;
    if (!stop && p[i] <= alpha / (m - k)) reject[i] = 1;
    else stop = 1;
  }
  free(ord);
  return 0;
}

/* ---- winners beyond the noise ---- */

int ar_simplicity(json_t *rec) {
  const char *be = ar_rec_str(rec, "backend", "");
  static const char *const order[] = {"oneshot", "twoshot", "staged", "islands"};
  unsigned flags;
  ar_backend_family(be, &flags); /* the baselines (mpi, nccl, nccl-tests): their tables say so */
  if (flags & AR_BE_BASELINE) return *ar_rec_str(rec, "variant", "") ? 1 : 0;
  for (int i = 0; i < 4; i++)
    if (strstr(be, order[i]) || strstr(ar_rec_str(rec, "variant", ""), order[i])) return 2 + i;
  return 6;
}

double ar_pair_p(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double *lo, double *hi) {
  double p = NAN;
  if (ar_boot_test(runs_a, runs_b, key, nz, lo, hi, &p)) return NAN;
  double pw = ar_runs_welch_p(runs_a, runs_b); /* two or more runs a side: the runs' spread counts too */
  return isnan(pw) ? p : fmax(p, pw);          /* both tests must reject: conservative, each is valid */
}

int ar_family_resamples(int asked, int m, double alpha) {
  double need = 2.0 * (m > 1 ? m : 1) / alpha + 100; /* 2 / (R + 1) <= alpha / m, with a margin */
  if (need > 200000) need = 200000;
  return need > asked ? (int)need : asked;
}

/* One comparison of a table's family: column c against the fastest column f at size s. */
struct pair {
  int s, c, f;
  double p;
};

/* A single run on a side cannot show drift between runs: within --drift it is a tie, untested. */
static int drift_tie(const struct ar_grid *g, int s, int c, int f, const struct ar_noise *nz) {
  int single = ar_runs_sampled(ar_grid_runs(g, s, f)) < 2 || ar_runs_sampled(ar_grid_runs(g, s, c)) < 2;
  return single && ar_grid_p50(g, s, c) < ar_grid_p50(g, s, f) * (1 + nz->drift);
}

/* The family's p-values, then Holm over those with samples: tied = not rejected. A comparison without
 * samples on a side cannot be judged and is not a tie (the fastest by p50 stands). */
static int test_family(const struct ar_grid *g, struct pair *pr, int m, const struct ar_noise *nz, char *tied,
                       struct ar_family *fam) {
  int grids = nz->grids > 1 ? nz->grids : 1, have = 0;
  double alpha = AR_FAMILY_ALPHA / grids, lo, hi;
  struct ar_noise fz = *nz;
  fz.resamples = ar_family_resamples(nz->resamples, m, alpha);
  double *p = malloc(sizeof *p * (size_t)(m + 1));
  char *rej = malloc((size_t)m + 1);
  if (!p || !rej) return free(p), free(rej), -AR_ERUNTIME;
  for (int k = 0; k < m; k++) {
    char key[600];
    snprintf(key, sizeof key, "%s|%s|%zu", g->cfg[pr[k].f], g->cfg[pr[k].c], g->size[pr[k].s]);
    pr[k].p = ar_pair_p(ar_grid_runs(g, pr[k].s, pr[k].f), ar_grid_runs(g, pr[k].s, pr[k].c), key, &fz, &lo, &hi);
    if (!isnan(pr[k].p)) p[have++] = pr[k].p;
  }
  int rc = ar_holm(p, have, alpha, rej, NULL);
  for (int k = 0, i = 0; !rc && k < m; k++)
    if (!isnan(pr[k].p)) tied[(size_t)pr[k].s * g->ncfg + pr[k].c] = (char)!rej[i++];
  if (fam) *fam = (struct ar_family){have, alpha};
  free(p);
  free(rej);
  return rc;
}

/* Fastest eligible column at s by p50 over runs, -1 when none. */
static int fastest(const struct ar_grid *g, int s, const char *use) {
  int f = -1;
  for (int c = 0; c < g->ncfg; c++) {
    double v = (!use || use[c]) && ar_grid_eligible(g, c) && ar_grid_at(g, s, c) ? ar_grid_p50(g, s, c) : NAN;
    if (!isnan(v) && (f < 0 || v < ar_grid_p50(g, s, f))) f = c;
  }
  return f;
}

/* The tied column to use at tie size s: the previous size's choice, else the next decided size's,
 * else the simplest algorithm (then the faster). */
static int resolve(const struct ar_grid *g, int s, const int *choice, const char *tied, const char *decided) {
  const char *t = tied + (size_t)s * g->ncfg;
  if (s > 0 && choice[s - 1] >= 0 && t[choice[s - 1]]) return choice[s - 1];
  for (int d = s + 1; d < g->nsize; d++)
    if (decided[d]) {
      if (choice[d] >= 0 && t[choice[d]]) return choice[d];
      break;
    }
  int best = -1;
  for (int c = 0; c < g->ncfg; c++) {
    if (!t[c]) continue;
    int sc = ar_simplicity(g->cfgrec[c]), sb = best < 0 ? 0 : ar_simplicity(g->cfgrec[best]);
    if (best < 0 || sc < sb || (sc == sb && ar_grid_p50(g, s, c) < ar_grid_p50(g, s, best))) best = c;
  }
  return best;
}

static int in_play(const struct ar_grid *g, const char *use, int s, int c) {
  return (!use || use[c]) && ar_grid_eligible(g, c) && ar_grid_at(g, s, c) && !isnan(ar_grid_p50(g, s, c));
}

int ar_grid_choose(const struct ar_grid *g, const char *use, const struct ar_noise *nz, int *choice, char *tied,
                   struct ar_family *fam) {
  char *decided = calloc((size_t)g->nsize + 1, 1);
  struct pair *pr = malloc(sizeof *pr * ((size_t)g->nsize * (size_t)g->ncfg + 1));
  int m = 0, rc = decided && pr ? 0 : -AR_ERUNTIME;
  for (int s = 0; !rc && s < g->nsize; s++) {
    char *t = tied + (size_t)s * g->ncfg;
    int f = fastest(g, s, use);
    for (int c = 0; c < g->ncfg; c++) t[c] = 0;
    choice[s] = f;
    if (f < 0) continue;
    t[f] = 1;
    for (int c = 0; c < g->ncfg; c++) {
      if (c == f || !in_play(g, use, s, c)) continue;
      if (drift_tie(g, s, c, f, nz)) t[c] = 1;
      else pr[m++] = (struct pair){s, c, f, NAN};
    }
  }
  if (!rc) rc = test_family(g, pr, m, nz, tied, fam);
  for (int s = 0; !rc && s < g->nsize; s++) decided[s] = ar_grid_ties(g, tied, s) <= 1;
  for (int s = 0; !rc && s < g->nsize; s++)
    if (!decided[s] && choice[s] >= 0) choice[s] = resolve(g, s, choice, tied, decided);
  free(decided);
  free(pr);
  return rc;
}

int ar_grid_ties(const struct ar_grid *g, const char *tied, int s) {
  int n = 0;
  for (int c = 0; c < g->ncfg; c++) n += tied[(size_t)s * g->ncfg + c];
  return n;
}

void ar_family_text(const struct ar_family *fam, char *buf, size_t len) {
  if (!fam->tests) {
    snprintf(buf, len, "Ties: no comparison of this table has samples on both sides to test: the faster p50 is chosen "
             "(single-run cells within --drift of the fastest are ties).");
    return;
  }
  int split = fam->alpha < AR_FAMILY_ALPHA * 0.999;
  snprintf(buf, len,
           "Ties: Holm-Bonferroni over the %d comparisons with samples of this table (each configuration against its "
           "size's fastest), family-wise error %.3g%%%s; p = the larger of the bootstrap's and, with two or more runs a "
           "side, a t test on the runs' log p50s (Student's pooled at equal run counts, else Welch's).",
           fam->tests, fam->alpha * 100, split ? " (5% split over the tables of this call)" : "");
}
