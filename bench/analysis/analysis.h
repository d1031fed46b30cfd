/* analysis.h — what table, compare and tune share: loading results files (records keep their
 * file:line), filters, configuration keys and labels, and the size x configuration grid. */
#ifndef AR_ANALYSIS_H
#define AR_ANALYSIS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* Records of one or more results files, streamed: result records gain "_src" ("file:line"), and
 * their per-iteration samples are reduced on reading to what the noise rule draws from: "_win", the
 * sorted samples of ranks _woff .. _woff + len/8 (raw doubles in a string) around the median, and
 * "_wn", the number of samples (ar_samples_window). A measurement keeps its first AR_RUNS_MAX runs. */
#define AR_RUNS_MAX 64
struct ar_ana {
  json_t *results; /* array of result records */
  json_t *runs;    /* object: run_id -> run record */
  json_t *notes;   /* array of skip / error / point / unknown-type records */
};

int ar_ana_load(struct ar_ana *a, int nfiles, char **paths, char *err, size_t len);
/* No result records in what was loaded: one line on stderr naming the files and what they held, 1
 * (the command exits AR_EXIT_NOTHING, 3: nothing to analyse); 0 when there are results. */
int ar_ana_nothing(const struct ar_ana *a, const char *cmd, int nfiles, char **paths);
void ar_ana_free(struct ar_ana *a);
/* Sorted ranks a record of n samples keeps: *off .. *off + return value. All of them up to about
 * 100 samples; beyond, the median +- 5 sqrt(n) + 3 ranks, ten standard deviations of the rank a
 * bootstrap resample's median falls on (sd sqrt(n)/2), so no draw of the noise rule lands outside
 * (beyond 10 sd: probability below 1e-22 per draw). */
size_t ar_samples_window(size_t n, size_t *off);

#define AR_FILTER_MAX 16
/* Filters given on the command line; every list is OR within, AND across. */
struct ar_filter {
  char backend[AR_FILTER_MAX][64];
  int nbackend;
  char dtype[AR_FILTER_MAX][32];
  int ndtype;
  long ranks[AR_FILTER_MAX];
  int nranks;
  char pname[AR_FILTER_MAX][64], pval[AR_FILTER_MAX][128];
  int npoint;
  char placement[8]; /* "", "out" or "in" */
};

/* Add one option's value ("backend", "dtype", "ranks", "point", "placement"); comma lists. */
int ar_filter_add(struct ar_filter *f, const char *what, const char *arg, char *err, size_t len);
/* The filter flags table, compare and tune share, as getopt_long entries (short codes k d r p P). */
#define AR_FILTER_OPTIONS                                                                          \
  {"backend", required_argument, 0, 'k'}, {"dtype", required_argument, 0, 'd'},                    \
  {"ranks", required_argument, 0, 'r'}, {"point", required_argument, 0, 'p'},                      \
  {"placement", required_argument, 0, 'P'}
/* For option code c: 0 when it is not a filter flag; 1 when added; -AR_EINVAL (message printed
 * as "arbench CMD: ...") for a bad value. */
int ar_filter_opt(struct ar_filter *f, const char *cmd, int c, const char *arg);
/* Every filter value must occur in the results: a typo is an error listing what is there. */
int ar_filter_check(const struct ar_filter *f, json_t *results, char *err, size_t len);
/* Keep only the matching result records. */
void ar_filter_apply(const struct ar_filter *f, json_t *results);

/* Record accessors (defaults for records of older writers). */
double ar_rec_p50(json_t *rec);                     /* time_us.p50, NAN when absent */
double ar_rec_p(json_t *rec, const char *q);        /* time_us.<q>, NAN when absent */
const char *ar_rec_placement(json_t *rec);          /* "out" unless "in" */
void ar_rec_point(json_t *rec, char *buf, size_t len); /* "K=V,K2=V2" sorted, "" when none */
const char *ar_rec_stack(json_t *runs, json_t *rec);   /* run.stack.name, "unknown" */
/* A record of the CPU stand-in of CUDA (a -Dcuda-emu build): its run's stack has "standin" and its backend is
 * no host backend (mpi and shm-* ran on the CPU for real). Its results are checked, but its times and
 * bandwidths are not GPU numbers; decisions (tune; report, fleet and serving too)
 * leave it out unless asked. The one test: never the stack's name. */
int ar_rec_standin(json_t *runs, json_t *rec);
/* Removes the stand-in's records from results (an array); returns how many went. */
int ar_results_drop_standin(json_t *results, json_t *runs);
int ar_rec_ranks(json_t *rec);
/* The method of a record: "buffers=B,timing=T,average=A" with the schema's defaults for older
 * records (buffers cold, timing iter, average max). Part of the cell: methods are never pooled. */
void ar_rec_method(json_t *rec, char *buf, size_t len);
const char *ar_rec_buffers(json_t *rec); /* "hot", "cold" ("cold" when absent) */
const char *ar_rec_timing(json_t *rec);  /* "iter", "loop" ("iter" when absent) */
const char *ar_rec_average(json_t *rec); /* "rank0", "mean", "min", "max" ("max" when absent) */
/* Why a record's configuration must never be chosen, NULL when it may be: the record's top-level
 * "warning" (the schema's unsafe-protocol warning), or doctor's rule: LL128 forced (variant proto=,
 * point NCCL_PROTO) on a path NCCL did not report as NVLink (it can corrupt data). */
const char *ar_rec_unsafe(json_t *rec);
int ar_rec_predicted(json_t *rec); /* a model prediction: shown beside measurements, never chosen */

/* What varies across the configurations in view; a label names only that. */
struct ar_vary {
  int stack, buffers, timing, average;
  char fixed[512]; /* sweep point pairs every measured record has with the same value: ",K=V,K2=V2," */
};
void ar_vary_of(json_t *results, json_t *runs, struct ar_vary *v);
/* "buffers hot, timing iter, -a max" of the fields that do not vary ("" when all vary), then the
 * point pairs every configuration shares ("; np=4, X=1"): the labels leave both out. */
void ar_vary_common(json_t *rec, const struct ar_vary *v, char *buf, size_t len);
/* spec, then " {point}" when there is one, then " [stack]" when stacks vary, then the method
 * fields that vary: " (buffers=cold,timing=loop)". v NULL: spec and point only. */
void ar_cfg_label(json_t *rec, json_t *runs, const struct ar_vary *v, char *buf, size_t len);
/* Number of distinct stack names among the results' runs. */
int ar_stack_count(json_t *results, json_t *runs);

/* One table: results of one (dtype, ranks, placement, op) as sizes x configurations. */
struct ar_grid {
  char dtype[32], placement[8], op[16];
  int ranks, nodes;
  int ncfg, nsize, dups;
  char (*cfg)[256];  /* labels, in order of first appearance */
  json_t **cfgrec;   /* a record of each configuration */
  const char **unsafe; /* per configuration: why it is never chosen (ar_rec_unsafe of any record), or NULL */
  char *predicted;   /* per configuration: model predictions (never chosen, never best) */
  char **pooled;     /* per configuration: the sweep points its runs pool ("K=V1,V2; K2=V3"), over --env axes
                      * the sweep recorded as not applying to it (its "applies"), or NULL */
  struct ar_vary vary; /* what varies across all the grids (the labels name it) */
  char method[160];  /* the method fields common to every configuration ("" when none is) */
  size_t *size;      /* ascending */
  json_t **cell;     /* cell[s * ncfg + c], borrowed, NULL when not measured (the latest run) */
  json_t **runs;     /* runs[s * ncfg + c]: array of every run's record (own reference) or NULL */
  char *wrong;       /* wrong[s * ncfg + c]: some record of the cell (any run, a replaced one too) reported wrong
                      * elements (arbench's "wrong", an imported nccl-tests "#wrong"): never eligible there */
};
int ar_grids_build(json_t *results, json_t *runs, struct ar_grid **out, int *n);
void ar_grids_free(struct ar_grid *g, int n);
static inline json_t *ar_grid_at(const struct ar_grid *g, int s, int c) { return g->cell[s * g->ncfg + c]; }
static inline json_t *ar_grid_runs(const struct ar_grid *g, int s, int c) { return g->runs[s * g->ncfg + c]; }
/* p50 of a cell: the median over its runs' p50s (one run: its p50); NAN when not measured. */
double ar_grid_p50(const struct ar_grid *g, int s, int c);
/* May column c be chosen (measured, not unsafe, not a prediction)? */
int ar_grid_eligible(const struct ar_grid *g, int c);
/* The one eligibility rule every output reads: may column c be chosen at size index s? Measured there,
 * ar_grid_eligible, and no record of the cell reported wrong elements (g->wrong). */
int ar_grid_cell_eligible(const struct ar_grid *g, int s, int c);
/* Why column c is not eligible at s ("wrong results", the unsafe reason, "a model prediction"), NULL when it is
 * or when it was not measured there. */
const char *ar_grid_cell_why(const struct ar_grid *g, int s, int c);
/* Column c is the nccl backend itself (what NCCL_* env and a tuner plugin act on; not nccl-tests imports). */
int ar_grid_is_nccl(const struct ar_grid *g, int c);

/* Every statistic of one cell, from all of its runs, computed here only (table, tune, compare, the
 * JSON export the plots read): time percentiles are the median over runs of each run's value (one
 * run: its value), min the lowest and max the highest over runs; algbw and busbw follow from p50
 * (size / p50, x 2(n-1)/n), so they always match the printed latency. */
struct ar_cell_stats {
  double p50, p10, p90, p99, mean, min, max; /* us */
  double algbw, busbw;                       /* GB/s, from p50 */
  double spread;                             /* sd of the runs' log p50s (~ run-to-run CV), NAN: < 2 runs */
  int runs, sampled;                         /* runs; runs with stored samples */
  long long samples, wrong;                  /* samples over runs; wrong elements summed over runs */
};
/* 0, or -1 when the cell has no run with a p50. */
int ar_runs_stats(json_t *runs, struct ar_cell_stats *st);
static inline int ar_grid_stats(const struct ar_grid *g, int s, int c, struct ar_cell_stats *st) {
  json_t *r = g->runs[s * g->ncfg + c];
  return r ? ar_runs_stats(r, st) : -1;
}

/* ---- --by stack / --by KEY (by.c) ---- */

/* Results split into groups: copies of the records with the key dropped from their point, "_by" set
 * to the group, and run_id "RUN@GROUP" whose run (in runs) has stack.name = the group. */
struct ar_by {
  json_t *results, *runs;
  json_t *groups; /* group names, in order of first appearance */
  int without;    /* records without that point key (left out) */
};
/* key "stack": point.stack (sweep --stacks), else the run's stack name; another key: point[key].
 * -AR_EINVAL with one line in err when no record has the key. */
int ar_by_split(struct ar_by *b, json_t *results, json_t *runs, const char *key, char *err, size_t len);
int ar_by_index(const struct ar_by *b, const char *group); /* -1 when not a group */
void ar_by_list(const struct ar_by *b, char *buf, size_t len); /* "a, b, c" */
void ar_by_free(struct ar_by *b);

/* ---- noise (noise.c) ---- */

/* Runs of one measurement: records of one configuration and size, one per (run_id, repeat). */
void ar_run_key(json_t *rec, char *buf, size_t len);
/* Append rec to the runs array, or replace the record of the same run (counted in *dups). */
void ar_runs_add(json_t *runs, json_t *rec, int *dups);
double ar_runs_p50(json_t *runs); /* median of the runs' p50s, NAN when none */
int ar_runs_sampled(json_t *runs); /* runs with stored samples */
/* Samples a record holds (its window's "_wn" when streamed, else samples_us). */
size_t ar_rec_nsamples(json_t *rec);

#define AR_NOISE_RESAMPLES 2000
#define AR_NOISE_SEED 0x61726265ull /* "arbe": fixed so the intervals are reproducible */
#define AR_NOISE_DRIFT 0.05 /* default --drift: run-to-run drift allowed for single-run measurements */
#define AR_MARGIN_DEFAULT 0.05 /* default --margin: the practical margin of equivalence (5%) */
#define AR_POWER 0.80          /* the power runs_needed is computed for */
#define AR_RUNS_NEEDED_MAX 1000 /* runs_needed is capped here ("1000 or more") */
#define AR_REPEAT_CAP 50 /* the most runs a side a printed "repeat N" asks for: beyond, the line says the leaders are
                          * within the pick's bound of each other at this noise */
struct ar_noise {
  int resamples;
  unsigned long long seed;
  double drift;  /* when a side has one run its samples cannot show drift between runs: the tests widen
                  * their null by this fraction (a difference must exceed it beyond the bootstrap's noise;
                  * equivalence needs the interval inside the margin after allowing it) */
  double margin; /* --margin: ratios inside [1/(1+margin), 1+margin] are practically equal (equivalence) */
  int grids;     /* tables one call decides on (ar_grid_decide): the family-wise error is split over them */
  int tails;     /* ar_pair_test keeps what ar_pair_judge needs to give an interval at any level (the bootstrap's
                  * tails: release with ar_pair_release); 0: the 95% interval only */
  int screen;       /* > 0 and < resamples: look at the first screen resamples first (the same first draws), and when
                     * every p-value there is above screen_p stop (the result is that of screen resamples), else draw
                     * on to resamples: one pass instead of a screening test and a redraw (ar_grid_decide) */
  double screen_p;
  struct ar_ostats *ostats; /* NULL, or a cache of the resampled medians' tables shared by one call's comparisons
                             * (ar_ostats_new; the same numbers, each table built once) */
};
/* The tables of the bootstrap's resampled medians (noise.c, ostat.c), by sample count, for struct ar_noise's ostats. */
struct ar_ostats;
struct ar_ostats *ar_ostats_new(void); /* NULL: out of memory (then each comparison builds its own) */
void ar_ostats_free(struct ar_ostats *c);
/* What one family tested: the comparisons with samples (Holm's m), the level each table got. */
struct ar_family {
  int tests;
  double alpha;
};
/* Parse a --drift PCT value (0..100) into nz->drift; -AR_EINVAL with one line in err. */
int ar_noise_drift_parse(struct ar_noise *nz, const char *arg, char *err, size_t len);
/* Parse a --margin PCT value (0 < PCT <= 100) into nz->margin; -AR_EINVAL with one line in err. */
int ar_noise_margin_parse(struct ar_noise *nz, const char *arg, char *err, size_t len);
void ar_noise_defaults(struct ar_noise *nz);
/* 95% bootstrap interval of median(B)/median(A): each resample draws runs with replacement, then
 * each drawn run's samples with replacement (one run: its samples only). key seeds the draws.
 * 0, or -1 when a side has no samples. */
int ar_boot_ratio(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double *lo,
                  double *hi);
/* The same, with the two-sided bootstrap p-value of "ratio = 1" in *p (NULL: not wanted). */
int ar_boot_test(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double *lo,
                 double *hi, double *p);
/* Two-sided p of Student's t with df degrees of freedom. */
double ar_t_two_sided(double t, double df);
/* The regularized incomplete beta function I_x(a, b). */
double ar_inc_beta(double x, double a, double b);
/* The t quantile: the x with P(T <= x) = q for T Student's t with df degrees of freedom (0 < q < 1). */
double ar_t_quantile(double q, double df);
/* The p-value of "same level" between two sides of two or more runs each: a t test on the runs' log
 * p50s (the runs' spread, drift between runs included, is the noise): Student's pooled t when both sides
 * have as many runs (df = 2n - 2: with 3 runs Welch's df falls to ~2 and no family could call a 4x
 * difference), else Welch's; NAN when a side has fewer than two runs. A bootstrap over 3 runs a side is
 * too narrow in its tails for a family. */
double ar_runs_welch_p(json_t *runs_a, json_t *runs_b);
/* Holm–Bonferroni over m p-values at family-wise error alpha: reject[i] = 1 for the rejected ones,
 * padj[i] (NULL: not wanted) the adjusted p-values. 0, or -AR_ERUNTIME when out of memory. */
#define AR_FAMILY_ALPHA 0.05
int ar_holm(const double *p, int m, double alpha, char *reject, double *padj);
/* The p-value of "same level" for one comparison: ar_pair_test's p_diff (shift 1); NAN when a side has no
 * samples. lo, hi: the bootstrap 95% interval of median(B)/median(A). */
double ar_pair_p(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double *lo, double *hi);
/* Resamples for a family of m tests at level alpha: enough that the smallest bootstrap p, 2 / (R + 1),
 * clears Holm's first threshold alpha / m, so a real difference can still be called in a large family. */
int ar_family_resamples(int asked, int m, double alpha);
/* 0 for a baseline (mpi, nccl defaults, nccl-tests), then nccl variants, one-shot, two-shot, staged,
 * islands, others: the order in which the preference goes to the simpler algorithm. */
int ar_simplicity(json_t *rec);

/* ---- the large-family test (noise.c): one set of runs against a reference level, fleet's test ---- */

/* The largest weight (degrees of freedom) the prior variance gets in ar_moderated_p: with three runs a set's own
 * variance has 2 df, and Student's t with 2 df cannot reach the p-values a family of thousands of tests needs
 * (t = 43 gives p = 3e-4); the cap keeps a set whose runs really are noisier than the others' from hiding
 * behind the pool. */
#define AR_MODERATED_PRIOR_DF 10.0
/* Mean and sample variance (n - 1; 0 for one value) of n values. */
void ar_mean_var(const double *v, int n, double *mean, double *var);
/* Both one-sided p-values of a level (log time) against the bound ref + log(1 + margin), with standard error
 * se and df degrees of freedom (Student's t): *p_slow of "no slower than the bound" (small: shown slower than
 * the reference by more than the margin) and *p_within of "as slow as the bound or slower" (small: shown
 * within the margin). se NAN: both left as they are; se 0: the values decide (0 or 1). */
void ar_bound_p(double level, double ref, double margin, double se, double df, double *p_slow, double *p_within);
/* A reference level for ar_moderated_p: level (log time) and the variance of its estimate (se2), and the prior
 * of the sets' run variance: prior_var pooled over the sets compared with it, prior_df its degrees of freedom. */
struct ar_level_ref {
  double level, se2, prior_var, prior_df;
};
/* The test of a large family (docs/analysis.md#the-large-family-test): n >= 2 runs' log times (logs) against
 * the reference x (1 + margin), one-sided as ar_bound_p, on a moderated t (Smyth 2004, limma): the runs'
 * variance shrunk toward ref->prior_var with weight min(prior_df, AR_MODERATED_PRIOR_DF), the reference's
 * se2 added. ar_pair_test's bootstrap floor (~1 / resamples) cannot pass Holm over tens of thousands of
 * tests, and its two-sample t has n_a + n_b - 2 df; this is for many sets of the same measurement (boxes of
 * one cell), whose run variances share one prior. NAN p-values when n < 2. */
void ar_moderated_p(const double *logs, int n, const struct ar_level_ref *ref, double margin, double *p_slow,
                    double *p_within);

/* ---- the two-sample tests (noise.c): what table, tune, compare and fleet decide with ---- */

/* One comparison of the runs of B against the runs of A (each an array of run records as ar_runs_add
 * builds it). Every p-value is the larger of the bootstrap's (over runs and samples) and, when both sides
 * have two or more runs, a t test on the runs' log p50s (Student's pooled at equal run counts, else
 * Welch's): both must reject. shift is the ratio the tests take as "no change" (1; compare passes the
 * launch shift). A side with one run widens each null by nz->drift. */
struct ar_pair {
  double ratio;    /* p50(B) / p50(A), each the median over its side's runs */
  double lo, hi;   /* bootstrap 95% interval of the ratio (one comparison, not family-corrected) */
  double p_diff;   /* p of "same level" (ratio = shift), two-sided: small = a difference beyond the noise */
  double p_equiv;  /* p of "differ by the margin or more" (two one-sided tests, TOST): small = shown
                    * equivalent, ratio / shift inside [1/(1+margin), 1+margin]; 1 when it cannot be shown */
  double p_beyond; /* p of "within the margin": small = shown to differ by more than the margin */
  double sd;       /* run-to-run sd of the log p50s, pooled over the sides with two or more runs; NAN when
                    * neither has two */
  double shift;    /* the "no change" ratio the tests took (as given) */
  int runs_a, runs_b; /* runs with samples; when a side has none, the runs with a p50 (what is tested) */
  int unsampled;      /* a side had no samples (nccl-tests imports, -N): the t test on the runs alone decided */
  int between;        /* the sides' launches (run ids) differ: the launch is the replicate, its runs summarised as the
                       * mean of their log p50s; the t test on those launch values alone decides, lo/hi is its 95%
                       * interval, ratio the ratio of the launches' geometric means and sd the launch-to-launch sd */
  int launches_a, launches_b; /* launches (distinct run ids) with a p50 a side */
  double level_a, level_b;    /* between launches: each side's geometric mean over its launches of their values (us);
                               * ratio = level_b / level_a. NAN otherwise */
  double level;    /* the two-sided error level lo/hi are at: 0.05 from ar_pair_test; the comparison's Holm level after
                    * ar_pair_judge (the interval its verdict is judged on) */
  struct ar_iv {   /* what an interval at any level is made of (ar_pair_interval) */
    double d, se, df; /* the t test's log difference, standard error, degrees of freedom (tok) */
    int tok, nospread;
    double w;         /* the bootstrap's drift widening (1 + drift with a side of one run, else 1) */
    double *tail;     /* nz->tails: the bootstrap's order statistics, (rank, value) pairs: nlo of the lower tail then nhi
                       * of the upper, ranks ascending (malloc'd), or NULL */
    int nlo, nhi, n;  /* pairs per tail, and the resamples they came from */
  } iv;
};
/* The replicates a comparison tested a side: its launches between launches, else its runs. */
static inline int ar_pair_reps(const struct ar_pair *t, int side_b) {
  return t->between ? (side_b ? t->launches_b : t->launches_a) : side_b ? t->runs_b : t->runs_a;
}
/* Between launches (the two sides share no launch: two files, two stacks, two sweep points) each launch is one
 * replicate and a side with one launch tests nothing (-1, between set); inside the same launches (configurations
 * measured side by side) the runs and their samples are tested as below; when the sides share some launches but not
 * all, only the runs of the shared launches are compared (side by side in them).
 * 0, or -1 when nothing can be tested: a side without samples (nccl-tests imports, -N runs) is tested at the level of
 * its runs (each one launch: the t test alone, two or more runs a side needed); -1 then every p is NAN, ratio and sd
 * still set when they can be. */
int ar_pair_test(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double shift,
                 struct ar_pair *t);
/* Verdicts of m comparisons, B against A: Holm–Bonferroni at family-wise error alpha over their p_diff,
 * and separately over their p_equiv. equivalent when shown equivalent (within the margin); else faster /
 * slower when shown different; else undecided; no samples when the p-values are NAN. */
enum { AR_PV_NOSAMPLES, AR_PV_FASTER, AR_PV_SLOWER, AR_PV_EQUIVALENT, AR_PV_UNDECIDED };
int ar_pair_verdicts(const struct ar_pair *t, int m, double alpha, int *verdict, double *padj_diff);
const char *ar_pair_verdict_name(int v); /* "faster", "slower", "equivalent", "undecided", "no samples" */
/* One definition for an interval and its verdict: ar_pair_verdicts, then each tested comparison's lo/hi set at the
 * level Holm judged it at (level): a difference Holm rejected at step r (0-based, of m tested) at alpha / (m - r), so its
 * interval excludes 1 on its side; a comparison not rejected at alpha / (m - R), R the rejected ones (the compatible
 * levels of Strassburger & Bretz 2008), so its interval holds 1; an equivalent one the TOST's 1 - 2 alpha_e interval at
 * its equivalence family's Holm level (inside the margin); an undecided one the hull of its difference interval, its
 * TOST interval and 1. Untested: lo = hi = NAN. Frees the tails (ar_pair_release). */
int ar_pair_judge(struct ar_pair *t, int m, double alpha, int *verdict, double *padj_diff);
/* The interval of one comparison at two-sided error level a (0 < a < 1): the hull of the bootstrap's percentile
 * interval (widened by iv.w) and the t test's; 0, or -1 when neither is there (then NAN). */
int ar_pair_interval(const struct ar_pair *t, double a, double *lo, double *hi);
void ar_pair_release(struct ar_pair *t); /* frees iv.tail */
/* Runs per side that give power AR_POWER to decide a comparison whose log ratio and run-to-run sd are
 * these: the fewer of what the difference test needs (two-sided, level alpha) and what the equivalence
 * test needs (TOST at alpha, margin); alpha is the per-comparison level (the family's over its size).
 * 2..AR_RUNS_NEEDED_MAX; -1 when sd is unknown (NAN: no side had two runs). */
int ar_runs_needed(double log_ratio, double sd, double margin, double alpha);

/* ---- the decision per size (decide.c): the one decider every output reads ---- */

/* The verdict of one size. */
enum { AR_V_NONE, AR_V_CLEAR, AR_V_EQUIVALENT, AR_V_UNDECIDED, AR_V_INVALID /* measured, none eligible */ };
/* Where column c stands against the fastest at one size. */
enum {
  AR_REL_OUT,     /* not in play: not measured, not eligible there (ar_grid_cell_eligible) or not in use */
  AR_REL_FASTEST, /* the point-best: lowest p50 (median over runs) */
  AR_REL_SLOWER,  /* slower beyond the noise (family-wise) and not shown equivalent */
  AR_REL_EQUIV,   /* shown equivalent to the fastest within the margin (family-wise) */
  AR_REL_OPEN     /* neither: the data cannot tell it from the fastest */
};
struct ar_decision {
  int pick;        /* the column to use, -1 when none is in play */
  int fastest;     /* the point-best column */
  int verdict;     /* AR_V_*: clear (every other slower beyond the noise), equivalent (every other shown
                    * equivalent or slower, at least one equivalent), undecided (some other open) */
  int nequiv;      /* the equivalent set's size: the fastest and the columns shown equivalent to it */
  int nopen;       /* columns not told apart from the fastest */
  int runs_needed; /* undecided: runs per side that give 80% power to decide every open comparison (--repeat
                    * N), capped at AR_RUNS_NEEDED_MAX; 0 when decided; -1 when no spread between runs was
                    * measured (no side with two runs, or no samples) */
  int runs_min, runs_max; /* runs over the columns in play (a run killed mid-repeat shows here) */
  int launches;    /* undecided with an open comparison between launches (ar_pair.between): runs_needed counts launches
                    * a side; 2 when one of them has one launch on a side (nothing between launches tested) */
  int excluded;    /* columns in use measured at this size but not eligible there (wrong results, unsafe); with
                    * none left in play the verdict is AR_V_INVALID ("no valid configuration") and pick -1 */
  double bound;    /* how much slower than its best alternative the pick can be at 95%: the largest over the other
                    * columns in play of the upper end of the interval of p50(pick) / p50(other), minus 1 (negative:
                    * faster by at least that much); NAN when unknown (no interval: one run a side without samples) */
  int bound_vs;    /* the column that bound is against, -1 when none */
  double detectable; /* the smallest ratio (> 1) the pick's comparison with bound_vs could detect at 80% power at its
                      * family's per-comparison level, from the half-width of its interval; NAN when unknown */
};
struct ar_decisions {
  int nsize, ncfg;
  double margin;          /* the equivalence margin (fraction) */
  struct ar_decision *at; /* per size index */
  char *rel;              /* rel[s * ncfg + c]: AR_REL_* */
  struct ar_pair *pair;   /* pair[s * ncfg + c]: c against the fastest at s (B = c, A = the fastest); NAN
                           * p-values where not tested */
  struct ar_family fam;   /* the difference family: Holm over its p_diff */
  struct ar_family efam;  /* the equivalence family: Holm over its p_equiv (same comparisons, same level) */
};
/* Decide every size of g among the columns with use[c] (NULL: all); eligible columns only. At each size
 * the pick is the fastest (lowest p50) unless other columns are shown equivalent to it, when the
 * preference picks among that equivalent set: the previous size's pick, else the next clear size's pick,
 * else the simplest (ar_simplicity), else the faster. Both families are every comparison of the table
 * (each column in play against its size's fastest) at AR_FAMILY_ALPHA / nz->grids. 0, or -AR_ERUNTIME
 * (then d holds nothing to free). */
int ar_grid_decide(const struct ar_grid *g, const char *use, const struct ar_noise *nz, struct ar_decisions *d);
void ar_decisions_free(struct ar_decisions *d);
static inline int ar_decision_rel(const struct ar_decisions *d, int s, int c) { return d->rel[(size_t)s * d->ncfg + c]; }
const char *ar_verdict_name(int v); /* "clear", "equivalent", "undecided", "no valid configuration"; "" for AR_V_NONE */
/* Adjacent sizes with the same pick, merged (tune's rows, the tuner CSV, tuner.json, thresholds.json). */
struct ar_range {
  int from, to;      /* size indices, inclusive */
  int pick;          /* the column */
  int clear, equivalent, undecided; /* sizes of each verdict in the range */
  int runs_needed;   /* the largest over its undecided sizes (-1: one of them unknown; 0: none undecided) */
  int launches;      /* the largest ar_decision.launches of its undecided sizes: runs_needed counts launches (1), or
                      * one launch a side decides nothing (2) */
};
/* Ranges of the sizes with a pick (sizes without one are skipped, not merged across); count, or -1. out
 * is malloc'd (free it). */
int ar_decision_ranges(const struct ar_grid *g, const struct ar_decisions *d, struct ar_range **out);
/* "clear", "equivalent" (all decided, some equivalent) or "undecided" (any undecided size). */
const char *ar_range_verdict(const struct ar_range *r);
/* One size's decision as table --format json writes it (and report, serving, fleet read): size, pick,
 * pick_label, fastest, verdict, equivalent (column indices, the pick's set), open, margin, runs,
 * runs_needed (null when unknown), lead. */
json_t *ar_decision_json(const struct ar_grid *g, const struct ar_decisions *d, int s);
/* The pick's bound at s as words: "at most 6% slower than shm-staged" / "at least 30% faster than mpi"; "" when
 * unknown. */
void ar_bound_text(const struct ar_grid *g, const struct ar_decisions *d, int s, char *buf, size_t len);
/* One line naming what a table's families tested (its legend, tune's header, table --format json's
 * "correction"). */
void ar_family_text(const struct ar_decisions *d, char *buf, size_t len);
/* The statistics paragraph, once per command behind --explain: the rule, the margin, the tests, the power, the bound. */
void ar_rule_text(const struct ar_noise *nz, char *buf, size_t len);
/* The one line printed in its place without --explain: where the paragraph is (cmd: "table", "tune", "compare"). */
void ar_explain_hint(const char *cmd, char *buf, size_t len);

/* "one line" for a skip/error/other record, for listings. */
void ar_note_line(json_t *rec, char *buf, size_t len);
/* skip / error / other records as one line each, without repeats (array of strings, new ref). */
json_t *ar_note_lines(json_t *notes);
/* Format microseconds with a precision that suits their magnitude. */
void ar_fmt_us(double us, char *buf, size_t len);
/* The one-line error for getopt's '?' (unknown option) or ':' (missing value); returns exit 2. */
int ar_ana_badopt(const char *cmd, int c, const char *arg);

#endif
