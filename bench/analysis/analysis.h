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
int ar_rec_ranks(json_t *rec);
/* spec, then " {point}" when there is one, then " [stack]" when with_stack. */
void ar_cfg_label(json_t *rec, json_t *runs, int with_stack, char *buf, size_t len);
/* Number of distinct stack names among the results' runs. */
int ar_stack_count(json_t *results, json_t *runs);

/* One table: results of one (dtype, ranks, placement, op) as sizes x configurations. */
struct ar_grid {
  char dtype[32], placement[8], op[16];
  int ranks, nodes;
  int ncfg, nsize, dups;
  char (*cfg)[256];  /* labels, in order of first appearance */
  json_t **cfgrec;   /* a record of each configuration */
  size_t *size;      /* ascending */
  json_t **cell;     /* cell[s * ncfg + c], borrowed, NULL when not measured (the latest run) */
  json_t **runs;     /* runs[s * ncfg + c]: array of every run's record (own reference) or NULL */
};
int ar_grids_build(json_t *results, json_t *runs, struct ar_grid **out, int *n);
void ar_grids_free(struct ar_grid *g, int n);
static inline json_t *ar_grid_at(const struct ar_grid *g, int s, int c) { return g->cell[s * g->ncfg + c]; }
static inline json_t *ar_grid_runs(const struct ar_grid *g, int s, int c) { return g->runs[s * g->ncfg + c]; }
/* p50 of a cell: the median over its runs' p50s (one run: its p50); NAN when not measured. */
double ar_grid_p50(const struct ar_grid *g, int s, int c);
/* Best (lowest p50) configuration at size index s, -1 when none; second gets the runner-up. */
int ar_grid_best(const struct ar_grid *g, int s, int *second);

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

#define AR_NOISE_RESAMPLES 2000
#define AR_NOISE_SEED 0x61726265ull /* "arbe": fixed so the intervals are reproducible */
#define AR_NOISE_DRIFT 0.05 /* default --drift: run-to-run drift allowed for single-run measurements */
struct ar_noise {
  int resamples;
  unsigned long long seed;
  double drift; /* when a side has one run: differences below this fraction are ties (its samples
                 * cannot show drift between runs); with two or more runs per side the runs' spread does */
};
/* Parse a --drift PCT value (0..100) into nz->drift; -AR_EINVAL with one line in err. */
int ar_noise_drift_parse(struct ar_noise *nz, const char *arg, char *err, size_t len);
void ar_noise_defaults(struct ar_noise *nz);
/* 95% bootstrap interval of median(B)/median(A): each resample draws runs with replacement, then
 * each drawn run's samples with replacement (one run: its samples only). key seeds the draws.
 * 0, or -1 when a side has no samples. */
int ar_boot_ratio(json_t *runs_a, json_t *runs_b, const char *key, const struct ar_noise *nz, double *lo,
                  double *hi);
/* 0 for a baseline (mpi, nccl defaults, nccl-tests), then nccl variants, one-shot, two-shot, staged,
 * islands, others: the order in which ties go to the simpler algorithm. */
int ar_simplicity(json_t *rec);
/* Per size index: choice[s] = the configuration to use among columns with use[c] (NULL: all), -1
 * when none; tied[s * ncfg + c] = 1 for the columns whose difference from the fastest is within
 * the noise (the fastest included). A size with one tied column has a clear winner; at a tie the
 * previous size's choice stays when tied, else the next clear winner's, else the simplest. */
int ar_grid_choose(const struct ar_grid *g, const char *use, const struct ar_noise *nz, int *choice, char *tied);
int ar_grid_ties(const struct ar_grid *g, const char *tied, int s); /* tied columns at s */

/* "one line" for a skip/error/other record, for listings. */
void ar_note_line(json_t *rec, char *buf, size_t len);
/* skip / error / other records as one line each, without repeats (array of strings, new ref). */
json_t *ar_note_lines(json_t *notes);
/* Format microseconds with a precision that suits their magnitude. */
void ar_fmt_us(double us, char *buf, size_t len);
/* The one-line error for getopt's '?' (unknown option) or ':' (missing value); returns exit 2. */
int ar_ana_badopt(const char *cmd, int c, const char *arg);

#endif
