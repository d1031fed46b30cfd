/* links.h — `arbench links`: every rank pair's link measured (bandwidth and latency, read and write,
 * alone and under each pattern's load). Options, patterns and the report are pure, for the unit tests. */
#ifndef AR_LINKS_H
#define AR_LINKS_H

#include "opts.h"
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Who moves the data: read = the destination pulls from the source's memory, write = the source pushes
 * into the destination's memory. read, write: CPU ranks (MPI shared memory); ce-*: GPUs, the copy engine
 * (cudaMemcpyAsync on CUDA IPC-mapped peer memory); sm-*: GPUs, a copy kernel (bench/links/links_cuda.cu). */
enum ar_lmethod { AR_LM_READ = 0, AR_LM_WRITE, AR_LM_CE_READ, AR_LM_CE_WRITE, AR_LM_SM_READ, AR_LM_SM_WRITE, AR_LM_N };
/* uni: the pattern's flows; bi: every flow together with its reverse. */
enum ar_ldir { AR_LD_UNI = 0, AR_LD_BI, AR_LD_N };
/* pairs: every pair alone (the matrix); all: every ordered pair at once; to-one / from-one: every rank to
 * (from) one root, for each root; oneshot: everyone reads everyone (one-shot allreduce's load); ring: each
 * rank to its successor (ring allreduce's load). */
enum ar_lpat { AR_LP_PAIRS = 0, AR_LP_ALL, AR_LP_TO_ONE, AR_LP_FROM_ONE, AR_LP_ONESHOT, AR_LP_RING, AR_LP_N };

const char *ar_lmethod_name(int m); /* "read", "write", "ce-read", "ce-write", "sm-read", "sm-write" */
const char *ar_ldir_name(int d);    /* "uni", "bi" */
const char *ar_lpat_name(int p);    /* "pairs", "all", "to-one", "from-one", "oneshot", "ring" */

struct ar_links_opts {
  size_t sizes[AR_MAX_SIZES]; /* bytes, ascending */
  int nsizes;
  unsigned methods, dirs, patterns; /* bit sets of enum ar_lmethod, ar_ldir, ar_lpat */
  bool methods_given;               /* --method given; else the run picks (links/cuda_plan.h) */
  bool shared_gpu;                  /* --shared-gpu: several ranks may share one GPU (as `run`) */
  char devices[AR_NAMELEN];         /* --devices LIST (as `run`), "" = by local rank */
  int iters, warmup, repeat;        /* -n, -w, --repeat: the bandwidth is the p50 over repeats */
  int lat_iters;                    /* --lat-iters: ping-pongs per latency repeat, 0 = no latency */
  double smoke_timeout;             /* --smoke-timeout seconds per smoke-test transfer */
  double timeout;                   /* -T: seconds a phase may make no progress (run's watchdog), 0 = off */
  bool bind, quiet;
  bool per_node;         /* --per-node: every node probes its own ranks, all at once (bench/run/pernode.h) */
  int np;         /* --np N: started outside mpirun, relaunch under mpirun with N ranks (0 = not given) */
  bool no_launch; /* --no-launch: never relaunch */
  char json[AR_NAMELEN]; /* -J */
  char calib[AR_NAMELEN]; /* --calib: link parameters of model --fit ("" = none: expected values null) */
};

void ar_links_defaults(struct ar_links_opts *o);
/* argv[0] is "links". 0, 1 for --help, or -AR_EINVAL with one line in err naming the bad value. */
int ar_links_parse(struct ar_links_opts *o, int argc, char **argv, char *err, size_t len);
void ar_links_usage(FILE *f);

/* ---- patterns ---- */

struct ar_flow {
  int src, dst;
};
/* Instances of a pattern on n ranks: pairs uni n(n-1) ordered pairs, pairs bi n(n-1)/2 unordered ones,
 * to-one / from-one n (one per root), all / oneshot / ring 1. */
int ar_links_ninstances(int pat, int dir, int n);
/* The flows of instance k (0 <= k < ninstances), at most max; returns their number (ordered by source,
 * then destination, no flow twice), 0 when k is out of range or n < 2. root (may be NULL) = the root of
 * to-one / from-one, the pair's first rank for pairs, -1 otherwise. */
int ar_links_flows(int pat, int dir, int n, int k, struct ar_flow *out, int max, int *root);
/* The rank that executes a flow's copies: the destination for the reads, the source for the writes. */
int ar_links_initiator(int method, struct ar_flow f);

/* ---- the report (rank 0): records in, matrices and findings out ---- */

/* Thresholds of the findings (docs/links.md). */
#define AR_LINKS_WRITE_SLOW 0.5  /* writes below this fraction of reads (or reads of writes) */
#define AR_LINKS_PAIR_SLOW 0.6   /* a pair below this fraction of the median pair of its path class */
#define AR_LINKS_LINK_SLOW 0.6   /* a pair below this fraction of its link (when hwloc knows the rate) */
#define AR_LINKS_LOADED_SLOW 0.7 /* a pattern's median flow below this fraction of its isolated rate */

/* Print the matrices (GB/s for each method and direction at the largest size, us of the flag latency),
 * the loaded/isolated ratio per pattern and the findings, from the `link` records of one run. Returns the
 * number of findings. */
int ar_links_report(FILE *f, json_t *records, int nranks);
/* The findings alone, one plain line each, appended to out (strings): only those beyond the spread of their
 * own repeats (the value's gap to its threshold over 2 x the standard error of its records' samples_gbs; a
 * record without 2 repeats has no spread and gives none). Returns how many. */
int ar_links_findings(json_t *records, int nranks, json_t *out);
/* The findings within their repeats' spread, not reported: how many, and one line in buf naming the first and
 * the --repeat that would decide them ("" when none). */
int ar_links_undecided(json_t *records, int nranks, char *buf, size_t len);

/* `table` on link records: one markdown table per (method, direction, pattern): flows x sizes, GB/s (us for
 * the flag latency), the median over the files' records. f NULL: print nothing. Removes the link records from
 * notes; returns how many there were. */
int ar_links_table(FILE *f, json_t *notes);
/* How many `link` records NOTES holds. */
int ar_links_count(json_t *notes);

#endif
