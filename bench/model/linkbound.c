/* linkbound.c — `model --against` on link records: the time an allreduce algorithm needs at least on the
 * links as measured (its pattern's slowest flow, its flag hops), held against the measured allreduce. */
#include "model/linkbound.h"
#include "analysis/analysis.h"
#include "ar.h"
#include "links/records.h"
#include "opts.h"
#include "results.h"
#include "stats.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AR_LINK_SHORT 0.7 /* measured busbw under 70% of the link-derived bound falls short */

int ar_link_load_of(int family, int n, double size, struct ar_link_load *l) {
  memset(l, 0, sizeof *l);
  if (n < 2 || !(size > 0)) return -1;
  switch (family) {
  case AR_M_RING_LL:
  case AR_M_RING_SIMPLE:
  case AR_M_TWOSHOT_STAGED: /* each step a copy of size/n to the next rank, 2(n-1) steps */
    *l = (struct ar_link_load){"ring", "write", size / n, 2.0 * (n - 1) / n * size, 2.0 * (n - 1)};
    return 0;
  case AR_M_ONESHOT_PULL: /* every rank reads the whole message from every peer, one flag each way */
  case AR_M_ONESHOT_PUSH:
    *l = (struct ar_link_load){"oneshot", family == AR_M_ONESHOT_PULL ? "read" : "write", size, size, 2};
    return 0;
  case AR_M_TWOSHOT_FLAT: /* reduce-scatter and all-gather: size/n to every peer, twice */
    *l = (struct ar_link_load){"all", "write", size / n, 2.0 * size / n, 3};
    return 0;
  default:
    return -1;
  }
}

static int is(json_t *r, const char *key, const char *v) { return !strcmp(ar_rec_str(r, key, ""), v); }

static json_t *table_of(json_t *tables, const char *m, const char *d, const char *p) {
  size_t i;
  json_t *t;
  json_array_foreach(tables, i, t) if (is(t, "method", m) && is(t, "direction", d) && is(t, "pattern", p)) return t;
  return NULL;
}

/* Ranks of a table: the highest rank its rows name, plus one. */
static int table_ranks(json_t *t) {
  size_t i;
  json_t *r;
  int n = 0;
  json_array_foreach(json_object_get(t, "rows"), i, r) {
    int s = (int)ar_rec_num(r, "src", 0) + 1, d = (int)ar_rec_num(r, "dst", 0) + 1;
    n = s > n ? s : n;
    n = d > n ? d : n;
  }
  return n;
}

int ar_link_bound(json_t *tables, int family, int n, double size, struct ar_link_bound *b) {
  memset(b, 0, sizeof *b);
  if (ar_link_load_of(family, n, size, &b->load)) return -1;
  json_t *t = table_of(tables, b->load.method, "uni", b->load.pattern), *lat = table_of(tables, "flag", "pingpong", "pairs");
  if (!t || !lat || table_ranks(t) != n || table_ranks(lat) != n) return -1;
  json_t *sizes = json_object_get(t, "sizes"), *s, *r;
  size_t i, best = 0;
  double dist = INFINITY;
  json_array_foreach(sizes, i, s) { /* the measured copy size nearest (in log) to the algorithm's copies */
    double d = fabs(log((double)json_integer_value(s) / b->load.copy_bytes));
    if (d < dist) dist = d, best = (size_t)json_integer_value(s);
  }
  b->link_bytes = best;
  b->link_gbs = INFINITY;
  json_array_foreach(json_object_get(t, "rows"), i, r) {
    double v = ar_links_row_value(t, r, best);
    if (v > 0 && v < b->link_gbs) {
      b->link_gbs = v;
      b->slow_src = (int)ar_rec_num(r, "src", -1);
      b->slow_dst = (int)ar_rec_num(r, "dst", -1);
    }
  }
  size_t nl = json_array_size(json_object_get(lat, "rows")), k = 0;
  double *v = malloc(sizeof *v * (nl + 1));
  json_array_foreach(json_object_get(lat, "rows"), i, r) {
    double x = v ? ar_links_row_value(lat, r, 4) : NAN;
    if (x > 0) v[k++] = x;
  }
  b->lat_us = NAN; /* the median pair's flag latency: a hop as the algorithm's flags see it */
  if (k) {
    struct ar_stats st;
    ar_stats_compute(v, (int)k, &st);
    b->lat_us = st.p50;
  }
  free(v);
  if (!isfinite(b->link_gbs) || !(b->lat_us > 0)) return -1;
  b->hops_us = b->load.hops * b->lat_us;
  b->data_us = b->load.flow_bytes / (b->link_gbs * 1e3); /* GB/s x 1e3 = bytes per us */
  b->us = b->hops_us + b->data_us;
  return 0;
}

/* ---- --against ---- */

static void host_of_run(json_t *runs, json_t *rec, char *buf, size_t len) {
  const char *h = json_string_value(json_array_get(json_object_get(json_object_get(runs, ar_rec_str(rec, "run_id", "")),
                                                                   "hosts"), 0));
  snprintf(buf, len, "%s", h ? h : "");
}

/* The one host of the link records ("" when unknown); -1 when they come from several. */
static int links_host(json_t *notes, json_t *runs, char *buf, size_t len, char *other, size_t olen) {
  size_t i;
  json_t *r;
  *buf = 0;
  json_array_foreach(notes, i, r) {
    if (!is(r, "type", "link")) continue;
    char h[128];
    host_of_run(runs, r, h, sizeof h);
    if (!*h) continue;
    if (!*buf) snprintf(buf, len, "%s", h);
    else if (strcmp(buf, h)) return snprintf(other, olen, "%s", h), -1;
  }
  return 0;
}

static void row(json_t *rec, const char *label, int f, int n, double size, double meas_us, const struct ar_link_bound *b,
                int json) {
  double mb = ar_model_busbw(size, meas_us, n), bb = ar_model_busbw(size, b->us, n), ratio = mb / bb;
  char note[300] = "";
  if (ratio > 1 / AR_LINK_SHORT)
    snprintf(note, sizeof note, "faster than the links' bound: the link records do not describe this run (noise, "
             "another load, other binding)");
  else if (ratio < AR_LINK_SHORT) {
    if (b->hops_us >= b->data_us)
      snprintf(note, sizeof note, "short of the links: their bound is latency (%g flag hops x %.2f us), the rest is "
               "the algorithm's own cost", b->load.hops, b->lat_us);
    else
      snprintf(note, sizeof note, "short of the links: %s %s flows at %.2f GB/s (slowest %d->%d) would allow %.1f GB/s busbw",
               b->load.pattern, b->load.method, b->link_gbs, b->slow_src, b->slow_dst, bb);
  }
  if (json) {
    json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:i, s:f, s:f, s:f, s:f, s:f, s:s, s:s, s:I, s:f, s:f, s:f, s:s}", "type",
                          "against-links", "spec", label, "model", ar_malgo_name(f), "size", (json_int_t)size, "ranks", n,
                          "measured_us", meas_us, "bound_us", b->us, "measured_busbw_gbs", mb, "bound_busbw_gbs", bb,
                          "ratio", ratio, "pattern", b->load.pattern, "method", b->load.method, "link_bytes",
                          (json_int_t)b->link_bytes, "link_gbs", b->link_gbs, "latency_us", b->lat_us, "hops",
                          b->load.hops, "note", note);
    json_object_set_new(o, "slowest_flow", json_pack("[i,i]", b->slow_src, b->slow_dst));
    char *s = json_dumps(o, JSON_COMPACT);
    puts(s ? s : "{}");
    free(s);
    json_decref(o);
  } else {
    char sz[32], lb[32];
    ar_size_format((size_t)size, sz, sizeof sz);
    ar_size_format(b->link_bytes, lb, sizeof lb);
    printf("%-28s %-17s %8s %3d %10.2f %10.2f %8.2f %8.2f %6.2f  %s %s %s %.2f GB/s, %.2f us x %g%s%s\n", label,
           ar_malgo_name(f), sz, n, meas_us, b->us, mb, bb, ratio, b->load.pattern, b->load.method, lb, b->link_gbs,
           b->lat_us, b->load.hops, *note ? "; " : "", note);
  }
  (void)rec;
}

int ar_link_against(struct ar_ana *a, json_t *tables, int json, char *err, size_t len) {
  char lh[128], other[128], rh[128];
  if (links_host(a->notes, a->runs, lh, sizeof lh, other, sizeof other)) {
    snprintf(err, len, "--against: link records of two hosts (%s, %s): the links bound the allreduce of their own box", lh,
             other);
    return -AR_EINVAL;
  }
  if (!json_array_size(a->results)) {
    snprintf(err, len, "--against: link records but no allreduce results: give the results of arbench run (same box, "
             "same ranks) beside the link records");
    return -AR_EINVAL;
  }
  struct ar_grid *gr = NULL;
  int ng = 0, done = 0, nofam = 0, noranks = 0, nohost = 0;
  if (ar_grids_build(a->results, a->runs, &gr, &ng)) {
    ar_grids_free(gr, ng);
    snprintf(err, len, "--against: out of memory");
    return -AR_ERUNTIME;
  }
  for (int k = 0; k < ng; k++)
    for (int c = 0; c < gr[k].ncfg; c++)
      for (int s = 0; s < gr[k].nsize; s++) {
        json_t *r = ar_grid_at(&gr[k], s, c);
        struct ar_cell_stats st;
        struct ar_link_bound b;
        if (!r || gr[k].predicted[c] || ar_grid_stats(&gr[k], s, c, &st) || !(st.p50 > 0)) continue;
        int f = ar_model_family_of(r), n = ar_rec_ranks(r);
        host_of_run(a->runs, r, rh, sizeof rh);
        if (f < 0 || ar_link_load_of(f, n, (double)gr[k].size[s], &b.load)) {
          nofam++;
          continue;
        }
        if (*lh && *rh && strcmp(lh, rh)) {
          nohost++;
          continue;
        }
        if (ar_link_bound(tables, f, n, (double)gr[k].size[s], &b)) {
          noranks++;
          continue;
        }
        if (!done++ && !json)
          printf("# against the links (host %s): the least time the measured links allow: the pattern's slowest flow at "
                 "the nearest measured copy size, plus flag hops x the median pair's flag latency\n"
                 "%-28s %-17s %8s %3s %10s %10s %8s %8s %6s  %s\n", *lh ? lh : "?", "result", "algorithm", "bytes", "np",
                 "meas us", "bound us", "meas bw", "bound bw", "ratio", "from: pattern method copy-size GB/s, latency x hops");
        row(r, gr[k].cfg[c], f, n, (double)gr[k].size[s], st.p50, &b, json);
      }
  ar_grids_free(gr, ng);
  if (done && (nofam || noranks || nohost))
    fprintf(stderr, "arbench model: note: against the links, %d cell%s not compared (%d: no link pattern for the algorithm, "
            "e.g. mpi, tree, islands; %d: no link records of that pattern and rank count; %d: another host)\n",
            nofam + noranks + nohost, nofam + noranks + nohost == 1 ? "" : "s", nofam, noranks, nohost);
  if (!done) {
    if (nohost) snprintf(err, len, "--against: the results were measured on %s, the link records on %s: the links bound "
                         "the allreduce of their own box", rh, lh);
    else snprintf(err, len, "--against: no result the link records bound (%d cells: no link pattern for the algorithm; %d: "
                  "no link records of that pattern and rank count)", nofam, noranks);
    return -AR_EINVAL;
  }
  return done;
}
