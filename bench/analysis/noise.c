/* noise.c — the two-sample tests every decision uses: a bootstrap over runs and their samples (ratio of
 * medians) and a t test on the runs' log p50s, for a difference, an equivalence (TOST) and the power. */
#include "analysis/analysis.h"
#include "analysis/ostat.h"
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
  nz->margin = AR_MARGIN_DEFAULT;
  nz->grids = 1;
  nz->tails = 0;
  nz->screen = 0;
  nz->screen_p = 1;
  nz->ostats = NULL;
}

int ar_noise_margin_parse(struct ar_noise *nz, const char *arg, char *err, size_t len) {
  char *end;
  double v = strtod(arg, &end);
  if (end == arg || *end || !(v > 0 && v <= 100)) {
    snprintf(err, len, "bad --margin '%s' (expected a percentage above 0 and at most 100, e.g. 5)", arg);
    return -AR_EINVAL;
  }
  nz->margin = v / 100;
  return 0;
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

/* The same ranks as ostat.c's table draws, from the same distribution, for a run whose sample count got no table
 * (a comparison past its tables' memory budget): the k-th of n uniforms is Beta(k, n - k + 1), the next one above it
 * by (1 - u) Beta(1, n - k); their floors times n are the ranks of the k-th and next smallest of n draws of 0..n-1. */
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
 * ar_stats computes a median (mean of the two middle values for even n): its ranks drawn in O(1) from their
 * exact joint distribution (ostat.c: one table lookup per draw). */
static double resampled_median(const double *win, int n, int off, int w, const struct ar_ostat *t, uint64_t *rng) {
  int ik, inext;
  if (t) ar_ostat_draw(t, splitmix(rng), &ik, &inext);
  else order_stat(n, ar_ostat_median_rank(n), rng, &ik, &inext);
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
  int *run, tabled;           /* side_medians_tabled's scratch: the drawn runs; every run has a table */
  uint64_t *u;
  const double **lo, **hi;
  const struct ar_ostat **tab; /* run r's table of its resampled median's ranks (shared by the runs of one n; NULL:
                                * none, order_stat draws them) */
};

/* Tables by sample count: one comparison's (own[i]: it frees t[i]; t[i] NULL: count n[i] got none, up to
 * AR_OSTAT_BUDGET bytes in all, and a run of that count draws its ranks by order_stat: the same distribution, slower),
 * or a call's cache shared by its comparisons (ar_ostats_new: owns every table, up to AR_OSTAT_CACHE bytes). What a
 * comparison gets depends on its own counts only (a table is a function of n), never on the cache. */
struct ar_ostats {
  struct ar_ostat **t;
  int *n, count, cap;
  char *own;
  size_t bytes;
};

static int ostats_room(struct ar_ostats *c) {
  if (c->count < c->cap) return 1;
  int cap = c->cap ? 2 * c->cap : 8;
  struct ar_ostat **t = realloc(c->t, sizeof *t * (size_t)cap);
  if (t) c->t = t;
  int *nn = realloc(c->n, sizeof *nn * (size_t)cap);
  if (nn) c->n = nn;
  char *own = realloc(c->own, (size_t)cap);
  if (own) c->own = own;
  if (!t || !nn || !own) return 0;
  c->cap = cap;
  return 1;
}

static int ostats_find(const struct ar_ostats *c, int n) {
  for (int i = 0; i < c->count; i++)
    if (c->n[i] == n) return i;
  return -1;
}

static void ostats_free(struct ar_ostats *c) {
  for (int i = 0; i < c->count; i++)
    if (c->own[i]) ar_ostat_free(c->t[i]);
  free(c->t);
  free(c->n);
  free(c->own);
  memset(c, 0, sizeof *c);
}

struct ar_ostats *ar_ostats_new(void) { return calloc(1, sizeof(struct ar_ostats)); }

void ar_ostats_free(struct ar_ostats *c) {
  if (!c) return;
  ostats_free(c);
  free(c);
}

/* The table for count n in comparison c (shared: the call's cache, or NULL). */
static const struct ar_ostat *ostat_for(struct ar_ostats *c, struct ar_ostats *shared, int n) {
  int i = ostats_find(c, n);
  if (i >= 0) return c->t[i];
  if (!ostats_room(c)) return NULL;
  struct ar_ostat *t = NULL;
  int own = 0;
  if (c->bytes < AR_OSTAT_BUDGET) {
    int k = shared ? ostats_find(shared, n) : -1;
    if (k >= 0) t = shared->t[k];
    else t = ar_ostat_new(n), own = 1;
    if (t && c->bytes + ar_ostat_bytes(t) > AR_OSTAT_BUDGET) {
      if (own) ar_ostat_free(t);
      t = NULL, own = 0;
    } else if (t && own && shared && shared->bytes + ar_ostat_bytes(t) <= AR_OSTAT_CACHE && ostats_room(shared)) {
      shared->t[shared->count] = t, shared->n[shared->count] = n, shared->own[shared->count++] = 1;
      shared->bytes += ar_ostat_bytes(t);
      own = 0; /* the cache frees it */
    }
  }
  if (t) c->bytes += ar_ostat_bytes(t);
  c->t[c->count] = t, c->n[c->count] = n, c->own[c->count++] = (char)own;
  return t;
}

static void side_free(struct side *sd) {
  free(sd->s);
  free(sd->tmp);
  free(sd->off);
  free(sd->n);
  free(sd->woff);
  free(sd->tab);
  free(sd->run);
  free(sd->u);
  free(sd->lo);
  free(sd->hi);
}

/* Values a run keeps (its window, or all its samples_us), how many samples it had, where they start. */
static int run_kept(json_t *rec, int *nsamp, int *woff) {
  json_t *win = json_object_get(rec, "_win");
  *nsamp = (int)ar_rec_nsamples(rec);
  *woff = win ? (int)json_integer_value(json_object_get(rec, "_woff")) : 0;
  return win ? (int)(json_string_length(win) / sizeof(double)) : *nsamp;
}

static int side_load(json_t *runs, struct side *sd, struct ar_ostats *tabs, struct ar_ostats *shared) {
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
  sd->tab = malloc(sizeof *sd->tab * (n + 1));
  sd->run = malloc(sizeof *sd->run * (n + 1));
  sd->u = malloc(sizeof *sd->u * (n + 1));
  sd->lo = malloc(sizeof *sd->lo * (n + 1));
  sd->hi = malloc(sizeof *sd->hi * (n + 1));
  if (!sd->s || !sd->off || !sd->n || !sd->woff || !sd->tmp || !sd->tab || !sd->run || !sd->u || !sd->lo || !sd->hi)
    return side_free(sd), -1;
  sd->tabled = 1;
  int k = 0;
  for (size_t i = 0; i < n; i++) {
    json_t *rec = json_array_get(runs, i), *win = json_object_get(rec, "_win");
    int m = run_kept(rec, &ns, &wo);
    if (!m || !ns) continue;
    sd->tab[sd->nruns] = ostat_for(tabs, shared, ns);
    sd->tabled &= sd->tab[sd->nruns] != NULL;
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

static double select_kth(double *r, int n, int k);

/* The k-th smallest (0-based) of r[0..n), moved to r[k] with every earlier one at most as large (reorders r): for
 * the few values of one resample (a side's runs), partitions without branches on the data (the swap is unconditional,
 * the boundary moves by the comparison), three ways so that equal values end it; insertion sort below 16. */
static double select_small(double *r, int n, int k) {
  int lo = 0, hi = n - 1;
  while (hi - lo >= 16) {
    double a = r[lo], b = r[lo + (hi - lo) / 2], c = r[hi];
    double piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
    int lt = lo;
    for (int i = lo; i <= hi; i++) { /* r[lo..lt) < piv */
      double x = r[i];
      r[i] = r[lt], r[lt] = x, lt += x < piv;
    }
    if (k < lt) {
      hi = lt - 1;
      continue;
    }
    int le = lt;
    for (int i = lt; i <= hi; i++) { /* r[lt..le) == piv */
      double x = r[i];
      r[i] = r[le], r[le] = x, le += x <= piv;
    }
    if (k < le) return r[k];
    lo = le;
  }
  for (int i = lo + 1; i <= hi; i++) {
    double x = r[i];
    int j = i;
    for (; j > lo && r[j - 1] > x; j--) r[j] = r[j - 1];
    r[j] = x;
  }
  return r[k];
}

/* One resample: the side's runs drawn with replacement (no draw when there is one), each drawn run's
 * samples resampled; the median over the runs of their resampled medians (a side's p50 is the median
 * of its runs' p50s). */
/* The drawn runs' resampled medians into sd->tmp when every run has a table (two runs or more): the same draws in the same order as
 * resampled_median's, in three passes so that the table reads, then the sample reads, of all runs are in flight at
 * once (each draw is two dependent cache misses: the table is read uniformly across its columns). */
static void side_medians_tabled(struct side *sd, uint64_t *rng) {
  int m = sd->nruns;
  for (int r = 0; r < m; r++) {
    int run = m == 1 ? 0 : (int)(((unsigned __int128)splitmix(rng) * (uint64_t)m) >> 64);
    uint64_t u = splitmix(rng);
    sd->run[r] = run, sd->u[r] = u;
    const struct ar_ostat *t = sd->tab[run];
    __builtin_prefetch(&t->col[(size_t)(((unsigned __int128)u * (uint64_t)t->m) >> 64)]);
  }
  for (int r = 0; r < m; r++) {
    int run = sd->run[r], ik, inext, off = sd->woff[run], w = sd->off[run + 1] - sd->off[run];
    ar_ostat_draw(sd->tab[run], sd->u[r], &ik, &inext);
    ik -= off, inext -= off;
    sd->lo[r] = sd->s + sd->off[run] + (ik < 0 ? 0 : ik >= w ? w - 1 : ik);
    sd->hi[r] = sd->n[run] % 2 ? sd->lo[r] : sd->s + sd->off[run] + (inext < 0 ? 0 : inext >= w ? w - 1 : inext);
    __builtin_prefetch(sd->lo[r]);
    __builtin_prefetch(sd->hi[r]);
  }
  for (int r = 0; r < m; r++) sd->tmp[r] = sd->n[sd->run[r]] % 2 ? *sd->lo[r] : (*sd->lo[r] + *sd->hi[r]) / 2;
}

static double side_resample(struct side *sd, uint64_t *rng) {
  if (sd->tabled && sd->nruns > 1) side_medians_tabled(sd, rng); /* one run: nothing to overlap */
  else {
    for (int r = 0; r < sd->nruns; r++) {
      int run = sd->nruns == 1 ? 0 : (int)(((unsigned __int128)splitmix(rng) * (uint64_t)sd->nruns) >> 64);
      sd->tmp[r] = resampled_median(sd->s + sd->off[run], sd->n[run], sd->woff[run], sd->off[run + 1] - sd->off[run],
                                    sd->tab[run], rng);
    }
  }
  if (sd->nruns == 1) return sd->tmp[0];
  /* the median by selection, not a sort per resample (the sort took a fifth of a big table's time): the same values */
  int m = sd->nruns;
  double upper = select_small(sd->tmp, m, m / 2), lower = -INFINITY;
  if (m % 2) return upper;
  for (int i = 0; i < m / 2; i++) lower = sd->tmp[i] > lower ? sd->tmp[i] : lower; /* the largest below rank m/2 */
  return (lower + upper) / 2;
}

static uint64_t fnv(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* The bootstrap's ratios median(B)/median(A), unsorted (a family's comparisons draw up to 200,000 each: the
 * counts and percentiles below are linear, a sort took a quarter of a table's time), drawn in order: boot_more extends
 * them, the first draws the same whatever the total. */
struct boot {
  struct side a, b;
  struct ar_ostats tabs;
  uint64_t rng;
  double *ratio;
  int n, cap;
};

static void boot_close(struct boot *bt) {
  side_free(&bt->a);
  side_free(&bt->b);
  ostats_free(&bt->tabs);
  free(bt->ratio);
}

/* 0, or -1 when a side has no samples (or out of memory). cap: the most resamples it will draw. */
static int boot_open(struct boot *bt, json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, int cap) {
  memset(bt, 0, sizeof *bt);
  if (side_load(runs_a, &bt->a, &bt->tabs, nz->ostats)) return ostats_free(&bt->tabs), -1;
  if (side_load(runs_b, &bt->b, &bt->tabs, nz->ostats)) return side_free(&bt->a), ostats_free(&bt->tabs), -1;
  bt->rng = nz->seed ^ fnv(key); /* per match: independent of file order */
  bt->cap = cap;
  if (!(bt->ratio = malloc(sizeof *bt->ratio * (size_t)cap))) return boot_close(bt), -1;
  return 0;
}

/* Draw on until n resamples (at most cap). */
static void boot_more(struct boot *bt, int n) {
  for (; bt->n < n && bt->n < bt->cap; bt->n++) {
    double ma = side_resample(&bt->a, &bt->rng), mb = side_resample(&bt->b, &bt->rng);
    bt->ratio[bt->n] = mb / ma;
  }
}

/* nz->resamples of them in *out (malloc'd); 0, or -1 when a side has no samples. */
static int boot_ratios(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double **out) {
  struct boot bt;
  *out = NULL;
  if (boot_open(&bt, runs_a, runs_b, key, nz, nz->resamples)) return -1;
  boot_more(&bt, nz->resamples);
  *out = bt.ratio;
  bt.ratio = NULL;
  boot_close(&bt);
  return 0;
}

/* Resamples at or below x, and at or above x, of the ratios. */
static int count_le(const double *r, int n, double x) {
  int k = 0;
  for (int i = 0; i < n; i++) k += r[i] <= x;
  return k;
}

static int count_ge(const double *r, int n, double x) {
  int k = 0;
  for (int i = 0; i < n; i++) k += r[i] >= x;
  return k;
}

/* Do all n ratios have one value? */
static int all_same(const double *r, int n) {
  for (int i = 1; i < n; i++)
    if (r[i] != r[0]) return 0;
  return 1;
}

/* The k-th smallest (0-based) of r[0..n), moved to r[k] with every later one at least as large (Hoare's
 * selection, median-of-three pivot; reorders r). */
static double select_kth(double *r, int n, int k) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    double t;
#define AR_SWAP(a, b) (t = r[a], r[a] = r[b], r[b] = t)
    if (r[mid] < r[lo]) AR_SWAP(lo, mid);
    if (r[hi] < r[lo]) AR_SWAP(lo, hi);
    if (r[hi] < r[mid]) AR_SWAP(mid, hi);
    double piv = r[mid];
    int i = lo, j = hi;
    while (i <= j) {
      while (r[i] < piv) i++;
      while (r[j] > piv) j--;
      if (i <= j) AR_SWAP(i, j), i++, j--;
    }
#undef AR_SWAP
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break; /* between j and i: equal to the pivot, in place */
  }
  return r[k];
}

/* ar_percentile_sorted's value (linear interpolation between ranks) of the unsorted ratios. */
static double boot_percentile(double *r, int n, double q) {
  if (n <= 0) return NAN;
  double pos = q * (n - 1);
  int lo = (int)floor(pos);
  if (q <= 0) lo = 0;
  if (q >= 1 || lo + 1 >= n) lo = n - 1;
  double v = select_kth(r, n, lo), next = INFINITY;
  if (lo + 1 >= n || q <= 0) return v;
  for (int i = lo + 1; i < n; i++) next = r[i] < next ? r[i] : next;
  return v + (next - v) * (pos - lo);
}

/* What ar_pair_interval needs of the bootstrap's ratios for every level down to cap's (two-sided: cap / 2 a tail; the
 * TOST's interval: cap a tail), without keeping the n resamples (a family of 2,000 comparisons draws up to 80,000 each)
 * or redrawing them: order statistics of each tail at a few ranks (0..7, then every 1.3x, up to cap (n - 1) + 2 from
 * its end) and at the ranks where the ratios cross the tests' bounds (w and 1 / w for the difference; w / m and m / w
 * for the equivalence, m = 1 + margin). A percentile at a rank not kept is taken at the kept rank next outward (a
 * wider interval), so a comparison whose bootstrap p is at or below the level has its interval past the bound that p
 * tested, as boot_percentile's exact value is (boot_p_in's tail count is below the level's rank). Kept as (rank, value)
 * pairs, the lower tail's ascending then the upper tail's. Reorders r. Out of memory: none kept (the t test's alone). */
#define AR_TAIL_MAX 80
static int add_rank(int *rk, int n, int r) {
  for (int i = 0; i < n; i++)
    if (rk[i] == r) return n;
  rk[n] = r;
  return n + 1;
}

static int cmp_int(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return a < b ? -1 : a > b;
}

/* The ranks of one tail, distance from its end: 0..7, then every 1.3x up to K; plus the bounds' crossings b[0..2) and
 * the exact ranks x[0..8) of the levels of the first two Holm steps (a small family's intervals are then exact). */
static int tail_ranks(int K, const int *b, const int *x8, int *rk) {
  int n = 0;
  for (double x = 0; x <= K && n < AR_TAIL_MAX - 11; x = x < 8 ? x + 1 : ceil(x * 1.3)) n = add_rank(rk, n, (int)x);
  n = add_rank(rk, n, K);
  for (int i = 0; i < 2; i++)
    if (b[i] >= 0 && b[i] <= K) n = add_rank(rk, n, b[i]);
  for (int i = 0; i < 8; i++)
    if (x8[i] >= 0 && x8[i] <= K) n = add_rank(rk, n, x8[i]);
  qsort(rk, (size_t)n, sizeof *rk, cmp_int);
  return n;
}

static void keep_tails(double *r, int n, double cap, double w, double mg, struct ar_pair *t) {
  int K = (int)ceil(cap * (n - 1)) + 2, lo[AR_TAIL_MAX], hi[AR_TAIL_MAX];
  if (K > n - 1) K = n - 1;
  /* the crossings, as distances from each end: the first ratio above w (w / m), the last below 1 / w (m / w) */
  int bl[2] = {count_le(r, n, w), count_le(r, n, w / mg)}, bh[2] = {count_ge(r, n, 1 / w) , count_ge(r, n, mg / w)};
  int xl[8], xh[8], k = 0; /* boot_percentile's two ranks at q = cap / 2j and cap / j (the TOST's), j = 1, 2 */
  for (int j = 1; j <= 2; j++)
    for (int two = 1; two <= 2; two++) {
      double q = cap / (two * j), pl = q * (n - 1), ph = (1 - q) * (n - 1);
      xl[k] = (int)floor(pl), xl[k + 1] = (int)floor(pl) + 1;
      xh[k] = n - 1 - (int)floor(ph), xh[k + 1] = n - 2 - (int)floor(ph);
      k += 2;
    }
  int nl = tail_ranks(K, bl, xl, lo), nh = tail_ranks(K, bh, xh, hi);
  double *tl = malloc(sizeof *tl * (size_t)(2 * (nl + nh) + 1));
  if (!tl) return;
  select_kth(r, n, K); /* r[0..K] the K + 1 smallest */
  qsort(r, (size_t)K + 1, sizeof *r, cmp_dbl);
  for (int i = 0; i < nl; i++) tl[2 * i] = lo[i], tl[2 * i + 1] = r[lo[i]];
  select_kth(r, n, n - 1 - K); /* r[n-1-K..n) the K + 1 largest */
  qsort(r + n - 1 - K, (size_t)K + 1, sizeof *r, cmp_dbl);
  for (int i = 0; i < nh; i++) { /* ascending ranks: the largest distance from the end first */
    int rank = n - 1 - hi[nh - 1 - i];
    tl[2 * (nl + i)] = rank, tl[2 * (nl + i) + 1] = r[rank];
  }
  t->iv.tail = tl, t->iv.nlo = nl, t->iv.nhi = nh, t->iv.n = n;
}

/* boot_percentile's value at q from the kept ranks: exact where the ranks it interpolates between are kept, else the
 * kept rank next outward (below for the lower tail, above for the upper). */
static double tail_percentile(const struct ar_iv *iv, double q) {
  int up = q > 0.5, cnt = up ? iv->nhi : iv->nlo;
  const double *p = iv->tail + (up ? 2 * iv->nlo : 0);
  double pos = q * (iv->n - 1);
  int f = (int)floor(pos), best = -1;
  for (int i = 0; i < cnt; i++) {
    int rk = (int)p[2 * i];
    if (rk == f && (pos == f || (i + 1 < cnt && (int)p[2 * i + 2] == f + 1)))
      return pos == f ? p[2 * i + 1] : p[2 * i + 1] + (p[2 * i + 3] - p[2 * i + 1]) * (pos - f);
    if (!up && rk <= f) best = i;
    if (up && rk >= ceil(pos) && best < 0) best = i;
  }
  if (best < 0) best = up ? cnt - 1 : 0;
  return p[2 * best + 1];
}

void ar_pair_release(struct ar_pair *t) {
  free(t->iv.tail);
  t->iv.tail = NULL;
  t->iv.nlo = t->iv.nhi = t->iv.n = 0;
}

int ar_pair_interval(const struct ar_pair *t, double a, double *lo, double *hi) {
  *lo = *hi = NAN;
  int have = 0;
  if (t->iv.tail && !isinf(t->iv.w)) { /* the bootstrap's percentiles, widened by the drift allowed */
    double w = t->iv.w >= 1 ? t->iv.w : 1;
    *lo = tail_percentile(&t->iv, a / 2) / w;
    *hi = tail_percentile(&t->iv, 1 - a / 2) * w;
    have = 1;
  } else if (t->iv.tail) return -1; /* no drift bound: a side of one run can show nothing */
  if (t->iv.tok) {
    double q = t->iv.nospread ? 0 : ar_t_quantile(1 - a / 2, t->iv.df);
    double l = exp(t->iv.d - q * t->iv.se), h = exp(t->iv.d + q * t->iv.se);
    *lo = have && *lo < l ? *lo : l;
    *hi = have && *hi > h ? *hi : h;
    have = 1;
  }
  return have ? 0 : -1;
}

/* Two-sided bootstrap p of "the ratio lies in [lo, hi]": twice the smaller tail beyond that interval, +1
 * so it is never 0 by chance; 0 when every resample gives the same ratio outside it. */
static double boot_p_in(const double *r, int n, double lo, double hi) {
  if (all_same(r, n) && (r[0] < lo || r[0] > hi)) return 0;
  int below = count_le(r, n, hi), above = count_ge(r, n, lo);
  return fmin(1.0, 2.0 * ((below < above ? below : above) + 1) / (n + 1.0));
}

/* Bootstrap TOST p of "the ratio lies outside (lo, hi)": the larger one-sided tail beyond either end. */
static double boot_p_out(const double *r, int n, double lo, double hi) {
  if (!(lo < hi)) return 1;
  int up = count_ge(r, n, hi), down = count_le(r, n, lo);
  return fmin(1.0, ((up > down ? up : down) + 1) / (n + 1.0));
}

int ar_boot_test(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double *lo,
                 double *hi, double *p) {
  double *r;
  if (boot_ratios(runs_a, runs_b, key, nz, &r)) return -1;
  *lo = boot_percentile(r, nz->resamples, 0.025);
  *hi = boot_percentile(r, nz->resamples, 0.975);
  if (p) *p = boot_p_in(r, nz->resamples, 1, 1);
  free(r);
  return 0;
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

double ar_inc_beta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_cf(x, a, b) / a;
  return 1 - front * beta_cf(1 - x, b, a) / b;
}

double ar_t_two_sided(double t, double df) {
  if (isnan(t) || !(df > 0)) return NAN;
  if (isinf(t)) return 0;
  return ar_inc_beta(df / (df + t * t), df / 2, 0.5);
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

/* The t test's ingredients on the runs' log p50s: the difference of the means (B - A), its standard error
 * and degrees of freedom, and the run-to-run sd (pooled over the sides with two or more runs). */
struct tstat {
  double d, se, df, sd;
  int ok;      /* both sides have two or more runs: d, se and df are set */
  int nospread; /* ok, but the runs do not vary at all */
};

/* The t statistics of the log values a[0..na) against b[0..nb). */
static void values_t(const double *a, int na, const double *b, int nb, struct tstat *t) {
  double ma = 0, mb = 0, va = 0, vb = 0;
  *t = (struct tstat){NAN, NAN, NAN, NAN, 0, 0};
  for (int i = 0; i < na; i++) ma += a[i] / na;
  for (int i = 0; i < nb; i++) mb += b[i] / nb;
  for (int i = 0; na > 1 && i < na; i++) va += (a[i] - ma) * (a[i] - ma) / (na - 1);
  for (int i = 0; nb > 1 && i < nb; i++) vb += (b[i] - mb) * (b[i] - mb) / (nb - 1);
  int fa = na > 1 ? na - 1 : 0, fb = nb > 1 ? nb - 1 : 0;
  if (fa + fb) t->sd = sqrt((fa * va + fb * vb) / (fa + fb));
  if (na < 2 || nb < 2) return;
  double sa = va / na, sb = vb / nb, se = sqrt(sa + sb), df;
  if (na == nb) { /* Student's pooled t: exact under the null of one distribution, robust to unequal spread at
                   * equal run counts, and with na + nb - 2 degrees of freedom where Welch's would fall to ~2 */
    double pooled = ((na - 1) * va + (nb - 1) * vb) / (na + nb - 2);
    se = sqrt(pooled * (1.0 / na + 1.0 / nb));
    df = na + nb - 2;
  } else {
    df = (sa + sb) * (sa + sb) / (sa * sa / (na - 1) + sb * sb / (nb - 1));
  }
  *t = (struct tstat){mb - ma, se, df, t->sd, 1, !(se > 1e-12 * (fabs(ma) + fabs(mb) + 1))};
}

static void runs_t(json_t *runs_a, json_t *runs_b, struct tstat *t) {
  double a[64], b[64];
  int na = log_p50s(runs_a, a), nb = log_p50s(runs_b, b);
  values_t(a, na, b, nb, t);
}

/* The launches of one side: per run id (up to 64), the sum and count of its runs' log p50s. */
struct launches {
  int n;
  const char *id[64];
  double sum[64];
  int cnt[64];
};

static void launches_of(json_t *runs, struct launches *l) {
  l->n = 0;
  for (size_t i = 0; i < json_array_size(runs); i++) {
    json_t *rec = json_array_get(runs, i);
    double p = ar_rec_p50(rec);
    const char *id = ar_rec_str(rec, "run_id", "");
    int k = 0;
    if (!(p > 0)) continue;
    while (k < l->n && strcmp(l->id[k], id)) k++;
    if (k == l->n) {
      if (l->n == 64) continue;
      l->id[l->n] = id, l->sum[l->n] = 0, l->cnt[l->n++] = 0;
    }
    l->sum[k] += log(p);
    l->cnt[k]++;
  }
}

static int has_launch(const struct launches *l, const char *id) {
  for (int k = 0; k < l->n; k++)
    if (!strcmp(l->id[k], id)) return 1;
  return 0;
}

/* Launches the two sides share (configurations measured side by side in them), and whether they hold the same ones. */
static int shared_launches(const struct launches *a, const struct launches *b, int *same) {
  int n = 0;
  for (int i = 0; i < a->n; i++) n += has_launch(b, a->id[i]);
  *same = n == a->n && n == b->n;
  return n;
}

/* The runs of `runs` in launches of `l` (a new array). */
static json_t *runs_in(json_t *runs, const struct launches *l) {
  json_t *out = json_array();
  for (size_t i = 0; i < json_array_size(runs); i++)
    if (has_launch(l, ar_rec_str(json_array_get(runs, i), "run_id", ""))) json_array_append(out, json_array_get(runs, i));
  return out;
}

double ar_runs_welch_p(json_t *runs_a, json_t *runs_b) {
  struct tstat t;
  runs_t(runs_a, runs_b, &t);
  if (!t.ok) return NAN;
  if (t.nospread) return fabs(t.d) > 1e-12 ? 0 : 1; /* no spread at all */
  return ar_t_two_sided(t.d / t.se, t.df);
}

/* P(T > x) for Student's t with df degrees of freedom. */
static double t_upper(double x, double df) {
  double two = ar_t_two_sided(x, df);
  return x >= 0 ? two / 2 : 1 - two / 2;
}

double ar_t_quantile(double q, double df) {
  if (!(q > 0 && q < 1) || !(df > 0)) return NAN;
  double lo = -1, hi = 1;
  while (1 - t_upper(lo, df) > q && lo > -1e12) lo *= 2;
  while (1 - t_upper(hi, df) < q && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-10 * (1 + fabs(lo)); i++) {
    double mid = (lo + hi) / 2;
    if (1 - t_upper(mid, df) < q) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/* ---- the large-family test (analysis.h: ar_moderated_p) ---- */

void ar_mean_var(const double *v, int n, double *mean, double *var) {
  double s = 0, q = 0;
  for (int i = 0; i < n; i++) s += v[i];
  *mean = n > 0 ? s / n : NAN;
  for (int i = 0; i < n; i++) q += (v[i] - *mean) * (v[i] - *mean);
  *var = n > 1 ? q / (n - 1) : 0;
}

void ar_bound_p(double level, double ref, double margin, double se, double df, double *p_slow, double *p_within) {
  double bound = ref + log1p(margin); /* log time of (1 + margin) x the reference */
  if (isnan(se)) return;
  if (!(se > 0)) { /* no spread anywhere: the values decide */
    *p_slow = level > bound ? 0 : 1;
    *p_within = level < bound ? 0 : 1;
    return;
  }
  *p_slow = t_upper((level - bound) / se, df);
  *p_within = t_upper((bound - level) / se, df);
}

void ar_moderated_p(const double *logs, int n, const struct ar_level_ref *ref, double margin, double *p_slow,
                    double *p_within) {
  *p_slow = *p_within = NAN;
  if (n < 2) return;
  double mean, var, d = n - 1, d0 = ref->prior_df < AR_MODERATED_PRIOR_DF ? ref->prior_df : AR_MODERATED_PRIOR_DF;
  ar_mean_var(logs, n, &mean, &var);
  double s2 = (d0 * ref->prior_var + d * var) / (d0 + d); /* the moderated variance */
  ar_bound_p(mean, ref->level, margin, sqrt(s2 / n + ref->se2), d0 + d, p_slow, p_within);
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

/* ---- the tests of one comparison ---- */

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

/* The t test's three p-values on the log scale, x = d - log(shift), D = log(1 + margin). */
static void t_ps(const struct tstat *t, double x, double D, double *pd, double *pe, double *pb) {
  if (t->nospread) {
    *pd = fabs(x) > 1e-12 ? 0 : 1;
    *pe = fabs(x) < D ? 0 : 1;
    *pb = fabs(x) > D ? 0 : 1;
    return;
  }
  *pd = ar_t_two_sided(x / t->se, t->df);
  *pe = fmax(t_upper((x + D) / t->se, t->df), t_upper((D - x) / t->se, t->df)); /* TOST: both sides */
  *pb = fmin(1.0, 2 * t_upper((fabs(x) - D) / t->se, t->df)); /* beyond the margin, either direction */
}

/* The t test's part of a comparison's interval (ar_pair_interval). */
static void t_iv(const struct tstat *ts, struct ar_pair *t) {
  t->iv.d = ts->d, t->iv.se = ts->se, t->iv.df = ts->df;
  t->iv.tok = ts->ok, t->iv.nospread = ts->nospread;
  t->level = 0.05;
}

/* A side without samples (nccl-tests imports, -N runs: one value per size per launch): the runs are the replicates,
 * the t test on their log p50s alone decides, and the interval is its 95% one, exp(d +- t se) (the ratio of the
 * runs' geometric means); with fewer than two runs a side nothing can be tested: -1. */
static int runs_only(const struct tstat *ts, double shift, double m, struct ar_pair *t) {
  if (!ts->ok) return -1;
  t_ps(ts, ts->d - log(shift), log(m), &t->p_diff, &t->p_equiv, &t->p_beyond);
  t_iv(ts, t);
  ar_pair_interval(t, 0.05, &t->lo, &t->hi);
  t->unsampled = 1;
  return 0;
}

/* Between launches: each launch one value (the mean of its runs' log p50s), the t test on those values alone (Student's
 * pooled at equal launch counts, else Welch's), its 95% interval exp(d +- t se) the one the verdict is judged on, the
 * ratio exp(d) (of the launches' geometric means: inside that interval by construction), sd the launch-to-launch sd.
 * A side with one launch: nothing tested (-1), the ratio and the other side's launch spread still set. */
static int launch_test(json_t *runs_a, json_t *runs_b, const struct launches *la, const struct launches *lb,
                       const struct ar_noise *nz, double shift, struct ar_pair *t) {
  double a[64] = {0}, b[64] = {0}, ma = 0, mb = 0;
  for (int i = 0; i < la->n; i++) ma += (a[i] = la->sum[i] / la->cnt[i]) / la->n;
  for (int i = 0; i < lb->n; i++) mb += (b[i] = lb->sum[i] / lb->cnt[i]) / lb->n;
  struct tstat ts;
  values_t(a, la->n, b, lb->n, &ts);
  int sa = ar_runs_sampled(runs_a), sb = ar_runs_sampled(runs_b);
  int launched = !ar_rec_predicted(json_array_get(runs_a, 0)); /* `arbench model`'s predictions: no launch at all */
  *t = (struct ar_pair){la->n && lb->n ? exp(mb - ma) : NAN, NAN, NAN, NAN, NAN, NAN, ts.sd, shift, sa, sb, 0, launched,
                        la->n, lb->n, la->n ? exp(ma) : NAN, lb->n ? exp(mb) : NAN, .level = 0.05};
  if (!sa || !sb) { /* sample-less: the runs with a p50 */
    double v[64];
    t->runs_a = log_p50s(runs_a, v);
    t->runs_b = log_p50s(runs_b, v);
  }
  if (!ts.ok) return -1;
  t_ps(&ts, ts.d - log(shift), log1p(nz->margin), &t->p_diff, &t->p_equiv, &t->p_beyond);
  t_iv(&ts, t);
  ar_pair_interval(t, 0.05, &t->lo, &t->hi);
  t->unsampled = !sa || !sb;
  return 0;
}

static int pair_test(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double shift,
                     struct ar_pair *t, int restricted);

int ar_pair_test(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double shift,
                 struct ar_pair *t) {
  return pair_test(runs_a, runs_b, key, nz, shift, t, 0);
}

/* Does a comparison's first n resamples (and its runs' t test) show anything at p: the difference's or the
 * equivalence's p-value (each the larger of the bootstrap's and the t test's, as pair_test gives them) at or below p?
 * Counts only: r is not reordered. */
static int screen_passes(const double *r, int n, const struct tstat *ts, double shift, double w, double m, double p) {
  double pd = boot_p_in(r, n, shift / w, shift * w), pe = boot_p_out(r, n, shift * w / m, shift * m / w), td, te, tb;
  if (ts->ok) {
    t_ps(ts, ts->d - log(shift), log(m), &td, &te, &tb);
    pd = fmax(pd, td), pe = fmax(pe, te);
  }
  return !(pd > p && pe > p);
}

/* restricted: the runs are already those of the shared launches (once: past 64 launches a side the sets may still
 * differ; they are then compared as they are) */
static int pair_test(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double shift,
                     struct ar_pair *t, int restricted) {
  struct launches la, lb;
  int same;
  launches_of(runs_a, &la);
  launches_of(runs_b, &lb);
  if (!shared_launches(&la, &lb, &same)) return launch_test(runs_a, runs_b, &la, &lb, nz, shift, t);
  if (!same && !restricted) { /* some launches shared: the two compared inside those, side by side, as in one launch */
    json_t *ra = runs_in(runs_a, &lb), *rb = runs_in(runs_b, &la);
    int rc = pair_test(ra, rb, key, nz, shift, t, 1);
    json_decref(ra);
    json_decref(rb);
    return rc;
  }
  struct tstat ts;
  runs_t(runs_a, runs_b, &ts);
  *t = (struct ar_pair){ar_runs_p50(runs_b) / ar_runs_p50(runs_a), NAN, NAN, NAN, NAN, NAN, ts.sd, shift,
                        ar_runs_sampled(runs_a), ar_runs_sampled(runs_b), 0, 0, la.n, lb.n, NAN, NAN, .level = 0.05};
  if (!t->runs_a || !t->runs_b) { /* sample-less: the runs (launches) with a p50 are what is tested */
    double v[64];
    t->runs_a = log_p50s(runs_a, v);
    t->runs_b = log_p50s(runs_b, v);
  }
  double m = 1 + nz->margin;
  struct boot bt;
  if (boot_open(&bt, runs_a, runs_b, key, nz, nz->resamples)) return runs_only(&ts, shift, m, t);
  /* a side with one run cannot show drift between runs: every null is widened by it */
  double w = t->runs_a < 2 || t->runs_b < 2 ? 1 + nz->drift : 1;
  int n = nz->resamples;
  if (nz->screen > 0 && nz->screen < n) { /* the first draws alone when they show nothing at screen_p */
    boot_more(&bt, nz->screen);
    if (!screen_passes(bt.ratio, nz->screen, &ts, shift, w, m, nz->screen_p)) n = nz->screen;
  }
  boot_more(&bt, n);
  double *r = bt.ratio;
  t->lo = boot_percentile(r, n, 0.025);
  t->hi = boot_percentile(r, n, 0.975);
  t->p_diff = boot_p_in(r, n, shift / w, shift * w);
  t->p_equiv = boot_p_out(r, n, shift * w / m, shift * m / w);
  t->p_beyond = boot_p_in(r, n, shift / (m * w), shift * m * w);
  t->iv.w = w;
  if (nz->tails) keep_tails(r, n, AR_FAMILY_ALPHA / (nz->grids > 1 ? nz->grids : 1), w, m, t);
  boot_close(&bt);
  if (ts.ok) t_iv(&ts, t);
  t->level = 0.05;
  if (ts.ok) { /* two or more runs a side: the runs' spread counts too; both tests must reject */
    double pd, pe, pb;
    t_ps(&ts, ts.d - log(shift), log(m), &pd, &pe, &pb);
    t->p_diff = fmax(t->p_diff, pd);
    t->p_equiv = fmax(t->p_equiv, pe);
    t->p_beyond = fmax(t->p_beyond, pb);
  }
  return 0;
}

double ar_pair_p(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double *lo, double *hi) {
  struct ar_pair t;
  if (ar_pair_test(runs_a, runs_b, key, nz, 1, &t)) return NAN;
  *lo = t.lo;
  *hi = t.hi;
  return t.p_diff;
}

int ar_family_resamples(int asked, int m, double alpha) {
  double need = 2.0 * (m > 1 ? m : 1) / alpha + 100; /* 2 / (R + 1) <= alpha / m, with a margin */
  if (need > 200000) need = 200000;
  return need > asked ? (int)need : asked;
}

/* The p-value a family is made of: the difference's or the equivalence's. */
static double p_of(const struct ar_pair *t, int equiv) { return equiv ? t->p_equiv : t->p_diff; }

/* Holm over the non-NAN p-values (p_of(equiv)) of the m pairs: rej[i] for pair i. */
static int holm_field(const struct ar_pair *t, int m, int equiv, double alpha, char *rej, double *padj) {
  double *p = calloc((size_t)m + 1, sizeof *p), *adj = calloc((size_t)m + 1, sizeof *adj);
  char *r = calloc((size_t)m + 1, 1);
  int have = 0, rc = p && adj && r ? 0 : -AR_ERUNTIME;
  for (int i = 0; !rc && i < m; i++)
    if (!isnan(p_of(&t[i], equiv))) p[have++] = p_of(&t[i], equiv);
  if (!rc) rc = ar_holm(p, have, alpha, r, adj);
  for (int i = 0, k = 0; !rc && i < m; i++) {
    double v = p_of(&t[i], equiv);
    rej[i] = !isnan(v) && r[k];
    if (padj) padj[i] = isnan(v) ? NAN : adj[k];
    k += !isnan(v);
  }
  free(p);
  free(adj);
  free(r);
  return rc;
}

int ar_pair_verdicts(const struct ar_pair *t, int m, double alpha, int *verdict, double *padj_diff) {
  char *rd = malloc((size_t)m + 1), *re = malloc((size_t)m + 1);
  int rc = rd && re ? 0 : -AR_ERUNTIME;
  if (!rc) rc = holm_field(t, m, 0, alpha, rd, padj_diff);
  if (!rc) rc = holm_field(t, m, 1, alpha, re, NULL);
  for (int i = 0; !rc && i < m; i++) {
    if (isnan(t[i].p_diff)) verdict[i] = t[i].between ? AR_PV_UNDECIDED : AR_PV_NOSAMPLES; /* one launch a side */
    else if (re[i]) verdict[i] = AR_PV_EQUIVALENT;
    else if (rd[i]) verdict[i] = t[i].ratio < t[i].shift ? AR_PV_FASTER : AR_PV_SLOWER;
    else verdict[i] = AR_PV_UNDECIDED;
  }
  free(rd);
  free(re);
  return rc;
}

/* Holm's level for each of the m pairs' p-values p_of(equiv) (NAN where not tested): the k-th smallest (0-based)
 * rejected at alpha / (m' - k), every one not rejected at alpha / (m' - R), m' the tested ones and R the rejected. */
static int holm_levels(const struct ar_pair *t, int m, int equiv, double alpha, double *lvl) {
  int *ord = malloc(sizeof *ord * (size_t)(m + 1)), have = 0, rej = 0;
  double *p = malloc(sizeof *p * (size_t)(m + 1));
  if (!ord || !p) return free(ord), free(p), -AR_ERUNTIME;
  for (int i = 0; i < m; i++) {
    p[i] = p_of(&t[i], equiv);
    lvl[i] = NAN;
    if (!isnan(p[i])) ord[have++] = i;
  }
  qsort_r(ord, (size_t)have, sizeof *ord, cmp_holm, p);
  while (rej < have && p[ord[rej]] <= alpha / (have - rej)) rej++; /* ar_holm's step-down */
  for (int k = 0; k < have; k++) lvl[ord[k]] = alpha / (have - (k < rej ? k : rej));
  free(ord);
  free(p);
  return 0;
}

int ar_pair_judge(struct ar_pair *t, int m, double alpha, int *verdict, double *padj_diff) {
  double *ld = malloc(sizeof *ld * (size_t)(m + 1)), *le = malloc(sizeof *le * (size_t)(m + 1));
  int rc = ld && le ? ar_pair_verdicts(t, m, alpha, verdict, padj_diff) : -AR_ERUNTIME;
  if (!rc) rc = holm_levels(t, m, 0, alpha, ld);
  if (!rc) rc = holm_levels(t, m, 1, alpha, le);
  for (int i = 0; !rc && i < m; i++) {
    struct ar_pair *x = &t[i];
    double lo = NAN, hi = NAN, l2, h2;
    x->level = NAN;
    if (isnan(x->p_diff) || verdict[i] == AR_PV_NOSAMPLES) {
    } else if (verdict[i] == AR_PV_EQUIVALENT) { /* the TOST's interval: inside the margin */
      x->level = 2 * le[i];
      ar_pair_interval(x, x->level, &lo, &hi);
    } else if (verdict[i] != AR_PV_UNDECIDED) { /* faster / slower: excludes 1 */
      x->level = ld[i];
      ar_pair_interval(x, x->level, &lo, &hi);
    } else if (!ar_pair_interval(x, ld[i], &lo, &hi)) { /* neither shown: holds 1, and is not inside the margin */
      x->level = ld[i];
      if (!isnan(le[i]) && !ar_pair_interval(x, 2 * le[i], &l2, &h2)) {
        lo = l2 < lo ? l2 : lo, hi = h2 > hi ? h2 : hi;
        x->level = 2 * le[i] < ld[i] ? 2 * le[i] : ld[i];
      }
      lo = lo > 1 ? 1 : lo, hi = hi < 1 ? 1 : hi;
    }
    x->lo = lo, x->hi = hi;
  }
  for (int i = 0; i < m; i++) ar_pair_release(&t[i]);
  free(ld);
  free(le);
  return rc;
}

const char *ar_pair_verdict_name(int v) {
  static const char *const names[] = {"no samples", "faster", "slower", "equivalent", "undecided"};
  return v >= 0 && v <= AR_PV_UNDECIDED ? names[v] : "?";
}

/* ---- power ---- */

/* Does n runs a side give power AR_POWER to decide a log difference a (>= 0) with run sd sd? */
static int decides(int n, double a, double sd, double D, double alpha) {
  double df = 2.0 * n - 2, se = sd * sqrt(2.0 / n);
  if (a / se >= ar_t_quantile(1 - alpha / 2, df) + ar_t_quantile(AR_POWER, df)) return 1; /* the difference */
  if (a >= D) return 0;
  double beta = a < 1e-12 ? (1 - AR_POWER) / 2 : 1 - AR_POWER; /* at 0 both one-sided tests can miss */
  return (D - a) / se >= ar_t_quantile(1 - alpha, df) + ar_t_quantile(1 - beta, df); /* the equivalence */
}

int ar_runs_needed(double log_ratio, double sd, double margin, double alpha) {
  if (isnan(sd) || isnan(log_ratio) || sd < 0) return -1;
  double a = fabs(log_ratio), D = log1p(margin);
  if (sd == 0 || decides(2, a, sd, D, alpha)) return 2;
  if (!decides(AR_RUNS_NEEDED_MAX, a, sd, D, alpha)) return AR_RUNS_NEEDED_MAX;
  int lo = 2, hi = AR_RUNS_NEEDED_MAX; /* decides(lo) false, decides(hi) true: power grows with n */
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (decides(mid, a, sd, D, alpha)) hi = mid;
    else lo = mid;
  }
  return hi;
}
