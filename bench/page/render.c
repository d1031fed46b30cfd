/* render.c — the page's frame: head with the inline style, title and summary, table of contents, the
 * sections in order, skips and warnings, the inline script; and the pieces every section shares. */
#include "page/page.h"
#include "analysis/analysis.h"
#include "knownbad.h"
#include "opts.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ar_pj_str(json_t *o, const char *key) {
  const char *s = json_string_value(json_object_get(o, key));
  return s ? s : "";
}

double ar_pj_num(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

void ar_page_grid_title(json_t *grid, char *buf, size_t len) {
  int ranks = (int)json_integer_value(json_object_get(grid, "ranks"));
  snprintf(buf, len, "%s, %d rank%s, %s, %s", ar_pj_str(grid, "dtype"), ranks, ranks == 1 ? "" : "s",
           strcmp(ar_pj_str(grid, "placement"), "in") ? "out-of-place" : "in-place", ar_pj_str(grid, "op"));
}

void ar_page_grid_id(json_t *grid, char *buf, size_t len) {
  char raw[200];
  snprintf(raw, sizeof raw, "g %s %lldr %s %s", ar_pj_str(grid, "dtype"),
           (long long)json_integer_value(json_object_get(grid, "ranks")), ar_pj_str(grid, "placement"),
           ar_pj_str(grid, "op"));
  ar_html_id(buf, len, raw);
}

/* The numbers a line chart drew (plotted.json's "series": label -> [[size, value], ...]), a row per size. */
static void series_table(FILE *f, json_t *d, const char *id) {
  json_t *series = json_object_get(d, "series"), *pts, *pt, *sizes = json_object();
  const char *lab, *k;
  size_t i;
  int us = !strcmp(ar_pj_str(d, "field"), "p50_us");
  json_object_foreach(series, lab, pts) json_array_foreach(pts, i, pt) {
      char key[32];
      snprintf(key, sizeof key, "%020lld", (long long)json_number_value(json_array_get(pt, 0)));
      json_object_set_new(sizes, key, json_true());
    }
  fprintf(f, "<details class=\"data\"><summary>The numbers drawn (%zu configuration%s x %zu size%s)</summary>\n"
          "<div class=\"scroll\"><table class=\"chartdata\" id=\"%s\"><tr><th>size</th>", json_object_size(series),
          json_object_size(series) == 1 ? "" : "s", json_object_size(sizes), json_object_size(sizes) == 1 ? "" : "s", id);
  json_object_foreach(series, lab, pts) {
    fputs("<th class=\"l label\">", f);
    ar_html_label(f, lab);
    fputs("</th>", f);
  }
  fprintf(f, "</tr>\n");
  void *it;
  for (it = json_object_iter(sizes); it; it = json_object_iter_next(sizes, it)) { /* sorted: zero-padded keys */
    k = json_object_iter_key(it);
    long long size = atoll(k);
    char b[32];
    ar_size_format((size_t)size, b, sizeof b);
    fprintf(f, "<tr><td>%s</td>", b);
    json_object_foreach(series, lab, pts) {
      int found = 0;
      json_array_foreach(pts, i, pt) {
        if ((long long)json_number_value(json_array_get(pt, 0)) != size) continue;
        double v = json_number_value(json_array_get(pt, 1));
        char t[32];
        if (us) ar_fmt_us(v, t, sizeof t);
        else snprintf(t, sizeof t, "%.2f", v);
        fprintf(f, "<td>%s</td>", t);
        found = 1;
        break;
      }
      if (!found) fputs("<td>-</td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</table></div></details>\n", f);
  json_decref(sizes);
}

/* The pick map's cells (plotted.json's "cells": "RANKS SIZE" -> pick, verdict, the text in the cell). */
static void cells_table(FILE *f, json_t *d, const char *id) {
  json_t *cells = json_object_get(d, "cells"), *c, *order = json_object();
  const char *k;
  json_object_foreach(cells, k, c) {
    long long ranks = 0, size = 0;
    char key[64];
    sscanf(k, "%lld %lld", &ranks, &size);
    snprintf(key, sizeof key, "%010lld %020lld", ranks, size);
    json_object_set(order, key, c);
  }
  fprintf(f, "<details class=\"data\"><summary>The numbers drawn (%zu cells)</summary>\n<div class=\"scroll\">"
          "<table class=\"chartdata\" id=\"%s\"><tr><th>ranks</th><th>size</th><th class=\"l\">pick (number)</th>"
          "<th class=\"l\">verdict</th><th class=\"l\">in the cell</th></tr>\n", json_object_size(cells), id);
  void *it;
  for (it = json_object_iter(order); it; it = json_object_iter_next(order, it)) {
    long long ranks = 0, size = 0;
    char b[32];
    sscanf(json_object_iter_key(it), "%lld %lld", &ranks, &size);
    c = json_object_iter_value(it);
    ar_size_format((size_t)size, b, sizeof b);
    fprintf(f, "<tr><td>%lld</td><td>%s</td><td class=\"l label\">", ranks, b);
    ar_html_label(f, ar_pj_str(c, "best"));
    ar_html_printf(f, " (%lld)", (long long)json_integer_value(json_object_get(c, "number")));
    fputs("</td><td class=\"l\">", f);
    ar_html_text(f, ar_pj_str(c, "verdict"));
    fputs("</td><td class=\"l\">", f);
    ar_html_text(f, ar_pj_str(c, "text"));
    fputs("</td></tr>\n", f);
  }
  fputs("</table></div></details>\n", f);
  json_decref(order);
}

int ar_page_figure_with(struct ar_render *r, const char *name, const char *caption, const char *data_table) {
  const char *svg = json_string_value(json_object_get(r->p->plots, name));
  if (!svg) return -1;
  char id[200], tid[260];
  json_t *d = json_object_get(r->p->plotted, name);
  int own = json_is_object(json_object_get(d, "series")) || json_is_object(json_object_get(d, "cells"));
  ar_html_id(id, sizeof id, name);
  snprintf(tid, sizeof tid, "data-%s", id);
  fprintf(r->f, "<figure id=\"fig-%s\" class=\"chart\"", id);
  if (own || data_table) fprintf(r->f, " data-table=\"%s\"", own ? tid : data_table);
  fputs(">", r->f);
  ar_html_svg(r->f, svg, ++r->figures, caption, !own && !data_table); /* no data table: the text stays legible */
  fputs("<figcaption>", r->f);
  ar_html_text(r->f, caption);
  if (*ar_pj_str(d, "caption")) { /* the chart's subtitle is one line: its whole text is here */
    fputs(" <span class=\"details\">", r->f);
    ar_html_text(r->f, ar_pj_str(d, "caption"));
    fputs(".</span>", r->f);
  }
  if (!own && data_table) fprintf(r->f, " <a href=\"#%s\">The numbers: this table.</a>", data_table);
  fputs("</figcaption>", r->f);
  if (json_is_object(json_object_get(d, "series"))) series_table(r->f, d, tid);
  else if (json_is_object(json_object_get(d, "cells"))) cells_table(r->f, d, tid);
  fputs("</figure>\n", r->f);
  return 0;
}

int ar_page_figure(struct ar_render *r, const char *name, const char *caption) {
  return ar_page_figure_with(r, name, caption, NULL);
}

/* "host1, host2" of the table's hosts, else the runs'. */
static void hosts_text(const struct ar_page *p, char *buf, size_t len) {
  json_t *h = json_object_get(p->table, "hosts"), *seen = json_object(), *run, *x;
  const char *id;
  size_t i, n = 0;
  *buf = 0;
  json_array_foreach(h, i, x) json_object_set_new(seen, json_string_value(x), json_true());
  json_object_foreach(p->runs, id, run) json_array_foreach(json_object_get(run, "hosts"), i, x)
    if (json_is_string(x)) json_object_set_new(seen, json_string_value(x), json_true());
  json_object_foreach(seen, id, x) {
    size_t l = strlen(buf);
    snprintf(buf + l, len - l, "%s%s", n++ ? ", " : "", id);
  }
  json_decref(seen);
}

static void head(FILE *f, const struct ar_page *p, const char *title) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta name=\"color-scheme\" content=\"light dark\">\n<meta name=\"generator\" content=\"arbench ",
        f);
  ar_html_text(f, p->version);
  fputs("\">\n<title>", f);
  ar_html_text(f, title);
  fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", ar_page_css);
}

/* Runs of one kind: "links" (arbench links), "import" (a log arbench import read), "run" (every other). */
static int count_runs(const struct ar_page *p, const char *kind) {
  json_t *run;
  const char *id;
  int n = 0;
  json_object_foreach(p->runs, id, run) {
    const char *c = json_string_value(json_array_get(json_object_get(run, "command"), 0));
    const char *k = json_object_get(run, "imported_from") ? "import" : c && !strcmp(c, "links") ? "links" : "run";
    n += !strcmp(k, kind);
  }
  return n;
}

static void left_out_summary(FILE *f, const json_t *lo);

static void header(FILE *f, const struct ar_page *p, const char *title, const json_t *lo) {
  json_t *grids = json_object_get(p->table, "grids");
  char hosts[1024];
  hosts_text(p, hosts, sizeof hosts);
  fputs("<header id=\"top\"><h1>", f);
  ar_html_text(f, title);
  fputs("</h1>\n<p class=\"meta\">", f);
  ar_html_printf(f, "%d records file%s", p->nfiles, p->nfiles == 1 ? "" : "s");
  for (int i = 0; i < p->nfiles; i++) {
    fputs(i ? ", " : ": ", f);
    fputs("<code>", f);
    ar_html_text(f, p->files[i]);
    fputs("</code>", f);
  }
  if (json_array_size(p->doctor)) ar_html_printf(f, "; %zu doctor file%s", json_array_size(p->doctor), json_array_size(p->doctor) == 1 ? "" : "s");
  int nrun = count_runs(p, "run"), nlinks = count_runs(p, "links"), nimp = count_runs(p, "import");
  ar_html_printf(f, ". Hosts: %s. %d measurement run%s, %d links run%s, ", *hosts ? hosts : "none recorded", nrun,
                 nrun == 1 ? "" : "s", nlinks, nlinks == 1 ? "" : "s");
  if (nimp) ar_html_printf(f, "%d imported log%s, ", nimp, nimp == 1 ? "" : "s");
  ar_html_printf(f, "%zu table%s (dtype x ranks x placement).", json_array_size(grids), json_array_size(grids) == 1 ? "" : "s");
  fputs("<br>", f);
  ar_html_printf(f, "Written by arbench %s (git %s) at %s. Every number on this page is arbench's own: table, tune, "
                 "compare, links and doctor computed it; the page only lays it out.", p->version, p->git, p->when);
  fputs("</p>\n", f);
  left_out_summary(f, lo);
  fputs("</header>\n", f);
}

void ar_page_leave_out(struct ar_render *r, const char *section, const char *id, const char *why) {
  json_array_append_new(r->left_out, json_pack("{s:s, s:s?, s:s}", "section", section, "id", id, "why", why));
}

/* Was the section with this anchor left out? */
static int left_out(const json_t *lo, const char *id) {
  size_t i;
  json_t *x;
  json_array_foreach(lo, i, x) if (!strcmp(ar_pj_str(x, "id"), id)) return 1;
  return 0;
}

/* The summary's word on what the page leaves out: one line per section or part, with its reason. */
static void left_out_summary(FILE *f, const json_t *lo) {
  size_t i;
  json_t *x;
  if (!json_array_size(lo)) return;
  fputs("<div id=\"left-out\"><p class=\"meta\">Left out, with nothing to show:</p><ul class=\"meta left-out\">\n", f);
  json_array_foreach(lo, i, x) {
    fputs("<li><strong>", f);
    ar_html_text(f, ar_pj_str(x, "section"));
    fputs("</strong>: ", f);
    ar_html_text(f, ar_pj_str(x, "why"));
    fputs("</li>\n", f);
  }
  fputs("</ul></div>\n", f);
}

static void toc(FILE *f, const struct ar_page *p, const json_t *lo) {
  json_t *grids = json_object_get(p->table, "grids"), *g;
  size_t i;
  fputs("<nav id=\"toc\" aria-label=\"Contents\"><h2>Contents</h2><ol>\n"
        "<li><a href=\"#provenance\">What was measured, and where</a></li>\n", f);
  if (json_array_size(grids)) {
    fputs("<li><a href=\"#answer\">The answer: picks per size</a><ol>", f);
    json_array_foreach(grids, i, g) {
      char id[200], t[200];
      ar_page_grid_id(g, id, sizeof id);
      ar_page_grid_title(g, t, sizeof t);
      fprintf(f, "<li><a href=\"#%s\">", id);
      ar_html_text(f, t);
      fputs("</a></li>", f);
    }
    if (p->tune && !left_out(lo, "tuning")) fputs("<li><a href=\"#tuning\">Tuning files</a></li>", f);
    fputs("</ol></li>\n", f);
  }
  fputs("<li><a href=\"#evidence\">The evidence</a><ol>", f);
  if (json_array_size(grids) && !left_out(lo, "charts")) fputs("<li><a href=\"#charts\">Latency and bus bandwidth</a></li>", f);
  if (p->compare && !left_out(lo, "compare")) fputs("<li><a href=\"#compare\">Compare</a></li>", f);
  if (json_object_get(p->table, "links") && !left_out(lo, "links")) fputs("<li><a href=\"#links\">Links</a></li>", f);
  if (json_array_size(p->doctor) && !left_out(lo, "doctor")) fputs("<li><a href=\"#doctor\">Doctor</a></li>", f);
  fputs("</ol></li>\n<li><a href=\"#skips\">Skips and warnings</a></li>\n</ol></nav>\n", f);
}

/* Skips and warnings: what was not measured and why, configurations never chosen, wrong results, what
 * the commands warned about. */
static void skips(struct ar_render *r) {
  FILE *f = r->f;
  json_t *grids = json_object_get(r->p->table, "grids"), *g, *x, *run;
  size_t i, j, n = 0;
  const char *id;
  fputs("<section id=\"skips\"><h2>Skips and warnings</h2>\n<ul class=\"notes\">\n", f);
  json_array_foreach(json_object_get(r->p->table, "not_measured"), i, x) {
    fputs("<li><span class=\"tag skip\">not measured</span> ", f);
    ar_html_text(f, json_string_value(x));
    fputs("</li>\n", f);
    n++;
  }
  json_array_foreach(grids, i, g) {
    char t[200];
    ar_page_grid_title(g, t, sizeof t);
    json_array_foreach(json_object_get(g, "configs"), j, x) {
      if (!json_is_true(json_object_get(x, "unsafe"))) continue;
      fputs("<li><span class=\"tag bad\">unsafe: never chosen</span> ", f);
      ar_html_printf(f, "%s (%s): %s", ar_pj_str(x, "label"), t, ar_pj_str(x, "unsafe_why"));
      fputs("</li>\n", f);
      n++;
    }
    json_array_foreach(json_object_get(g, "cells"), j, x) {
      if (json_integer_value(json_object_get(x, "wrong")) <= 0) continue;
      json_t *c = json_array_get(json_object_get(g, "configs"), (size_t)json_integer_value(json_object_get(x, "config")));
      fputs("<li><span class=\"tag bad\">wrong results</span> ", f);
      ar_html_printf(f, "%s at %lld bytes (%s): %lld wrong elements; do not use these numbers", ar_pj_str(c, "label"),
                     (long long)json_integer_value(json_object_get(x, "size")), t,
                     (long long)json_integer_value(json_object_get(x, "wrong")));
      fputs("</li>\n", f);
      n++;
    }
  }
  json_object_foreach(r->p->runs, id, run) {
    const char *w = ar_pj_str(json_object_get(run, "stack"), "warning");
    if (!*w) continue;
    fputs("<li><span class=\"tag warn\">stack</span> ", f);
    ar_html_printf(f, "run %s: %s", id, w);
    fputs("</li>\n", f);
    n++;
  }
  json_object_foreach(r->p->runs, id, run) json_array_foreach(json_object_get(run, "known_bad"), j, x) {
      const struct ar_knownbad *e = ar_knownbad_find(json_string_value(x));
      fputs("<li><span class=\"tag bad\">known-bad stack</span> ", f);
      ar_html_printf(f, "run %s (stack %s): %s", id, ar_pj_str(json_object_get(run, "stack"), "name"),
                     json_is_string(x) ? json_string_value(x) : "?");
      if (e) {
        ar_html_printf(f, " (%s): %s; what to do: %s; source ", ar_knownbad_severity_name(e->severity), e->symptom, e->todo);
        fputs("<a href=\"", f);
        ar_html_text(f, e->source);
        fputs("\">", f);
        ar_html_text(f, e->source);
        fputs("</a>", f);
      } else
        ar_html_printf(f, " (an entry this arbench's table does not hold)");
      fputs("</li>\n", f);
      n++;
    }
  json_array_foreach(r->p->doctor, i, x) {
    int fails = 0, warns = 0;
    json_t *it;
    json_array_foreach(json_object_get(json_object_get(x, "doctor"), "findings"), j, it) {
      fails += !strcmp(ar_pj_str(it, "level"), "FAIL");
      warns += !strcmp(ar_pj_str(it, "level"), "warn");
    }
    if (!fails && !warns) continue;
    fputs("<li><span class=\"tag bad\">doctor</span> ", f);
    ar_html_printf(f, "%s: %d FAIL and %d warn finding%s: see ", ar_pj_str(x, "file"), fails, warns, warns == 1 ? "" : "s");
    fputs("<a href=\"#doctor\">Doctor</a></li>\n", f);
    n++;
  }
  json_array_foreach(r->p->warnings, i, x) {
    fputs("<li><span class=\"tag warn\">warning</span> ", f);
    ar_html_text(f, json_string_value(x));
    fputs("</li>\n", f);
    n++;
  }
  if (!n) fputs("<li>None: every configuration in the files was measured, none is unsafe, no result was wrong and "
                "no command warned.</li>\n", f);
  fputs("</ul></section>\n", f);
}

int ar_page_render(FILE *f, const struct ar_page *p) {
  char title[1200], hosts[1024];
  hosts_text(p, hosts, sizeof hosts);
  snprintf(title, sizeof title, "%s", p->title ? p->title : "");
  if (!p->title) snprintf(title, sizeof title, "arbench report: %s", *hosts ? hosts : "results");
  /* the sections first (into memory): the summary on top names what they left out */
  char *body = NULL;
  size_t blen = 0;
  FILE *mem = open_memstream(&body, &blen);
  struct ar_render r = {mem ? mem : f, p, 0, json_array()};
  if (mem) {
    ar_page_provenance(&r);
    ar_page_answer(&r);
    ar_page_impact(&r);
    ar_page_evidence(&r);
    skips(&r);
    fclose(mem);
  }
  head(f, p, title);
  header(f, p, title, r.left_out);
  toc(f, p, r.left_out);
  if (body) fwrite(body, 1, blen, f);
  else fputs("<p>Out of memory: the sections could not be written.</p>\n", f);
  free(body);
  json_decref(r.left_out);
  fprintf(f, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", ar_page_js);
  return mem ? r.figures : -1;
}
