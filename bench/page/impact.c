/* impact.c — the report's "What it costs a model" section (report --model M): `arbench impact --format json` per
 * model and per TP the results hold, run like the page's other commands; the page formats its numbers, computes none. */
#include "page/page.h"
#include "ar.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR_PAGE_IMPACT_TOKENS "1,8,32" /* decode at batch 1, 8 and 32 */

/* The rank counts (2 or more) of the table's grids, ascending, without repeats; count. */
static int tp_values(const struct ar_page *p, int *tp, int max) {
  int n = 0;
  size_t i;
  json_t *g;
  json_array_foreach(json_object_get(p->table, "grids"), i, g) {
    int r = (int)ar_pj_num(g, "ranks"), seen = 0;
    for (int k = 0; k < n; k++) seen |= tp[k] == r;
    if (r >= 2 && !seen && n < max) tp[n++] = r;
  }
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++)
      if (tp[b] < tp[a]) {
        int x = tp[a];
        tp[a] = tp[b], tp[b] = x;
      }
  return n;
}

void ar_page_impact_gather(struct ar_page *p, const struct ar_page_tools *t, char **models, int nmodels, int stacks) {
  int tp[16], ntp = tp_values(p, tp, 16);
  p->impact = json_array();
  for (int m = 0; m < nmodels; m++) {
    int got = 0;
    for (int k = 0; k < ntp; k++) {
      char tps[16], out[4200], errf[4200], err[AR_ERRLEN];
      snprintf(tps, sizeof tps, "%d", tp[k]);
      snprintf(out, sizeof out, "%s/impact-%d-%d.out", t->tmp, m, k);
      snprintf(errf, sizeof errf, "%s/impact-%d-%d.err", t->tmp, m, k);
      char **v = calloc((size_t)p->nfiles + 14, sizeof *v);
      if (!v) return;
      int n = 0;
      const char *pre[] = {t->self, "impact", "--model", models[m], "--tp", tps, "--tokens", AR_PAGE_IMPACT_TOKENS,
                           "--format", "json"};
      for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) v[n++] = (char *)pre[i];
      if (stacks > 1) v[n++] = "--by", v[n++] = "stack";
      for (int i = 0; i < p->nfiles; i++) v[n++] = p->files[i];
      int rc = ar_page_spawn(v, out, errf, t->timeout, err, sizeof err);
      free(v);
      json_error_t je;
      json_t *j = rc == 0 ? json_load_file(out, 0, &je) : NULL;
      if (j) json_array_append_new(p->impact, j), got++;
    }
    if (!got)
      json_array_append_new(p->warnings, json_sprintf("impact: no results at a TP and dtype --model %s can use (%s)",
                                                      models[m], ntp ? "the results' rank counts in another dtype" : "no grid of 2 or more ranks"));
  }
}

/* The section's columns: the header and each cell's data-h (the report's stacked layout labels cells with it). */
static const char *const impact_cols[] = {"tokens", "message (B)", "engine default", "per forward (us)",
                                          "best unpatched", "saves per forward (us)", "pick",
                                          "saves per forward (us)", "patch the pick needs"};

static void td(FILE *f, int col, const char *cls) {
  fprintf(f, "<td%s%s%s data-h=\"", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
  ar_html_text(f, impact_cols[col]);
  fputs("\">", f);
}

static void us_cell(FILE *f, int col, json_t *v, int sign) {
  double x = json_is_array(v) ? json_number_value(json_array_get(v, 0)) : json_number_value(v);
  td(f, col, NULL);
  if (!v || json_is_null(v)) fputs("-", f);
  else ar_html_printf(f, "%s%.1f", sign && x > 0 ? "+" : "", x);
  fputs("</td>", f);
}

static json_t *path_of(json_t *row, const char *name) {
  size_t i;
  json_t *p;
  json_array_foreach(json_object_get(row, "paths"), i, p) if (!strcmp(ar_pj_str(p, "path"), name)) return p;
  return NULL;
}

static void one(struct ar_render *r, json_t *doc, json_t *grp) {
  FILE *f = r->f;
  json_t *model = json_object_get(doc, "model"), *row;
  fputs("<h4>", f);
  ar_html_printf(f, "%s at TP %d, %s", ar_pj_str(model, "name"), (int)ar_pj_num(doc, "tp"), ar_pj_str(doc, "engine"));
  if (json_is_string(json_object_get(grp, "stack"))) ar_html_printf(f, ", stack %s", ar_pj_str(grp, "stack"));
  fputs("</h4>\n<p>", f);
  ar_html_printf(f, "%lld allreduces per forward (2 per layer x %lld layers + 1 embedding), each tokens x %lld x %lld B. ",
                 (long long)ar_pj_num(model, "allreduces_per_forward"), (long long)ar_pj_num(model, "layers"),
                 (long long)ar_pj_num(model, "hidden"), (long long)ar_pj_num(model, "element_bytes"));
  ar_html_text(f, ar_pj_str(grp, "method"));
  fputs(".</p>\n<div class=\"scroll\"><table class=\"decide stack\"><thead><tr>", f);
  for (size_t c = 0; c < sizeof impact_cols / sizeof impact_cols[0]; c++) {
    fputs(c == 2 || c == 4 || c == 6 || c == 8 ? "<th class=\"l\">" : "<th>", f);
    ar_html_text(f, impact_cols[c]);
    fputs("</th>", f);
  }
  fputs("</tr></thead><tbody>\n", f);
  size_t i;
  json_t *refused = json_array();
  json_array_foreach(json_object_get(grp, "rows"), i, row) {
    fputs("<tr>", f);
    td(f, 0, NULL);
    fprintf(f, "%lld</td>", (long long)ar_pj_num(row, "tokens"));
    td(f, 1, NULL);
    fprintf(f, "%lld</td>", (long long)ar_pj_num(row, "bytes"));
    const char *names[3] = {"default", "best unpatched", "pick"};
    for (int k = 0; k < 3; k++) {
      json_t *p = path_of(row, names[k]);
      if (!json_is_true(json_object_get(p, "ok"))) {
        td(f, 2 + 2 * k, "l");
        fputs("refused</td>", f);
        td(f, 3 + 2 * k, NULL);
        fputs("-</td>", f);
        json_array_append_new(refused, json_sprintf("%lld tokens, %s: %s", (long long)ar_pj_num(row, "tokens"),
                                                    names[k], ar_pj_str(p, "refused")));
        continue;
      }
      td(f, 2 + 2 * k, "l");
      ar_html_label(f, ar_pj_str(p, "config"));
      if (json_is_true(json_object_get(p, "interpolated"))) fputs(" (~)", f);
      fputs("</td>", f);
      us_cell(f, 3 + 2 * k, k ? json_object_get(p, "saving_per_forward_us") : json_object_get(p, "per_forward_us"), k);
    }
    json_t *pk = path_of(row, "pick");
    td(f, 8, "l");
    ar_html_text(f, *ar_pj_str(pk, "patch") ? ar_pj_str(pk, "patch") : "none");
    fputs("</td></tr>\n", f);
  }
  fputs("</tbody></table></div>\n", f);
  json_t *v;
  if (json_array_size(refused)) fputs("<ul>", f);
  json_array_foreach(refused, i, v) {
    fputs("<li>refused: ", f);
    ar_html_text(f, json_string_value(v));
    fputs("</li>", f);
  }
  if (json_array_size(refused)) fputs("</ul>\n", f);
  json_decref(refused);
}

void ar_page_impact(struct ar_render *r) {
  if (!r->p->impact) return; /* no --model */
  if (!json_array_size(r->p->impact)) { /* asked for, nothing to show: left out, and the summary says why */
    ar_page_leave_out(r, "What the allreduce costs a model", "impact",
                      "no results at a TP (2 or more ranks) and dtype the model can use; see Skips and warnings");
    return;
  }
  FILE *f = r->f;
  fputs("<section id=\"impact\"><h3>What the allreduce costs a model</h3>\n<p>From <code>arbench impact</code> "
        "(docs/impact.md): per decode batch, the serving engine's own path, the best it reaches without a patch and "
        "the pick, each the decision of the tables above; (~) log-log between measured sizes. Savings cover "
        "measurement noise only, not overlap with compute.</p>\n", f);
  size_t i, k;
  json_t *doc, *grp;
  json_array_foreach(r->p->impact, i, doc) json_array_foreach(json_object_get(doc, "groups"), k, grp) one(r, doc, grp);
  fputs("</section>\n", f);
}
