/* table.c — run's table on stdout: results printed as nccl-tests does (so its users can read them at a glance), with
 * p50 and p99 columns added after the average time; columns without data are left out. */
#include "run/table.h"
#include <stdio.h>
#include <string.h>

void ar_report_init(struct ar_report *r, FILE *f, bool quiet) {
  memset(r, 0, sizeof *r);
  r->f = f;
  r->note = f;
  r->table = true;
  r->quiet = quiet;
  r->out = r->in = r->pct = true;
}

void ar_report_nccl_tests(struct ar_report *r, const struct ar_nt_run *nr) {
  r->nt = nr;
  if (*nr->o->nt_dir) return; /* the logs go to files; stdout keeps the table */
  r->table = false;
  r->note = stderr;
}

/* The log of the configuration that just ended, if one is open. */
static void nt_end(struct ar_report *r) {
  if (r->nt && r->ntlog.f) ar_nt_end(&r->ntlog);
}

void ar_report_columns(struct ar_report *r, bool out, bool in, bool percentiles) {
  r->out = out;
  r->in = in;
  r->pct = percentiles;
}

/* The average busbw of the configuration whose rows were just printed; nothing when none measured. */
static void avg_line(struct ar_report *r) {
  if (r->busbw_n) fprintf(r->f, "# Avg bus bandwidth    : %g\n", r->busbw_sum / r->busbw_n);
  r->busbw_sum = 0;
  r->busbw_n = 0;
}

/* One placement's column titles (9 or 7 wide). */
static void titles(struct ar_report *r, const char *const *t) {
  for (int i = 0; i < 6; i++) {
    if (!r->pct && (i == 1 || i == 2)) continue;
    fprintf(r->f, i < 3 ? " %9s" : i < 5 ? " %7s" : " %6s", t[i]);
  }
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
  nt_end(r);
  char err[AR_ERRLEN];
  if (r->nt && ar_nt_begin(&r->ntlog, r->nt, backend, dt, err, sizeof err)) {
    fprintf(stderr, "arbench: %s\n", err);
    r->failed++;
  }
  if (!r->table || r->quiet) return;
  static const char *const name[] = {"time", "p50", "p99", "algbw", "busbw", "#wrong"};
  static const char *const unit[] = {"(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", ""};
  int w = r->pct ? 51 : 31;
  avg_line(r);
  fprintf(f, "#\n# backend %s, %s, %d ranks\n", backend, ar_dtype_name(dt), nranks);
  if (*r->mode) fprintf(f, "# %s\n", r->mode);
  fprintf(f, "#\n# %10s %12s %8s %6s %6s", "", "", "", "", "");
  if (r->out) fprintf(f, " %*s", w, "out-of-place");
  if (r->in) fprintf(f, " %*s", w, "in-place");
  fprintf(f, "\n# %10s %12s %8s %6s %6s", "size", "count", "type", "redop", "root");
  for (int p = 0; p < 2; p++)
    if (p ? r->in : r->out) titles(r, name);
  fprintf(f, "\n# %10s %12s %8s %6s %6s", "(B)", "(elements)", "", "", "");
  for (int p = 0; p < 2; p++)
    if (p ? r->in : r->out) titles(r, unit);
  fprintf(f, "\n");
  fflush(f);
}

static void cell(struct ar_report *r, const struct ar_cell *c) {
  FILE *f = r->f;
  if (!c || !c->present) {
    fprintf(f, " %9s%s %7s %7s %6s", "", r->pct ? "                    " : "", "", "", c && c->skip ? "skip" : "");
    return;
  }
  fprintf(f, " %9.2f", c->time_us);
  if (r->pct) fprintf(f, " %9.2f %9.2f", c->p50_us, c->p99_us);
  fprintf(f, " %7.2f %7.2f", c->algbw, c->busbw);
  if (c->checked) fprintf(f, " %6llu", (unsigned long long)c->wrong);
  else fprintf(f, " %6s", "N/A");
  r->wrong += c->checked ? c->wrong : 0;
  r->busbw_sum += c->busbw;
  r->busbw_n++;
  r->measured++;
}

void ar_report_row(struct ar_report *r, size_t bytes, size_t count, enum ar_dtype dt, enum ar_op op,
                   const struct ar_cell *out, const struct ar_cell *in) {
  if (r->nt) ar_nt_row(&r->ntlog, bytes, count, dt, op, out, in);
  for (int p = 0; !r->table && p < 2; p++) { /* the counts the table keeps: what was measured */
    const struct ar_cell *c = p ? in : out;
    if (c && c->present) r->measured++, r->wrong += c->checked ? c->wrong : 0;
  }
  if (!r->table) return;
  fprintf(r->f, "  %10zu %12zu %8s %6s %6d", bytes, count, ar_dtype_name(dt), ar_op_name(op), -1);
  if (r->out) cell(r, out);
  if (r->in) cell(r, in);
  fprintf(r->f, "\n");
  fflush(r->f);
}

void ar_report_footer(struct ar_report *r) {
  nt_end(r);
  if (!r->table) {
    if (!r->measured && r->errors) fprintf(r->note, "arbench: nothing measured: %d failure%s (see the error above)\n",
                                            r->errors, r->errors == 1 ? "" : "s");
    else if (!r->measured) fprintf(r->note, "arbench: nothing measured: every configuration was skipped\n");
    return;
  }
  avg_line(r);
  fprintf(r->f, "# Out of bounds values : %llu %s\n", (unsigned long long)r->wrong, r->wrong ? "FAILED" : "OK");
  if (!r->measured && r->errors)
    fprintf(r->f, "# Nothing measured: %d failure%s (see the error on stderr)\n", r->errors, r->errors == 1 ? "" : "s");
  else if (!r->measured) fprintf(r->f, "# Nothing measured: every configuration was skipped (see the skip lines above)\n");
  fprintf(r->f, "#\n");
  fflush(r->f);
}
