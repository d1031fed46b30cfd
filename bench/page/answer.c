/* answer.c — the page's answer: per (dtype, ranks, placement, op) the pick per size with its verdict
 * (table's decision, read through picks.c), the crossovers, every configuration's cells, and the tuning
 * files tune wrote from the same decisions. */
#include "page/page.h"
#include "analysis/analysis.h"
#include "opts.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static json_t *config_of(json_t *grid, int c) { return json_array_get(json_object_get(grid, "configs"), (size_t)c); }

/* A cell's hover text: its runs and their spread, as table computed them. */
static void cell_title(FILE *f, json_t *cell) {
  char a[32], b[32], lo[32], hi[32];
  ar_fmt_us(ar_pj_num(cell, "p10_us"), a, sizeof a);
  ar_fmt_us(ar_pj_num(cell, "p90_us"), b, sizeof b);
  ar_fmt_us(ar_pj_num(cell, "min_us"), lo, sizeof lo);
  ar_fmt_us(ar_pj_num(cell, "max_us"), hi, sizeof hi);
  long long runs = json_integer_value(json_object_get(cell, "runs"));
  ar_html_printf(f, "%lld run%s (%lld samples); p10-p90 %s-%s us; min-max over the runs %s-%s us; busbw %.2f GB/s",
                 runs, runs == 1 ? "" : "s", (long long)json_integer_value(json_object_get(cell, "samples")), a, b, lo,
                 hi, ar_pj_num(cell, "busbw_gbs"));
}

/* A verdict's word on the page and what it means (the cell's hover text and the legend). */
static const char *verdict_means(const char *v) {
  if (!v) return "";
  if (!strcmp(v, "clear")) return "faster than every other configuration beyond the noise";
  if (!strcmp(v, "tie")) return "not faster beyond the noise: the choice of the neighbouring sizes (or the simplest) kept";
  if (!strcmp(v, "equivalent")) return "shown equivalent to the fastest within the stated margin";
  if (!strcmp(v, "undecided")) return "the data cannot tell; more runs would decide";
  return "as table gives it";
}

static const char *verdict_mark(const char *v) {
  if (!v) return "";
  if (!strcmp(v, "clear")) return "\u2714 "; /* a word beside every mark: colour and symbol never alone */
  if (!strcmp(v, "undecided")) return "? ";
  return "\u2248 ";
}

/* Does any size of the grid carry verdict v? (The legend names only those.) */
static int grid_says(json_t *grid, const char *v) {
  for (size_t s = 0; s < json_array_size(json_object_get(grid, "sizes")); s++) {
    struct ar_pick k;
    ar_page_pick(grid, s, &k);
    if (k.verdict && !strcmp(k.verdict, v)) return 1;
  }
  return 0;
}

/* Does any size of the grid carry a bound (table's "bound_pct", from issue 46 on)? */
static int grid_has_bound(json_t *grid) {
  for (size_t s = 0; s < json_array_size(json_object_get(grid, "sizes")); s++) {
    struct ar_pick k;
    ar_page_pick(grid, s, &k);
    if (k.has_bound) return 1;
  }
  return 0;
}

/* What would decide an undecided size, in table's unit (its json's runs_needed_unit and one_launch): runs or launches
 * a side, never above the cap of a printed "repeat N" (AR_REPEAT_CAP: beyond, the pick's bound stands). */
static void to_decide(FILE *f, const struct ar_pick *k) {
  const char *unit = k->launches ? "launches" : "runs";
  if (!k->verdict || strcmp(k->verdict, "undecided")) fputs("<td data-h=\"to decide\">-</td>", f);
  else if (k->one_launch)
    fputs("<td class=\"l\" data-h=\"to decide\">one launch a side: record 3+ launches of each</td>", f);
  else if (k->runs_needed > AR_REPEAT_CAP)
    fprintf(f, "<td class=\"l\" data-h=\"to decide\">over %d %s a side: the bound stands</td>", AR_REPEAT_CAP, unit);
  else if (k->runs_needed > 0) fprintf(f, "<td class=\"l\" data-h=\"to decide\">%d %s a side</td>", k->runs_needed, unit);
  else fprintf(f, "<td class=\"l\" data-h=\"to decide\">unknown: a side has one %s</td>", k->launches ? "launch" : "run");
}

/* One size's row; every cell names its column (data-h) so that a phone shows the row as a stacked card. */
static void decision_row(FILE *f, json_t *grid, size_t s, int extra, int bound) {
  struct ar_pick k;
  char sz[32], us[32];
  ar_page_pick(grid, s, &k);
  ar_size_format((size_t)json_integer_value(json_array_get(json_object_get(grid, "sizes"), s)), sz, sizeof sz);
  fprintf(f, "<tr data-size=\"%lld\"><td class=\"size\" data-h=\"size\">%s</td>",
          (long long)json_integer_value(json_array_get(json_object_get(grid, "sizes"), s)), sz);
  if (k.config < 0 || !k.cell) {
    fputs("<td class=\"l\" colspan=\"4\" data-h=\"pick\">nothing eligible measured at this size</td><td data-h=\"runs\">-</td>", f);
    if (bound) fputs("<td data-h=\"bound\">-</td>", f);
    if (extra) fputs("<td data-h=\"lead\">-</td><td data-h=\"to decide\">-</td>", f);
    fputs("</tr>\n", f);
    return;
  }
  double p50 = ar_pj_num(k.cell, "p50_us");
  ar_fmt_us(p50, us, sizeof us);
  fprintf(f, "<td class=\"l label pick\" data-h=\"pick\" data-config=\"%d\">", k.config);
  ar_html_label(f, ar_pj_str(config_of(grid, k.config), "label"));
  fprintf(f, "</td><td class=\"p50\" data-h=\"p50 us\" data-p50=\"%.17g\" title=\"", p50);
  cell_title(f, k.cell);
  fprintf(f, "\">%s</td><td class=\"busbw\" data-h=\"busbw GB/s\" data-busbw=\"%.17g\">%.2f</td>", us,
          ar_pj_num(k.cell, "busbw_gbs"), ar_pj_num(k.cell, "busbw_gbs"));
  fprintf(f, "<td class=\"l verdict v-%s\" data-h=\"verdict\" title=\"", k.verdict ? k.verdict : "none");
  ar_html_text(f, verdict_means(k.verdict));
  if (!isnan(k.margin)) ar_html_printf(f, " (margin %.0f%%)", 100 * k.margin);
  fprintf(f, "\">%s", verdict_mark(k.verdict));
  ar_html_text(f, k.verdict ? k.verdict : "-");
  fprintf(f, "</td><td data-h=\"runs\">%lld</td>", (long long)json_integer_value(json_object_get(k.cell, "runs")));
  if (bound) {
    fputs("<td class=\"l bound\" data-h=\"can be slower by\">", f);
    if (!isnan(k.bound_pct) && k.bound_pct < 0) { /* faster than every alternative by at least this much */
      ar_html_printf(f, "none: \u2265 %.1f%% faster", -k.bound_pct);
      if (k.bound_vs) ar_html_printf(f, " than %s", k.bound_vs);
    } else if (!isnan(k.bound_pct)) {
      ar_html_printf(f, "\u2264 %.1f%%", k.bound_pct);
      if (k.bound_vs) ar_html_printf(f, " than %s", k.bound_vs);
    } else fputs(k.has_bound ? "unknown" : "-", f);
    fputs("</td>", f);
  }
  if (extra) {
    if (isnan(k.lead)) fputs("<td data-h=\"lead\">-</td>", f);
    else fprintf(f, "<td data-h=\"lead\">%+.1f%%</td>", 100 * k.lead);
    to_decide(f, &k);
  }
  fputs("</tr>\n", f);
}

static void crossovers(FILE *f, json_t *grid) {
  size_t n = json_array_size(json_object_get(grid, "sizes"));
  int prev = -1, k = 0;
  char a[32], b[32];
  fputs("<p class=\"crossovers\"><strong>Crossovers:</strong> ", f);
  for (size_t s = 0; s < n; s++) {
    struct ar_pick p;
    ar_page_pick(grid, s, &p);
    if (p.config < 0) continue;
    if (prev >= 0 && p.config != prev) {
      ar_size_format((size_t)json_integer_value(json_array_get(json_object_get(grid, "sizes"), s - 1)), a, sizeof a);
      ar_size_format((size_t)json_integer_value(json_array_get(json_object_get(grid, "sizes"), s)), b, sizeof b);
      ar_html_printf(f, "%s%s \u2192 %s between %s and %s", k++ ? "; " : "", ar_pj_str(config_of(grid, prev), "label"),
                     ar_pj_str(config_of(grid, p.config), "label"), a, b);
    }
    prev = p.config;
  }
  if (!k && prev >= 0) ar_html_printf(f, "none (%s is picked at every size)", ar_pj_str(config_of(grid, prev), "label"));
  fputs("</p>\n", f);
}

/* A cell's standing at its size: table's "relation" (equivalent to the fastest, or not told apart from it), or
 * from a table before relations its "tie". */
static const char *relation_mark(json_t *cell) {
  const char *rel = json_string_value(json_object_get(cell, "relation"));
  if (rel) return !strcmp(rel, "equivalent") ? " \u2248" : !strcmp(rel, "open") ? " ?" : "";
  return json_is_true(json_object_get(cell, "tie")) ? " ~" : "";
}

static void full_cell(FILE *f, json_t *grid, size_t s, int c, int pick, const char *label) {
  json_t *cell = ar_page_cell(grid, s, c);
  fputs("<td data-cfg=\"", f);
  ar_html_text(f, label);
  if (!cell) {
    fputs("\">-</td>", f);
    return;
  }
  char us[32];
  ar_fmt_us(ar_pj_num(cell, "p50_us"), us, sizeof us);
  int wrong = json_integer_value(json_object_get(cell, "wrong")) > 0;
  fprintf(f, "\" class=\"%s%s\" data-p50=\"%.17g\" title=\"", c == pick ? "pick" : "", wrong ? " bad" : "",
          ar_pj_num(cell, "p50_us"));
  cell_title(f, cell);
  fprintf(f, "\">%s%s%s%s%s</td>", c == pick ? "<strong>" : "", us, c == pick ? "</strong>" : "", relation_mark(cell),
          wrong ? " !" : "");
}

static void full_table(FILE *f, json_t *grid) {
  json_t *cfgs = json_object_get(grid, "configs"), *c;
  size_t n = json_array_size(json_object_get(grid, "sizes")), i;
  fputs("<details class=\"full\"><summary>", f);
  ar_html_printf(f, "Every configuration: %zu configurations x %zu sizes, p50 us (hover a cell for its runs and spread)",
                 json_array_size(cfgs), n);
  fputs("</summary>\n<div class=\"scroll\"><table class=\"cells\"><thead><tr><th>size</th>", f);
  json_array_foreach(cfgs, i, c) {
    fputs("<th class=\"l label\" data-cfg=\"", f);
    ar_html_text(f, ar_pj_str(c, "label"));
    fputs("\">", f);
    ar_html_label(f, ar_pj_str(c, "label"));
    ar_html_printf(f, "%s%s", json_is_true(json_object_get(c, "unsafe")) ? " (UNSAFE: never chosen)" : "",
                   json_is_true(json_object_get(c, "predicted")) ? " (predicted)" : "");
    fputs("</th>", f);
  }
  fputs("</tr></thead><tbody>\n", f);
  for (size_t s = 0; s < n; s++) {
    struct ar_pick k;
    char sz[32];
    ar_page_pick(grid, s, &k);
    ar_size_format((size_t)json_integer_value(json_array_get(json_object_get(grid, "sizes"), s)), sz, sizeof sz);
    fprintf(f, "<tr><td>%s</td>", sz);
    json_array_foreach(cfgs, i, c) full_cell(f, grid, s, (int)i, k.config, ar_pj_str(c, "label"));
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table></div>\n<p class=\"meta\">Bold: the pick; \u2248 shown equivalent to the fastest; ? not told "
        "apart from the fastest; ~ tied with the fastest within the noise; ! wrong results reported by the correctness "
        "check (never use those numbers).</p></details>\n", f);
}

/* Runs per cell over the grid: "3", or "1 to 3". */
static void runs_per_cell(json_t *grid, char *buf, size_t len) {
  long long lo = -1, hi = -1;
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(grid, "cells"), i, c) {
    long long r = json_integer_value(json_object_get(c, "runs"));
    if (lo < 0 || r < lo) lo = r;
    if (r > hi) hi = r;
  }
  if (lo == hi) snprintf(buf, len, "%lld", lo);
  else snprintf(buf, len, "%lld to %lld", lo, hi);
}

static void group(FILE *f, json_t *grid) {
  char id[200], t[200], rpc[64];
  size_t n = json_array_size(json_object_get(grid, "sizes")), s;
  int extra = json_array_size(json_object_get(grid, "decisions")) > 0, bound = grid_has_bound(grid);
  ar_page_grid_id(grid, id, sizeof id);
  ar_page_grid_title(grid, t, sizeof t);
  runs_per_cell(grid, rpc, sizeof rpc);
  fprintf(f, "<article class=\"grid\" id=\"%s\"><details open><summary><h3>", id);
  ar_html_text(f, t);
  fputs("</h3></summary>\n<p class=\"meta\">", f);
  ar_html_printf(f, "Method: %s. Runs per cell: %s. %zu configuration%s.",
                 *ar_pj_str(grid, "method") ? ar_pj_str(grid, "method") : "differs by configuration (in the labels)", rpc,
                 json_array_size(json_object_get(grid, "configs")), json_array_size(json_object_get(grid, "configs")) == 1 ? "" : "s");
  if (!isnan(ar_pj_num(grid, "link_bound_gbs")))
    ar_html_printf(f, " Link bound: %.1f GB/s (topology %s).", ar_pj_num(grid, "link_bound_gbs"), ar_pj_str(grid, "link_bound_from"));
  json_t *c;
  size_t k;
  json_array_foreach(json_object_get(grid, "configs"), k, c) /* sweep axes that do not apply: table's note */
    if (*ar_pj_str(c, "pooled"))
      ar_html_printf(f, " %s pools its runs of the sweep points %s (the sweep's \"applies\": the axis does not apply "
                     "to it).", ar_pj_str(c, "label"), ar_pj_str(c, "pooled"));
  fputs("</p>\n<div class=\"scroll\"><table class=\"decide stack\"><thead><tr><th>size</th><th class=\"l\">pick</th>"
        "<th>p50 us</th><th>busbw GB/s</th><th class=\"l\">verdict</th><th>runs</th>", f);
  if (bound) fputs("<th class=\"l\" title=\"how much slower than the best alternative the pick can be, at 95% "
                   "family-wise confidence (arbench table's bound: the intervals its verdicts are judged on)\">can be "
                   "slower by</th>", f);
  if (extra) fputs("<th title=\"how much slower the fastest configuration outside the equivalent set is\">lead</th>"
                   "<th class=\"l\" title=\"what would decide an undecided size: runs (inside a launch) or launches "
                   "(between launches) a side\">to decide</th>", f);
  fputs("</tr></thead><tbody>\n", f);
  for (s = 0; s < n; s++) decision_row(f, grid, s, extra, bound);
  fputs("</tbody></table></div>\n<p class=\"meta legend\">", f);
  static const char *const verdicts[] = {"clear", "tie", "equivalent", "undecided"};
  for (size_t v = 0; v < sizeof verdicts / sizeof verdicts[0]; v++) {
    if (!grid_says(grid, verdicts[v])) continue;
    fprintf(f, "%s%s", verdict_mark(verdicts[v]), verdicts[v]);
    ar_html_printf(f, ": %s. ", verdict_means(verdicts[v]));
  }
  fputs("</p>\n", f);
  crossovers(f, grid);
  full_table(f, grid);
  fputs("<p class=\"meta\">", f);
  ar_html_text(f, ar_pj_str(grid, "correction"));
  fputs("</p></details></article>\n", f);
}

/* What each file tune writes is for. */
static const char *tune_file_what(const char *name) {
  static const char *const what[][2] = {
    {"nccl_tuner.conf", "NCCL's example tuner plugin config (NCCL_TUNER_CONFIG_FILE): algorithm, protocol and channels per size range"},
    {"tuner.json", "decisions for arbench's own NCCL tuner plugin (libarbench-tuner.so)"},
    {"thresholds.json", "custom allreduce thresholds: up to which size a custom allreduce beats the baseline, and which one"},
    {"nccl_env.sh", "export NCCL_... lines of the single best NCCL setting"},
    {"serving.json", "serving settings: the engines' allreduce knobs, every rule and source (the table above)"},
    {"vllm.sh", "vLLM's command line and environment from serving.json"},
    {"sglang.sh", "SGLang's command line and environment from serving.json"},
  };
  for (size_t i = 0; i < sizeof what / sizeof what[0]; i++)
    if (!strcmp(name, what[i][0])) return what[i][1];
  return "written by arbench tune";
}

static void tuning(FILE *f, json_t *tune) {
  json_t *files = json_object_get(tune, "files"), *v;
  const char *name;
  fputs("<section id=\"tuning\"><h3>Tuning files (arbench tune)</h3>\n<p>The best configuration per size range, as "
        "<code>arbench tune</code> printed it (the same decisions as the tables above), then the files it wrote.</p>\n", f);
  json_t *serving = json_object_get(files, "serving.json");
  if (serving) ar_page_serving(f, json_string_value(serving));
  ar_html_markdown(f, ar_pj_str(tune, "stdout"));
  fputs("<h4>The files, as written (collapsed)</h4>\n<p class=\"meta\">DIR: the directory of <code>arbench tune -o "
        "DIR</code> on the files above.</p>\n", f);
  json_object_foreach(files, name, v) { /* every raw file collapsed: what a person acts on is above */
    fputs("<details class=\"file\"><summary><code>", f);
    ar_html_text(f, name);
    fputs("</code>: ", f);
    ar_html_text(f, tune_file_what(name));
    fputs("</summary>\n<pre>", f);
    ar_html_text(f, json_string_value(v));
    fputs("</pre></details>\n", f);
  }
  fputs("</section>\n", f);
}

void ar_page_answer(struct ar_render *r) {
  FILE *f = r->f;
  json_t *grids = json_object_get(r->p->table, "grids"), *g;
  size_t i;
  if (!json_array_size(grids)) return;
  fputs("<section id=\"answer\"><h2>The answer: what to use, per size</h2>\n<p>One table per dtype, rank count, "
        "placement and operation. The pick at a size is <code>arbench table</code>'s, and so is its verdict: how sure "
        "the pick is against the noise, under the family-wise correction named under each table (the legend under each "
        "table says what each verdict means). Unsafe configurations and model predictions are shown and never picked.", f);
  size_t nh = json_array_size(json_object_get(r->p->table, "hosts"));
  if (nh > 1) /* table pools every host's runs of a configuration: say so (arbench fleet tells boxes apart) */
    ar_html_printf(f, " These tables pool the runs of %zu hosts as arbench table does; arbench fleet compares the "
                   "hosts with each other.", nh);
  fputs("</p>\n<p class=\"filter\"><label for=\"filter\">Filter configurations</label> "
        "<input id=\"filter\" type=\"search\" placeholder=\"part of a label, e.g. nccl\" autocomplete=\"off\"> "
        "<span class=\"meta\">(hides other configurations' columns in the full tables and the compare rows)</span></p>\n", f);
  json_array_foreach(grids, i, g) group(f, g);
  if (r->p->tune) tuning(f, r->p->tune);
  fputs("</section>\n", f);
}
