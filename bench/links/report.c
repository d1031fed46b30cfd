/* report.c — what `arbench links` prints from its `link` records: nvidia-smi-style matrices with the path
 * class per cell, the per-link score, loaded/isolated per pattern and plain-word findings; `table`'s view. */
#include "links/links.h"
#include "links/records.h"
#include "opts.h"
#include "results.h"
#include "stats.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int is(json_t *r, const char *key, const char *v) { return !strcmp(ar_rec_str(r, key, ""), v); }

static double num(json_t *r, const char *key) {
  json_t *v = json_object_get(r, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Largest transfer among the records of (method, direction, pattern); 0 when none. */
static size_t largest(json_t *recs, const char *m, const char *d, const char *p) {
  size_t i, best = 0;
  json_t *r;
  json_array_foreach(recs, i, r) {
    if (!is(r, "method", m) || !is(r, "direction", d) || !is(r, "pattern", p)) continue;
    size_t b = (size_t)ar_rec_num(r, "bytes", 0);
    if (b > best) best = b;
  }
  return best;
}

/* The record of flow s -> d of (m, dir, pattern) at bytes (root < -1: any root); NULL when none. */
static json_t *find(json_t *recs, const char *m, const char *d, const char *p, size_t bytes, int s, int t) {
  size_t i;
  json_t *r;
  json_array_foreach(recs, i, r)
    if (is(r, "method", m) && is(r, "direction", d) && is(r, "pattern", p) && (size_t)ar_rec_num(r, "bytes", 0) == bytes &&
        (int)ar_rec_num(r, "src", -1) == s && (int)ar_rec_num(r, "dst", -1) == t)
      return r;
  return NULL;
}

static double median(double *v, int n) {
  if (n <= 0) return NAN;
  struct ar_stats st;
  ar_stats_compute(v, n, &st);
  return st.p50;
}

/* The table of (m, d, pairs) among tables (ar_links_tables_json); NULL when none. */
static json_t *table_of(json_t *tables, const char *m, const char *d) {
  size_t i;
  json_t *t;
  json_array_foreach(tables, i, t) if (is(t, "method", m) && is(t, "direction", d) && is(t, "pattern", "pairs")) return t;
  return NULL;
}

/* One matrix over n ranks, its numbers ar_links_matrix_json's (the ones table --format json and the plots show). */
static void matrix(FILE *f, json_t *tables, int n, const char *m, const char *d) {
  json_t *mat = ar_links_matrix_json(table_of(tables, m, d), n);
  if (!mat) return;
  size_t bytes = (size_t)ar_rec_num(mat, "bytes", 0);
  char sz[32];
  ar_size_format(bytes, sz, sizeof sz);
  if (!strcmp(m, "flag"))
    fprintf(f, "\n# one-way flag latency (release/acquire ping-pong, round trip halved), us (path class); "
               "row = source, column = destination\n");
  else if (!strcmp(d, "latency"))
    fprintf(f, "\n# %s small-copy latency (%s bytes back to back on one stream), us per copy (path class); "
               "row = source, column = destination\n", m, sz);
  else
    fprintf(f, "\n# %s (%s), %s, each pair alone, %s: GB/s (path class); row = source, column = destination\n", m,
            strstr(m, "read") ? "the destination pulls" : "the source pushes",
            !strcmp(d, "bi") ? "bidirectional (both directions at once, summed)" : "unidirectional", sz);
  fprintf(f, "  %-8s", "src\\dst");
  for (int t = 0; t < n; t++) fprintf(f, " %12d", t);
  fprintf(f, "\n");
  for (int s = 0; s < n; s++) {
    fprintf(f, "  %-8d", s);
    for (int t = 0; t < n; t++) {
      json_t *v = json_array_get(json_array_get(json_object_get(mat, "values"), (size_t)s), (size_t)t);
      const char *path = json_string_value(json_array_get(json_array_get(json_object_get(mat, "path"), (size_t)s), (size_t)t));
      double x = json_is_number(v) ? json_number_value(v) : NAN;
      char c[32];
      if (s == t) snprintf(c, sizeof c, "X");
      else if (isnan(x)) snprintf(c, sizeof c, "skipped");
      else snprintf(c, sizeof c, x < 100 ? "%.2f %s" : "%.0f %s", x, path ? path : "?");
      fprintf(f, " %12s", c);
    }
    fprintf(f, "\n");
  }
  json_decref(mat);
}

static const char *pattern_words(const char *p) {
  if (!strcmp(p, "all")) return "all pairs at once";
  if (!strcmp(p, "to-one")) return "all-to-one";
  if (!strcmp(p, "from-one")) return "one-to-all";
  if (!strcmp(p, "oneshot")) return "the one-shot load (everyone with everyone)";
  if (!strcmp(p, "ring")) return "the ring load (each rank to its successor)";
  return "both directions of a pair at once";
}

#define NMETHODS (int)(sizeof methods / sizeof *methods) /* host and GPU methods (links.h) */

/* loaded/isolated of (m, d, p) at the largest size: median over its flows, the lowest flow. */
static int loaded(json_t *recs, const char *m, const char *d, const char *p, double *med, double *low, int *ls,
                  int *ld, size_t *bytes) {
  *bytes = largest(recs, m, d, p);
  size_t i, cap = json_array_size(recs);
  double *v = malloc(sizeof *v * (cap + 1));
  int k = 0;
  json_t *r;
  *low = INFINITY;
  json_array_foreach(recs, i, r) {
    if (!v || !is(r, "method", m) || !is(r, "direction", d) || !is(r, "pattern", p) ||
        (size_t)ar_rec_num(r, "bytes", 0) != *bytes || isnan(num(r, "loaded_ratio")))
      continue;
    double x = num(r, "loaded_ratio");
    v[k++] = x;
    if (x < *low) *low = x, *ls = (int)ar_rec_num(r, "src", -1), *ld = (int)ar_rec_num(r, "dst", -1);
  }
  *med = median(v, k);
  free(v);
  return k;
}

static const char *const methods[] = {"read", "write", "ce-read", "ce-write", "sm-read", "sm-write"},
                  *const dirs[] = {"uni", "bi"},
                  *const pats[] = {"pairs", "all", "to-one", "from-one", "oneshot", "ring"};

static void loaded_table(FILE *f, json_t *recs) {
  int any = 0;
  for (int p = 0; p < 6; p++)
    for (int m = 0; m < NMETHODS; m++)
      for (int d = 0; d < 2; d++) {
        if (p == 0 && d == 0) continue; /* pairs alone are the isolated reference */
        double med, low;
        int ls = -1, ld = -1;
        size_t bytes;
        int k = loaded(recs, methods[m], dirs[d], pats[p], &med, &low, &ls, &ld, &bytes);
        if (!k) continue;
        if (!any++) fprintf(f, "\n# ratio of a flow's GB/s loaded to isolated (1 = unslowed), at the largest size (median "
                               "over the pattern's flows; lowest flow)\n");
        char sz[32];
        ar_size_format(bytes, sz, sizeof sz);
        fprintf(f, "  %-9s %-5s %-3s %5s: %.2f (lowest %.2f: %d->%d, %d flows)\n", pats[p], methods[m], dirs[d], sz,
                med, low, ls, ld, k);
      }
}

static void scores(FILE *f, json_t *recs) {
  size_t i;
  json_t *r;
  int any = 0;
  json_array_foreach(recs, i, r) {
    if (!is(r, "pattern", "pairs") || !is(r, "direction", "uni") || isnan(num(r, "score"))) continue;
    if (!any++) fprintf(f, "\n# per-link score (measured / the link's rate from hwloc), each pair alone\n");
    fprintf(f, "  %s %d->%d %s: %.0f%% of %.1f GB/s\n", ar_rec_str(r, "method", "?"), (int)ar_rec_num(r, "src", -1),
            (int)ar_rec_num(r, "dst", -1), ar_rec_str(r, "path", "?"), 100 * num(r, "score"),
            num(r, "bottleneck_gbs"));
  }
  if (!any) fprintf(f, "\n# per-link score: no link rate known (hwloc gives the PCIe rates of GPUs; CPU ranks have none)\n");
}

/* ---- findings ---- */

static void say(json_t *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(json_t *out, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  json_array_append_new(out, json_string(buf));
}

/* Writes against reads per destination (and reads against writes per source), pairs alone, for the read and
 * write methods rd, wr of one transport (read/write, ce-read/ce-write, sm-read/sm-write). */
static void find_write_read_of(json_t *recs, int n, json_t *out, const char *rd, const char *wr) {
  size_t bytes = largest(recs, rd, "uni", "pairs");
  if (!bytes || largest(recs, wr, "uni", "pairs") != bytes) return;
  double *v = malloc(sizeof *v * (size_t)(n + 1));
  for (int side = 0; side < 2 && v; side++)
    for (int x = 0; x < n; x++) {
      int k = 0;
      for (int y = 0; y < n; y++) {
        int s = side ? x : y, d = side ? y : x;
        json_t *r = find(recs, rd, "uni", "pairs", bytes, s, d), *w = find(recs, wr, "uni", "pairs", bytes, s, d);
        if (s == d || !r || !w || !(num(r, "gbs") > 0) || !(num(w, "gbs") > 0)) continue;
        v[k++] = side ? num(r, "gbs") / num(w, "gbs") : num(w, "gbs") / num(r, "gbs");
      }
      double q = median(v, k);
      if (k && q < AR_LINKS_WRITE_SLOW)
        say(out, side ? "%ss from rank %d run at %.0f%% of %ss (median over its %d peers)"
                      : "%ss to rank %d run at %.0f%% of %ss (median over its %d peers)", side ? rd : wr, x, 100 * q,
            side ? wr : rd, k);
    }
  free(v);
}

static void find_write_read(json_t *recs, int n, json_t *out) {
  find_write_read_of(recs, n, out, "read", "write");
  find_write_read_of(recs, n, out, "ce-read", "ce-write");
  find_write_read_of(recs, n, out, "sm-read", "sm-write");
}

/* A pair far below the median pair of its path class; the path classes against each other. */
static void find_slow_pairs(json_t *recs, int n, json_t *out) {
  for (int m = 0; m < NMETHODS; m++) {
    size_t bytes = largest(recs, methods[m], "uni", "pairs");
    if (!bytes) continue;
    static const char *const cls[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
    double med[5], *v = malloc(sizeof *v * (size_t)(n * n + 1));
    for (int c = 0; c < 5 && v; c++) {
      int k = 0;
      for (int s = 0; s < n; s++)
        for (int d = 0; d < n; d++) {
          json_t *r = s == d ? NULL : find(recs, methods[m], "uni", "pairs", bytes, s, d);
          if (r && is(r, "path", cls[c]) && num(r, "gbs") > 0) v[k++] = num(r, "gbs");
        }
      med[c] = median(v, k);
    }
    for (int s = 0; s < n && v; s++)
      for (int d = 0; d < n; d++) {
        json_t *r = s == d ? NULL : find(recs, methods[m], "uni", "pairs", bytes, s, d);
        if (!r) continue;
        for (int c = 0; c < 5; c++)
          if (is(r, "path", cls[c]) && num(r, "gbs") < AR_LINKS_PAIR_SLOW * med[c])
            say(out, "rank %d->%d (%s) %ss at %.0f%% of the median %s pair (%.2f vs %.2f GB/s)", s, d, cls[c],
                methods[m], 100 * num(r, "gbs") / med[c], cls[c], num(r, "gbs"), med[c]);
        double sc = num(r, "score");
        if (sc < AR_LINKS_LINK_SLOW)
          say(out, is(r, "path", "SYS") ? "rank %d->%d crosses the sockets at %.0f%% of its link (%s)"
                                        : "rank %d->%d runs at %.0f%% of its link (%s)", s, d, 100 * sc, methods[m]);
      }
    if (!isnan(med[3]) && !isnan(med[4]))
      say(out, "%ss across NUMA nodes (SYS) run at %.0f%% of %ss within one (NODE) (median pairs)", methods[m],
          100 * med[4] / med[3], methods[m]);
    free(v);
  }
}

static void find_loaded(json_t *recs, json_t *out) {
  for (int p = 1; p < 6; p++)
    for (int m = 0; m < NMETHODS; m++) {
      double med, low;
      int ls = -1, ld = -1;
      size_t bytes;
      int k = loaded(recs, methods[m], "uni", pats[p], &med, &low, &ls, &ld, &bytes);
      if (k && med < AR_LINKS_LOADED_SLOW)
        say(out, "under %s a %s flow gets %.0f%% of its isolated bandwidth (median of %d flows; lowest %d->%d at %.0f%%)",
            pattern_words(pats[p]), methods[m], 100 * med, k, ls, ld, 100 * low);
    }
}

int ar_links_findings(json_t *recs, int nranks, json_t *out) {
  size_t before = json_array_size(out);
  find_write_read(recs, nranks, out);
  find_slow_pairs(recs, nranks, out);
  find_loaded(recs, out);
  return (int)(json_array_size(out) - before);
}

int ar_links_report(FILE *f, json_t *recs, int nranks) {
  json_t *tables = ar_links_tables_json(recs);
  for (int m = 0; m < NMETHODS; m++)
    for (int d = 0; d < 2; d++) matrix(f, tables, nranks, methods[m], dirs[d]);
  matrix(f, tables, nranks, "flag", "pingpong");
  matrix(f, tables, nranks, "ce-read", "latency");
  matrix(f, tables, nranks, "ce-write", "latency");
  json_decref(tables);
  scores(f, recs);
  loaded_table(f, recs);
  json_t *lines = json_array();
  int k = ar_links_findings(recs, nranks, lines);
  fprintf(f, "\n# findings\n");
  size_t i;
  json_t *s;
  json_array_foreach(lines, i, s) fprintf(f, "  %s\n", json_string_value(s));
  if (!k) fprintf(f, "  none: every pair within %.0f%% of its path class's median, writes and reads alike, loaded "
                     "flows within %.0f%% of isolated\n", 100 * AR_LINKS_PAIR_SLOW, 100 * AR_LINKS_LOADED_SLOW);
  json_decref(lines);
  fflush(f);
  return k;
}

/* ---- table ---- */

/* One markdown table of ar_links_tables_json: the numbers are that function's (one definition). */
static void print_group(FILE *f, json_t *t) {
  json_t *sizes = json_object_get(t, "sizes"), *row, *s;
  size_t i, k;
  fprintf(f, "## links: %s %s %s (%s, median over runs)\n\n| flow | path |", ar_rec_str(t, "method", "?"),
          ar_rec_str(t, "direction", "?"), ar_rec_str(t, "pattern", "?"), ar_rec_str(t, "unit", "?"));
  json_array_foreach(sizes, i, s) {
    char b[32];
    ar_size_format((size_t)json_integer_value(s), b, sizeof b);
    fprintf(f, " %s |", b);
  }
  fprintf(f, "\n|---|---|");
  for (i = 0; i < json_array_size(sizes); i++) fprintf(f, "---|");
  fprintf(f, "\n");
  json_array_foreach(json_object_get(t, "rows"), i, row) {
    fprintf(f, "| %s | %s |", ar_rec_str(row, "flow", "?"), ar_rec_str(row, "path", "?"));
    json_array_foreach(json_object_get(row, "values"), k, s) {
      if (json_is_number(s)) fprintf(f, " %.2f |", json_number_value(s));
      else fprintf(f, " - |");
    }
    fprintf(f, "\n");
  }
  fprintf(f, "\n");
}

int ar_links_count(json_t *notes) {
  int n = 0;
  for (size_t i = 0; i < json_array_size(notes); i++) n += is(json_array_get(notes, i), "type", "link");
  return n;
}

int ar_links_table(FILE *f, json_t *notes) {
  json_t *g = ar_links_tables_json(notes), *t;
  int shown = 0;
  size_t k;
  json_array_foreach(g, k, t) if (f) print_group(f, t);
  for (size_t i = json_array_size(notes); i-- > 0;)
    if (is(json_array_get(notes, i), "type", "link")) {
      json_array_remove(notes, i);
      shown++;
    }
  json_decref(g);
  return shown;
}
