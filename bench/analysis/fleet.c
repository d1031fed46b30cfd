/* fleet.c — `arbench fleet FILES...`: every box against its group's fleet, a table of boxes (ratio to the fleet,
 * worst cell, verdict) and one finding line per box that is off; exit 0 none, 4 some, 2 bad input, 3 nothing. */
#include "analysis/analysis.h"
#include "analysis/fleet.h"
#include "ar.h"
#include "opts.h"
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AR_EXIT_FLAGGED 4 /* fleet: a box is off (a health check acts on it) */

struct fl_opts {
  double margin;
  int json;
};

/* What one box comes to: its cells, the geometric mean of its ratios, its worst cell, slow cells, verdict. */
struct box_sum {
  int cells, slow, within, untested, worst; /* worst: measurement index, -1 none */
  double logsum;
  int topo;                                 /* topology findings */
};

static void usage(FILE *f) {
  fprintf(f,
    "usage: arbench fleet [--margin PCT] [--format text|json] RESULTS.jsonl...\n"
    "Every box (a host of run --per-node, or of a one-node run) against its group's fleet: boxes with the\n"
    "same GPU model, GPU count and stack. Per cell (configuration x size; link flow x size) the fleet is the\n"
    "median over the group's boxes; a box is flagged where it is slower than the fleet by more than the margin\n"
    "beyond the noise of its own runs (Holm over every box x cell of the call, family-wise 5%%), where its\n"
    "results are wrong, or where its topology differs from its group's (a GPU link at x8 or Gen4, a path).\n"
    "  --margin PCT        how much slower than the fleet is off (default 10)\n"
    "  --format text|json  a table of boxes and the findings (default), or one JSON object\n"
    "Exit status: 0 no box flagged, 4 a box flagged, 2 bad input, 3 nothing to compare, 1 a failure.\n");
}

static int parse(int argc, char **argv, struct fl_opts *o) {
  static const struct option lo[] = {{"margin", required_argument, 0, 'm'}, {"format", required_argument, 0, 'F'},
                                     {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
    char *end;
    switch (c) {
    case 'm':
      o->margin = strtod(optarg, &end) / 100;
      if (end == optarg || *end || !(o->margin >= 0 && o->margin <= 10)) {
        fprintf(stderr, "arbench fleet: bad --margin '%s' (expected a percentage from 0 to 1000, e.g. 10)\n", optarg);
        return -AR_EINVAL;
      }
      break;
    case 'F':
      if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
        fprintf(stderr, "arbench fleet: bad --format '%s' (expected text or json)\n", optarg);
        return -AR_EINVAL;
      }
      o->json = !strcmp(optarg, "json");
      break;
    case 'h': return 1;
    default: ar_ana_badopt("fleet", c, argv[optind - 1]); return -AR_EINVAL;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "arbench fleet: no results files (arbench fleet RESULTS.jsonl...; see --help)\n");
    return -AR_EINVAL;
  }
  return 0;
}

/* The cell label of measurement i with its size: "shm-oneshot float 2 ranks 64K". */
static void cell_text(const struct ar_fleet *f, int i, char *buf, size_t len) {
  const struct ar_fl_cell *c = &f->c[f->m[i].cell];
  char sz[32];
  ar_size_format(c->size, sz, sizeof sz);
  snprintf(buf, len, "%s %s", c->label, sz);
}

static void summarize(const struct ar_fleet *f, const struct ar_fl_verdict *v, json_t *topo, struct box_sum *s) {
  for (int b = 0; b < f->nb; b++) s[b] = (struct box_sum){.worst = -1};
  for (int i = 0; i < f->nm; i++) {
    struct box_sum *x = &s[f->m[i].box];
    if (isnan(v[i].ratio)) continue;
    x->cells++;
    x->logsum += log(v[i].ratio);
    x->slow += v[i].slow;
    x->within += v[i].within;
    x->untested += isnan(v[i].p);
    if (x->worst < 0 || v[i].ratio > v[x->worst].ratio) x->worst = i;
  }
  size_t k;
  json_t *t;
  json_array_foreach(topo, k, t) s[json_integer_value(json_object_get(t, "box"))].topo++;
}

static const char *verdict(const struct ar_fl_box *b, const struct box_sum *s) {
  if (s->slow) return "slower";
  if (b->wrong) return "wrong results";
  if (s->topo) return "topology differs";
  if (s->cells && s->within == s->cells) return "equivalent";
  return "undecided";
}

static int flagged(const struct ar_fl_box *b, const struct box_sum *s) { return s->slow || b->wrong || s->topo; }

static int cmp_size(const void *x, const void *y, void *arg) {
  const struct ar_fleet *f = arg;
  size_t a = f->c[f->m[*(const int *)x].cell].size, b = f->c[f->m[*(const int *)y].cell].size;
  return a < b ? -1 : a > b;
}

/* How much slower a time ratio (box / fleet) is: "38% below the fleet" (speed), or "4.2x the fleet's time". */
static void slower_text(double ratio, char *buf, size_t len) {
  if (ratio < 2) snprintf(buf, len, "%.0f%% below the fleet", 100 * (1 - 1 / ratio));
  else snprintf(buf, len, "%.1fx the fleet's time", ratio);
}

static int cmp_dbl(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* "shm-oneshot float 2 ranks 38% below the fleet from 64K (worst 45% below the fleet at 1M)": the slow cells of
 * one label of a box, whose measurements are idx[0..n) (all its cells of that label). Appends to buf. */
static void label_phrase(const struct ar_fleet *f, const struct ar_fl_verdict *v, int *idx, int n, char *buf, size_t len) {
  qsort_r(idx, (size_t)n, sizeof *idx, cmp_size, (void *)f);
  int first = -1, all_from = 1, nslow = 0, worst = -1;
  double *ratio = malloc(sizeof *ratio * (size_t)(n + 1));
  for (int k = 0; ratio && k < n; k++) {
    int i = idx[k];
    if (v[i].slow) {
      if (first < 0) first = k;
      ratio[nslow++] = v[i].ratio;
      if (worst < 0 || v[i].ratio > v[worst].ratio) worst = i;
    } else if (first >= 0) all_from = 0;
  }
  if (first < 0) return free(ratio);
  qsort(ratio, (size_t)nslow, sizeof *ratio, cmp_dbl);
  const struct ar_fl_cell *c = &f->c[f->m[idx[first]].cell];
  char s0[32], sw[32], med[64], wst[64], out[800];
  ar_size_format(c->size, s0, sizeof s0);
  ar_size_format(f->c[f->m[worst].cell].size, sw, sizeof sw);
  slower_text(nslow % 2 ? ratio[nslow / 2] : (ratio[nslow / 2 - 1] + ratio[nslow / 2]) / 2, med, sizeof med);
  slower_text(v[worst].ratio, wst, sizeof wst);
  free(ratio);
  if (c->kind == AR_FL_LINK) {
    const struct ar_fl_verdict *w = &v[worst];
    double bytes = (double)f->c[f->m[worst].cell].size;
    if (f->c[f->m[worst].cell].unit_gbs)
      snprintf(out, sizeof out, "its %s (%s) %.1f GB/s vs fleet %.1f at %s", c->what, c->path, bytes / (w->box_us * 1e3),
               bytes / (w->ref_us * 1e3), sw);
    else
      snprintf(out, sizeof out, "its %s (%s) latency %.2f us vs fleet %.2f", c->what, c->path, w->box_us, w->ref_us);
  } else if (nslow == 1) {
    snprintf(out, sizeof out, "%s %s at %s", c->label, med, s0);
  } else {
    snprintf(out, sizeof out, "%s %s %s %s (worst %s at %s)", c->label, med, all_from ? "from" : "at sizes from", s0,
             wst, sw);
  }
  size_t l = strlen(buf);
  snprintf(buf + l, len - l, "%s%s", l ? "; " : "", out);
}

/* The finding line of a slow box: its slow cells, one phrase per label (configuration; link flow). */
static void slow_line(const struct ar_fleet *f, const struct ar_fl_verdict *v, int b, char *buf, size_t len) {
  int *idx = malloc(sizeof *idx * (size_t)(f->nm + 1)), *lab = malloc(sizeof *lab * (size_t)(f->nm + 1)), nl = 0;
  snprintf(buf, len, "%s: ", f->b[b].host);
  char body[3000] = "";
  for (int i = 0; idx && lab && i < f->nm; i++) {
    if (f->m[i].box != b || !v[i].slow) continue;
    int seen = 0;
    for (int k = 0; k < nl && !seen; k++) seen = !strcmp(f->c[f->m[lab[k]].cell].label, f->c[f->m[i].cell].label);
    if (seen) continue;
    lab[nl++] = i;
    int n = 0;
    for (int j = 0; j < f->nm; j++)
      if (f->m[j].box == b && !strcmp(f->c[f->m[j].cell].label, f->c[f->m[i].cell].label)) idx[n++] = j;
    label_phrase(f, v, idx, n, body, sizeof body);
  }
  size_t l = strlen(buf);
  snprintf(buf + l, len - l, "%s", body);
  free(idx), free(lab);
}

/* Every finding, in box order: slow cells, wrong results, topology differences. */
static json_t *findings(const struct ar_fleet *f, const struct ar_fl_verdict *v, const struct box_sum *s, json_t *topo) {
  json_t *out = json_array();
  char line[4000];
  for (int b = 0; b < f->nb; b++) {
    if (s[b].slow) {
      slow_line(f, v, b, line, sizeof line);
      json_array_append_new(out, json_pack("{s:s, s:s, s:s}", "host", f->b[b].host, "kind", "slower", "text", line));
    }
    if (f->b[b].wrong) {
      snprintf(line, sizeof line, "%s: %lld wrong elements in its results (first: %s): the box computes wrong sums",
               f->b[b].host, f->b[b].wrong, f->b[b].wrong_what);
      json_array_append_new(out, json_pack("{s:s, s:s, s:s}", "host", f->b[b].host, "kind", "wrong", "text", line));
    }
    size_t k;
    json_t *t;
    json_array_foreach(topo, k, t) if (json_integer_value(json_object_get(t, "box")) == b)
      json_array_append_new(out, json_pack("{s:s, s:s, s:O}", "host", f->b[b].host, "kind", "topology", "text",
                                           json_object_get(t, "text")));
  }
  return out;
}

static void print_text(const struct ar_fleet *f, const struct ar_fl_verdict *v, const struct box_sum *s, json_t *found,
                       const struct fl_opts *o, int tests, int nflag) {
  printf("# arbench fleet: %d boxes in %d group%s; a box is flagged where it is slower than its group's fleet (the median "
         "over the group's boxes) by more than %g%% beyond the noise of its runs (Holm over %d box x cell tests, "
         "family-wise 5%%), where its results are wrong, or where its topology differs from its group's\n",
         f->nb, f->ng, f->ng == 1 ? "" : "s", o->margin * 100, tests);
  for (int g = 0; g < f->ng; g++) {
    int nb = 0, nc = 0;
    for (int b = 0; b < f->nb; b++) nb += f->b[b].group == g;
    for (int c = 0; c < f->nc; c++) nc += f->c[c].group == g;
    printf("\n## %s: %d box%s, %d cells%s\n\n| box | cells | ratio | worst cell | verdict |\n|---|---:|---:|---|---|\n",
           f->g[g].key, nb, nb == 1 ? "" : "es", nc, nb < 2 ? " (one box: nothing to compare it with)" : "");
    for (int b = 0; b < f->nb; b++) {
      if (f->b[b].group != g) continue;
      char worst[400] = "-";
      if (s[b].worst >= 0) {
        cell_text(f, s[b].worst, worst, sizeof worst - 16);
        size_t l = strlen(worst);
        snprintf(worst + l, sizeof worst - l, ": %.3f", v[s[b].worst].ratio);
      }
      printf("| %s | %d | %.3f | %s | %s |\n", f->b[b].host, s[b].cells, s[b].cells ? exp(s[b].logsum / s[b].cells) : NAN,
             worst, verdict(&f->b[b], &s[b]));
    }
  }
  printf("\nratio: the box's time over the fleet's, geometric mean over its cells (link GB/s as time per byte); "
         "equivalent: every cell shown no slower than the fleet by %g%% (one-sided, 5%%); undecided: neither shown "
         "(more runs decide: run --repeat 3, or several launches)\n", o->margin * 100);
  printf("\n# findings: %d box%s flagged\n", nflag, nflag == 1 ? "" : "es");
  size_t i;
  json_t *x;
  json_array_foreach(found, i, x) printf("%s\n", json_string_value(json_object_get(x, "text")));
  json_array_foreach(f->notes, i, x) fprintf(stderr, "arbench fleet: note: left out: %s\n", json_string_value(x));
  if (f->left_out)
    fprintf(stderr, "arbench fleet: note: %ld records of runs over several nodes left out\n", f->left_out);
}

static json_t *box_json(const struct ar_fleet *f, const struct ar_fl_verdict *v, const struct box_sum *s, int b) {
  json_t *slow = json_array();
  char cell[400];
  for (int i = 0; i < f->nm; i++) {
    if (f->m[i].box != b || !v[i].slow) continue;
    const struct ar_fl_cell *c = &f->c[f->m[i].cell];
    json_array_append_new(slow, json_pack("{s:s, s:s, s:I, s:f, s:f, s:f, s:f}", "cell", c->label, "kind",
                                          c->kind == AR_FL_LINK ? "link" : "result", "size", (json_int_t)c->size,
                                          "ratio", v[i].ratio, "box_us", v[i].box_us, "fleet_us", v[i].ref_us, "p", v[i].p));
  }
  json_t *worst = json_null();
  if (s[b].worst >= 0) {
    cell_text(f, s[b].worst, cell, sizeof cell);
    worst = json_pack("{s:s, s:f}", "cell", cell, "ratio", v[s[b].worst].ratio);
  }
  json_t *o = json_pack("{s:s, s:i, s:o, s:o, s:s, s:i, s:i, s:I, s:o, s:s}", "host", f->b[b].host, "cells",
                        s[b].cells, "ratio", s[b].cells ? json_real(exp(s[b].logsum / s[b].cells)) : json_null(),
                        "worst", worst, "verdict", verdict(&f->b[b], &s[b]), "within", s[b].within, "untested",
                        s[b].untested, "wrong", (json_int_t)f->b[b].wrong, "slow_cells", slow, "run", f->b[b].run_src);
  if (*f->b[b].slurm_job) json_object_set_new(o, "slurm_job", json_string(f->b[b].slurm_job));
  return o;
}

static void print_json(const struct ar_fleet *f, const struct ar_fl_verdict *v, const struct box_sum *s, json_t *found,
                       const struct fl_opts *o, int tests, int nflag) {
  json_t *groups = json_array();
  for (int g = 0; g < f->ng; g++) {
    json_t *boxes = json_array();
    for (int b = 0; b < f->nb; b++)
      if (f->b[b].group == g) json_array_append_new(boxes, box_json(f, v, s, b));
    json_array_append_new(groups, json_pack("{s:s, s:s, s:i, s:s, s:o}", "group", f->g[g].key, "model", f->g[g].model,
                                            "gpus", f->g[g].gpus, "stack", f->g[g].stack, "boxes", boxes));
  }
  json_t *out = json_pack("{s:f, s:{s:s, s:i, s:f}, s:i, s:i, s:o, s:O, s:O}", "margin", o->margin, "family",
                          "correction", "holm", "tests", tests, "alpha", AR_FAMILY_ALPHA, "boxes", f->nb, "flagged",
                          nflag, "groups", groups, "findings", found, "notes", f->notes);
  json_dumpf(out, stdout, JSON_INDENT(1));
  printf("\n");
  json_decref(out);
}

/* Nothing to compare: no box, no cell, or no group with two boxes. One line; 1 when so. */
static int nothing(const struct ar_fleet *f, int nfiles) {
  const char *why = NULL;
  int pairs = 0;
  for (int g = 0; g < f->ng; g++) {
    int n = 0;
    for (int b = 0; b < f->nb; b++) n += f->b[b].group == g;
    pairs += n >= 2;
  }
  if (!f->nb) why = "no run of one box (run records of one node, or run --per-node)";
  else if (!f->nm) why = "no result or link records of those boxes";
  else if (!pairs) why = "no group with two boxes (a group: the same GPU model, GPU count and stack)";
  if (why) fprintf(stderr, "arbench fleet: nothing to compare in %d file%s: %s\n", nfiles, nfiles == 1 ? "" : "s", why);
  return why != NULL;
}

int ar_cmd_fleet(int argc, char **argv) {
  struct fl_opts o = {.margin = AR_FLEET_MARGIN};
  int rc = parse(argc, argv, &o);
  if (rc == 1) return usage(stdout), AR_EXIT_OK;
  if (rc) return AR_EXIT_USAGE;
  struct ar_fleet f;
  char err[AR_ERRLEN] = "";
  rc = ar_fleet_read(&f, argc - optind, argv + optind, err, sizeof err);
  if (rc) {
    fprintf(stderr, "arbench fleet: %s\n", *err ? err : "out of memory");
    ar_fleet_free(&f);
    return rc == -AR_EINVAL ? AR_EXIT_USAGE : AR_EXIT_FAIL;
  }
  if (nothing(&f, argc - optind)) return ar_fleet_free(&f), AR_EXIT_NOTHING;
  struct ar_fl_verdict *v = calloc((size_t)f.nm + 1, sizeof *v);
  struct box_sum *s = calloc((size_t)f.nb + 1, sizeof *s);
  json_t *topo = json_array();
  int tests = 0, status = AR_EXIT_FAIL;
  if (v && s && !ar_fleet_compare(&f, o.margin, AR_FAMILY_ALPHA, v, &tests)) {
    ar_fleet_topo_findings(&f, topo);
    summarize(&f, v, topo, s);
    json_t *found = findings(&f, v, s, topo);
    int nflag = 0;
    for (int b = 0; b < f.nb; b++) nflag += flagged(&f.b[b], &s[b]);
    if (o.json) print_json(&f, v, s, found, &o, tests, nflag);
    else print_text(&f, v, s, found, &o, tests, nflag);
    json_decref(found);
    status = fflush(stdout) ? AR_EXIT_FAIL : nflag ? AR_EXIT_FLAGGED : AR_EXIT_OK;
  } else {
    fprintf(stderr, "arbench fleet: out of memory\n");
  }
  json_decref(topo);
  free(v), free(s);
  ar_fleet_free(&f);
  return status;
}
