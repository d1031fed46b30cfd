/* fleet_read.c — many boxes' results files streamed into fleet's model: a box per (host, group), a cell per
 * compared measurement, per box and cell the log time of each run and, for one run, its samples' window. */
#include "analysis/analysis.h"
#include "analysis/fleet.h"
#include "ar.h"
#include "results.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rd {
  struct ar_fleet *f;
  char *err;
  size_t len;
};

static int grow(void **p, int *cap, int n, size_t sz) {
  if (n < *cap) return 0;
  int nc = *cap ? *cap * 2 : 64;
  void *q = realloc(*p, (size_t)nc * sz);
  if (!q) return -AR_ERUNTIME;
  memset((char *)q + (size_t)*cap * sz, 0, (size_t)(nc - *cap) * sz);
  *p = q;
  *cap = nc;
  return 0;
}

/* Index of key in idx, or a new entry made by add (its index = *n, then ++*n); -1 when out of memory. */
static int intern(json_t *idx, const char *key, void **arr, int *n, int *cap, size_t sz) {
  json_t *v = json_object_get(idx, key);
  if (v) return (int)json_integer_value(v);
  if (grow(arr, cap, *n, sz) || json_object_set_new(idx, key, json_integer(*n))) return -1;
  return (*n)++;
}

static void note(struct ar_fleet *f, const char *line) {
  size_t i;
  json_t *s;
  json_array_foreach(f->notes, i, s) if (!strcmp(json_string_value(s), line)) return;
  json_array_append_new(f->notes, json_string(line));
}

/* The group of a run record: the first GPU's model and the GPU count the run saw, and the stack's name. */
static int group_of(struct ar_fleet *f, json_t *run) {
  json_t *gpus = json_object_get(run, "gpus");
  const char *model = json_string_value(json_object_get(json_array_get(gpus, 0), "name"));
  const char *stack = json_string_value(json_object_get(json_object_get(run, "stack"), "name"));
  int n = (int)json_array_size(gpus);
  char key[256];
  snprintf(key, sizeof key, "%s x %d, stack %s", model ? model : "no GPU", n, stack ? stack : "unknown");
  if (!n) snprintf(key, sizeof key, "no GPU (CPU ranks), stack %s", stack ? stack : "unknown");
  int was = f->ng, g = intern(f->gidx, key, (void **)&f->g, &f->ng, &f->capg, sizeof *f->g);
  if (g >= 0 && g == was) {
    struct ar_fl_group *G = &f->g[g];
    snprintf(G->key, sizeof G->key, "%s", key);
    snprintf(G->model, sizeof G->model, "%s", model ? model : "no GPU");
    snprintf(G->stack, sizeof G->stack, "%s", stack ? stack : "unknown");
    G->gpus = n;
  }
  return g;
}

/* The host a run measured: a --per-node record's "host", else the only host of a one-node run; NULL when the
 * run spans nodes (not one box). */
static const char *host_of(json_t *run) {
  const char *h = json_string_value(json_object_get(run, "host"));
  if (h) return h;
  json_t *hosts = json_object_get(run, "hosts");
  if (json_array_size(hosts) == 1 && ar_rec_num(run, "nodes", 1) == 1) return json_string_value(json_array_get(hosts, 0));
  return NULL;
}

static int on_run(struct rd *r, json_t *rec, const char *src) {
  struct ar_fleet *f = r->f;
  json_t *schema = json_object_get(rec, "schema");
  if (schema && (!json_is_integer(schema) || json_integer_value(schema) != AR_SCHEMA_VERSION)) {
    snprintf(r->err, r->len, "%s: run record of another schema; this arbench reads schema %d (results/SCHEMA.md)", src,
             AR_SCHEMA_VERSION);
    return -AR_EINVAL;
  }
  const char *id = json_string_value(json_object_get(rec, "run_id")), *host = host_of(rec);
  if (!id) {
    snprintf(r->err, r->len, "%s: run record without a run_id; is this an arbench results file?", src);
    return -AR_EINVAL;
  }
  if (!host) {
    note(f, "runs over several nodes (not one box: measure each node alone with run --per-node)");
    return json_object_set_new(f->runs, id, json_integer(-1)) ? -AR_ERUNTIME : 0;
  }
  int g = group_of(f, rec);
  char key[512];
  snprintf(key, sizeof key, "%s|%d", host, g);
  int was = f->nb, b = g < 0 ? -1 : intern(f->bidx, key, (void **)&f->b, &f->nb, &f->capb, sizeof *f->b);
  if (b < 0) return -AR_ERUNTIME;
  if (b == was) {
    struct ar_fl_box *B = &f->b[b];
    snprintf(B->host, sizeof B->host, "%s", host);
    snprintf(B->run_src, sizeof B->run_src, "%.159s", src);
    B->group = g;
    json_t *t = json_object_get(rec, "topology");
    B->topo = json_is_object(t) ? json_incref(t) : NULL;
    const char *job = json_string_value(json_object_get(json_object_get(rec, "slurm"), "job_id"));
    snprintf(B->slurm_job, sizeof B->slurm_job, "%s", job ? job : "");
  }
  return json_object_set_new(f->runs, id, json_integer(b)) ? -AR_ERUNTIME : 0;
}

/* The box of a record's run: its index, -1 when the run is not one box, -2 (err set) when unknown. */
static int box_of(struct rd *r, json_t *rec, const char *src) {
  const char *id = json_string_value(json_object_get(rec, "run_id"));
  json_t *b = id ? json_object_get(r->f->runs, id) : NULL;
  if (b) return (int)json_integer_value(b);
  snprintf(r->err, r->len, "%s: record of run '%s' before (or without) its run record: fleet needs every run "
           "record (the host, GPUs and stack of a box)", src, id ? id : "?");
  return -2;
}

static int cell_of(struct ar_fleet *f, const char *key, const struct ar_fl_cell *proto) {
  int was = f->nc, c = intern(f->cidx, key, (void **)&f->c, &f->nc, &f->capc, sizeof *f->c);
  if (c >= 0 && c == was) {
    f->c[c] = *proto;
    snprintf(f->c[c].key, sizeof f->c[c].key, "%s", key);
  }
  return c;
}

static struct ar_fl_meas *meas_of(struct ar_fleet *f, int box, int cell) {
  char key[64];
  snprintf(key, sizeof key, "%d|%d", box, cell);
  int was = f->nm, m = intern(f->midx, key, (void **)&f->m, &f->nm, &f->capm, sizeof *f->m);
  if (m < 0) return NULL;
  if (m == was) f->m[m].box = box, f->m[m].cell = cell;
  return &f->m[m];
}

/* Add one run's log time; 1 when the run was there already (dropped), 0 added, -AR_ERUNTIME. */
static int add_value(struct ar_fl_meas *m, const char *run, double log_us) {
  for (int i = 0; i < m->nv; i++)
    if (!strcmp(m->run[i], run)) return 1;
  if (m->nv == m->cap) {
    int nc = m->cap ? m->cap * 2 : 4;
    double *v = realloc(m->v, sizeof *v * (size_t)nc);
    if (v) m->v = v;
    char(*k)[48] = realloc(m->run, sizeof *k * (size_t)nc);
    if (k) m->run = k;
    if (!v || !k) return -AR_ERUNTIME;
    m->cap = nc;
  }
  snprintf(m->run[m->nv], sizeof m->run[0], "%s", run);
  m->v[m->nv++] = log_us;
  return 0;
}

static int cmp_d(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* A result measured in one run keeps the window of its samples around the median (ar_samples_window); a
 * second run makes it a runs' comparison, and the window goes. */
static int keep_window(struct ar_fl_meas *m, const struct ar_samples *sm) {
  free(m->win);
  m->win = NULL;
  m->nwin = 0;
  if (m->nv != 1 || !sm->present || !sm->n) return 0;
  size_t off, w = ar_samples_window(sm->n, &off);
  qsort(sm->v, sm->n, sizeof *sm->v, cmp_d);
  m->win = malloc(sizeof *m->win * w);
  if (!m->win) return -AR_ERUNTIME;
  memcpy(m->win, sm->v + off, sizeof *m->win * w);
  m->nwin = (int)w, m->woff = (int)off, m->wn = (int)sm->n;
  return 0;
}

static int on_result(struct rd *r, json_t *rec, const struct ar_samples *sm, const char *src, int box) {
  struct ar_fleet *f = r->f;
  json_t *size = json_object_get(rec, "size");
  const char *be = json_string_value(json_object_get(rec, "backend")), *dt = json_string_value(json_object_get(rec, "dtype"));
  double p50 = ar_rec_p50(rec);
  if (!be || !dt || !json_is_integer(size) || json_integer_value(size) < 0 || !(p50 >= 0) || isinf(p50)) {
    snprintf(r->err, r->len, "%s: result record with a missing or impossible backend, dtype, size or time_us.p50", src);
    return -AR_EINVAL;
  }
  if (!(p50 > 0)) return note(f, "results with a p50 of 0 us (nothing to take a ratio of)"), 0;
  char point[200], meth[80], key[512], run[48];
  ar_rec_point(rec, point, sizeof point);
  ar_rec_method(rec, meth, sizeof meth);
  const char *spec = ar_rec_str(rec, "spec", be);
  int ranks = ar_rec_ranks(rec);
  struct ar_fl_cell proto = {.kind = AR_FL_RESULT, .group = f->b[box].group, .size = (size_t)json_integer_value(size)};
  snprintf(key, sizeof key, "%d|R|%s|%s|%s|%s|%s|%d|%s|%s|%lld", proto.group, meth, spec, point, dt, ar_rec_str(rec, "op", "sum"),
           ranks, ar_rec_placement(rec), ar_rec_str(rec, "variant", ""), (long long)proto.size);
  snprintf(proto.what, sizeof proto.what, "%.48s%s%.46s", spec, *point ? " " : "", point);
  snprintf(proto.label, sizeof proto.label, "%s %s %d ranks%s", proto.what, dt, ranks,
           strcmp(ar_rec_placement(rec), "in") ? "" : " in-place");
  int c = cell_of(f, key, &proto);
  struct ar_fl_meas *m = c < 0 ? NULL : meas_of(f, box, c);
  if (!m) return -AR_ERUNTIME;
  snprintf(run, sizeof run, "%.32s#%d", ar_rec_str(rec, "run_id", "?"), (int)ar_rec_num(rec, "repeat", 0));
  int rc = add_value(m, run, log(p50));
  return rc ? (rc > 0 ? 0 : rc) : keep_window(m, sm);
}

/* A link record's values as times: GB/s -> us for its bytes (each repeat of samples_gbs, else gbs), or the
 * latency's us (samples_us, else us). Returns how many, at most max. */
static int link_values(json_t *rec, const struct ar_samples *sm, double bytes, double *out, int max, int *gbs) {
  int n = 0;
  json_t *g = json_object_get(rec, "gbs"), *a = json_object_get(rec, "samples_gbs");
  *gbs = json_is_number(g);
  if (*gbs) {
    for (size_t i = 0; i < json_array_size(a) && n < max; i++) {
      double v = json_number_value(json_array_get(a, i));
      if (v > 0) out[n++] = bytes / (v * 1e3);
    }
    if (!n && json_number_value(g) > 0) out[n++] = bytes / (json_number_value(g) * 1e3);
    return n;
  }
  for (size_t i = 0; sm->present && i < sm->n && n < max; i++)
    if (sm->v[i] > 0) out[n++] = sm->v[i];
  if (!n && ar_rec_num(rec, "us", 0) > 0) out[n++] = ar_rec_num(rec, "us", 0);
  return n;
}

static int on_link(struct rd *r, json_t *rec, const struct ar_samples *sm, const char *src, int box) {
  struct ar_fleet *f = r->f;
  const char *meth = json_string_value(json_object_get(rec, "method")), *dir = ar_rec_str(rec, "direction", "?"),
             *pat = ar_rec_str(rec, "pattern", "?");
  double bytes = ar_rec_num(rec, "bytes", -1), v[256];
  if (!meth || !(bytes > 0) || !json_is_integer(json_object_get(rec, "src")) || !json_is_integer(json_object_get(rec, "dst"))) {
    snprintf(r->err, r->len, "%s: link record with a missing or impossible method, bytes, src or dst", src);
    return -AR_EINVAL;
  }
  int gbs, n = link_values(rec, sm, bytes, v, 256, &gbs);
  if (!n) return 0;
  int s = (int)ar_rec_num(rec, "src", -1), d = (int)ar_rec_num(rec, "dst", -1), root = (int)ar_rec_num(rec, "root", -1);
  struct ar_fl_cell proto = {.kind = AR_FL_LINK, .group = f->b[box].group, .size = (size_t)bytes, .unit_gbs = (char)gbs};
  char key[512], run[48];
  snprintf(key, sizeof key, "%d|L|%s|%s|%s|%d|%d->%d|%.0f|%d|%d", proto.group, meth, dir, pat, root, s, d, bytes,
           (int)ar_rec_num(rec, "flows", 1), (int)ar_rec_num(rec, "ranks", 0));
  snprintf(proto.what, sizeof proto.what, "link %d->%d %s%s%s", s, d, meth, strcmp(dir, "uni") ? " " : "",
           strcmp(dir, "uni") ? dir : "");
  snprintf(proto.label, sizeof proto.label, "link %s %s %s %d->%d", meth, dir, pat, s, d);
  snprintf(proto.path, sizeof proto.path, "%s", ar_rec_str(rec, "path", "?"));
  int c = cell_of(f, key, &proto);
  struct ar_fl_meas *m = c < 0 ? NULL : meas_of(f, box, c);
  if (!m) return -AR_ERUNTIME;
  for (int i = 0; i < n; i++) {
    snprintf(run, sizeof run, "%.32s#%d", ar_rec_str(rec, "run_id", "?"), i);
    int rc = add_value(m, run, log(v[i]));
    if (rc < 0) return rc;
  }
  return 0;
}

static int on_record(json_t *rec, const struct ar_samples *sm, const char *path, int line, void *arg) {
  struct rd *r = arg;
  const char *type = ar_rec_str(rec, "type", "");
  char src[1100];
  snprintf(src, sizeof src, "%s:%d", path, line);
  if (!strcmp(type, "run")) return on_run(r, rec, src);
  int result = !strcmp(type, "result"), link = !strcmp(type, "link");
  if (!result && !link) return 0; /* skip, error, point, sweep records: not compared */
  int box = box_of(r, rec, src);
  if (box == -2) return -AR_EINVAL;
  r->f->records++;
  if (box < 0) return r->f->left_out++, 0;
  if (ar_rec_num(rec, "wrong", 0) > 0) { /* a box that computes wrong sums is off, whatever its speed */
    struct ar_fl_box *B = &r->f->b[box];
    if (!B->wrong)
      snprintf(B->wrong_what, sizeof B->wrong_what, "%.40s %.20s %s (%.120s)", ar_rec_str(rec, result ? "spec" : "method", "?"),
               ar_rec_str(rec, result ? "dtype" : "pattern", ""), result ? "result" : "link", src);
    B->wrong += (long long)ar_rec_num(rec, "wrong", 0);
    return 0;
  }
  return result ? on_result(r, rec, sm, src, box) : on_link(r, rec, sm, src, box);
}

int ar_fleet_read(struct ar_fleet *f, int nfiles, char **paths, char *err, size_t len) {
  memset(f, 0, sizeof *f);
  f->gidx = json_object(), f->bidx = json_object(), f->cidx = json_object(), f->midx = json_object();
  f->runs = json_object(), f->notes = json_array();
  struct rd r = {f, err, len};
  int rc = 0;
  for (int i = 0; !rc && i < nfiles; i++) {
    rc = ar_results_read_samples(paths[i], on_record, &r, err, len);
    if (rc > 0) rc = -AR_EINVAL;
  }
  return rc;
}

void ar_fleet_free(struct ar_fleet *f) {
  for (int i = 0; i < f->nb; i++) json_decref(f->b[i].topo);
  for (int i = 0; i < f->nm; i++) free(f->m[i].v), free(f->m[i].run), free(f->m[i].win);
  free(f->g), free(f->b), free(f->c), free(f->m);
  json_decref(f->gidx), json_decref(f->bidx), json_decref(f->cidx), json_decref(f->midx);
  json_decref(f->runs), json_decref(f->notes);
  memset(f, 0, sizeof *f);
}
