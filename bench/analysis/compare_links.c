/* compare_links.c — `arbench compare A B` on `link` records: matches per (method, direction, pattern, flow,
 * root, size, ranks, transport), ratio B/A of the medians over runs, bootstrap interval and Holm-corrected
 * verdicts as compare gives results; a side is one host on one stack, never pooled. */
#include "analysis/compare_links.h"
#include "ar.h"
#include "links/records.h"
#include "opts.h"
#include "results.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is(json_t *r, const char *key, const char *v) { return !strcmp(ar_rec_str(r, key, ""), v); }

static json_t *run_of(const struct ar_ana *s, json_t *r) { return json_object_get(s->runs, ar_rec_str(r, "run_id", "")); }

static const char *transport(const struct ar_ana *s, json_t *r) {
  return ar_rec_str(json_object_get(run_of(s, r), "links"), "transport", "?");
}

static void key_of(const struct ar_ana *s, json_t *r, char *buf, size_t len) {
  snprintf(buf, len, "%s|%s|%s|%d->%d|%d|%lld|%d|%d|%s", ar_rec_str(r, "method", ""), ar_rec_str(r, "direction", ""),
           ar_rec_str(r, "pattern", ""), (int)ar_rec_num(r, "src", -1), (int)ar_rec_num(r, "dst", -1),
           (int)ar_rec_num(r, "root", -1), (long long)ar_rec_num(r, "bytes", 0), (int)ar_rec_num(run_of(s, r), "ranks", 0),
           (int)ar_rec_num(r, "flows", 0), transport(s, r));
}

/* A link record as a run the noise rule reads: its value (gbs, us for flag) as the p50, its repeats as samples. */
static json_t *as_run(json_t *r) {
  int flag = ar_link_in_us(r);
  json_t *samples = json_array(), *x;
  size_t i;
  json_array_foreach(json_object_get(r, flag ? "samples_us" : "samples_gbs"), i, x)
    if (json_is_number(x)) json_array_append(samples, x);
  return json_pack("{s:s, s:I, s:{s:f}, s:o, s:O}", "run_id", ar_rec_str(r, "run_id", ""), "repeat", (json_int_t)0,
                   "time_us", "p50", ar_rec_num(r, flag ? "us" : "gbs", NAN), "samples_us", samples, "_rec", r);
}

/* Index key -> runs; a side's hosts and stacks must be one each. */
static json_t *index_side(const struct ar_ana *s, json_t *order, const char *name, char *err, size_t len) {
  json_t *idx = json_object(), *r, *host = NULL, *stack = NULL;
  size_t i;
  json_array_foreach(s->notes, i, r) {
    if (!is(r, "type", "link") || !(ar_rec_num(r, ar_link_in_us(r) ? "us" : "gbs", NAN) > 0)) continue;
    json_t *run = run_of(s, r), *h = json_array_get(json_object_get(run, "hosts"), 0),
           *st = json_object_get(json_object_get(run, "stack"), "name");
    if ((h && host && !json_equal(h, host)) || (st && stack && !json_equal(st, stack))) {
      snprintf(err, len, "%s: link records of two %s (%s, %s): a side of compare is one box on one stack", name,
               h && host && !json_equal(h, host) ? "hosts" : "stacks",
               json_string_value(h && host && !json_equal(h, host) ? host : stack),
               json_string_value(h && host && !json_equal(h, host) ? h : st));
      json_decref(idx);
      return NULL;
    }
    host = h ? h : host;
    stack = st ? st : stack;
    char k[400];
    key_of(s, r, k, sizeof k);
    json_t *runs = json_object_get(idx, k);
    if (!runs) {
      json_object_set_new(idx, k, runs = json_array());
      json_array_append_new(order, json_string(k));
    }
    json_t *pr = as_run(r);
    ar_runs_add(runs, pr, NULL);
    json_decref(pr);
  }
  return idx;
}

static const char *verdict(int have, int rejected, double ratio, int ra, int rb, int flag, int one_launch) {
  if (one_launch) return "unresolved"; /* between launches with one launch a side: nothing tested */
  if (!have) return "no samples";
  if (!rejected) return "same";
  if (ra < 2 || rb < 2) return "unresolved";
  return (ratio > 1) != flag ? "faster" : "slower"; /* more GB/s, or fewer us */
}

static json_t *match(json_t *ra, json_t *rb, const char *key, const struct ar_noise *nz) {
  json_t *a = json_object_get(json_array_get(ra, json_array_size(ra) - 1), "_rec"),
         *b = json_object_get(json_array_get(rb, json_array_size(rb) - 1), "_rec");
  struct ar_pair t;
  int tested = !ar_pair_test(ra, rb, key, nz, 1, &t);
  double lo = t.lo, hi = t.hi, p = tested ? t.p_diff : NAN, va = ar_runs_p50(ra), vb = ar_runs_p50(rb);
  int flag = ar_link_in_us(a);
  json_t *m = json_pack("{s:s, s:s, s:s, s:i, s:i, s:o, s:I, s:s, s:s, s:s, s:f, s:f, s:f}", "method",
                        ar_rec_str(a, "method", ""), "direction", ar_rec_str(a, "direction", ""), "pattern",
                        ar_rec_str(a, "pattern", ""), "src", (int)ar_rec_num(a, "src", -1), "dst",
                        (int)ar_rec_num(a, "dst", -1), "root", json_is_integer(json_object_get(a, "root"))
                        ? json_integer(json_integer_value(json_object_get(a, "root"))) : json_null(),
                        "bytes", (json_int_t)ar_rec_num(a, "bytes", 0), "unit", flag ? "us" : "GB/s", "path_a",
                        ar_rec_str(a, "path", "?"), "path_b", ar_rec_str(b, "path", "?"), "a", va, "b", vb, "ratio", vb / va);
  json_object_set_new(m, "runs_a", json_integer(ar_runs_sampled(ra)));
  json_object_set_new(m, "runs_b", json_integer(ar_runs_sampled(rb)));
  json_object_set_new(m, "lo", isnan(p) ? json_null() : json_real(lo));
  json_object_set_new(m, "hi", isnan(p) ? json_null() : json_real(hi));
  json_object_set_new(m, "p", isnan(p) ? json_null() : json_real(p));
  /* between launches (two files) the launch is the replicate: a side with one launch decides nothing */
  json_object_set_new(m, "one_launch", json_boolean(t.between && (t.launches_a < 2 || t.launches_b < 2)));
  return m;
}

static json_t *summary(json_t *matches) {
  json_t *by = json_object(), *order = json_array(), *m, *out = json_array(), *k;
  size_t i;
  json_array_foreach(matches, i, m) {
    char g[160];
    snprintf(g, sizeof g, "%s %s %s", ar_rec_str(m, "method", ""), ar_rec_str(m, "direction", ""), ar_rec_str(m, "pattern", ""));
    json_t *e = json_object_get(by, g);
    if (!e) {
      e = json_pack("{s:s, s:i, s:f, s:i, s:i, s:i, s:i, s:i}", "group", g, "matches", 0, "_log", 0.0, "faster", 0,
                    "slower", 0, "same", 0, "unresolved", 0, "no_samples", 0);
      json_object_set_new(by, g, e);
      json_array_append_new(order, json_string(g));
    }
    const char *v = ar_rec_str(m, "verdict", "");
    const char *f = !strcmp(v, "no samples") ? "no_samples" : v;
    json_object_set_new(e, "matches", json_integer((json_int_t)ar_rec_num(e, "matches", 0) + 1));
    json_object_set_new(e, "_log", json_real(ar_rec_num(e, "_log", 0) + log(ar_rec_num(m, "ratio", NAN))));
    json_object_set_new(e, f, json_integer((json_int_t)ar_rec_num(e, f, 0) + 1));
  }
  json_array_foreach(order, i, k) {
    json_t *e = json_object_get(by, json_string_value(k));
    json_object_set_new(e, "geomean_ratio", json_real(exp(ar_rec_num(e, "_log", 0) / ar_rec_num(e, "matches", 1))));
    json_object_del(e, "_log");
    json_array_append(out, e);
  }
  json_decref(by);
  json_decref(order);
  return out;
}

/* Holm over the family, then the verdicts. */
static int finish(json_t *matches, double alpha) {
  size_t n = json_array_size(matches), i;
  double *p = calloc(n + 1, sizeof *p), *padj = calloc(n + 1, sizeof *padj);
  char *rej = calloc(n + 1, 1);
  int m = 0, rc = p && padj && rej ? 0 : -1;
  json_t *x;
  json_array_foreach(matches, i, x) if (!rc && json_is_number(json_object_get(x, "p"))) p[m++] = json_number_value(json_object_get(x, "p"));
  if (!rc) rc = ar_holm(p, m, alpha, rej, padj);
  int k = 0;
  json_array_foreach(matches, i, x) {
    int have = !rc && json_is_number(json_object_get(x, "p")), r = have && rej[k];
    json_object_set_new(x, "p_holm", have ? json_real(padj[k]) : json_null());
    json_object_set_new(x, "verdict", json_string(verdict(have, r, ar_rec_num(x, "ratio", NAN), (int)ar_rec_num(x, "runs_a", 0),
                                                          (int)ar_rec_num(x, "runs_b", 0), is(x, "unit", "us"),
                                                          json_is_true(json_object_get(x, "one_launch")))));
    k += have;
  }
  free(p), free(padj), free(rej);
  return rc < 0 ? rc : m;
}

json_t *ar_links_compare(const struct ar_ana *a, const struct ar_ana *b, int resamples, unsigned long long seed,
                         double alpha, char *err, size_t len) {
  json_t *oa = json_array(), *ob = json_array(), *ia = index_side(a, oa, "A", err, len), *ib = ia ? index_side(b, ob, "B", err, len) : NULL;
  if (!ia || !ib) {
    json_decref(ia), json_decref(ib), json_decref(oa), json_decref(ob);
    return NULL;
  }
  size_t i;
  json_t *k, *matches = json_array();
  int fam = 0, only_a = 0, only_b = 0;
  json_array_foreach(oa, i, k) {
    json_t *rb = json_object_get(ib, json_string_value(k));
    fam += rb && ar_runs_sampled(rb) && ar_runs_sampled(json_object_get(ia, json_string_value(k)));
    only_a += !rb;
  }
  json_array_foreach(ob, i, k) only_b += !json_object_get(ia, json_string_value(k));
  struct ar_noise nz;
  ar_noise_defaults(&nz);
  nz.resamples = ar_family_resamples(resamples, fam, alpha);
  nz.seed = seed;
  nz.drift = 0; /* a single run's difference is tested as it is, and called "unresolved" (verdict()) */
  json_array_foreach(oa, i, k) {
    json_t *rb = json_object_get(ib, json_string_value(k));
    if (rb) json_array_append_new(matches, match(json_object_get(ia, json_string_value(k)), rb, json_string_value(k), &nz));
  }
  int m = finish(matches, alpha);
  char how[300];
  snprintf(how, sizeof how, "Holm-Bonferroni over the %d link matches with samples (family-wise error %.1f%%), the noise "
           "rule of compare: bootstrap over runs and repeats, with two or more runs a side a t test on the runs' values", m,
           alpha * 100);
  json_t *out = json_pack("{s:s, s:o, s:i, s:i, s:i, s:s, s:i}", "ratio", "B/A of the medians over runs (GB/s; us for flag)",
                          "matches", matches, "only_a", only_a, "only_b", only_b, "family", m, "correction", how,
                          "resamples", nz.resamples);
  json_object_set_new(out, "summary", summary(matches));
  json_decref(ia), json_decref(ib), json_decref(oa), json_decref(ob);
  return out;
}

void ar_links_compare_print(json_t *r) {
  json_t *ms = json_object_get(r, "matches"), *m;
  size_t i;
  printf("\nLinks: %s; %s.\n", ar_rec_str(r, "ratio", ""), ar_rec_str(r, "correction", ""));
  printf("\n| method | dir | pattern | flow | bytes | path A | path B | A | B | unit | B/A | 95%% interval | verdict |\n"
         "|---|---|---|---|---:|---|---|---:|---:|---|---:|---|---|\n");
  json_array_foreach(ms, i, m) {
    char sz[32], flow[64];
    ar_size_format((size_t)ar_rec_num(m, "bytes", 0), sz, sizeof sz);
    if (json_is_integer(json_object_get(m, "root")) && !is(m, "pattern", "pairs"))
      snprintf(flow, sizeof flow, "%d->%d (root %d)", (int)ar_rec_num(m, "src", -1), (int)ar_rec_num(m, "dst", -1),
               (int)ar_rec_num(m, "root", -1));
    else snprintf(flow, sizeof flow, "%d->%d", (int)ar_rec_num(m, "src", -1), (int)ar_rec_num(m, "dst", -1));
    printf("| %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %s | %.3f | ", ar_rec_str(m, "method", ""),
           ar_rec_str(m, "direction", ""), ar_rec_str(m, "pattern", ""), flow, sz, ar_rec_str(m, "path_a", ""),
           ar_rec_str(m, "path_b", ""), ar_rec_num(m, "a", NAN), ar_rec_num(m, "b", NAN), ar_rec_str(m, "unit", ""),
           ar_rec_num(m, "ratio", NAN));
    if (json_is_number(json_object_get(m, "lo"))) printf("[%.3f, %.3f]", ar_rec_num(m, "lo", NAN), ar_rec_num(m, "hi", NAN));
    else printf("-");
    printf(" | %s |\n", ar_rec_str(m, "verdict", ""));
  }
  if (ar_rec_num(r, "only_a", 0) || ar_rec_num(r, "only_b", 0))
    printf("\nLink measurements in A only: %d; in B only: %d (not compared).\n", (int)ar_rec_num(r, "only_a", 0),
           (int)ar_rec_num(r, "only_b", 0));
  printf("\nLinks summary per (method, direction, pattern):\n\n| links | matches | geomean B/A | faster | slower | same | "
         "unresolved | no samples |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  json_array_foreach(json_object_get(r, "summary"), i, m)
    printf("| %s | %d | %.3f | %d | %d | %d | %d | %d |\n", ar_rec_str(m, "group", ""), (int)ar_rec_num(m, "matches", 0),
           ar_rec_num(m, "geomean_ratio", NAN), (int)ar_rec_num(m, "faster", 0), (int)ar_rec_num(m, "slower", 0),
           (int)ar_rec_num(m, "same", 0), (int)ar_rec_num(m, "unresolved", 0), (int)ar_rec_num(m, "no_samples", 0));
  printf("faster: more GB/s (fewer us for flag) in B beyond the noise; unresolved: beyond the noise of one run a side, "
         "which cannot tell the boxes from run-to-run drift (append several launches to each file).\n");
}
