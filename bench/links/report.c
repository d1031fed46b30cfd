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

/* Where the findings go: out gets those beyond their repeats' spread; the others are counted (undecided),
 * the first kept in words, and need is the --repeat that would decide the hardest of them. */
struct fctx {
  json_t *out;
  int undecided, need;
  char first[512];
};

/* The repeats of a record's GB/s (samples_gbs): their count, in *se the standard error of their mean
 * (sd / sqrt(n)) and in *rel that relative to the mean; NAN with fewer than 2 repeats (no spread to judge by). */
static int spread2(json_t *r, double *rel, double *se) {
  json_t *a = json_object_get(r, "samples_gbs"), *x;
  size_t i;
  int n = 0;
  double sum = 0, sq = 0;
  json_array_foreach(a, i, x) if (json_is_number(x)) n++, sum += json_number_value(x);
  *rel = *se = NAN;
  if (n < 2 || !(sum > 0)) return n;
  double mean = sum / n;
  json_array_foreach(a, i, x) if (json_is_number(x)) sq += (json_number_value(x) - mean) * (json_number_value(x) - mean);
  *se = sqrt(sq / (n - 1)) / sqrt((double)n);
  *rel = *se / mean;
  return n;
}

static int spread(json_t *r, double *rel) {
  double se;
  return spread2(r, rel, &se);
}

/* A finding whose value sits gap below its threshold (gap > 0), se the standard error of that value from n
 * repeats: reported when gap > 2 x se (beyond the spread its own repeats show, about a 95% interval), else
 * counted as undecided with the repeats that would decide it: 2 x sd / sqrt(R) < gap, R = 4 sd^2 / gap^2. */
static void judge(struct fctx *c, double gap, double se, int n, const char *line) {
  if (!(gap > 0)) return;
  if (n >= 2 && isfinite(se) && gap > 2 * se) {
    json_array_append_new(c->out, json_string(line));
    return;
  }
  int need = 3; /* fewer than 2 repeats: no spread; 3 is the least that shows one well */
  if (n >= 2 && isfinite(se)) {
    double sd = se * sqrt((double)n), r = ceil(4 * sd * sd / (gap * gap));
    need = r > 1e6 ? 1000000 : (int)r;
    if (need <= n) need = n + 1;
  }
  if (!c->undecided++) snprintf(c->first, sizeof c->first, "%s", line);
  if (need > c->need) c->need = need;
}

static void say(struct fctx *c, double gap, double se, int n, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void say(struct fctx *c, double gap, double se, int n, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  judge(c, gap, se, n, buf);
}

/* Writes against reads per destination (and reads against writes per source), pairs alone, for the read and
 * write methods rd, wr of one transport (read/write, ce-read/ce-write, sm-read/sm-write). The median ratio's
 * standard error: the largest relative one of the ratios it is the median of (each the root of the sum of
 * its two records' squares), times the ratio; n the fewest repeats among them. */
static void find_write_read_of(json_t *recs, int n, struct fctx *c, const char *rd, const char *wr) {
  size_t bytes = largest(recs, rd, "uni", "pairs");
  if (!bytes || largest(recs, wr, "uni", "pairs") != bytes) return;
  double *v = malloc(sizeof *v * (size_t)(n + 1));
  for (int side = 0; side < 2 && v; side++)
    for (int x = 0; x < n; x++) {
      int k = 0, reps = 1 << 30;
      double rel = 0;
      for (int y = 0; y < n; y++) {
        int s = side ? x : y, d = side ? y : x;
        json_t *r = find(recs, rd, "uni", "pairs", bytes, s, d), *w = find(recs, wr, "uni", "pairs", bytes, s, d);
        if (s == d || !r || !w || !(num(r, "gbs") > 0) || !(num(w, "gbs") > 0)) continue;
        v[k++] = side ? num(r, "gbs") / num(w, "gbs") : num(w, "gbs") / num(r, "gbs");
        double er, ew;
        int nr = spread(r, &er), nw = spread(w, &ew);
        double e = sqrt(er * er + ew * ew); /* NAN when either has no spread */
        rel = isnan(e) || isnan(rel) ? NAN : e > rel ? e : rel;
        if (nr < reps) reps = nr;
        if (nw < reps) reps = nw;
      }
      double q = median(v, k);
      if (k)
        say(c, AR_LINKS_WRITE_SLOW - q, q * rel, reps,
            side ? "%ss from rank %d run at %.0f%% of %ss (median over its %d peers)"
                 : "%ss to rank %d run at %.0f%% of %ss (median over its %d peers)", side ? rd : wr, x, 100 * q,
            side ? wr : rd, k);
    }
  free(v);
}

static void find_write_read(json_t *recs, int n, struct fctx *c) {
  find_write_read_of(recs, n, c, "read", "write");
  find_write_read_of(recs, n, c, "ce-read", "ce-write");
  find_write_read_of(recs, n, c, "sm-read", "sm-write");
}

/* A pair far below the median pair of its path class; the path classes against each other. A pair's standard
 * error is its own repeats' (the class median, over many pairs, is taken as known). */
static void find_slow_pairs(json_t *recs, int n, struct fctx *c) {
  for (int m = 0; m < NMETHODS; m++) {
    size_t bytes = largest(recs, methods[m], "uni", "pairs");
    if (!bytes) continue;
    static const char *const cls[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
    double med[5], *v = malloc(sizeof *v * (size_t)(n * n + 1));
    for (int k5 = 0; k5 < 5 && v; k5++) {
      int k = 0;
      for (int s = 0; s < n; s++)
        for (int d = 0; d < n; d++) {
          json_t *r = s == d ? NULL : find(recs, methods[m], "uni", "pairs", bytes, s, d);
          if (r && is(r, "path", cls[k5]) && num(r, "gbs") > 0) v[k++] = num(r, "gbs");
        }
      med[k5] = median(v, k);
    }
    for (int s = 0; s < n && v; s++)
      for (int d = 0; d < n; d++) {
        json_t *r = s == d ? NULL : find(recs, methods[m], "uni", "pairs", bytes, s, d);
        if (!r) continue;
        double rel, se, g = num(r, "gbs");
        int reps = spread2(r, &rel, &se);
        for (int k5 = 0; k5 < 5; k5++)
          if (is(r, "path", cls[k5]))
            say(c, AR_LINKS_PAIR_SLOW * med[k5] - g, se, reps,
                "rank %d->%d (%s) %ss at %.0f%% of the median %s pair (%.2f vs %.2f GB/s)", s, d, cls[k5], methods[m],
                100 * g / med[k5], cls[k5], g, med[k5]);
        double sc = num(r, "score");
        say(c, AR_LINKS_LINK_SLOW - sc, sc * rel, reps,
            is(r, "path", "SYS") ? "rank %d->%d crosses the sockets at %.0f%% of its link (%s)"
                                 : "rank %d->%d runs at %.0f%% of its link (%s)", s, d, 100 * sc, methods[m]);
      }
    if (!isnan(med[3]) && !isnan(med[4])) /* a comparison, not a finding of a slow link: always said */
      say(c, 1, 0, 2, "%ss across NUMA nodes (SYS) run at %.0f%% of %ss within one (NODE) (median pairs)", methods[m],
          100 * med[4] / med[3], methods[m]);
    free(v);
  }
}

/* A pattern's median loaded/isolated ratio: its standard error is the largest relative one among the flows'
 * ratios (loaded record and the pair's isolated record), times the median; n the fewest repeats among them. */
static void find_loaded(json_t *recs, struct fctx *c) {
  for (int p = 1; p < 6; p++)
    for (int m = 0; m < NMETHODS; m++) {
      double med, low;
      int ls = -1, ld = -1;
      size_t bytes;
      int k = loaded(recs, methods[m], "uni", pats[p], &med, &low, &ls, &ld, &bytes);
      if (!k || !(med < AR_LINKS_LOADED_SLOW)) continue;
      double rel = 0;
      int reps = 1 << 30;
      size_t i;
      json_t *r;
      json_array_foreach(recs, i, r) {
        if (!is(r, "method", methods[m]) || !is(r, "direction", "uni") || !is(r, "pattern", pats[p]) ||
            (size_t)ar_rec_num(r, "bytes", 0) != bytes || isnan(num(r, "loaded_ratio")))
          continue;
        json_t *iso = find(recs, methods[m], "uni", "pairs", bytes, (int)ar_rec_num(r, "src", -1),
                           (int)ar_rec_num(r, "dst", -1));
        double el, ei = NAN;
        int nl = spread(r, &el), ni = iso ? spread(iso, &ei) : 0;
        double e = sqrt(el * el + ei * ei);
        rel = isnan(e) || isnan(rel) ? NAN : e > rel ? e : rel;
        if (nl < reps) reps = nl;
        if (ni < reps) reps = ni;
      }
      say(c, AR_LINKS_LOADED_SLOW - med, med * rel, reps,
          "under %s a %s flow gets %.0f%% of its isolated bandwidth (median of %d flows; lowest %d->%d at %.0f%%)",
          pattern_words(pats[p]), methods[m], 100 * med, k, ls, ld, 100 * low);
    }
}

/* Every finding of recs: those beyond their repeats' spread into out, the rest counted in c. */
static int findings(json_t *recs, int nranks, json_t *out, struct fctx *c) {
  size_t before = json_array_size(out);
  *c = (struct fctx){.out = out};
  find_write_read(recs, nranks, c);
  find_slow_pairs(recs, nranks, c);
  find_loaded(recs, c);
  return (int)(json_array_size(out) - before);
}

/* The line on the findings within their repeats' spread; "" when none. */
static void undecided_line(const struct fctx *c, char *buf, size_t len) {
  if (!c->undecided) {
    snprintf(buf, len, "%s", "");
    return;
  }
  char rep[96];
  if (c->need >= 1000) snprintf(rep, sizeof rep, "more than 1000 repeats: the difference is within the noise");
  else snprintf(rep, sizeof rep, "about --repeat %d would decide %s", c->need, c->undecided > 1 ? "them" : "it");
  snprintf(buf, len, "not reported, within %s repeats' spread: %d possible finding%s (%.200s%s); %s",
           c->undecided > 1 ? "their" : "its", c->undecided, c->undecided > 1 ? "s" : "", c->first,
           c->undecided > 1 ? ", ..." : "", rep);
}

int ar_links_findings(json_t *recs, int nranks, json_t *out) {
  struct fctx c;
  return findings(recs, nranks, out, &c);
}

int ar_links_undecided(json_t *recs, int nranks, char *buf, size_t len) {
  struct fctx c;
  json_t *out = json_array();
  findings(recs, nranks, out, &c);
  json_decref(out);
  undecided_line(&c, buf, len);
  return c.undecided;
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
  struct fctx c;
  int k = findings(recs, nranks, lines, &c);
  fprintf(f, "\n# findings\n");
  size_t i;
  json_t *s;
  json_array_foreach(lines, i, s) fprintf(f, "  %s\n", json_string_value(s));
  if (!k) fprintf(f, "  none: every pair within %.0f%% of its path class's median, writes and reads alike, loaded "
                     "flows within %.0f%% of isolated%s\n", 100 * AR_LINKS_PAIR_SLOW, 100 * AR_LINKS_LOADED_SLOW,
                  c.undecided ? ", beyond their repeats' spread" : "");
  char und[1024];
  undecided_line(&c, und, sizeof und);
  if (*und) fprintf(f, "  %s\n", und);
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
