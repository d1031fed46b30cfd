/* gather.c — what the page shows, from the commands that compute it: `table --format json`, `tune -o`,
 * `compare --format json` and plots/arbench-plot (SVG, from that very table JSON). */
#include "page/page.h"
#include "ar.h"
#include "links/links.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A whole file as a string (NUL-terminated), NULL when unreadable. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t n = 0, cap = 0, got;
  do {
    if (cap - n < 65536) {
      char *nb = realloc(buf, cap = cap * 2 + 65536);
      if (!nb) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = nb;
    }
    got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
  } while (got > 0);
  fclose(f);
  buf[n] = 0;
  return buf;
}

/* "what: line" once among the page's warnings. */
static void warn(struct ar_page *p, const char *what, const char *line) {
  size_t n = strlen(what) + strlen(line) + 3;
  char *buf = malloc(n);
  if (!buf) return;
  snprintf(buf, n, "%s: %s", what, line);
  int seen = 0;
  for (size_t i = 0; i < json_array_size(p->warnings) && !seen; i++)
    seen = !strcmp(json_string_value(json_array_get(p->warnings, i)), buf);
  if (!seen) json_array_append_new(p->warnings, json_string(buf));
  free(buf);
}

/* Every non-empty line a command wrote on stderr becomes a warning of the page, but the files tune says it
 * wrote (into the scratch directory: the page shows them). */
static void warn_file(struct ar_page *p, const char *what, const char *path) {
  char *s = slurp(path);
  for (char *l = s ? strtok(s, "\n") : NULL; l; l = strtok(NULL, "\n"))
    if (*l && strncmp(l, "arbench tune: wrote ", 20)) warn(p, what, l);
  free(s);
}

/* Run one command: status (-1 when it could not run: the reason is a warning). */
static int run(struct ar_page *p, const struct ar_page_tools *t, char **argv, const char *name) {
  char out[4200], errf[4200], err[AR_ERRLEN];
  snprintf(out, sizeof out, "%s/%s.out", t->tmp, name);
  snprintf(errf, sizeof errf, "%s/%s.err", t->tmp, name);
  int rc = ar_page_spawn(argv, out, errf, t->timeout, err, sizeof err);
  if (rc < 0) warn(p, name, err);
  warn_file(p, name, errf);
  return rc;
}

/* argv = prefix words, then the records files, then NULL (malloc'd). */
static char **argv_with_files(const struct ar_page *p, const char **pre, int npre) {
  char **v = calloc((size_t)(npre + p->nfiles + 1), sizeof *v);
  if (!v) return NULL;
  for (int i = 0; i < npre; i++) v[i] = (char *)pre[i];
  for (int i = 0; i < p->nfiles; i++) v[npre + i] = p->files[i];
  return v;
}

static json_t *load_json(const char *path) {
  json_error_t je;
  return json_load_file(path, 0, &je);
}

static int gather_table(struct ar_page *p, const struct ar_page_tools *t, char *err, size_t len) {
  const char *pre[] = {t->self, "table", "--format", "json"};
  char **v = argv_with_files(p, pre, 4), path[4200];
  int rc = v ? run(p, t, v, "table") : -1;
  free(v);
  snprintf(path, sizeof path, "%s/table.out", t->tmp);
  p->table = rc == 0 ? load_json(path) : NULL;
  size_t nw = json_array_size(p->warnings); /* the command's last word: why it failed */
  const char *why = nw ? json_string_value(json_array_get(p->warnings, nw - 1)) : "no message";
  if (!p->table && rc) snprintf(err, len, "`arbench table --format json` failed: %s", why);
  else if (!p->table) snprintf(err, len, "`arbench table --format json` printed no JSON");
  return p->table ? 0 : -1;
}

/* text with every occurrence of from replaced by to (malloc'd; NULL when out of memory). */
static char *replace_all(const char *text, const char *from, const char *to) {
  size_t n = 0, lf = strlen(from), lt = strlen(to);
  for (const char *q = text; lf && (q = strstr(q, from)); q += lf) n++;
  char *out = malloc(strlen(text) + n * (lt > lf ? lt - lf : 0) + 1), *w = out;
  if (!out) return NULL;
  for (const char *q = text, *hit; ; q = hit + lf) {
    hit = lf ? strstr(q, from) : NULL;
    size_t k = hit ? (size_t)(hit - q) : strlen(q);
    memcpy(w, q, k);
    w += k;
    if (!hit) break;
    memcpy(w, to, lt);
    w += lt;
  }
  *w = 0;
  return out;
}

/* `tune -o DIR`: its printed ranges and every file it wrote (the tuning files as a serving stack reads them). */
static void gather_tune(struct ar_page *p, const struct ar_page_tools *t) {
  char dir[4200], out[4200];
  snprintf(dir, sizeof dir, "%s/tune", t->tmp);
  const char *pre[] = {t->self, "tune", "-o", dir};
  char **v = argv_with_files(p, pre, 4);
  int rc = v ? run(p, t, v, "tune") : -1;
  free(v);
  if (rc) return;
  snprintf(out, sizeof out, "%s/tune.out", t->tmp);
  char *md = slurp(out);
  json_t *files = json_object();
  struct dirent **names = NULL;
  int n = scandir(dir, &names, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    char f[4500];
    snprintf(f, sizeof f, "%s/%s", dir, names[i]->d_name);
    struct stat st;
    char *text = names[i]->d_name[0] != '.' && !stat(f, &st) && S_ISREG(st.st_mode) ? slurp(f) : NULL;
    char *shown = text ? replace_all(text, dir, "DIR") : NULL; /* the scratch directory is gone: DIR of tune -o */
    if (shown) json_object_set_new(files, names[i]->d_name, json_string(shown));
    free(shown);
    free(text);
    free(names[i]);
  }
  free(names);
  p->tune = json_pack("{s:s, s:o}", "stdout", md ? md : "", "files", files);
  free(md);
}

/* Records files that hold result records (compare A B needs two). */
static int result_files(const struct ar_page *p, json_t *results, int *a, int *b) {
  int n = 0;
  for (int i = 0; i < p->nfiles; i++) {
    size_t l = strlen(p->files[i]), k;
    json_t *r;
    int has = 0;
    json_array_foreach(results, k, r) {
      const char *src = json_string_value(json_object_get(r, "_src"));
      if (src && !strncmp(src, p->files[i], l) && src[l] == ':' && (has = 1)) break;
    }
    if (has && n == 0) *a = i;
    if (has && n == 1) *b = i;
    n += has;
  }
  return n;
}

/* compare: every stack against the first when the files hold several stacks, else the two results files. */
static void gather_compare(struct ar_page *p, const struct ar_page_tools *t, json_t *results, int stacks) {
  int a = -1, b = -1, nres = result_files(p, results, &a, &b);
  char **v = NULL, path[4200];
  if (stacks > 1) {
    const char *pre[] = {t->self, "compare", "--by", "stack", "--format", "json"};
    v = argv_with_files(p, pre, 6);
    p->compare_how = "stacks";
  } else if (nres == 2) {
    v = calloc(7, sizeof *v);
    if (v) {
      const char *w[] = {t->self, "compare", "--format", "json", p->files[a], p->files[b]};
      memcpy(v, w, sizeof w);
    }
    p->compare_how = "files";
  } else return;
  int rc = v ? run(p, t, v, "compare") : -1;
  free(v);
  snprintf(path, sizeof path, "%s/compare.out", t->tmp);
  p->compare = rc == 0 ? load_json(path) : NULL;
  size_t nw = json_array_size(p->warnings);
  const char *last = nw ? json_string_value(json_array_get(p->warnings, nw - 1)) : "";
  if (!p->compare) /* its reason, without the "compare: arbench compare: " in front */
    snprintf(p->compare_why, sizeof p->compare_why, "%s", !strncmp(last, "compare: arbench compare: ", 26) ? last + 26
                                                          : *last ? last : "arbench compare printed no JSON");
  if (!p->compare) p->compare_how = NULL;
}

/* The chart of one comparison for arbench-plot --compare-json (the A/B form: a, b, matches). */
static int compare_chart_input(const struct ar_page *p, const char *path) {
  json_t *c = json_object_get(p->compare, "comparisons");
  json_t *one = c ? NULL : p->compare, *x;
  size_t i;
  json_array_foreach(c, i, x) /* the first one with a match: the page's first compare table */
    if (json_array_size(json_object_get(x, "matches")) && (one = x)) break;
  return one && json_dump_file(one, path, 0) == 0;
}

/* Start plots/arbench-plot on table's JSON (and compare's): 1 started (finish_plots collects it), 0 not (the
 * reason is a warning). The links matrices are not drawn: the page shows them as tables. */
static int start_plots(struct ar_page *p, const struct ar_page_tools *t, struct ar_page_job *job) {
  char tj[4200], cj[4200], dir[4200], out[4200], errf[4200], err[AR_ERRLEN];
  char why[4300];
  if (!*t->plot || access(t->plot, X_OK)) {
    snprintf(why, sizeof why, "left out: %s%s (plots/arbench-plot: give --plot PATH or set ARBENCH_PLOT)",
             *t->plot ? t->plot : "the plot script not found", *t->plot ? " is not an executable" : "");
    warn(p, "charts", why);
    return 0;
  }
  snprintf(tj, sizeof tj, "%s/table.out", t->tmp);
  snprintf(cj, sizeof cj, "%s/compare.json", t->tmp);
  snprintf(dir, sizeof dir, "%s/plots", t->tmp);
  snprintf(out, sizeof out, "%s/plots.out", t->tmp);
  snprintf(errf, sizeof errf, "%s/plots.err", t->tmp);
  char *v[16] = {(char *)t->plot, "--table-json", tj, "--arbench", (char *)t->self, "--format", "svg", "--svg-text",
                 "--no-links", "-o", dir};
  int n = 11;
  if (p->compare && compare_chart_input(p, cj)) v[n++] = "--compare-json", v[n++] = cj;
  if (t->topo_xml) v[n++] = "--topo-xml", v[n++] = (char *)t->topo_xml;
  if (!ar_page_start(v, out, errf, job, err, sizeof err)) return 1;
  warn(p, "plots", err);
  return 0;
}

/* Wait for the plot script, then read every SVG it wrote into p->plots. */
static void finish_plots(struct ar_page *p, const struct ar_page_tools *t, struct ar_page_job *job) {
  char dir[4200], errf[4200], err[AR_ERRLEN];
  snprintf(dir, sizeof dir, "%s/plots", t->tmp);
  snprintf(errf, sizeof errf, "%s/plots.err", t->tmp);
  int rc = ar_page_finish(job, t->timeout, err, sizeof err);
  if (rc < 0) warn(p, "plots", err);
  warn_file(p, "plots", errf);
  if (rc) return;
  char plotted[4300];
  snprintf(plotted, sizeof plotted, "%s/plotted.json", dir);
  json_error_t je;
  p->plotted = json_load_file(plotted, 0, &je); /* NULL: the charts go without their data tables */
  struct dirent **names = NULL;
  int n = scandir(dir, &names, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    const char *nm = names[i]->d_name;
    size_t l = strlen(nm);
    if (l > 4 && !strcmp(nm + l - 4, ".svg")) {
      char f[4500], stem[256];
      snprintf(f, sizeof f, "%s/%s", dir, nm);
      snprintf(stem, sizeof stem, "%.*s", (int)(l - 4), nm);
      char *svg = slurp(f);
      if (svg) json_object_set_new(p->plots, stem, json_string(svg));
      free(svg);
    }
    free(names[i]);
  }
  free(names);
}

/* The findings of each links run, from ar_links_findings and ar_links_undecided (the lines `arbench links` prints). */
static void gather_findings(struct ar_page *p, json_t *notes) {
  json_t *byrun = json_object(), *r, *recs;
  const char *id;
  size_t i;
  json_array_foreach(notes, i, r) {
    if (strcmp(json_string_value(json_object_get(r, "type")) ? json_string_value(json_object_get(r, "type")) : "", "link"))
      continue;
    const char *run_id = json_string_value(json_object_get(r, "run_id"));
    if (!run_id) run_id = "";
    if (!(recs = json_object_get(byrun, run_id))) json_object_set_new(byrun, run_id, recs = json_array());
    json_array_append(recs, r);
  }
  json_object_foreach(byrun, id, recs) {
    json_t *run = json_object_get(p->runs, id), *lines = json_array();
    int n = (int)json_integer_value(json_object_get(run, "ranks"));
    ar_links_findings(recs, n, lines);
    char und[1024]; /* the findings within their repeats' spread, as `arbench links` says them */
    if (ar_links_undecided(recs, n, und, sizeof und)) json_array_append_new(lines, json_string(und));
    json_array_append_new(p->findings, json_pack("{s:s, s:i, s:o}", "run", id, "ranks", n, "lines", lines));
  }
  json_decref(byrun);
}

int ar_page_gather(struct ar_page *p, const struct ar_page_tools *t, json_t *results, json_t *notes, int stacks,
                   char *err, size_t len) {
  if (!p->nfiles) return 0; /* doctor files only */
  if (gather_table(p, t, err, len)) return -1;
  gather_compare(p, t, results, stacks);
  struct ar_page_job plots;
  int charts = start_plots(p, t, &plots); /* the charts (the longest part) side by side with tune */
  if (json_array_size(json_object_get(p->table, "grids"))) gather_tune(p, t);
  if (charts) finish_plots(p, t, &plots);
  gather_findings(p, notes);
  return 0;
}
