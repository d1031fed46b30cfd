/* nt_log.h — `arbench run --format nccl-tests`: results written as nccl-tests' all_reduce_perf prints them
 * (the layout of nccl-tests 2.18.5, or 2.19.6's with --format nccl-tests-2.19), one configuration (backend spec x
 * dtype) per log. */
#ifndef AR_NT_LOG_H
#define AR_NT_LOG_H

#include "ar.h"
#include "backend.h"
#include "opts.h"
#include <jansson.h>
#include <stdio.h>

#define AR_NT_VERSION "2.18.5"     /* the nccl-tests release whose output layout the logs follow */
#define AR_NT_VERSION_219 "2.19.6" /* --format nccl-tests-2.19: the newest 2.19 tag (-I since 2.19.2, -K 2.19.6) */

struct ar_cell;

/* What every log of a run says in its header, set up once (ar_nt_setup) on rank 0. */
struct ar_nt_run {
  const struct ar_opts *o;
  char *rank_lines;      /* "#  Rank  0 Group  0 Pid ..." of every rank, in rank order */
  int nranks, nnodes;
  char run_id[32];
  char stack[64];
  int nccl_headers, nccl_library; /* NCCL's version codes (22809), 0 without NCCL */
};

/* One log being written: a configuration's header, rows and footer. */
struct ar_nt_log {
  FILE *f;
  int layout;            /* 218 or 219 (the run's --format) */
  int per_iter;          /* 2.19's -I columns: the layout is 219 and every iteration was timed */
  int owned;             /* f is a file of --nccl-tests-dir, closed at the end */
  double busbw_sum;
  int busbw_n;
  unsigned long long wrong;
};

/* The configurations of the run (backends x dtypes, after the default backends are chosen): one without
 * --nccl-tests-dir (stdout is its log), any number with it; the directory is created and no log in it may
 * exist already. -AR_EINVAL with one line in err. Rank 0's file system. */
int ar_nt_check(const struct ar_opts *o, char *err, size_t len);
/* The log file of a configuration: "mpi-float.log", "nccl-algo=Ring-proto=LL-half.log". */
void ar_nt_file_name(const char *spec, enum ar_dtype dt, char *buf, size_t len);
/* Collective: every rank's "#  Rank" line gathered to rank 0, and the header facts from the run record
 * (rank 0's). 0, or -AR_ERUNTIME (out of memory) on every rank. */
int ar_nt_setup(struct ar_nt_run *nr, const struct ar_env *env, const char *run_id, json_t *runrec);
void ar_nt_free(struct ar_nt_run *nr);

/* Start the log of one configuration (stdout, or its file in --nccl-tests-dir): the header lines. -1 with
 * err set when its file cannot be created. */
int ar_nt_begin(struct ar_nt_log *l, const struct ar_nt_run *nr, const char *spec, enum ar_dtype dt, char *err,
                size_t len);
/* One size: both column groups (a group not measured is left blank, as nccl-tests does); nothing when
 * neither was measured. */
void ar_nt_row(struct ar_nt_log *l, size_t bytes, size_t count, enum ar_dtype dt, enum ar_op op,
               const struct ar_cell *out, const struct ar_cell *in);
/* The footer: out-of-bounds values, average bus bandwidth, the concluding lines; closes a file. */
void ar_nt_end(struct ar_nt_log *l);

/* A number in width characters as nccl-tests 2.18.5 prints its columns: 2 decimals while they fit, then 1,
 * then none, then exponent form. */
void ar_nt_number(double v, int width, char *buf, size_t len);
/* The same as nccl-tests 2.19.6 prints them (src/util.cu getFloatStr, "Fix benchmark output alignment"): the
 * first of 2, 1, 0 decimals whose text fits in width, then exponent form; 9999.996 is "10000.0", not 2.18's
 * 8-character "10000.00". */
void ar_nt_number_fit(double v, int width, char *buf, size_t len);

#endif
