/* evidence.c — the page's evidence: arbench-plot's charts per table and the best-configuration maps,
 * compare's verdicts, the links matrices as heatmaps with their findings, and doctor's findings. */
#include "page/page.h"
#include "analysis/analysis.h"
#include "opts.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int grid_has(json_t *grid, const char *field) {
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(grid, "cells"), i, c) if (json_is_number(json_object_get(c, field))) return 1;
  return 0;
}

/* A chart that should be there and is not: said where it belongs (the reason is under Skips and warnings). */
static void chart(struct ar_render *r, const char *name, const char *caption) {
  if (!ar_page_figure(r, name, caption)) return;
  fputs("<p class=\"missing\">", r->f);
  ar_html_printf(r->f, "Chart %s not drawn (see Skips and warnings).", name);
  fputs("</p>\n", r->f);
}

static void charts(struct ar_render *r) {
  json_t *grids = json_object_get(r->p->table, "grids"), *g, *maps = json_object();
  size_t i;
  if (!json_array_size(grids)) return;
  fputs("<section id=\"charts\"><h3>Latency and bus bandwidth</h3>\n<p>Drawn by plots/arbench-plot from the same "
        "<code>arbench table --format json</code> as the tables: p50 over runs with the p10-p90 band, and the bus "
        "bandwidth of that p50 with the topology's link bound when the records carry one.</p>\n", r->f);
  json_array_foreach(grids, i, g) {
    char name[300], cap[400], t[200];
    ar_page_grid_title(g, t, sizeof t);
    const char *dt = ar_pj_str(g, "dtype"), *pl = ar_pj_str(g, "placement");
    long long n = (long long)json_integer_value(json_object_get(g, "ranks"));
    if (grid_has(g, "p50_us")) {
      snprintf(name, sizeof name, "latency_%s_%lldr_%s", dt, n, pl);
      snprintf(cap, sizeof cap, "Latency: %s. p50 over runs per configuration, band p10-p90.", t);
      chart(r, name, cap);
    }
    if (grid_has(g, "busbw_gbs")) {
      snprintf(name, sizeof name, "busbw_%s_%lldr_%s", dt, n, pl);
      snprintf(cap, sizeof cap, "Bus bandwidth: %s, from the p50 over runs.", t);
      chart(r, name, cap);
    }
    snprintf(name, sizeof name, "best_map_%s_%s", dt, pl);
    json_object_set_new(maps, name, json_string(strcmp(pl, "in") ? "out-of-place" : "in-place"));
  }
  const char *name;
  json_t *v;
  json_object_foreach(maps, name, v) {
    char cap[300];
    snprintf(cap, sizeof cap, "Best configuration over size and ranks (%s): the pick of each cell, its margin over the "
             "runner-up, or tie.", json_string_value(v));
    chart(r, name, cap);
  }
  json_decref(maps);
  fputs("</section>\n", r->f);
}

/* ---- compare ---- */

static const char *cmp_mark(const char *v) {
  if (!strcmp(v, "faster")) return "\u25bc ";
  if (!strcmp(v, "slower")) return "\u25b2 ";
  if (!strcmp(v, "same")) return "= ";
  if (!strcmp(v, "equivalent")) return "\u2248 ";
  if (!strcmp(v, "unresolved") || !strcmp(v, "undecided")) return "? ";
  return "- ";
}

static void match_row(FILE *f, json_t *m) {
  char label[600], sz[32], a[32], b[32];
  snprintf(label, sizeof label, "%s%s%s%s", ar_pj_str(m, "spec"), *ar_pj_str(m, "point") ? " {" : "", ar_pj_str(m, "point"),
           *ar_pj_str(m, "point") ? "}" : "");
  ar_size_format((size_t)json_integer_value(json_object_get(m, "size")), sz, sizeof sz);
  ar_fmt_us(ar_pj_num(m, "a_p50_us"), a, sizeof a);
  ar_fmt_us(ar_pj_num(m, "b_p50_us"), b, sizeof b);
  fputs("<tr data-cfg=\"", f);
  ar_html_text(f, label);
  fputs("\"><td class=\"l label\">", f);
  ar_html_text(f, label);
  fprintf(f, "</td><td>%s</td><td>%lld</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.3f</td><td>",
          ar_pj_str(m, "dtype"), (long long)json_integer_value(json_object_get(m, "ranks")), ar_pj_str(m, "placement"), sz,
          a, b, ar_pj_num(m, "ratio"));
  if (!isnan(ar_pj_num(m, "lo"))) fprintf(f, "%.3f .. %.3f", ar_pj_num(m, "lo"), ar_pj_num(m, "hi"));
  else fputs("-", f);
  const char *v = ar_pj_str(m, "verdict");
  fprintf(f, "</td><td class=\"l cmp-%s\">%s", *v ? v : "none", cmp_mark(v));
  ar_html_text(f, v);
  fprintf(f, "</td><td>%lld / %lld</td></tr>\n", (long long)json_integer_value(json_object_get(m, "runs_a")),
          (long long)json_integer_value(json_object_get(m, "runs_b")));
}

static void only_in(FILE *f, json_t *list, const char *side) {
  size_t i;
  json_t *x;
  if (!json_array_size(list)) return;
  fputs("<p>", f);
  ar_html_printf(f, "Only in %s: ", side);
  json_array_foreach(list, i, x) {
    ar_html_printf(f, "%s%s %s %lld ranks %s", i ? "; " : "", ar_pj_str(x, "spec"), ar_pj_str(x, "dtype"),
                   (long long)json_integer_value(json_object_get(x, "ranks")), ar_pj_str(x, "placement"));
  }
  fputs("</p>\n", f);
}

static void comparison(FILE *f, json_t *c, int first) {
  json_t *ms = json_object_get(c, "matches"), *m, *s;
  const char *a = ar_pj_str(json_object_get(c, "a"), "file"), *b = ar_pj_str(json_object_get(c, "b"), "file");
  size_t i;
  fputs("<h4>", f);
  ar_html_printf(f, "B = %s against A = %s: p50(B) / p50(A), below 1 is B faster", b, a);
  /* the summary's verdict counts as compare names them (same/unresolved, or equivalent/undecided: issue 34) */
  static const char *const cols[][2] = {{"faster", "faster"}, {"slower", "slower"}, {"same", "same"},
                                        {"equivalent", "equivalent"}, {"unresolved", "unresolved"},
                                        {"undecided", "undecided"}, {"no_samples", "no samples"}};
  json_t *s0 = json_array_get(json_object_get(c, "summary"), 0);
  fputs("</h4>\n<div class=\"scroll\"><table><tr><th class=\"l\">backend</th><th>matches</th><th>geometric mean ratio</th>", f);
  for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
    if (json_object_get(s0, cols[k][0])) fprintf(f, "<th>%s</th>", cols[k][1]);
  fputs("</tr>\n", f);
  json_array_foreach(json_object_get(c, "summary"), i, s) {
    fputs("<tr><td class=\"l\">", f);
    ar_html_text(f, ar_pj_str(s, "backend"));
    fprintf(f, "</td><td>%lld</td><td>%.3f</td>", (long long)json_integer_value(json_object_get(s, "matches")),
            ar_pj_num(s, "geomean_ratio"));
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
      if (json_object_get(s0, cols[k][0])) fprintf(f, "<td>%lld</td>", (long long)json_integer_value(json_object_get(s, cols[k][0])));
    fputs("</tr>\n", f);
  }
  fprintf(f, "</table></div>\n<details%s><summary>", json_array_size(ms) <= 30 ? " open" : "");
  ar_html_printf(f, "Every match (%zu): ratio, 95%% bootstrap interval, verdict", json_array_size(ms));
  fprintf(f, "</summary>\n<div class=\"scroll\"><table class=\"matches\"%s><tr>", first ? " id=\"matches\"" : "");
  fputs("<th class=\"l\">configuration</th><th>dtype</th>"
        "<th>ranks</th><th>place</th><th>size</th><th>A p50 us</th><th>B p50 us</th><th>ratio</th><th>95% interval</th>"
        "<th class=\"l\">verdict</th><th>runs A / B</th></tr>\n", f);
  json_array_foreach(ms, i, m) match_row(f, m);
  fputs("</table></div></details>\n", f);
  only_in(f, json_object_get(c, "only_a"), a);
  only_in(f, json_object_get(c, "only_b"), b);
}

/* "B against A: no configuration in both (only in A: N, only in B: M)": why a comparison has nothing to show. */
static void no_match_why(json_t *c, char *buf, size_t len) {
  snprintf(buf, len, "%s against %s: no configuration measured in both (a match needs the same backend, sweep point, "
           "dtype, ranks, placement, op and method; %zu only in %s, %zu only in %s)", ar_pj_str(json_object_get(c, "b"), "file"),
           ar_pj_str(json_object_get(c, "a"), "file"), json_array_size(json_object_get(c, "only_a")),
           ar_pj_str(json_object_get(c, "a"), "file"), json_array_size(json_object_get(c, "only_b")),
           ar_pj_str(json_object_get(c, "b"), "file"));
}

static void compare(struct ar_render *r) {
  json_t *c = r->p->compare, *comps = json_object_get(c, "comparisons"), *x;
  size_t i, shown = 0;
  char why[1200];
  if (!c && *r->p->compare_why) ar_page_leave_out(r, "Compare", "compare", r->p->compare_why);
  if (!c) return;
  json_t *all = comps ? json_incref(comps) : json_pack("[O]", c);
  json_array_foreach(all, i, x) shown += json_array_size(json_object_get(x, "matches")) > 0;
  if (!shown) {
    json_array_foreach(all, i, x) {
      no_match_why(x, why, sizeof why);
      ar_page_leave_out(r, "Compare", i ? NULL : "compare", why);
    }
    json_decref(all);
    return;
  }
  fputs("<section id=\"compare\"><h3>Compare</h3>\n<p>", r->f);
  ar_html_text(r->f, !strcmp(r->p->compare_how, "stacks") ? "Every stack against the first (arbench compare --by stack)."
                                                           : "The two results files (arbench compare A B).");
  fputs(" \u25bc faster, \u25b2 slower, = same (no significant difference), \u2248 equivalent (within the margin), ? "
        "unresolved or undecided (not told apart: a side has one run, or too few).</p>\n", r->f);
  int first = 1;
  json_array_foreach(all, i, x) {
    if (json_array_size(json_object_get(x, "matches"))) {
      comparison(r->f, x, first);
      first = 0;
      continue;
    }
    no_match_why(x, why, sizeof why);
    ar_page_leave_out(r, "A comparison", NULL, why);
  }
  json_decref(all);
  fputs("<p class=\"meta\">", r->f);
  ar_html_text(r->f, ar_pj_str(c, "correction"));
  fputs("</p>\n", r->f);
  if (ar_page_figure_with(r, "compare", "p50 ratio B/A per size with its 95% bootstrap interval, of the first "
                          "comparison above (arbench compare --format json)", "matches"))
    fputs("<p class=\"missing\">Chart compare not drawn (see Skips and warnings).</p>\n", r->f);
  fputs("</section>\n", r->f);
}

/* ---- links ---- */

/* A heatmap colour from one hue over 0 .. the matrix's largest value (as the plots scale it, so near-equal
 * pairs look alike): darker is better (more GB/s, fewer us); the number is always written. */
static void heat_style(FILE *f, double v, double hi, int lower_better) {
  double x = hi > 0 ? v / hi : 1;
  if (lower_better) x = 1 - x;
  double light = 92 - 55 * x;
  fprintf(f, " style=\"background:hsl(212,65%%,%.0f%%);color:%s\"", light, light < 58 ? "#fff" : "#111");
}

static void heatmap(FILE *f, json_t *m) {
  json_t *vals = json_object_get(m, "values"), *paths = json_object_get(m, "path");
  size_t n = (size_t)json_integer_value(json_object_get(m, "n"));
  int flag = !strcmp(ar_pj_str(m, "unit"), "us");
  double hi = NAN;
  char sz[32], title[400];
  for (size_t s = 0; s < n; s++)
    for (size_t d = 0; d < n; d++) {
      json_t *v = json_array_get(json_array_get(vals, s), d);
      if (!json_is_number(v)) continue;
      double x = json_number_value(v);
      if (isnan(hi) || x > hi) hi = x;
    }
  ar_size_format((size_t)json_integer_value(json_object_get(m, "bytes")), sz, sizeof sz);
  if (flag) snprintf(title, sizeof title, "%s %s latency, us (lower is better)", ar_pj_str(m, "method"), ar_pj_str(m, "direction"));
  else snprintf(title, sizeof title, "%s, %s, each pair alone, %s: GB/s (higher is better)", ar_pj_str(m, "method"),
                !strcmp(ar_pj_str(m, "direction"), "bi") ? "both directions at once, summed" : "one direction", sz);
  fprintf(f, "<div class=\"scroll\"><table class=\"heat\" data-method=\"%s\" data-direction=\"%s\"><caption>",
          ar_pj_str(m, "method"), ar_pj_str(m, "direction"));
  ar_html_text(f, title);
  fputs("</caption><tr><th>src \\ dst</th>", f);
  for (size_t d = 0; d < n; d++) fprintf(f, "<th>%zu</th>", d);
  fputs("</tr>\n", f);
  for (size_t s = 0; s < n; s++) {
    fprintf(f, "<tr><th>%zu</th>", s);
    for (size_t d = 0; d < n; d++) {
      json_t *v = json_array_get(json_array_get(vals, s), d);
      const char *path = json_string_value(json_array_get(json_array_get(paths, s), d));
      if (s == d) {
        fputs("<td class=\"self\">X</td>", f);
        continue;
      }
      fprintf(f, "<td class=\"pair\" data-src=\"%zu\" data-dst=\"%zu\"", s, d);
      if (!json_is_number(v)) {
        fputs(" data-value=\"\" class=\"skipped\">skipped</td>", f);
        continue;
      }
      fprintf(f, " data-value=\"%.17g\"", json_number_value(v));
      heat_style(f, json_number_value(v), hi, flag);
      fprintf(f, ">%.2f<br><small>", json_number_value(v));
      ar_html_text(f, path ? path : "?");
      fputs("</small></td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</table></div>\n", f);
}

static void link_tables(FILE *f, json_t *tables) {
  json_t *t, *row, *sz, *v;
  size_t i, j, k;
  fprintf(f, "<details><summary>Every pattern at every size (%zu tables: the median over the files' link records of "
             "each flow)</summary>\n", json_array_size(tables));
  json_array_foreach(tables, i, t) {
    fputs("<div class=\"scroll\"><table class=\"ltab\"><caption>", f);
    ar_html_printf(f, "%s, %s, %s (%s)", ar_pj_str(t, "method"), ar_pj_str(t, "direction"), ar_pj_str(t, "pattern"),
                   ar_pj_str(t, "unit"));
    fputs("</caption><tr><th class=\"l\">flow</th><th>path</th>", f);
    json_array_foreach(json_object_get(t, "sizes"), j, sz) {
      char b[32];
      ar_size_format((size_t)json_integer_value(sz), b, sizeof b);
      fprintf(f, "<th>%s</th>", b);
    }
    fputs("</tr>\n", f);
    json_array_foreach(json_object_get(t, "rows"), j, row) {
      fputs("<tr><td class=\"l\">", f);
      ar_html_text(f, ar_pj_str(row, "flow"));
      fputs("</td><td>", f);
      ar_html_text(f, ar_pj_str(row, "path"));
      fputs("</td>", f);
      json_array_foreach(json_object_get(row, "values"), k, v) {
        if (json_is_number(v)) fprintf(f, "<td>%.2f</td>", json_number_value(v));
        else fputs("<td>-</td>", f);
      }
      fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
  }
  fputs("</details>\n", f);
}

static void links(struct ar_render *r) {
  json_t *l = json_object_get(r->p->table, "links"), *m, *x, *line;
  size_t i, j;
  if (!l) return;
  fputs("<section id=\"links\"><h3>Links: what every pair of ranks moves</h3>\n<p>From <code>arbench links</code> "
        "records: each pair alone at the largest size (the median over the files' records, as <code>arbench "
        "table</code> computes it); row = source, column = destination, the path class under each value; shaded from 0 "
        "to the matrix's largest value, darker cells faster; a pair the smoke test refused is <em>skipped</em>.</p>\n",
        r->f);
  fputs("<div class=\"heats\">\n", r->f);
  json_array_foreach(json_object_get(l, "matrices"), i, m) heatmap(r->f, m);
  fputs("</div>\n", r->f);
  fputs("<h4>Findings</h4>\n", r->f);
  json_array_foreach(r->p->findings, i, x) {
    fputs("<p>", r->f);
    ar_html_printf(r->f, "Run %s (%lld ranks):", ar_pj_str(x, "run"), (long long)json_integer_value(json_object_get(x, "ranks")));
    fputs("</p>\n<ul class=\"findings\">\n", r->f);
    json_array_foreach(json_object_get(x, "lines"), j, line) {
      fputs("<li>", r->f);
      ar_html_text(r->f, json_string_value(line));
      fputs("</li>\n", r->f);
    }
    if (!json_array_size(json_object_get(x, "lines")))
      fputs("<li>None: every pair near its path class's median, writes and reads alike, loaded flows near isolated.</li>\n", r->f);
    fputs("</ul>\n", r->f);
  }
  link_tables(r->f, json_object_get(l, "tables"));
  fputs("</section>\n", r->f);
}

/* ---- doctor ---- */

static const char *level_mark(const char *lv) {
  if (!strcmp(lv, "FAIL")) return "\u2716 FAIL";
  if (!strcmp(lv, "warn")) return "\u26a0 warn";
  if (!strcmp(lv, "ok")) return "\u2714 ok";
  if (!strcmp(lv, "info")) return "\u2139 info";
  return "- skip";
}

static void doctor(struct ar_render *r) {
  json_t *d, *it;
  size_t i, j;
  if (!json_array_size(r->p->doctor)) return;
  fputs("<section id=\"doctor\"><h3>Doctor</h3>\n", r->f);
  json_array_foreach(r->p->doctor, i, d) {
    json_t *doc = json_object_get(d, "doctor");
    fputs("<p>", r->f);
    ar_html_printf(r->f, "%s: arbench doctor on %s, %lld GPU%s.", ar_pj_str(d, "file"), ar_pj_str(doc, "root"),
                   (long long)json_integer_value(json_object_get(doc, "gpus")), json_integer_value(json_object_get(doc, "gpus")) == 1 ? "" : "s");
    fputs("</p>\n<div class=\"scroll\"><table class=\"doctor\"><tr><th class=\"l\">level</th><th class=\"l\">group</th>"
          "<th class=\"l\">check</th><th class=\"l\">found</th><th class=\"l\">what to do</th></tr>\n", r->f);
    json_array_foreach(json_object_get(doc, "findings"), j, it) {
      const char *lv = ar_pj_str(it, "level");
      char cls[16];
      ar_html_id(cls, sizeof cls, lv);
      fprintf(r->f, "<tr><td class=\"l lv-%s\">%s</td><td class=\"l\">", cls, level_mark(lv));
      ar_html_text(r->f, ar_pj_str(it, "group"));
      fputs("</td><td class=\"l\">", r->f);
      ar_html_text(r->f, ar_pj_str(it, "check"));
      fputs("</td><td class=\"l\">", r->f);
      ar_html_text(r->f, ar_pj_str(it, "found"));
      fputs("</td><td class=\"l\">", r->f);
      ar_html_text(r->f, ar_pj_str(it, "todo"));
      fputs("</td></tr>\n", r->f);
    }
    fputs("</table></div>\n", r->f);
  }
  fputs("</section>\n", r->f);
}

void ar_page_evidence(struct ar_render *r) {
  fputs("<section id=\"evidence\"><h2>The evidence</h2>\n", r->f);
  charts(r);
  compare(r);
  links(r);
  doctor(r);
  fputs("</section>\n", r->f);
}
