/* linkfit.c — `model --fit` on link records: a copy's time per (method, path class) as fixed + bytes x cost
 * from the pairs-alone records, the flag latency per class; the expected value and ratio of a link record. */
#include "infile.h"
#include "model/linkfit.h"
#include "ar.h"
#include "links/records.h"
#include "opts.h"
#include "results.h"
#include "stats.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ar_model_lsq(int n, int distinct, double sx, double sy, double sxx, double sxy, double *fixed, double *slope) {
  double d = n * sxx - sx * sx;
  if (n <= 0) {
    *fixed = *slope = 0;
    return;
  }
  if (distinct < 2) { /* one size: through the origin */
    *fixed = 0;
    *slope = sxx > 0 ? fmax(0, sxy / sxx) : 0;
    return;
  }
  *slope = d != 0 ? (n * sxy - sx * sy) / d : 0;
  *fixed = (sy - *slope * sx) / n;
  if (*fixed < 0 || *slope < 0) {
    *fixed = fmax(0, *fixed);
    *slope = sxx > 0 ? fmax(0, (sxy - *fixed * sx) / sxx) : 0;
  }
}

static int is(json_t *r, const char *key, const char *v) { return !strcmp(ar_rec_str(r, key, ""), v); }

/* The host a record was measured on: its run's first host, else what src_id names before ':'. */
static void host_of(json_t *r, json_t *runs, char *buf, size_t len) {
  json_t *run = json_object_get(runs, ar_rec_str(r, "run_id", ""));
  const char *h = json_string_value(json_array_get(json_object_get(run, "hosts"), 0));
  if (h) {
    snprintf(buf, len, "%s", h);
    return;
  }
  const char *id = ar_rec_str(r, "src_id", "?"), *c = strchr(id, ':');
  snprintf(buf, len, "%.*s", c ? (int)(c - id) : (int)strlen(id), id);
}

struct pts {
  int n, distinct;
  double sx, sy, sxx, sxy;
  json_t *pairs, *sizes;
};

static double median_of(json_t *a) {
  size_t n = json_array_size(a), i;
  json_t *x;
  if (!n) return NAN;
  double *v = malloc(sizeof *v * n);
  if (!v) return NAN;
  json_array_foreach(a, i, x) v[i] = json_number_value(x);
  struct ar_stats st;
  ar_stats_compute(v, (int)n, &st);
  free(v);
  return st.p50;
}

static void add_unique(json_t *set, const char *k) {
  size_t i;
  json_t *x;
  json_array_foreach(set, i, x) if (!strcmp(json_string_value(x), k)) return;
  json_array_append_new(set, json_string(k));
}

/* Bandwidth entries: "METHOD CLASS" -> raw points (bytes, us) in "_x", "_y". */
static void collect_bw(json_t *r, json_t *bw) {
  double us = ar_rec_num(r, "us", NAN), b = ar_rec_num(r, "bytes", NAN);
  if (!(us > 0) || !(b > 0) || ar_rec_num(r, "wrong", 0) > 0) return;
  char key[96], pair[32];
  snprintf(key, sizeof key, "%s %s", ar_rec_str(r, "method", "?"), ar_rec_str(r, "path", "?"));
  json_t *e = json_object_get(bw, key);
  if (!e) {
    e = json_pack("{s:s, s:s, s:[], s:[], s:[]}", "method", ar_rec_str(r, "method", "?"), "path",
                  ar_rec_str(r, "path", "?"), "_x", "_y", "_pairs");
    json_object_set_new(bw, key, e);
  }
  json_array_append_new(json_object_get(e, "_x"), json_real(b));
  json_array_append_new(json_object_get(e, "_y"), json_real(us));
  snprintf(pair, sizeof pair, "%d->%d", (int)ar_rec_num(r, "src", -1), (int)ar_rec_num(r, "dst", -1));
  add_unique(json_object_get(e, "_pairs"), pair);
}

static void finish_bw(json_t *e) {
  json_t *xs = json_object_get(e, "_x"), *ys = json_object_get(e, "_y");
  size_t n = json_array_size(xs), i;
  double sx = 0, sy = 0, sxx = 0, sxy = 0, lo = INFINITY, hi = 0, fx, sl, res = 0;
  json_t *seen = json_object();
  for (i = 0; i < n; i++) {
    double x = json_number_value(json_array_get(xs, i)), y = json_number_value(json_array_get(ys, i));
    char k[32];
    snprintf(k, sizeof k, "%.0f", x);
    json_object_set_new(seen, k, json_true());
    sx += x, sy += y, sxx += x * x, sxy += x * y;
    lo = fmin(lo, x), hi = fmax(hi, x);
  }
  ar_model_lsq((int)n, (int)json_object_size(seen), sx, sy, sxx, sxy, &fx, &sl);
  for (i = 0; i < n; i++) {
    double x = json_number_value(json_array_get(xs, i)), y = json_number_value(json_array_get(ys, i));
    res = fmax(res, fabs(y - (fx + sl * x)));
  }
  json_decref(seen);
  json_object_set_new(e, "fixed_us", json_real(fx));
  json_object_set_new(e, "us_per_byte", json_real(sl));
  json_object_set_new(e, "gbs", sl > 0 ? json_real(1.0 / (sl * 1e3)) : json_null());
  json_object_set_new(e, "points", json_integer((json_int_t)n));
  json_object_set_new(e, "pairs", json_integer((json_int_t)json_array_size(json_object_get(e, "_pairs"))));
  json_object_set_new(e, "min_bytes", json_integer((json_int_t)lo));
  json_object_set_new(e, "max_bytes", json_integer((json_int_t)hi));
  json_object_set_new(e, "max_resid_us", json_real(res));
  json_object_del(e, "_x");
  json_object_del(e, "_y");
  json_object_del(e, "_pairs");
}

int ar_link_fit(json_t *notes, json_t *runs, json_t **out, char *err, size_t len) {
  json_t *bw = json_object(), *lat = json_object(), *hosts = json_array(), *r;
  size_t i;
  int any = 0;
  *out = NULL;
  json_array_foreach(notes, i, r) {
    if (!is(r, "type", "link")) continue;
    char h[128];
    host_of(r, runs, h, sizeof h);
    add_unique(hosts, h);
    any++;
    if (is(r, "method", "flag")) {
      double us = ar_rec_num(r, "us", NAN);
      if (!(us > 0)) continue;
      const char *c = ar_rec_str(r, "path", "?");
      if (!json_object_get(lat, c)) json_object_set_new(lat, c, json_pack("{s:s, s:[]}", "path", c, "_us"));
      json_array_append_new(json_object_get(json_object_get(lat, c), "_us"), json_real(us));
    } else if (is(r, "pattern", "pairs") && is(r, "direction", "uni"))
      collect_bw(r, bw);
  }
  if (json_array_size(hosts) > 1) {
    snprintf(err, len, "--fit: link records of %zu hosts (%s, %s%s): a box's links are fitted one box at a time",
             json_array_size(hosts), json_string_value(json_array_get(hosts, 0)),
             json_string_value(json_array_get(hosts, 1)), json_array_size(hosts) > 2 ? ", ..." : "");
    json_decref(bw), json_decref(lat), json_decref(hosts);
    return -AR_EINVAL;
  }
  const char *k;
  json_t *e;
  json_object_foreach(bw, k, e) finish_bw(e);
  json_object_foreach(lat, k, e) {
    json_t *us = json_object_get(e, "_us");
    json_object_set_new(e, "us", json_real(median_of(us)));
    json_object_set_new(e, "pairs", json_integer((json_int_t)json_array_size(us)));
    json_object_del(e, "_us");
  }
  if (any)
    *out = json_pack("{s:O, s:o, s:o}", "host", json_array_get(hosts, 0), "bandwidth", bw, "latency", lat);
  else
    json_decref(bw), json_decref(lat);
  json_decref(hosts);
  return 0;
}

int ar_link_expected(json_t *links, json_t *rec, double *v) {
  char key[96];
  const char *c = ar_rec_str(rec, "path", "?");
  if (!links) return -1;
  if (is(rec, "method", "flag")) {
    double us = ar_rec_num(json_object_get(json_object_get(links, "latency"), c), "us", NAN);
    if (!(us > 0)) return -1;
    *v = us;
    return 0;
  }
  if (!is(rec, "pattern", "pairs") || !is(rec, "direction", "uni")) return -1; /* no sharing rule for host memory */
  snprintf(key, sizeof key, "%s %s", ar_rec_str(rec, "method", "?"), c);
  json_t *e = json_object_get(json_object_get(links, "bandwidth"), key);
  double b = ar_rec_num(rec, "bytes", NAN), fx = ar_rec_num(e, "fixed_us", NAN), sl = ar_rec_num(e, "us_per_byte", NAN);
  double t = fx + b * sl;
  if (!e || !(b > 0) || !(t > 0)) return -1;
  *v = b / (t * 1e3); /* bytes per us / 1e3 = GB/s */
  return 0;
}

void ar_link_fill(json_t *links, json_t *rec) {
  double ex, m;
  int flag = ar_link_in_us(rec);
  const char *field = flag ? "expected_us" : "expected_gbs";
  if (ar_link_expected(links, rec, &ex)) { /* expected_us only where a calibration gives one */
    if (!flag) json_object_set_new(rec, field, json_null());
    json_object_set_new(rec, "ratio", json_null());
    return;
  }
  m = ar_rec_num(rec, flag ? "us" : "gbs", NAN);
  json_object_set_new(rec, field, json_real(ex));
  json_object_set_new(rec, "ratio", m > 0 ? json_real(m / ex) : json_null());
}

static int bad_entry(json_t *e, int lat) {
  if (!json_is_object(e)) return 1;
  if (lat) return !(ar_rec_num(e, "us", NAN) > 0);
  double fx = ar_rec_num(e, "fixed_us", NAN), sl = ar_rec_num(e, "us_per_byte", NAN);
  return !(fx >= 0) || !(sl > 0) || !isfinite(fx) || !isfinite(sl);
}

int ar_link_calib_load(const char *path, json_t **links, char *err, size_t len) {
  json_error_t je;
  json_t *root = NULL, *l, *e;
  const char *k;
  *links = NULL;
  if (ar_infile_json(path, "--calib file", 0, &root, &je, err, len)) return -AR_EINVAL;
  l = json_object_get(root, "links");
  if (!root || !json_is_object(root)) {
    snprintf(err, len, "--calib %s: not a JSON object (%s)", path, root ? "wrong type" : je.text);
    json_decref(root);
    return -AR_EINVAL;
  }
  if (!json_is_object(l)) {
    snprintf(err, len, "--calib %s: has no \"links\" object (write one with arbench model --fit LINKS.jsonl)", path);
    json_decref(root);
    return -AR_EINVAL;
  }
  for (int lat = 0; lat < 2; lat++)
    json_object_foreach(json_object_get(l, lat ? "latency" : "bandwidth"), k, e) if (bad_entry(e, lat)) {
      snprintf(err, len, "--calib %s: links.%s.%s: need %s", path, lat ? "latency" : "bandwidth", k,
               lat ? "us > 0" : "fixed_us >= 0 and us_per_byte > 0");
      json_decref(root);
      return -AR_EINVAL;
    }
  *links = json_incref(l);
  json_decref(root);
  return 0;
}

void ar_link_fit_print(FILE *f, json_t *links, int nfiles, char **files) {
  const char *k;
  json_t *e;
  fprintf(f, "# link parameters of host %s, fitted from the link records of %s%s\n", ar_rec_str(links, "host", "?"),
          files[0], nfiles > 1 ? " ..." : "");
  fprintf(f, "# bandwidth: a copy's time = fixed + bytes x cost, least squares over every pair alone (pattern pairs, uni)\n");
  fprintf(f, "%-8s %-5s %9s %10s %12s %7s %6s %17s %12s\n", "method", "path", "GB/s", "fixed us", "us/byte", "points",
          "pairs", "sizes", "max |resid|");
  json_object_foreach(json_object_get(links, "bandwidth"), k, e) {
    char lo[32], hi[32], sz[72];
    ar_size_format((size_t)ar_rec_num(e, "min_bytes", 0), lo, sizeof lo);
    ar_size_format((size_t)ar_rec_num(e, "max_bytes", 0), hi, sizeof hi);
    snprintf(sz, sizeof sz, "%s..%s", lo, hi);
    fprintf(f, "%-8s %-5s %9.2f %10.3f %12.4g %7d %6d %17s %12.3f\n", ar_rec_str(e, "method", "?"),
            ar_rec_str(e, "path", "?"), ar_rec_num(e, "gbs", NAN), ar_rec_num(e, "fixed_us", NAN),
            ar_rec_num(e, "us_per_byte", NAN), (int)ar_rec_num(e, "points", 0), (int)ar_rec_num(e, "pairs", 0), sz,
            ar_rec_num(e, "max_resid_us", NAN));
  }
  fprintf(f, "# latency: one-way flag latency, the median over the pairs' p50 (method flag)\n");
  json_object_foreach(json_object_get(links, "latency"), k, e)
    fprintf(f, "flag     %-5s %9.3f us %d pairs\n", ar_rec_str(e, "path", "?"), ar_rec_num(e, "us", NAN),
            (int)ar_rec_num(e, "pairs", 0));
}
