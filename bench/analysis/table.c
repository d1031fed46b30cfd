/* table.c — `arbench table FILE...`: sizes x configurations (p50 us, optionally busbw), the pick and
 * verdict per size (ar_grid_decide), crossovers listed, one table per (dtype, ranks, placement, op);
 * markdown, CSV or JSON; --by stack: each configuration's stacks in adjacent columns. */
#include "analysis/analysis.h"
#include "ar.h"
#include "commands.h"
#include "links/links.h"
#include "links/records.h"
#include "opts.h"
#include "results.h"
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct table_opts {
  int busbw, csv, json, minmax, spread, explain;
  const char *by; /* --by stack (or a point key): groups side by side */
  struct ar_filter filter;
  struct ar_noise noise;
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: arbench table [options] RESULTS.jsonl...\n"
          "Sizes x configurations: p50 latency (us) per size (the median over runs when a measurement\n"
          "has several), the pick per size in bold with its verdict, and the sizes where the pick changes\n"
          "(crossovers). The pick is the fastest p50 unless another configuration is shown equivalent to it\n"
          "within --margin (two one-sided tests), when the previous size's pick, else the next clear size's,\n"
          "else the simplest algorithm is chosen among the equivalent ones. Verdicts: clear (every other\n"
          "configuration slower beyond the noise), equivalent (= marks the equivalent ones), undecided (?\n"
          "marks those the data cannot tell from the fastest; 'repeat N' is the runs per side that would decide,\n"
          "by a power calculation on the measured spread). Both families of tests are every comparison of the\n"
          "table, Holm-Bonferroni at 5%% family-wise, split over the tables of the call; p from the bootstrap over\n"
          "runs and samples and, with 2+ runs a side, a t test on their log p50s, as in compare.\n"
          "  --margin PCT         the practical margin of equivalence (default 5)\n"
          "  --drift PCT          run-to-run drift allowed when a side has a single run (default 5): its tests\n"
          "                       widen their null by it (one run cannot show drift between runs)\n"
          "  --spread             also show each cell's runs and their spread (sd of the runs' log p50s, ~CV)\n"
          "  --explain            print the statistics paragraph (how picks, verdicts and bounds are decided) after\n"
          "                       the tables, in place of the one line saying where it is\n"
          "One table per (dtype, ranks, placement, op).\n"
          "A configuration is spec + sweep point (+ [stack] when the files hold several stacks).\n"
          "  --by stack           stacks side by side: the stack (sweep --stacks' point key, else the run's\n"
          "                       stack) leaves the configuration, and each configuration gets one column\n"
          "                       per stack, in the files' order. --by KEY does that for a point key (nccl)\n"
          "  --busbw              also show bus bandwidth (GB/s, from the cell's p50) in each cell\n"
          "  --minmax             also show the lowest and highest time over the cell's runs (OSU's -f)\n"
          "  --format F           markdown (default), csv (long form: one row per size and config) or json\n"
          "                       (every cell's statistics and every size's decision: what arbench-plot,\n"
          "                       report and fleet read)\n"
          "  --backend LIST       only these backends (comma list; repeatable)\n"
          "  --dtype LIST         only these dtypes (float, half, bfloat16, int32, ...)\n"
          "  --ranks LIST         only these rank counts\n"
          "  --point NAME=V       only results of that sweep point value (repeatable)\n"
          "  --placement out|in   only out-of-place or in-place results\n"
          "A cell is (configuration, size, dtype, placement, ranks, stack, method), method = (--buffers,\n"
          "--timing, -a): every statistic of a cell comes from all of its runs (docs/analysis.md); cells of\n"
          "different methods are separate columns labelled by the method fields that differ. A configuration\n"
          "a record marks unsafe (LL128 without NVLink) and model predictions are shown, marked, and never\n"
          "picked. A cell measured in fewer runs than the table's others says so (a run killed mid-repeat).\n"
          "Skipped and failed configurations are listed under the tables.\n");
}


static void csv_field(const char *s) {
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, stdout);
    return;
  }
  putchar('"');
  for (; *s; s++) {
    if (*s == '"') putchar('"');
    putchar(*s);
  }
  putchar('"');
}

/* The most runs any measured cell of the grid has: a measured cell with fewer says so. */
static int most_runs(const struct ar_grid *g) {
  int n = 0;
  for (int i = 0; i < g->nsize * g->ncfg; i++)
    if (g->runs[i] && !g->predicted[i % g->ncfg] && (int)json_array_size(g->runs[i]) > n)
      n = (int)json_array_size(g->runs[i]);
  return n;
}

static const char *rel_name(int r) {
  static const char *const names[] = {"", "fastest", "slower", "equivalent", "open"};
  return r >= 0 && r <= AR_REL_OPEN ? names[r] : "";
}

static void print_csv(const struct ar_grid *g, const struct ar_decisions *d) {
  for (int s = 0; s < g->nsize; s++) {
    const struct ar_decision *a = &d->at[s];
    for (int c = 0; c < g->ncfg; c++) {
      struct ar_cell_stats st;
      if (ar_grid_stats(g, s, c, &st)) continue;
      int r = ar_decision_rel(d, s, c);
      printf("%s,%d,%s,%s,%zu,", g->dtype, g->ranks, g->placement, g->op, g->size[s]);
      csv_field(g->cfg[c]);
      printf(",%.6g,%.6g,%d,%lld,%d,%.6g,%.6g,%.6g,%.6g,%d,%d,%d,%s,%s,", st.p50, st.busbw, c == a->pick, st.wrong,
             c != a->pick && (r == AR_REL_FASTEST || r == AR_REL_EQUIV), st.p99, st.min, st.max, st.algbw, st.runs,
             g->unsafe[c] != NULL, g->predicted[c], ar_verdict_name(a->verdict), rel_name(r));
      if (a->runs_needed >= 0) printf("%d", a->runs_needed);
      printf("\n");
    }
  }
}

/* The mark of column c at size s: = in the pick's equivalent set (when there is one), ? not told apart
 * from the fastest (the pick of an undecided size too); none for clear picks and slower columns. */
static const char *mark(const struct ar_decisions *d, int s, int c) {
  int r = ar_decision_rel(d, s, c), v = d->at[s].verdict;
  if (r == AR_REL_OPEN || (v == AR_V_UNDECIDED && c == d->at[s].pick)) return " ?";
  if ((r == AR_REL_EQUIV || r == AR_REL_FASTEST) && d->at[s].nequiv > 1) return " =";
  return "";
}

/* One cell: p50 over runs, bold for the pick, its mark; with --minmax the lowest and highest time over its
 * runs' samples, with --spread its runs and their spread, with --busbw the busbw of that p50; the runs
 * when fewer than the table's most. */
static void md_cell(const struct ar_grid *g, const struct ar_decisions *d, int s, int c, int most,
                    const struct table_opts *o, int *flagged) {
  char us[32], lo[32], hi[32];
  struct ar_cell_stats st;
  if (ar_grid_stats(g, s, c, &st)) {
    printf(" - |");
    return;
  }
  ar_fmt_us(st.p50, us, sizeof us);
  int wrong = st.wrong > 0, best = c == d->at[s].pick;
  /* --buffers cold whose rotation spanned under 2 x the cache (the engine's cold_reached; issue 21) */
  json_t *r = ar_grid_at(g, s, c);
  int warm = r && !strcmp(ar_rec_str(r, "buffers", ""), "cold") && json_is_false(json_object_get(r, "cold_reached"));
  *flagged |= wrong | warm << 1;
  printf(" %s%s%s%s", best ? "**" : "", us, best ? "**" : "", mark(d, s, c));
  if (o->minmax) {
    ar_fmt_us(st.min, lo, sizeof lo);
    ar_fmt_us(st.max, hi, sizeof hi);
    printf(" (%s..%s)", lo, hi);
  }
  if (o->spread && !isnan(st.spread)) printf(" n=%d ±%.0f%%", st.runs, st.spread * 100);
  else if (o->spread || (st.runs < most && !g->predicted[c]))
    printf(" n=%d%s", st.runs, st.runs < most && !g->predicted[c] ? " (fewer runs)" : "");
  if (o->busbw) printf(" / %.2f", st.busbw);
  printf("%s%s |", wrong ? " !" : "", warm ? " ^" : "");
}

/* The decision column: the verdict, and what would decide an undecided size. */
static void md_decision(const struct ar_decision *a) {
  if (a->verdict == AR_V_EQUIVALENT) printf(" equivalent (%d) |", a->nequiv);
  else if (a->verdict != AR_V_UNDECIDED) printf(" %s |", ar_verdict_name(a->verdict));
  else if (a->launches == 2) printf(" undecided: one launch a side (between launches) |");
  else if (a->launches && a->runs_needed > AR_REPEAT_CAP) printf(" undecided: over %d launches a side to decide |", AR_REPEAT_CAP);
  else if (a->launches && a->runs_needed > 0) printf(" undecided: %d launches a side |", a->runs_needed);
  else if (a->runs_needed < 0) printf(" undecided: measure 2+ runs |");
  else if (a->runs_needed > AR_REPEAT_CAP && !isnan(a->bound)) /* not practical: the bound stands */
    printf(" undecided: within %+.1f%% (over %d runs to decide) |", a->bound * 100, AR_REPEAT_CAP);
  else if (a->runs_needed > AR_REPEAT_CAP) printf(" undecided: over %d runs to decide |", AR_REPEAT_CAP);
  else printf(" undecided: repeat %d |", a->runs_needed);
}

/* The picks' bounds: per run of sizes with one pick, the worst (largest) bound over its sizes. */
static void print_bounds(const struct ar_grid *g, const struct ar_decisions *d) {
  struct ar_range *r = NULL;
  int n = ar_decision_ranges(g, d, &r), any = 0;
  char a[32], b[32], txt[400];
  for (int i = 0; i < n; i++) {
    int w = -1, unknown = 0;
    for (int s = r[i].from; s <= r[i].to; s++)
      if (isnan(d->at[s].bound)) unknown = 1;
      else if (w < 0 || d->at[s].bound > d->at[w].bound) w = s;
    if (w < 0 || unknown) continue; /* unknown at a size: no bound for the range */
    ar_size_format(g->size[r[i].from], a, sizeof a);
    ar_size_format(g->size[r[i].to], b, sizeof b);
    ar_bound_text(g, d, w, txt, sizeof txt);
    printf("%s %s%s%s %s: %s", any++ ? ";" : "Bounds (95%, the pick against its best alternative; the worst size of each "
           "range):", a, r[i].from == r[i].to ? "" : "..", r[i].from == r[i].to ? "" : b, g->cfg[r[i].pick], txt);
  }
  if (any) printf(".\n");
  free(r);
}

static json_t *num(double v) { return isnan(v) || isinf(v) ? json_null() : json_real(v); }

/* --format json: every grid with every cell's statistics (ar_runs_stats), the choice and the ties:
 * what plots/arbench-plot draws from, so a plot cannot disagree with the table. */
/* The link bound of a grid's runs: the first run topology's bottleneck link (GB/s), NAN when none. */
static double link_bound(const struct ar_grid *g, json_t *runs, const char **key) {
  static const char *const keys[] = {"bottleneck_gbs", "busbw_bound_gbs", "link_bound_gbs", "min_link_gbs"};
  for (int c = 0; c < g->ncfg; c++) {
    json_t *t = json_object_get(json_object_get(runs, ar_rec_str(g->cfgrec[c], "run_id", "")), "topology");
    for (size_t k = 0; json_is_object(t) && k < sizeof keys / sizeof keys[0]; k++) {
      double v = ar_rec_num(t, keys[k], NAN);
      if (v > 0) return *key = keys[k], v;
    }
  }
  return NAN;
}

static json_t *grid_json(const struct ar_grid *g, const struct ar_decisions *d, json_t *runs,
                         const struct ar_noise *nz) {
  json_t *cfgs = json_array(), *sizes = json_array(), *cells = json_array(), *dec = json_array();
  const char *lkey = NULL;
  double bound = link_bound(g, runs, &lkey);
  for (int c = 0; c < g->ncfg; c++) {
    char meth[80], point[200];
    ar_rec_method(g->cfgrec[c], meth, sizeof meth);
    ar_rec_point(g->cfgrec[c], point, sizeof point);
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:b}", "label", g->cfg[c], "backend",
                          ar_rec_str(g->cfgrec[c], "backend", ""), "spec",
                          ar_rec_str(g->cfgrec[c], "spec", ar_rec_str(g->cfgrec[c], "backend", "")), "point", point,
                          "method", ar_rec_predicted(g->cfgrec[c]) ? "" : meth, "predicted", g->predicted[c],
                          "unsafe", g->unsafe[c] != NULL);
    if (g->unsafe[c]) json_object_set_new(j, "unsafe_why", json_string(g->unsafe[c]));
    json_object_set_new(j, "pooled", g->pooled[c] ? json_string(g->pooled[c]) : json_null());
    json_object_set_new(j, "stack", json_string(ar_rec_predicted(g->cfgrec[c]) ? "model" : ar_rec_stack(runs, g->cfgrec[c])));
    json_array_append_new(cfgs, j);
  }
  for (int s = 0; s < g->nsize; s++) {
    json_array_append_new(sizes, json_integer((json_int_t)g->size[s]));
    json_t *one = ar_decision_json(g, d, s);
    if (one) json_array_append_new(dec, one);
    for (int c = 0; c < g->ncfg; c++) {
      struct ar_cell_stats st;
      if (ar_grid_stats(g, s, c, &st)) continue;
      json_t *j = json_pack("{s:I, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:I, s:I, s:o, s:b, s:s}",
                            "size", (json_int_t)g->size[s], "config", c, "p50_us", num(st.p50), "p10_us", num(st.p10),
                            "p90_us", num(st.p90), "p99_us", num(st.p99), "mean_us", num(st.mean), "min_us",
                            num(st.min), "max_us", num(st.max), "algbw_gbs", num(st.algbw), "busbw_gbs",
                            num(st.busbw), "runs", st.runs, "sampled_runs", st.sampled, "samples",
                            (json_int_t)st.samples, "wrong", (json_int_t)st.wrong, "run_spread", num(st.spread),
                            "best", c == d->at[s].pick, "relation", rel_name(ar_decision_rel(d, s, c)));
      json_array_append_new(cells, j);
    }
  }
  char fam[400], rule[3000];
  ar_family_text(d, fam, sizeof fam);
  ar_rule_text(nz, rule, sizeof rule);
  return json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:{s:b, s:b, s:b, s:b}, s:o, s:s?, s:o, s:o, s:o, s:o, s:s, s:s, "
                   "s:f, s:i, s:f, s:i}", "dtype",
                   g->dtype, "ranks", g->ranks, "nodes", g->nodes, "placement", g->placement, "op", g->op, "method",
                   g->method, "varies", "stack", g->vary.stack, "buffers", g->vary.buffers, "timing", g->vary.timing,
                   "average", g->vary.average, "link_bound_gbs", num(bound), "link_bound_from", lkey, "configs", cfgs,
                   "sizes", sizes, "cells", cells, "decisions", dec, "rule", rule, "correction", fam, "margin",
                   d->margin, "family", d->fam.tests, "family_alpha", d->fam.alpha, "equivalence_family",
                   d->efam.tests);
}

/* The sizes where the pick changes; an undecided size on either side says so. */
static void print_crossovers(const struct ar_grid *g, const struct ar_decisions *d) {
  int prev = -1, ps = -1, n = 0;
  char from[32], to[32];
  printf("\nCrossovers:");
  for (int s = 0; s < g->nsize; s++) {
    int b = d->at[s].pick;
    if (b < 0) continue;
    if (prev >= 0 && b != prev) {
      ar_size_format(g->size[ps], from, sizeof from);
      ar_size_format(g->size[s], to, sizeof to);
      int u = (d->at[ps].verdict == AR_V_UNDECIDED) | (d->at[s].verdict == AR_V_UNDECIDED) << 1;
      printf("%s %s -> %s between %s and %s%s%s%s%s", n ? ";" : "", g->cfg[prev], g->cfg[b], from, to,
             u ? " (undecided at " : "", u & 1 ? from : "", u == 3 ? " and " : "", u & 2 ? to : "");
      if (u) printf(")");
      n++;
    }
    prev = b;
    ps = s;
  }
  if (!n && prev >= 0) printf(" none (%s is the pick at every size)", g->cfg[prev]);
  if (prev < 0) printf(" none (no size has a pick)");
  printf("\n");
}

/* One line: how many sizes got each verdict, and the runs that would decide the undecided ones. */
static void print_verdicts(const struct ar_grid *g, const struct ar_decisions *d) {
  int n[5] = {0, 0, 0, 0, 0}, need = 0, unknown = 0, one = 0, lneed = 0, lcount = 0;
  for (int s = 0; s < g->nsize; s++) {
    const struct ar_decision *a = &d->at[s];
    n[a->verdict]++;
    if (a->verdict != AR_V_UNDECIDED) continue;
    if (a->launches == 2) one++;
    else if (a->launches && a->runs_needed > 0) lcount++, lneed = a->runs_needed > lneed ? a->runs_needed : lneed;
    else if (a->runs_needed < 0) unknown++;
    else if (a->runs_needed > need) need = a->runs_needed;
  }
  printf("Verdicts: %d clear, %d equivalent, %d undecided", n[AR_V_CLEAR], n[AR_V_EQUIVALENT], n[AR_V_UNDECIDED]);
  if (n[AR_V_INVALID]) printf(", %d with no valid configuration (every one measured there is wrong or unsafe)", n[AR_V_INVALID]);
  if (need && need <= AR_REPEAT_CAP) printf("; --repeat %d would decide %s", need, unknown ? "the others" : "them");
  else if (need) printf("; some would need over %d runs a side (the cap of 'repeat N'): their picks' bounds stand", AR_REPEAT_CAP);
  if (unknown) printf("%s%d with a single run a side need 2+ runs to measure their spread", need ? "; " : "; ", unknown);
  if (lneed && lneed <= AR_REPEAT_CAP) printf("; %d between launches: %d launches a side would decide them", lcount, lneed);
  else if (lneed) printf("; %d between launches: some would need over %d launches a side: their picks' bounds stand", lcount, AR_REPEAT_CAP);
  if (one) printf("; %d compare configurations from different launches with one launch a side (the launch is the replicate "
                  "between launches: record 3+ launches of each)", one);
  printf(".\n");
}

/* The method line under a table's title: what every configuration shares, and what its labels name. */
static void print_method(const struct ar_grid *g) {
  const struct ar_vary *v = &g->vary;
  printf("Method: %s%s", *g->method ? g->method : "", *g->method && (v->buffers || v->timing || v->average) ? "; " : "");
  if (v->buffers || v->timing || v->average)
    printf("configurations of different methods are separate columns, labelled (%s%s%s%s%s)", v->buffers ? "buffers" : "",
           v->buffers && (v->timing || v->average) ? "," : "", v->timing ? "timing" : "",
           v->timing && v->average ? "," : "", v->average ? "a" : "");
  printf(". p50 is the median over each cell's runs.\n");
}

static void print_md(const struct ar_grid *g, const struct ar_decisions *d, const struct table_opts *o) {
  int flagged = 0, pred = 0, most = most_runs(g);
  printf("## %s, %d rank%s, %s, %s\n\n", g->dtype, g->ranks, g->ranks == 1 ? "" : "s",
         strcmp(g->placement, "in") ? "out-of-place" : "in-place", g->op);
  print_method(g);
  printf("p50 us%s%s%s. **bold** = the pick", o->minmax ? " (min..max over runs)" : "",
         o->spread ? ", n=runs ±spread of their p50s" : "", o->busbw ? " / busbw GB/s (from that p50)" : "");
  if (g->ncfg > 1)
    printf("; = shown within %.3g%% of the fastest (equivalent); ? = not told apart from the fastest (%d comparisons, Holm at %.3g%% "
           "family-wise)", d->margin * 100, d->fam.tests, d->fam.alpha * 100);
  printf(".\n\n| size |");
  for (int c = 0; c < g->ncfg; c++) {
    pred += g->predicted[c];
    printf(" %s%s%s |", g->cfg[c], g->unsafe[c] ? " (UNSAFE)" : "", g->predicted[c] ? " (predicted)" : "");
  }
  printf(" decision |\n|---:|");
  for (int c = 0; c < g->ncfg; c++) printf("---:|");
  printf("---|\n");
  for (int s = 0; s < g->nsize; s++) {
    char sz[32];
    ar_size_format(g->size[s], sz, sizeof sz);
    printf("| %s |", sz);
    for (int c = 0; c < g->ncfg; c++) md_cell(g, d, s, c, most, o, &flagged);
    md_decision(&d->at[s]);
    printf("\n");
  }
  print_crossovers(g, d);
  if (g->ncfg > 1) print_verdicts(g, d);
  if (g->ncfg > 1) print_bounds(g, d);
  if (flagged & 1)
    printf("! = wrong elements reported by the correctness check: do not use these numbers; never the pick at that size.\n");
  if (flagged & 2)
    printf("^ = not cold: --buffers cold, but the buffer rotation spanned under twice the cache (rotation_bytes), "
           "so these times include cache hits.\n");
  for (int c = 0; c < g->ncfg; c++)
    if (g->unsafe[c]) printf("UNSAFE = never chosen: %s %s.\n", g->cfg[c], g->unsafe[c]);
  for (int c = 0; c < g->ncfg; c++) /* sweep axes that do not apply to it: one configuration, its points named */
    if (g->pooled[c]) printf("%s pools its runs of the sweep points %s (the sweep's \"applies\": the axis does not "
                             "apply to it).\n", g->cfg[c], g->pooled[c]);
  if (pred) printf("(predicted) = model predictions, shown beside the measurements; they are never chosen as best.\n");
  if (g->dups) printf("Note: %d duplicate records (same configuration and size); the later one is shown.\n", g->dups);
  printf("\n");
}

static void print_notes(json_t *notes) {
  json_t *lines = ar_note_lines(notes), *l;
  size_t i;
  if (json_array_size(lines)) printf("Not measured (skip/error records):\n");
  json_array_foreach(lines, i, l) printf("- %s\n", json_string_value(l));
  json_decref(lines);
}

/* --by: order the columns configuration by configuration, each one's groups in the files' order. */
struct col {
  int c, base, group;
};

static int cmp_col(const void *x, const void *y) {
  const struct col *a = x, *b = y;
  if (a->base != b->base) return a->base - b->base;
  return a->group != b->group ? a->group - b->group : a->c - b->c;
}

static int side_by_side(struct ar_grid *g, const struct ar_by *b) {
  int n = g->ncfg;
  struct col *cols = calloc((size_t)n + 1, sizeof *cols);
  char (*bases)[256] = calloc((size_t)n + 1, sizeof *bases), (*cfg)[256] = calloc((size_t)n + 1, sizeof *cfg);
  json_t **rec = calloc((size_t)n + 1, sizeof *rec);
  const char **uns = calloc((size_t)n + 1, sizeof *uns);
  char *pred = calloc((size_t)n + 1, 1), **pool = calloc((size_t)n + 1, sizeof *pool);
  json_t **cell = calloc((size_t)(n * g->nsize) + 1, sizeof *cell), **runs = calloc((size_t)(n * g->nsize) + 1, sizeof *runs);
  int rc = cols && bases && cfg && rec && uns && pred && pool && cell && runs ? 0 : -1, nb = 0;
  for (int c = 0; !rc && c < n; c++) {
    char label[256];
    struct ar_vary v = g->vary;
    v.stack = 0;
    ar_cfg_label(g->cfgrec[c], NULL, &v, label, sizeof label);
    int k = 0;
    while (k < nb && strcmp(bases[k], label)) k++;
    if (k == nb) snprintf(bases[nb++], sizeof bases[0], "%s", label);
    cols[c] = (struct col){c, k, ar_by_index(b, ar_rec_str(g->cfgrec[c], "_by", ""))};
  }
  if (!rc) qsort(cols, (size_t)n, sizeof *cols, cmp_col);
  for (int i = 0; !rc && i < n; i++) {
    int c = cols[i].c;
    memcpy(cfg[i], g->cfg[c], sizeof cfg[0]);
    rec[i] = g->cfgrec[c];
    uns[i] = g->unsafe[c];
    pred[i] = g->predicted[c];
    pool[i] = g->pooled[c];
    for (int s = 0; s < g->nsize; s++) {
      cell[s * n + i] = g->cell[s * n + c];
      runs[s * n + i] = g->runs[s * n + c];
    }
  }
  if (!rc) {
    memcpy(g->cfg, cfg, sizeof cfg[0] * (size_t)n);
    memcpy(g->cfgrec, rec, sizeof *rec * (size_t)n);
    memcpy(g->unsafe, uns, sizeof *uns * (size_t)n);
    memcpy(g->predicted, pred, (size_t)n);
    memcpy(g->pooled, pool, sizeof *pool * (size_t)n);
    memcpy(g->cell, cell, sizeof *cell * (size_t)(n * g->nsize));
    memcpy(g->runs, runs, sizeof *runs * (size_t)(n * g->nsize));
  }
  free(cols);
  free(bases);
  free(cfg);
  free(rec);
  free(uns);
  free(pred);
  free(pool);
  free(cell);
  free(runs);
  return rc;
}

static int parse(int argc, char **argv, struct table_opts *o) {
  static const struct option lo[] = {
    {"busbw", no_argument, 0, 'B'},         {"format", required_argument, 0, 'F'},
    {"minmax", no_argument, 0, 'M'},
    {"drift", required_argument, 0, 'D'},   {"by", required_argument, 0, 'Y'},
    {"margin", required_argument, 0, 'G'},  {"spread", no_argument, 0, 'S'},
    {"explain", no_argument, 0, 'X'},
    AR_FILTER_OPTIONS,
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};
  int c, f;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hd:", lo, NULL)) != -1) {
    if (c == 'h') return usage(stdout), 1;
    if (c == 'B') o->busbw = 1;
    else if (c == 'M') o->minmax = 1;
    else if (c == 'S') o->spread = 1;
    else if (c == 'X') o->explain = 1;
    else if (c == 'D' || c == 'G') {
      char err[AR_ERRLEN];
      if (c == 'D' ? ar_noise_drift_parse(&o->noise, optarg, err, sizeof err)
                   : ar_noise_margin_parse(&o->noise, optarg, err, sizeof err)) {
        fprintf(stderr, "arbench table: %s\n", err);
        return -AR_EINVAL;
      }
    }
    else if (c == 'Y') {
      if (!*optarg || strpbrk(optarg, ",= ")) {
        fprintf(stderr, "arbench table: bad --by '%s' (expected stack or a sweep point key, e.g. nccl)\n", optarg);
        return -AR_EINVAL;
      }
      o->by = optarg;
    } else if (c == 'F') {
      if (strcmp(optarg, "markdown") && strcmp(optarg, "md") && strcmp(optarg, "csv") && strcmp(optarg, "json")) {
        fprintf(stderr, "arbench table: bad --format '%s' (expected markdown, csv or json)\n", optarg);
        return -AR_EINVAL;
      }
      o->csv = !strcmp(optarg, "csv");
      o->json = !strcmp(optarg, "json");
    } else if ((f = ar_filter_opt(&o->filter, "table", c, optarg)) < 0) {
      return -AR_EINVAL;
    } else if (!f) return ar_ana_badopt("table", c, argv[optind - 1]), -AR_EINVAL;
  }
  if (optind >= argc) {
    fprintf(stderr, "arbench table: no results files given (usage: arbench table [options] FILE...)\n");
    return -AR_EINVAL;
  }
  return 0;
}

int ar_cmd_table(int argc, char **argv) {
  struct table_opts o = {0};
  ar_noise_defaults(&o.noise);
  int rc = parse(argc, argv, &o);
  if (rc) return rc > 0 ? AR_EXIT_OK : AR_EXIT_USAGE;
  struct ar_ana a;
  char err[AR_ERRLEN];
  if (ar_ana_load(&a, argc - optind, argv + optind, err, sizeof err) ||
      ar_filter_check(&o.filter, a.results, err, sizeof err) || ar_links_check(a.notes, err, sizeof err)) {
    fprintf(stderr, "arbench table: %s\n", err);
    ar_ana_free(&a);
    return AR_EXIT_USAGE;
  }
  int nlinks = ar_links_count(a.notes); /* `arbench links` records are something to show */
  if (!nlinks && ar_ana_nothing(&a, "table", argc - optind, argv + optind)) {
    ar_ana_free(&a);
    return AR_EXIT_NOTHING;
  }
  int had = json_array_size(a.results) > 0;
  json_t *ltab = o.json && nlinks ? ar_links_tables_json(a.notes) : NULL; /* json: the numbers the plots draw */
  int links = ar_links_table(o.csv || o.json ? NULL : stdout, a.notes);
  if (links && o.csv)
    fprintf(stderr, "arbench table: %d link record%s left out: link tables exist in the markdown and json formats only\n",
            links, links > 1 ? "s" : "");
  ar_filter_apply(&o.filter, a.results);
  struct ar_grid *g = NULL;
  struct ar_by by = {0};
  int n = 0, status = AR_EXIT_OK;
  json_t *results = a.results, *runs = a.runs;
  if (o.by && ar_by_split(&by, a.results, a.runs, o.by, err, sizeof err)) {
    fprintf(stderr, "arbench table: %s\n", err);
    ar_ana_free(&a);
    return AR_EXIT_USAGE;
  }
  if (o.by) {
    results = by.results;
    runs = by.runs;
  }
  if (had && !json_array_size(a.results)) {
    fprintf(stderr, "arbench table: no result records match the filters\n");
    status = AR_EXIT_NOTHING;
  } else if (ar_grids_build(results, runs, &g, &n)) {
    fprintf(stderr, "arbench table: out of memory\n");
    status = AR_EXIT_FAIL;
  } else {
    json_t *jg = json_array();
    if (o.csv)
      printf("dtype,ranks,placement,op,size,config,p50_us,busbw_gbs,best,wrong,equivalent,p99_us,min_us,max_us,algbw_gbs,"
             "runs,unsafe,predicted,verdict,relation,runs_needed\n");
    o.noise.grids = n; /* the family-wise error is split over the tables of this call */
    for (int k = 0; k < n && !status; k++) {
      struct ar_decisions d;
      if ((o.by && side_by_side(&g[k], &by)) || ar_grid_decide(&g[k], NULL, &o.noise, &d)) {
        fprintf(stderr, "arbench table: out of memory\n");
        status = AR_EXIT_FAIL;
        break;
      }
      if (o.json) json_array_append_new(jg, grid_json(&g[k], &d, runs, &o.noise));
      else if (o.csv) print_csv(&g[k], &d);
      else print_md(&g[k], &d, &o);
      ar_decisions_free(&d);
    }
    if (o.json && !status) {
      json_t *hosts = json_array(), *seen = json_object(), *run, *h;
      const char *id;
      size_t i;
      json_object_foreach(a.runs, id, run) json_array_foreach(json_object_get(run, "hosts"), i, h) {
        if (json_is_string(h) && !json_object_get(seen, json_string_value(h))) json_array_append(hosts, h);
        if (json_is_string(h)) json_object_set_new(seen, json_string_value(h), json_true());
      }
      json_decref(seen);
      json_t *root = json_pack("{s:s, s:o, s:o, s:o}", "generated_by", "arbench table", "hosts", hosts, "grids", jg,
                               "not_measured", ar_note_lines(a.notes));
      if (ltab) json_object_set_new(root, "links", json_pack("{s:O, s:o}", "tables", ltab, "matrices",
                                                             ar_links_matrices_json(ltab)));
      char *txt = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
      printf("%s\n", txt ? txt : "{}");
      free(txt);
      json_decref(root);
    } else json_decref(jg);
    if (!o.csv && !o.json && !n && !links) printf("(no result records)\n\n");
    int cmp = 0;
    for (int k = 0; k < n; k++) cmp |= g[k].ncfg > 1;
    if (!o.csv && !o.json && cmp) { /* the statistics paragraph, once per command, behind --explain */
      char rule[3000];
      if (o.explain) ar_rule_text(&o.noise, rule, sizeof rule);
      else ar_explain_hint("table", rule, sizeof rule);
      printf("%s\n\n", rule);
    }
    if (!o.csv && !o.json) print_notes(a.notes);
  }
  json_decref(ltab);
  ar_grids_free(g, n);
  ar_by_free(&by);
  ar_ana_free(&a);
  return status;
}
