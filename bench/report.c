/* report.c — print results as nccl-tests does (so its users can read them at a glance), with
 * p50 and p99 columns added after the average time. */
#include "report.h"
#include <stdio.h>
#include <string.h>

void ar_report_init(struct ar_report *r, FILE *f, bool quiet) {
  memset(r, 0, sizeof *r);
  r->f = f;
  r->quiet = quiet;
}

void ar_report_mode(struct ar_report *r, const char *buffers, const char *timing, int average) {
  static const char *const how[] = {"rank 0's", "average over ranks", "min over ranks", "max over ranks"};
  snprintf(r->mode, sizeof r->mode, "buffers %s (%s), timing %s (%s), time = %s (-a %d)", buffers,
           strcmp(buffers, "cold") ? "one set reused" : "sets rotated past the cache", timing,
           strcmp(timing, "loop") ? "per iteration" : "one interval / iterations",
           average >= 0 && average < 4 ? how[average] : "?", average);
}

void ar_report_header(struct ar_report *r, const char *backend, enum ar_dtype dt, int nranks) {
  FILE *f = r->f;
  fprintf(f, "#\n# backend %s, %s, %d ranks\n", backend, ar_dtype_name(dt), nranks);
  if (*r->mode) fprintf(f, "# %s\n", r->mode);
  fprintf(f, "#\n");
  fprintf(f, "# %10s %12s %8s %6s %6s %51s %51s\n", "", "", "", "", "", "out-of-place", "in-place");
  fprintf(f, "# %10s %12s %8s %6s %6s %9s %9s %9s %7s %7s %6s %9s %9s %9s %7s %7s %6s\n", "size",
          "count", "type", "redop", "root", "time", "p50", "p99", "algbw", "busbw", "#wrong", "time",
          "p50", "p99", "algbw", "busbw", "#wrong");
  fprintf(f, "# %10s %12s %8s %6s %6s %9s %9s %9s %7s %7s %6s %9s %9s %9s %7s %7s %6s\n", "(B)",
          "(elements)", "", "", "", "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)",
          "(us)", "(GB/s)", "(GB/s)", "");
  fflush(f);
}

static void cell(struct ar_report *r, const struct ar_cell *c) {
  FILE *f = r->f;
  if (!c || !c->present) {
    fprintf(f, " %9s %9s %9s %7s %7s %6s", "", "", "", "", "", c && c->skip ? "skip" : "");
    return;
  }
  fprintf(f, " %9.2f %9.2f %9.2f %7.2f %7.2f", c->time_us, c->p50_us, c->p99_us, c->algbw, c->busbw);
  if (c->checked) fprintf(f, " %6llu", (unsigned long long)c->wrong);
  else fprintf(f, " %6s", "N/A");
  r->wrong += c->checked ? c->wrong : 0;
  r->busbw_sum += c->busbw;
  r->busbw_n++;
}

void ar_report_row(struct ar_report *r, size_t bytes, size_t count, enum ar_dtype dt, enum ar_op op,
                   const struct ar_cell *out, const struct ar_cell *in) {
  fprintf(r->f, "  %10zu %12zu %8s %6s %6d", bytes, count, ar_dtype_name(dt), ar_op_name(op), -1);
  cell(r, out);
  cell(r, in);
  fprintf(r->f, "\n");
  fflush(r->f);
}

void ar_report_footer(struct ar_report *r) {
  fprintf(r->f, "# Out of bounds values : %llu %s\n", (unsigned long long)r->wrong, r->wrong ? "FAILED" : "OK");
  fprintf(r->f, "# Avg bus bandwidth    : %g\n", r->busbw_n ? r->busbw_sum / r->busbw_n : 0.0);
  fprintf(r->f, "#\n");
  fflush(r->f);
}
