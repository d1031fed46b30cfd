/* report.c — what `arbench links` prints from its `link` records: nvidia-smi-style matrices with the path
 * class per cell, the per-link score, loaded/isolated per pattern and plain-word findings; `table`'s view. */
#include "links/links.h"
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

/* The value of cell (s, d): GB/s (bi: both directions of the pair together) or us. */
static double cell(json_t *recs, const char *m, const char *d, size_t bytes, int s, int t, const char **path) {
  json_t *a = find(recs, m, d, "pairs", bytes, s, t), *b = NULL;
  if (!strcmp(d, "bi")) b = find(recs, m, d, "pairs", bytes, t, s);
  *path = a ? ar_rec_str(a, "path", "?") : "";
  if (!strcmp(m, "flag") || !strcmp(d, "latency")) return a ? num(a, "us") : NAN;
  if (!strcmp(d, "bi")) return a && b ? num(a, "gbs") + num(b, "gbs") : NAN;
  return a ? num(a, "gbs") : NAN;
}

static void matrix(FILE *f, json_t *recs, int n, const char *m, const char *d) {
  size_t bytes = largest(recs, m, d, "pairs");
  if (!bytes) return;
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
      const char *path = "";
      double v = s == t ? NAN : cell(recs, m, d, bytes, s, t, &path);
      char c[32];
      if (s == t) snprintf(c, sizeof c, "X");
      else if (isnan(v)) snprintf(c, sizeof c, "skipped");
      else snprintf(c, sizeof c, v < 100 ? "%.2f %s" : "%.0f %s", v, path);
      fprintf(f, " %12s", c);
    }
    fprintf(f, "\n");
  }
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
        if (!any++) fprintf(f, "\n# loaded / isolated GB/s per flow, at the largest size (median over the pattern's "
                               "flows; lowest flow)\n");
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
  for (int m = 0; m < NMETHODS; m++)
    for (int d = 0; d < 2; d++) matrix(f, recs, nranks, methods[m], dirs[d]);
  matrix(f, recs, nranks, "flag", "pingpong");
  matrix(f, recs, nranks, "ce-read", "latency");
  matrix(f, recs, nranks, "ce-write", "latency");
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

/* Groups of link records: "method direction pattern" -> {"flow|path" -> {bytes -> [values]}}. */
static json_t *group(json_t *notes) {
  json_t *g = json_object(), *r;
  size_t i;
  json_array_foreach(notes, i, r) {
    if (!is(r, "type", "link")) continue;
    int flag = is(r, "method", "flag") || is(r, "direction", "latency"); /* the latencies are in us */
    double v = num(r, flag ? "us" : "gbs");
    char key[128], row[128], b[32];
    snprintf(key, sizeof key, "%s %s %s", ar_rec_str(r, "method", "?"), ar_rec_str(r, "direction", "?"),
             ar_rec_str(r, "pattern", "?"));
    int rooted = is(r, "pattern", "to-one") || is(r, "pattern", "from-one");
    int src = (int)ar_rec_num(r, "src", -1), dst = (int)ar_rec_num(r, "dst", -1);
    if (rooted) snprintf(row, sizeof row, "%d->%d (root %d)|%s", src, dst, (int)ar_rec_num(r, "root", -1), ar_rec_str(r, "path", "?"));
    else snprintf(row, sizeof row, "%d->%d|%s", src, dst, ar_rec_str(r, "path", "?"));
    snprintf(b, sizeof b, "%lld", (long long)ar_rec_num(r, "bytes", 0));
    if (!json_object_get(g, key)) json_object_set_new(g, key, json_object());
    json_t *rows = json_object_get(g, key);
    if (!json_object_get(rows, row)) json_object_set_new(rows, row, json_object());
    json_t *cells = json_object_get(rows, row);
    if (!json_object_get(cells, b)) json_object_set_new(cells, b, json_array());
    if (!isnan(v)) json_array_append_new(json_object_get(cells, b), json_real(v));
  }
  return g;
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

/* The sizes of a group's cells, ascending; their number (at most max). */
static int group_sizes(json_t *rows, size_t *sz, int max) {
  int ns = 0;
  const char *row, *b;
  json_t *cells, *v;
  json_object_foreach(rows, row, cells) json_object_foreach(cells, b, v) {
    size_t x = (size_t)strtoull(b, NULL, 10);
    int seen = 0;
    for (int i = 0; i < ns; i++) seen |= sz[i] == x;
    if (!seen && ns < max) sz[ns++] = x;
  }
  qsort(sz, (size_t)ns, sizeof *sz, cmp_size);
  return ns;
}

static void print_group(FILE *f, const char *key, json_t *rows) {
  size_t sz[AR_MAX_SIZES];
  int ns = group_sizes(rows, sz, AR_MAX_SIZES);
  fprintf(f, "## links: %s (%s, median over runs)\n\n| flow | path |", key,
          strncmp(key, "flag", 4) && !strstr(key, " latency ") ? "GB/s" : "us");
  for (int i = 0; i < ns; i++) {
    char s[32];
    ar_size_format(sz[i], s, sizeof s);
    fprintf(f, " %s |", s);
  }
  fprintf(f, "\n|---|---|");
  for (int i = 0; i < ns; i++) fprintf(f, "---|");
  fprintf(f, "\n");
  const char *row;
  json_t *cells;
  json_object_foreach(rows, row, cells) {
    const char *bar = strchr(row, '|');
    fprintf(f, "| %.*s | %s |", (int)(bar - row), row, bar + 1);
    for (int i = 0; i < ns; i++) {
      char b[32];
      snprintf(b, sizeof b, "%zu", sz[i]);
      json_t *a = json_object_get(cells, b), *x;
      size_t k, n = json_array_size(a);
      double *v = malloc(sizeof *v * (n + 1));
      json_array_foreach(a, k, x) v[k] = json_number_value(x);
      double m = v ? median(v, (int)n) : NAN;
      free(v);
      if (isnan(m)) fprintf(f, " - |");
      else fprintf(f, " %.2f |", m);
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
  json_t *g = group(notes), *rows;
  int shown = 0;
  const char *key;
  json_object_foreach(g, key, rows) if (f) print_group(f, key, rows);
  for (size_t i = json_array_size(notes); i-- > 0;)
    if (is(json_array_get(notes, i), "type", "link")) {
      json_array_remove(notes, i);
      shown++;
    }
  json_decref(g);
  return shown;
}
