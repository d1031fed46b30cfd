/* table.h — run's nccl-tests-style table on stdout: one row per size with out-of-place and
 * in-place columns (avg time, p50, p99, algbw, busbw, #wrong) and the footer. */
#ifndef AR_REPORT_H
#define AR_REPORT_H

#include "ar.h"
#include "run/nt_log.h"
#include <stdbool.h>
#include <stdio.h>

struct ar_cell {
  bool present;  /* measured */
  bool checked;  /* #wrong meaningful */
  double time_us, p50_us, p99_us, algbw, busbw;
  double min_us, max_us, cv_pct; /* over the samples; cv_pct = stddev / mean x 100 (--format nccl-tests-2.19's i_*) */
  uint64_t wrong;
  const char *skip; /* reason when not measured but expected, else NULL */
};

struct ar_report {
  FILE *f;
  bool quiet;
  bool out, in;    /* placements measured: only their columns are printed */
  bool pct;        /* p50 and p99 columns: not with --timing loop (one sample: they repeat the time) */
  uint64_t wrong;  /* sum of #wrong over rows */
  double busbw_sum; /* of the current configuration (backend x dtype), over its rows and repeats */
  int busbw_n;
  int measured;    /* cells measured over the whole run */
  int errors;      /* configurations that failed (error lines, not skips): set before the footer */
  char mode[200]; /* how the numbers were taken (buffers, timing, ranks), printed in each header */
  FILE *note;      /* skip, repeat and start-up lines: stdout beside the table, stderr when stdout is a log */
  bool table;      /* arbench's table on f (not with --format nccl-tests on stdout) */
  const struct ar_nt_run *nt; /* --format nccl-tests: a log per configuration, else NULL */
  struct ar_nt_log ntlog;     /* the log being written */
  int failed;      /* a log that could not be written (the run fails) */
};

void ar_report_init(struct ar_report *r, FILE *f, bool quiet);
/* --format nccl-tests: each configuration also (with --nccl-tests-dir) or instead (stdout) as an nccl-tests
 * log; nr set up by ar_nt_setup. */
void ar_report_nccl_tests(struct ar_report *r, const struct ar_nt_run *nr);
/* Say once how the numbers are taken: --buffers, --timing and -a as given. */
void ar_report_mode(struct ar_report *r, const char *buffers, const char *timing, int average);
/* Which columns have data: the placements measured, and whether p50/p99 differ from the time. */
void ar_report_columns(struct ar_report *r, bool out, bool in, bool percentiles);
/* A configuration starts (called with --quiet too: its nccl-tests log needs the header). */
void ar_report_header(struct ar_report *r, const char *backend, enum ar_dtype dt, int nranks);
void ar_report_row(struct ar_report *r, size_t bytes, size_t count, enum ar_dtype dt, enum ar_op op,
                   const struct ar_cell *out, const struct ar_cell *in);
/* "# Avg bus bandwidth" of the last configuration (as nccl-tests prints it per collective of one
 * configuration, here per backend x dtype), then the out-of-bounds line. */
void ar_report_footer(struct ar_report *r);

#endif
