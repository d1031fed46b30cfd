/* provenance.c — the page's first section, from the run records: the machines (GPUs, topology with the
 * GPU-to-GPU PCIe paths and the picture when one was drawn), the stacks, and every run with its method. */
#include "page/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void cell(FILE *f, const char *cls, const char *text) {
  fprintf(f, "<td%s%s%s>", *cls ? " class=\"" : "", cls, *cls ? "\"" : "");
  ar_html_text(f, *text ? text : "-");
  fputs("</td>", f);
}

/* A value of any JSON type as text ("" for null or absent). */
static void value_text(json_t *v, char *buf, size_t len) {
  if (json_is_string(v)) snprintf(buf, len, "%s", json_string_value(v));
  else if (json_is_integer(v)) snprintf(buf, len, "%lld", (long long)json_integer_value(v));
  else if (json_is_real(v)) snprintf(buf, len, "%g", json_real_value(v));
  else if (json_is_boolean(v)) snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
  else *buf = 0;
}

static void vcell(FILE *f, const char *cls, json_t *o, const char *key) {
  char buf[512];
  value_text(json_object_get(o, key), buf, sizeof buf);
  cell(f, cls, buf);
}

/* One cell per key of o, in order; a key "l:K" is K in a left-aligned (text) cell. */
static void vcells(FILE *f, json_t *o, const char *const keys[], size_t n) {
  for (size_t i = 0; i < n; i++) {
    int left = !strncmp(keys[i], "l:", 2);
    vcell(f, left ? "l" : "", o, keys[i] + (left ? 2 : 0));
  }
}

static void join(json_t *arr, const char *sep, char *buf, size_t len) {
  size_t i, n = 0;
  json_t *x;
  *buf = 0;
  json_array_foreach(arr, i, x) {
    char v[512];
    value_text(x, v, sizeof v);
    n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? sep : "", v);
  }
}

/* The machine a run measured on: hosts and topology digest. */
static void machine_key(json_t *run, char *buf, size_t len) {
  char hosts[512];
  join(json_object_get(run, "hosts"), ", ", hosts, sizeof hosts);
  snprintf(buf, len, "%s|%s", hosts, ar_pj_str(json_object_get(run, "topology"), "digest"));
}

static void gpu_table(FILE *f, json_t *run) {
  json_t *gpus = json_object_get(run, "gpus"), *tg = json_object_get(json_object_get(run, "topology"), "gpus"), *g;
  size_t i;
  if (!json_array_size(gpus) && !json_array_size(tg)) {
    fputs("<p>No GPU: the ranks ran on CPU cores (host backends).</p>\n", f);
    return;
  }
  fputs("<div class=\"scroll\"><table class=\"gpus\"><caption>GPUs</caption><tr><th>#</th><th class=\"l\">name</th><th class=\"l\">PCI bus id</th>"
        "<th>compute capability</th><th>memory GiB</th><th>NUMA</th><th>socket</th><th>PCIe link GB/s</th></tr>\n", f);
  size_t n = json_array_size(gpus) > json_array_size(tg) ? json_array_size(gpus) : json_array_size(tg);
  for (i = 0; i < n; i++) {
    json_t *d = json_array_get(gpus, i);
    g = json_array_get(tg, i);
    char mem[32] = "";
    double b = ar_pj_num(d, "memory_bytes");
    if (!isnan(b)) snprintf(mem, sizeof mem, "%.1f", b / (1024.0 * 1024 * 1024));
    fprintf(f, "<tr><td>%zu</td>", i);
    vcell(f, "l", d, "name");
    cell(f, "l", *ar_pj_str(d, "busid") ? ar_pj_str(d, "busid") : ar_pj_str(g, "busid"));
    vcell(f, "", d, "cc");
    cell(f, "", mem);
    vcell(f, "", g, "numa");
    vcell(f, "", g, "package");
    vcell(f, "", g, "link_gbs");
    fputs("</tr>\n", f);
  }
  fputs("</table></div>\n", f);
}

/* The GPU-to-GPU paths hwloc found (PIX: one PCIe switch, PXB: several, PHB: through the host bridge, NODE:
 * across host bridges of one NUMA node, SYS: across sockets) and the narrowest link on each path. */
static void path_matrix(FILE *f, json_t *topo) {
  json_t *paths = json_object_get(topo, "paths"), *bw = json_object_get(topo, "path_gbs");
  size_t n = json_array_size(paths);
  if (!n) return;
  fputs("<div class=\"scroll\"><table class=\"paths\"><caption>PCIe paths between GPUs (hwloc): path class and the "
        "narrowest link on the path, GB/s; row = from, column = to</caption><tr><th>GPU</th>", f);
  for (size_t j = 0; j < n; j++) fprintf(f, "<th>%zu</th>", j);
  fputs("</tr>\n", f);
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "<tr><th>%zu</th>", i);
    for (size_t j = 0; j < n; j++) {
      const char *cls = json_string_value(json_array_get(json_array_get(paths, i), j));
      double g = json_number_value(json_array_get(json_array_get(bw, i), j));
      char lc[16];
      ar_html_id(lc, sizeof lc, cls ? cls : "x");
      fprintf(f, "<td class=\"path path-%s\">", i == j ? "self" : lc);
      if (i == j) fputs("X", f);
      else if (g > 0) ar_html_printf(f, "%s %.1f", cls ? cls : "?", g);
      else ar_html_text(f, cls ? cls : "?");
      fputs("</td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</table></div>\n<p class=\"meta\">PIX: through one PCIe switch; PXB: several switches; PHB: through the "
        "host bridge; NODE: between host bridges of one NUMA node; SYS: across sockets. Darker is farther.</p>\n", f);
}

static void machine(struct ar_render *r, json_t *run, int nruns) {
  FILE *f = r->f;
  json_t *t = json_object_get(run, "topology");
  char hosts[512];
  join(json_object_get(run, "hosts"), ", ", hosts, sizeof hosts);
  fputs("<h3>", f);
  ar_html_printf(f, "%s%s%s", *hosts ? hosts : "host not recorded", *ar_pj_str(t, "machine") ? ": " : "", ar_pj_str(t, "machine"));
  fputs("</h3>\n<p>", f);
  if (json_is_object(t))
    ar_html_printf(f, "%lld socket%s, %lld NUMA node%s, %lld cores (%lld hardware threads); topology from hwloc (%s, %s). ",
                   (long long)json_integer_value(json_object_get(t, "packages")), json_integer_value(json_object_get(t, "packages")) == 1 ? "" : "s",
                   (long long)json_integer_value(json_object_get(t, "numa_nodes")), json_integer_value(json_object_get(t, "numa_nodes")) == 1 ? "" : "s",
                   (long long)json_integer_value(json_object_get(t, "cores")), (long long)json_integer_value(json_object_get(t, "pus")),
                   ar_pj_str(t, "source"), ar_pj_str(t, "digest"));
  else ar_html_text(f, "No topology recorded (hwloc discovery failed or an imported log). ");
  ar_html_printf(f, "%d run%s measured here.", nruns, nruns == 1 ? "" : "s");
  if (!isnan(ar_pj_num(t, "bottleneck_gbs")))
    ar_html_printf(f, " Narrowest link on the GPUs' paths: %.1f GB/s.", ar_pj_num(t, "bottleneck_gbs"));
  fputs("</p>\n", f);
  gpu_table(f, run);
  path_matrix(f, t);
}

static void machines(struct ar_render *r) {
  json_t *seen = json_object(), *run;
  const char *id;
  json_object_foreach(r->p->runs, id, run) {
    char k[1200];
    machine_key(run, k, sizeof k);
    json_t *c = json_object_get(seen, k);
    json_object_set_new(seen, k, json_integer(c ? json_integer_value(c) + 1 : 1));
  }
  void *it = json_object_iter(seen);
  for (; it; it = json_object_iter_next(seen, it)) {
    json_object_foreach(r->p->runs, id, run) {
      char k[1200];
      machine_key(run, k, sizeof k);
      if (strcmp(k, json_object_iter_key(it))) continue;
      machine(r, run, (int)json_integer_value(json_object_iter_value(it)));
      break;
    }
  }
  if (!json_object_size(r->p->runs)) fputs("<p>No run records: the files hold results without the run that wrote them (e.g. imported).</p>\n", r->f);
  json_decref(seen);
  if (!ar_page_figure(r, "topology", "The machine's topology (arbench topo --format dot, drawn by graphviz): packages, "
                                     "NUMA nodes, PCIe bridges and switches, GPUs, links labelled with GB/s"))
    return;
  fputs("<p class=\"meta\">No topology picture: it is drawn when the page is made on the machine that measured, or "
        "from its hwloc XML (--topo-xml FILE). The paths above are the run records'.</p>\n", r->f);
}

static void stack_row(FILE *f, json_t *run, const char *id) {
  json_t *s = json_object_get(run, "stack"), *a = json_object_get(run, "arbench");
  char ver[160];
  snprintf(ver, sizeof ver, "%s%s%s%s", *ar_pj_str(a, "version") ? ar_pj_str(a, "version") : "?",
           *ar_pj_str(a, "git") ? " (git " : "", ar_pj_str(a, "git"), *ar_pj_str(a, "git") ? ")" : "");
  static const char *const keys[] = {"l:name", "cuda_compiled", "cuda_runtime", "cuda_driver", "nccl_compiled",
                                     "nccl_loaded", "l:archs"};
  fputs("<tr>", f);
  vcells(f, s, keys, sizeof keys / sizeof keys[0]);
  vcell(f, "l", json_object_get(run, "mpi"), "library");
  vcell(f, "", json_object_get(run, "hwloc"), "loaded");
  cell(f, "l", ver);
  cell(f, "l", id);
  fputs("</tr>\n", f);
}

/* One row per distinct stack (its fields and arbench's version), the first run that used it. */
static void stacks(struct ar_render *r) {
  json_t *seen = json_object(), *run;
  const char *id;
  fputs("<h3>Stacks</h3>\n<div class=\"scroll\"><table><tr><th class=\"l\">stack</th><th>CUDA headers</th><th>CUDA runtime</th>"
        "<th>driver</th><th>NCCL headers</th><th>NCCL loaded</th><th class=\"l\">archs</th><th class=\"l\">MPI</th>"
        "<th>hwloc</th><th class=\"l\">arbench</th><th class=\"l\">first run</th></tr>\n", r->f);
  json_object_foreach(r->p->runs, id, run) {
    json_t *key = json_array();
    static const char *const parts[] = {"stack", "arbench", "mpi", "hwloc"};
    for (size_t i = 0; i < 4; i++) json_array_append(key, json_object_get(run, parts[i]) ? json_object_get(run, parts[i]) : json_null());
    char *k = json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(key);
    if (k && !json_object_get(seen, k)) {
      json_object_set_new(seen, k, json_true());
      stack_row(r->f, run, id);
    }
    free(k);
  }
  fputs("</table></div>\n", r->f);
  json_decref(seen);
}

static void run_row(FILE *f, const char *id, json_t *run) {
  json_t *o = json_object_get(run, "options"), *pt = json_object_get(run, "point");
  char cmd[1024], buf[512], point[512] = "";
  const char *k;
  json_t *v;
  size_t n = 0;
  join(json_object_get(run, "command"), " ", cmd, sizeof cmd);
  if (!*cmd && *ar_pj_str(run, "imported_from")) /* an imported log (arbench import): where it came from */
    snprintf(cmd, sizeof cmd, "arbench import %s %s", ar_pj_str(run, "source"), ar_pj_str(run, "imported_from"));
  json_object_foreach(pt, k, v) {
    value_text(v, buf, sizeof buf);
    n += (size_t)snprintf(point + n, n < sizeof point ? sizeof point - n : 0, "%s%s=%s", n ? ", " : "", k, buf);
  }
  fputs("<tr>", f);
  cell(f, "l", id);
  vcell(f, "l", run, "start");
  cell(f, "l cmd", cmd);
  cell(f, "l", point);
  join(json_object_get(run, "hosts"), ", ", buf, sizeof buf);
  cell(f, "l", buf);
  snprintf(buf, sizeof buf, "%lld / %lld", (long long)json_integer_value(json_object_get(run, "ranks")),
           (long long)json_integer_value(json_object_get(run, "nodes")));
  cell(f, "", buf);
  static const char *const keys[] = {"iters", "warmup", "repeat", "buffers", "timing", "average", "check"};
  vcell(f, "l", json_object_get(run, "stack"), "name");
  vcells(f, o, keys, sizeof keys / sizeof keys[0]);
  fputs("</tr>\n", f);
}

/* Every run: when, what it ran, where, and its method (buffers, timing, -a) with iterations and repeats. */
static void runs(struct ar_render *r) {
  FILE *f = r->f;
  json_t *run;
  const char *id;
  size_t n = json_object_size(r->p->runs);
  if (!n) return;
  fprintf(f, "<h3>Runs and method</h3>\n<details%s><summary>", n <= 8 ? " open" : "");
  ar_html_printf(f, "%zu run%s: when, the command, where, and the method (iterations, repeats, buffers, timing, "
                 "how ranks' times combine)", n, n == 1 ? "" : "s");
  fputs("</summary>\n<div class=\"scroll\"><table class=\"runs\"><tr><th class=\"l\">run</th><th class=\"l\">start (UTC)</th>"
        "<th class=\"l\">command</th><th class=\"l\">sweep point</th><th class=\"l\">hosts</th><th>ranks / nodes</th>"
        "<th class=\"l\">stack</th><th>iters</th><th>warm-up</th><th>repeats</th><th>buffers</th><th>timing</th>"
        "<th>-a</th><th>check</th></tr>\n", f);
  json_object_foreach(r->p->runs, id, run) run_row(f, id, run);
  fputs("</table></div></details>\n", f);
}

void ar_page_provenance(struct ar_render *r) {
  fputs("<section id=\"provenance\"><h2>What was measured, and where</h2>\n", r->f);
  machines(r);
  if (json_object_size(r->p->runs)) stacks(r);
  runs(r);
  fputs("</section>\n", r->f);
}
