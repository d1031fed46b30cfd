/* records.c — link records for the analysis tools: the check of impossible values, and the table's
 * numbers (median per flow and size) and matrices that table, compare, the plots and the model read. */
#include "links/records.h"
#include "ar.h"
#include "results.h"
#include "stats.h"
#include "topo.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is(json_t *r, const char *key, const char *v) { return !strcmp(ar_rec_str(r, key, ""), v); }

static int known_path(const char *p) {
  if (!strcmp(p, "?")) return 1;
  for (int c = AR_PATH_PIX; c <= AR_PATH_SYS; c++)
    if (!strcmp(p, ar_path_name(c))) return 1;
  return 0;
}

/* "" when v is null/absent (and may be), else why it is impossible. */
static const char *bad_positive(json_t *v, int required) {
  if (!v || json_is_null(v)) return required ? "missing" : "";
  if (!json_is_number(v)) return "not a number";
  double x = json_number_value(v);
  return isfinite(x) && x > 0 ? "" : "not > 0";
}

static int bad_samples(json_t *a) {
  size_t i;
  json_t *x;
  if (!a) return 0;
  if (!json_is_array(a)) return 1;
  json_array_foreach(a, i, x) if (!json_is_null(x) && (!json_is_number(x) || !(json_number_value(x) > 0) ||
                                                        !isfinite(json_number_value(x)))) return 1;
  return 0;
}

int ar_link_in_us(json_t *rec) { return is(rec, "method", "flag") || is(rec, "direction", "latency"); }

static int check_one(json_t *r, char *err, size_t len) {
  const char *src = ar_rec_str(r, "_src", "a link record");
  json_t *s = json_object_get(r, "src"), *d = json_object_get(r, "dst"), *b = json_object_get(r, "bytes");
  int flag = ar_link_in_us(r);
  const char *why;
  if (!json_is_integer(s) || !json_is_integer(d) || json_integer_value(s) < 0 || json_integer_value(d) < 0 ||
      json_integer_value(s) == json_integer_value(d))
    return snprintf(err, len, "%s: link record: src and dst must be two different ranks >= 0", src), -AR_EINVAL;
  if (!*ar_rec_str(r, "method", "") || !*ar_rec_str(r, "direction", "") || !*ar_rec_str(r, "pattern", ""))
    return snprintf(err, len, "%s: link record: method, direction and pattern must be strings", src), -AR_EINVAL;
  if (!json_is_integer(b) || json_integer_value(b) <= 0)
    return snprintf(err, len, "%s: link record: bytes must be an integer > 0", src), -AR_EINVAL;
  if (*(why = bad_positive(json_object_get(r, "gbs"), 0)))
    return snprintf(err, len, "%s: link record: gbs %s (a bandwidth is a number > 0, or null)", src, why), -AR_EINVAL;
  if (*(why = bad_positive(json_object_get(r, "us"), 0)))
    return snprintf(err, len, "%s: link record: us %s (a time is a number > 0, or null)", src, why), -AR_EINVAL;
  if (!known_path(ar_rec_str(r, "path", "?")))
    return snprintf(err, len, "%s: link record: path '%s' is not a path class (PIX, PXB, PHB, NODE, SYS or ?)", src,
                    ar_rec_str(r, "path", "")), -AR_EINVAL;
  if (bad_samples(json_object_get(r, flag ? "samples_us" : "samples_gbs")))
    return snprintf(err, len, "%s: link record: %s must hold numbers > 0 (or null)", src,
                    flag ? "samples_us" : "samples_gbs"), -AR_EINVAL;
  return 0;
}

int ar_links_check(json_t *notes, char *err, size_t len) {
  size_t i;
  json_t *r;
  json_array_foreach(notes, i, r) {
    if (!is(r, "type", "link")) continue;
    int rc = check_one(r, err, len);
    if (rc) return rc;
  }
  return 0;
}

/* ---- the table's numbers ---- */

static double median(double *v, int n) {
  if (n <= 0) return NAN;
  struct ar_stats st;
  ar_stats_compute(v, n, &st);
  return st.p50;
}

static int cmp_size(const void *a, const void *b) {
  json_int_t x = *(const json_int_t *)a, y = *(const json_int_t *)b;
  return x < y ? -1 : x > y;
}

/* Raw groups: key "method direction pattern" -> {"g": group header, "rows": {rowkey -> row with "_v":
 * {bytes -> [values]}}, "order": [rowkeys]}. */
static json_t *collect(json_t *notes, json_t *order) {
  json_t *g = json_object(), *r;
  size_t i;
  json_array_foreach(notes, i, r) {
    if (!is(r, "type", "link")) continue;
    int flag = ar_link_in_us(r);
    char key[200], row[160], b[32];
    snprintf(key, sizeof key, "%s %s %s", ar_rec_str(r, "method", "?"), ar_rec_str(r, "direction", "?"),
             ar_rec_str(r, "pattern", "?"));
    json_t *grp = json_object_get(g, key);
    if (!grp) {
      grp = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "method", ar_rec_str(r, "method", "?"), "direction",
                      ar_rec_str(r, "direction", "?"), "pattern", ar_rec_str(r, "pattern", "?"), "unit",
                      flag ? "us" : "GB/s", "rows", json_object(), "order", json_array());
      json_object_set_new(g, key, grp);
      json_array_append_new(order, json_string(key));
    }
    int rooted = is(r, "pattern", "to-one") || is(r, "pattern", "from-one");
    int src = (int)ar_rec_num(r, "src", -1), dst = (int)ar_rec_num(r, "dst", -1), root = (int)ar_rec_num(r, "root", -1);
    if (rooted) snprintf(row, sizeof row, "%d->%d (root %d)", src, dst, root);
    else snprintf(row, sizeof row, "%d->%d", src, dst);
    char rk[200];
    snprintf(rk, sizeof rk, "%s|%s", row, ar_rec_str(r, "path", "?"));
    json_t *rows = json_object_get(grp, "rows"), *rw = json_object_get(rows, rk);
    if (!rw) {
      rw = json_pack("{s:s, s:i, s:i, s:o, s:s, s:o}", "flow", row, "src", src, "dst", dst, "root",
                     rooted ? json_integer(root) : json_null(), "path", ar_rec_str(r, "path", "?"), "_v", json_object());
      json_object_set_new(rows, rk, rw);
      json_array_append_new(json_object_get(grp, "order"), json_string(rk));
    }
    snprintf(b, sizeof b, "%lld", (long long)ar_rec_num(r, "bytes", 0));
    json_t *cells = json_object_get(rw, "_v");
    if (!json_object_get(cells, b)) json_object_set_new(cells, b, json_array());
    double v = ar_rec_num(r, flag ? "us" : "gbs", NAN);
    if (!isnan(v)) json_array_append_new(json_object_get(cells, b), json_real(v));
  }
  return g;
}

static json_t *finish_group(json_t *grp) {
  json_t *rows = json_object_get(grp, "rows"), *k, *rw, *cells, *x;
  size_t i, j, ns = 0, cap = 0;
  json_int_t *sz = NULL;
  const char *b;
  json_array_foreach(json_object_get(grp, "order"), i, k) {
    cells = json_object_get(json_object_get(rows, json_string_value(k)), "_v");
    json_object_foreach(cells, b, x) {
      json_int_t v = strtoll(b, NULL, 10);
      int seen = 0;
      for (size_t q = 0; q < ns; q++) seen |= sz[q] == v;
      if (seen) continue;
      if (ns == cap) {
        json_int_t *t = realloc(sz, sizeof *sz * (cap = cap ? 2 * cap : 16));
        if (!t) break;
        sz = t;
      }
      sz[ns++] = v;
    }
  }
  if (ns) qsort(sz, ns, sizeof *sz, cmp_size);
  json_t *out = json_pack("{s:O, s:O, s:O, s:O, s:[], s:[]}", "method", json_object_get(grp, "method"), "direction",
                          json_object_get(grp, "direction"), "pattern", json_object_get(grp, "pattern"), "unit",
                          json_object_get(grp, "unit"), "sizes", "rows");
  for (size_t q = 0; q < ns; q++) json_array_append_new(json_object_get(out, "sizes"), json_integer(sz[q]));
  json_array_foreach(json_object_get(grp, "order"), i, k) {
    rw = json_object_get(rows, json_string_value(k));
    cells = json_object_get(rw, "_v");
    json_t *o = json_deep_copy(rw), *vals = json_array(), *cnt = json_array();
    json_object_del(o, "_v");
    for (size_t q = 0; q < ns; q++) {
      char bb[32];
      snprintf(bb, sizeof bb, "%lld", (long long)sz[q]);
      json_t *a = json_object_get(cells, bb);
      size_t n = json_array_size(a);
      double *v = malloc(sizeof *v * (n + 1)), m = NAN;
      if (v) {
        json_array_foreach(a, j, x) v[j] = json_number_value(x);
        m = median(v, (int)n);
      }
      free(v);
      json_array_append_new(vals, isnan(m) ? json_null() : json_real(m));
      json_array_append_new(cnt, json_integer((json_int_t)n));
    }
    json_object_set_new(o, "values", vals);
    json_object_set_new(o, "records", cnt);
    json_array_append_new(json_object_get(out, "rows"), o);
  }
  free(sz);
  return out;
}

json_t *ar_links_tables_json(json_t *notes) {
  json_t *order = json_array(), *g = collect(notes, order), *out = json_array(), *k;
  size_t i;
  json_array_foreach(order, i, k) json_array_append_new(out, finish_group(json_object_get(g, json_string_value(k))));
  json_decref(order);
  json_decref(g);
  return out;
}

double ar_links_row_value(json_t *table, json_t *row, size_t bytes) {
  size_t i;
  json_t *s;
  json_array_foreach(json_object_get(table, "sizes"), i, s)
    if ((size_t)json_integer_value(s) == bytes) {
      json_t *v = json_array_get(json_object_get(row, "values"), i);
      return json_is_number(v) ? json_number_value(v) : NAN;
    }
  return NAN;
}

static json_t *find_row(json_t *t, int s, int d) {
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(t, "rows"), i, r)
    if (ar_rec_num(r, "src", -1) == s && ar_rec_num(r, "dst", -1) == d) return r;
  return NULL;
}

json_t *ar_links_matrix_json(json_t *t, int n) {
  json_t *sizes = json_object_get(t, "sizes"), *r;
  size_t nsz = json_array_size(sizes), i;
  int bi = is(t, "direction", "bi");
  if (!nsz) return NULL;
  size_t bytes = (size_t)json_integer_value(json_array_get(sizes, nsz - 1));
  if (n <= 0) json_array_foreach(json_object_get(t, "rows"), i, r) {
    int s = (int)ar_rec_num(r, "src", 0), d = (int)ar_rec_num(r, "dst", 0);
    n = s + 1 > n ? s + 1 : n;
    n = d + 1 > n ? d + 1 : n;
  }
  json_t *vals = json_array(), *paths = json_array();
  for (int s = 0; s < n; s++) {
    json_t *vr = json_array(), *pr = json_array();
    for (int d = 0; d < n; d++) {
      json_t *a = s == d ? NULL : find_row(t, s, d), *b = bi && a ? find_row(t, d, s) : NULL;
      double v = a ? ar_links_row_value(t, a, bytes) : NAN;
      if (bi) v = b ? v + ar_links_row_value(t, b, bytes) : NAN; /* both directions at once, summed */
      json_array_append_new(vr, isnan(v) ? json_null() : json_real(v));
      json_array_append_new(pr, json_string(a ? ar_rec_str(a, "path", "?") : ""));
    }
    json_array_append_new(vals, vr);
    json_array_append_new(paths, pr);
  }
  return json_pack("{s:O, s:O, s:O, s:I, s:i, s:o, s:o}", "method", json_object_get(t, "method"), "direction",
                   json_object_get(t, "direction"), "unit", json_object_get(t, "unit"), "bytes", (json_int_t)bytes, "n",
                   n, "values", vals, "path", paths);
}

json_t *ar_links_matrices_json(json_t *tables) {
  json_t *out = json_array(), *t;
  size_t i;
  json_array_foreach(tables, i, t) {
    if (!is(t, "pattern", "pairs")) continue;
    json_t *m = ar_links_matrix_json(t, 0);
    if (m) json_array_append_new(out, m);
  }
  return out;
}
