/* analysis.c — loading results for the analysis commands, filters, configuration labels and the
 * size x configuration grid that table and tune print from. Reads only the JSON Lines format. */
#include "analysis/analysis.h"
#include "ar.h"
#include "backend.h"
#include "results.h"
#include "stats.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- loading ---- */

struct load_ctx {
  struct ar_ana *a;
  char *err;
  size_t len;
  json_t *cells;  /* measurement key -> object of its run keys (the runs kept) */
  size_t capped;  /* records of runs beyond AR_RUNS_MAX of one measurement, not kept */
  double *tmp;    /* samples of a record that kept them in its JSON */
  size_t tmpcap;
};

/* Values no measurement has: a negative size, a rank count below 1, a time that is negative or not a
 * number. Refused with file:line, never shown (a negative size would print as 18446744073709551608). */
static int impossible(json_t *rec, const char *path, int line, char *err, size_t len) {
  json_int_t size = json_integer_value(json_object_get(rec, "size"));
  json_t *ranks = json_object_get(rec, "ranks"), *t = json_object_get(rec, "time_us");
  const char *what = NULL, *q;
  char val[64] = "";
  json_t *v;
  if (size < 0) what = "size", snprintf(val, sizeof val, "%lld", (long long)size);
  else if (ranks && (!json_is_number(ranks) || json_number_value(ranks) < 1))
    what = "ranks", snprintf(val, sizeof val, "%g", json_is_number(ranks) ? json_number_value(ranks) : NAN);
  json_object_foreach(t, q, v) {
    if (what) break;
    if (json_is_null(v)) continue; /* a quantile not computed (p99 of a short run) */
    double x = json_is_number(v) ? json_number_value(v) : NAN;
    if (!(x >= 0) || isinf(x)) what = q, snprintf(val, sizeof val, "%g", x);
  }
  if (!what) return 0;
  snprintf(err, len, "%s:%d: result record with an impossible %s%s (%s): no measurement has one", path, line,
           strcmp(what, "size") && strcmp(what, "ranks") ? "time_us." : "", what, val);
  return -AR_EINVAL;
}

/* A run record of a schema this build does not read (results/SCHEMA.md): refused, never read as ours. */
static int bad_run(json_t *rec, const char *path, int line, char *err, size_t len) {
  json_t *v = json_object_get(rec, "schema");
  if (!v || (json_is_integer(v) && json_integer_value(v) == AR_SCHEMA_VERSION)) return 0;
  char *txt = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
  snprintf(err, len, "%s:%d: run record of schema %s; this arbench reads schema %d (results/SCHEMA.md)", path, line,
           txt ? txt : "?", AR_SCHEMA_VERSION);
  free(txt);
  return -AR_EINVAL;
}

static int bad_result(json_t *rec, const char *path, int line, char *err, size_t len) {
  static const char *const need[] = {"backend", "dtype", "size", "time_us"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (!json_object_get(rec, need[i])) {
      snprintf(err, len, "%s:%d: result record has no \"%s\"; is this an arbench results file?", path,
               line, need[i]);
      return -AR_EINVAL;
    }
  if (!json_is_integer(json_object_get(rec, "size")) || !json_is_string(json_object_get(rec, "backend")) ||
      !json_is_object(json_object_get(rec, "time_us"))) {
    snprintf(err, len, "%s:%d: result record with a malformed \"size\", \"backend\" or \"time_us\"", path, line);
    return -AR_EINVAL;
  }
  return impossible(rec, path, line, err, len);
}

/* ---- samples reduced as they stream ---- */

static void swap_d(double *v, long i, long j) {
  double t = v[i];
  v[i] = v[j];
  v[j] = t;
}

/* Rearrange v[0..n) so that v[k] is the k-th smallest, smaller-or-equal values before it and
 * greater-or-equal after (quickselect, Hoare partition around a median-of-three pivot). */
static void select_kth(double *v, long n, long k) {
  long lo = 0, hi = n - 1;
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (v[mid] < v[lo]) swap_d(v, mid, lo);
    if (v[hi] < v[lo]) swap_d(v, hi, lo);
    if (v[hi] < v[mid]) swap_d(v, hi, mid);
    double pv = v[mid];
    long i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pv) i++;
      while (pv < v[j]) j--;
      if (i <= j) swap_d(v, i++, j--);
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/* Sort v[0..n) ascending: quicksort (Hoare, median of three) down to insertion sort; no comparison
 * callback, the window of every record is sorted while streaming. */
static void sort_d(double *v, long n) {
  while (n > 16) {
    long mid = n / 2, i = 0, j = n - 1;
    if (v[mid] < v[0]) swap_d(v, mid, 0);
    if (v[n - 1] < v[0]) swap_d(v, n - 1, 0);
    if (v[n - 1] < v[mid]) swap_d(v, n - 1, mid);
    double pv = v[mid];
    while (i <= j) {
      while (v[i] < pv) i++;
      while (pv < v[j]) j--;
      if (i <= j) swap_d(v, i++, j--);
    }
    if (j + 1 < n - i) { /* recurse into the smaller part, loop on the larger */
      sort_d(v, j + 1);
      v += i;
      n -= i;
    } else {
      sort_d(v + i, n - i);
      n = j + 1;
    }
  }
  for (long i = 1; i < n; i++) {
    double x = v[i];
    long j = i;
    for (; j > 0 && x < v[j - 1]; j--) v[j] = v[j - 1];
    v[j] = x;
  }
}

size_t ar_samples_window(size_t n, size_t *off) {
  size_t half = (size_t)(5 * sqrt((double)n)) + 3; /* the resampled median's order statistic: sd sqrt(n)/2 */
  size_t lo = n / 2 > half ? n / 2 - half : 0, hi = n / 2 + half + 1 < n ? n / 2 + half + 1 : n;
  *off = lo;
  return hi - lo;
}

/* Replace the record's samples by "_win" (the sorted values of ranks _woff.. of the window around
 * the median, raw doubles), "_wn" (how many samples). Exact order statistics: select, then sort. */
static int keep_window(json_t *rec, double *v, size_t n) {
  json_object_del(rec, "samples_us");
  if (!n) return 0;
  size_t off, w = ar_samples_window(n, &off);
  if (off) select_kth(v, (long)n, (long)off - 1);
  if (off + w < n) select_kth(v + off, (long)(n - off), (long)w);
  sort_d(v + off, (long)w);
  json_t *win = json_stringn_nocheck((const char *)(v + off), w * sizeof *v);
  if (!win || json_object_set_new(rec, "_win", win)) return -AR_ERUNTIME;
  json_object_set_new(rec, "_wn", json_integer((json_int_t)n));
  json_object_set_new(rec, "_woff", json_integer((json_int_t)off));
  return 0;
}

/* samples_us left in the JSON (an unusual line): to doubles in c->tmp. */
static double *json_samples(struct load_ctx *c, json_t *arr, size_t *n) {
  *n = json_array_size(arr);
  if (*n > c->tmpcap) {
    double *t = realloc(c->tmp, *n * sizeof *t);
    if (!t) return NULL;
    c->tmp = t;
    c->tmpcap = *n;
  }
  for (size_t i = 0; i < *n; i++) c->tmp[i] = json_number_value(json_array_get(arr, i));
  return c->tmp;
}

/* A measurement keeps at most AR_RUNS_MAX runs (the first ones; p50 over runs reads no more):
 * 0 to keep rec, 1 to drop it. Records of a run already kept (the same run again) are kept. */
static int over_cap(struct load_ctx *c, json_t *rec) {
  char key[1200], point[200], run[128], meth[80];
  ar_rec_point(rec, point, sizeof point);
  ar_rec_method(rec, meth, sizeof meth);
  snprintf(key, sizeof key, "%s|%s|%s|%s|%s|%s|%s|%d|%s|%s|%lld|%s", meth, ar_rec_str(rec, "type", ""),
           ar_rec_str(rec, "backend", ""), ar_rec_str(rec, "variant", ""), ar_rec_str(rec, "spec", ""), point,
           ar_rec_str(rec, "dtype", ""), ar_rec_ranks(rec), ar_rec_placement(rec), ar_rec_str(rec, "op", "sum"),
           (long long)json_integer_value(json_object_get(rec, "size")), ar_rec_stack(c->a->runs, rec));
  ar_run_key(rec, run, sizeof run);
  json_t *runs = json_object_get(c->cells, key);
  if (!runs) json_object_set_new(c->cells, key, runs = json_object());
  if (json_object_get(runs, run)) return 0;
  if (json_object_size(runs) >= AR_RUNS_MAX) return c->capped++, 1;
  json_object_set_new(runs, run, json_true());
  return 0;
}

static int on_record(json_t *rec, const struct ar_samples *sm, const char *path, int line, void *arg) {
  struct load_ctx *c = arg;
  const char *type = ar_rec_str(rec, "type", "");
  char src[1100];
  snprintf(src, sizeof src, "%s:%d", path, line);
  json_object_set_new(rec, "_src", json_string(src));
  if (!strcmp(type, "run")) {
    int bad = bad_run(rec, path, line, c->err, c->len);
    if (bad) return bad;
    const char *id = ar_rec_str(rec, "run_id", "");
    return json_object_set(c->a->runs, id, rec) ? -AR_ERUNTIME : 0;
  }
  if (!strcmp(type, "result") || !strcmp(type, "prediction")) { /* predictions: `arbench model` */
    int rc = bad_result(rec, path, line, c->err, c->len);
    if (rc) return rc;
    if (over_cap(c, rec)) return 0;
    size_t n = sm->n;
    double *v = sm->present ? sm->v : NULL;
    if (!v && json_is_array(json_object_get(rec, "samples_us")))
      v = json_samples(c, json_object_get(rec, "samples_us"), &n);
    if (v ? keep_window(rec, v, n) : (json_object_del(rec, "samples_us"), 0)) return -AR_ERUNTIME;
    return json_array_append(c->a->results, rec) ? -AR_ERUNTIME : 0;
  }
  if (sm->present && !strcmp(type, "link")) { /* a link record keeps its repeats' values (compare's noise rule) */
    json_t *a = json_array();
    for (size_t i = 0; i < sm->n; i++) json_array_append_new(a, json_real(sm->v[i]));
    json_object_set_new(rec, "samples_us", a);
  }
  return json_array_append(c->a->notes, rec) ? -AR_ERUNTIME : 0;
}

/* Sweep rule: when the files hold sweep `point` records, a record carrying a "point" counts only if
 * a `point` record with status "done" lists its run_id (a timed-out or killed launch's partial
 * records are dropped). Returns how many records were dropped. */
static size_t drop_incomplete(struct ar_ana *a) {
  json_t *done = json_object(), *rec;
  int sweep = 0;
  size_t i, dropped = 0;
  json_array_foreach(a->notes, i, rec) {
    if (strcmp(ar_rec_str(rec, "type", ""), "point")) continue;
    sweep = 1;
    if (strcmp(ar_rec_str(rec, "status", ""), "done")) continue;
    json_t *id;
    size_t k;
    json_array_foreach(json_object_get(rec, "run_ids"), k, id)
      if (json_is_string(id)) json_object_set_new(done, json_string_value(id), json_true());
  }
  json_t *lists[2] = {a->results, a->notes};
  for (int l = 0; sweep && l < 2; l++)
    for (i = 0; i < json_array_size(lists[l]);) {
      rec = json_array_get(lists[l], i);
      /* only records written by `arbench run` (they have a run_id); the sweep's own records stay */
      int keep = !json_object_get(rec, "point") || !json_is_string(json_object_get(rec, "run_id")) ||
                 json_object_get(done, ar_rec_str(rec, "run_id", ""));
      if (keep) i++;
      else {
        json_array_remove(lists[l], i);
        dropped++;
      }
    }
  json_decref(done);
  return dropped;
}

/* Is backend name b in the JSON array of names? */
static int listed(json_t *list, const char *b) {
  size_t i;
  json_t *v;
  json_array_foreach(list, i, v) if (json_is_string(v) && !strcmp(json_string_value(v), b)) return 1;
  return 0;
}

/* Sweep rule 2: an --env axis that the sweep recorded as not applying to a backend (its sweep record's
 * "applies") leaves that backend's sweep points: the pair moves from "point" to "_pooled", so its runs at
 * every value of the axis are one configuration (the grid names the points pooled). Returns how many
 * records were folded. */
static size_t fold_pooled(struct ar_ana *a) {
  json_t *applies = json_object(), *sweep_of = json_object(), *rec, *id;
  size_t i, k, folded = 0;
  json_array_foreach(a->notes, i, rec) {
    const char *type = ar_rec_str(rec, "type", ""), *sid = ar_rec_str(rec, "sweep_id", "");
    if (!strcmp(type, "sweep") && json_is_object(json_object_get(rec, "applies")))
      json_object_set(applies, sid, json_object_get(rec, "applies"));
    if (!strcmp(type, "point"))
      json_array_foreach(json_object_get(rec, "run_ids"), k, id)
        if (json_is_string(id)) json_object_set_new(sweep_of, json_string_value(id), json_string(sid));
  }
  json_array_foreach(a->results, i, rec) {
    const char *sid = json_string_value(json_object_get(sweep_of, ar_rec_str(rec, "run_id", "")));
    json_t *ap = sid ? json_object_get(applies, sid) : NULL, *point = json_object_get(rec, "point"), *v;
    const char *key;
    void *tmp;
    if (!ap || !json_is_object(point)) continue;
    json_object_foreach_safe(point, tmp, key, v) {
      json_t *list = json_object_get(json_object_get(ap, key), "backends");
      if (!json_is_array(list) || listed(list, ar_rec_str(rec, "backend", ""))) continue;
      json_t *pooled = json_object_get(rec, "_pooled");
      if (!pooled) json_object_set_new(rec, "_pooled", pooled = json_object());
      json_object_set(pooled, key, v);
      json_object_del(point, key);
    }
    folded += json_object_get(rec, "_pooled") != NULL;
  }
  json_decref(applies);
  json_decref(sweep_of);
  return folded;
}

static void value_str(json_t *v, char *buf, size_t len);

/* One identity per configuration: a sweep axis whose value is the record's own setting (np, the rank count the
 * record ran with) makes no other configuration: the pair moves from "point" to "_own" (filters still see it), so
 * a 2-rank run and a 2-rank sweep point of the same backend are one column. Returns how many records moved. */
static size_t fold_own(struct ar_ana *a) {
  size_t i, n = 0;
  json_t *rec;
  json_array_foreach(a->results, i, rec) {
    json_t *point = json_object_get(rec, "point"), *np = json_object_get(point, "np");
    char v[128], r[32];
    if (!np) continue;
    value_str(np, v, sizeof v);
    snprintf(r, sizeof r, "%d", ar_rec_ranks(rec));
    if (strcmp(v, r)) continue;
    json_t *own = json_object_get(rec, "_own");
    if (!own) json_object_set_new(rec, "_own", own = json_object());
    json_object_set(own, "np", np);
    json_object_del(point, "np");
    if (!json_object_size(point)) json_object_del(rec, "point");
    n++;
  }
  return n;
}

int ar_ana_load(struct ar_ana *a, int nfiles, char **paths, char *err, size_t len) {
  a->results = json_array();
  a->runs = json_object();
  a->notes = json_array();
  struct load_ctx c = {a, err, len, json_object(), 0, NULL, 0};
  int rc = 0;
  for (int i = 0; !rc && i < nfiles; i++) {
    rc = ar_results_read_samples(paths[i], on_record, &c, err, len);
    if (rc > 0) rc = -AR_EINVAL;
  }
  json_decref(c.cells);
  free(c.tmp);
  if (rc) return rc;
  if (c.capped)
    fprintf(stderr, "arbench: note: ignored %zu records of runs beyond the first %d of one measurement\n", c.capped,
            AR_RUNS_MAX);
  size_t dropped = drop_incomplete(a);
  if (dropped)
    fprintf(stderr, "arbench: note: ignored %zu records of sweep launches that did not complete\n", dropped);
  fold_pooled(a);
  fold_own(a);
  return 0;
}

int ar_ana_nothing(const struct ar_ana *a, const char *cmd, int nfiles, char **paths) {
  if (json_array_size(a->results)) return 0;
  char names[600] = "";
  for (int i = 0; i < nfiles; i++) {
    size_t l = strlen(names);
    snprintf(names + l, sizeof names - l, "%s%s", i ? ", " : "", paths[i]);
  }
  json_t *r, *first = NULL; /* a failed launch's error record says why there is nothing: quote the first */
  size_t i, nerr = 0;
  json_array_foreach(a->notes, i, r) if (!strcmp(ar_rec_str(r, "type", ""), "error") && !nerr++) first = r;
  char why[700];
  const char *w = "";
  if (first) {
    ar_note_line(first, why, sizeof why);
    w = strncmp(why, "error: ", 7) ? why : why + 7;
  }
  fprintf(stderr, "arbench %s: no result records in %s (%zu run record%s, %zu other): nothing to analyse%s%s\n", cmd,
          names, json_object_size(a->runs), json_object_size(a->runs) == 1 ? "" : "s", json_array_size(a->notes),
          !first ? "" : nerr > 1 ? "; the first error: " : "; error: ", w);
  return 1;
}

void ar_ana_free(struct ar_ana *a) {
  json_decref(a->results);
  json_decref(a->runs);
  json_decref(a->notes);
  memset(a, 0, sizeof *a);
}

/* ---- accessors ---- */

double ar_rec_p(json_t *rec, const char *q) {
  json_t *v = json_object_get(json_object_get(rec, "time_us"), q);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

double ar_rec_p50(json_t *rec) { return ar_rec_p(rec, "p50"); }

const char *ar_rec_placement(json_t *rec) {
  return strcmp(ar_rec_str(rec, "placement", "out"), "in") ? "out" : "in";
}

/* A rank count as written (0 when absent); one that no int holds (a damaged or hostile file) reads as -1. */
int ar_rec_ranks(json_t *rec) {
  double r = ar_rec_num(rec, "ranks", 0);
  return r >= 0 && r <= 1e9 ? (int)r : -1;
}

static void value_str(json_t *v, char *buf, size_t len) {
  if (json_is_string(v)) snprintf(buf, len, "%s", json_string_value(v));
  else if (json_is_integer(v)) snprintf(buf, len, "%lld", (long long)json_integer_value(v));
  else if (json_is_real(v)) snprintf(buf, len, "%g", json_real_value(v));
  else if (json_is_true(v)) snprintf(buf, len, "true");
  else if (json_is_false(v)) snprintf(buf, len, "false");
  else {
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    snprintf(buf, len, "%s", s ? s : "?");
    free(s);
  }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* "K=V,K2=V2" of the object p (and of extra, the pooled pairs, when not NULL), keys sorted. */
static void point_string(json_t *p, json_t *extra, char *buf, size_t len) {
  buf[0] = 0;
  if (json_is_object(extra) && json_object_size(extra)) {
    json_t *all = json_is_object(p) ? json_copy(p) : json_object();
    json_object_update(all, extra);
    point_string(all, NULL, buf, len);
    json_decref(all);
    return;
  }
  if (!json_is_object(p) || !json_object_size(p)) return;
  size_t n = json_object_size(p), k = 0, used = 0;
  const char **keys = calloc(n, sizeof *keys);
  const char *key;
  json_t *v;
  if (!keys) return;
  json_object_foreach(p, key, v) keys[k++] = key;
  qsort(keys, n, sizeof *keys, cmp_str);
  for (size_t i = 0; i < n && used + 1 < len; i++) {
    char val[128];
    value_str(json_object_get(p, keys[i]), val, sizeof val);
    used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? "," : "", keys[i], val);
    if (used >= len) used = len - 1;
  }
  free(keys);
}

/* The pairs added to the record's point: base (a copy; may be NULL) and "as" (run --as ENGINE: the engine's
 * environment, runas.h) as one more pair: a configuration measured as an engine runs it is another
 * configuration (labels, cells, compare's matches). NULL when none. */
static json_t *point_extra(json_t *rec, json_t *base) {
  json_t *as = json_object_get(rec, "as"), *p = json_object_get(rec, "point");
  if (!json_is_string(as) || json_object_get(p, "as") || json_object_get(base, "as")) as = NULL;
  if (!as) return json_is_object(base) ? json_incref(base) : NULL;
  json_t *x = json_is_object(base) ? json_copy(base) : json_object();
  json_object_set(x, "as", as);
  return x;
}

static void point_with(json_t *rec, json_t *base, char *buf, size_t len) {
  json_t *extra = point_extra(rec, base);
  point_string(json_object_get(rec, "point"), extra, buf, len);
  json_decref(extra);
}

void ar_rec_point(json_t *rec, char *buf, size_t len) { point_with(rec, NULL, buf, len); }

/* The point as the sweep launched it: with the pairs folded into "_pooled". */
static void launch_point(json_t *rec, char *buf, size_t len) { point_with(rec, json_object_get(rec, "_pooled"), buf, len); }

const char *ar_rec_stack(json_t *runs, json_t *rec) {
  json_t *run = json_object_get(runs, ar_rec_str(rec, "run_id", ""));
  const char *s = json_string_value(json_object_get(json_object_get(run, "stack"), "name"));
  return s ? s : "unknown";
}

int ar_rec_standin(json_t *runs, json_t *rec) {
  json_t *run = json_object_get(runs, ar_rec_str(rec, "run_id", ""));
  if (!json_object_get(json_object_get(run, "stack"), "standin")) return 0;
  unsigned flags; /* the host backends ran on the CPU for real, whatever CUDA the build had */
  return ar_backend_family(ar_rec_str(rec, "backend", ""), &flags) != AR_BE_FAM_HOST;
}

int ar_results_drop_standin(json_t *results, json_t *runs) {
  int gone = 0;
  for (size_t i = json_array_size(results); i-- > 0;)
    if (ar_rec_standin(runs, json_array_get(results, i))) json_array_remove(results, i), gone++;
  return gone;
}

const char *ar_rec_buffers(json_t *rec) { return strcmp(ar_rec_str(rec, "buffers", "cold"), "hot") ? "cold" : "hot"; }
const char *ar_rec_timing(json_t *rec) { return strcmp(ar_rec_str(rec, "timing", "iter"), "loop") ? "iter" : "loop"; }
const char *ar_rec_average(json_t *rec) {
  const char *a = ar_rec_str(rec, "average", "max");
  return !strcmp(a, "rank0") || !strcmp(a, "mean") || !strcmp(a, "min") ? a : "max";
}

void ar_rec_method(json_t *rec, char *buf, size_t len) {
  snprintf(buf, len, "buffers=%s,timing=%s,average=%s", ar_rec_buffers(rec), ar_rec_timing(rec), ar_rec_average(rec));
}

int ar_rec_predicted(json_t *rec) {
  return !strcmp(ar_rec_str(rec, "type", ""), "prediction") || !strcmp(ar_rec_str(rec, "backend", ""), "model");
}

/* Does a forced protocol list allow LL128 ("LL128", "ll128,simple"; not "^LL128")? */
static int allows_ll128(const char *v) { return v && strcasestr(v, "ll128") && !strchr(v, '^'); }

const char *ar_rec_unsafe(json_t *rec) {
  const char *w = ar_rec_str(rec, "warning", NULL);
  if (w && *w) return w;
  if (strcmp(ar_rec_str(rec, "backend", ""), "nccl")) return NULL;
  const char *var = ar_rec_str(rec, "variant", "");
  const char *pp = json_string_value(json_object_get(json_object_get(rec, "point"), "NCCL_PROTO"));
  const char *proto = strcasestr(var, "proto=");
  if (!allows_ll128(pp) && !(proto && strncasecmp(proto + 6, "ll128", 5) == 0)) return NULL;
  json_t *n = json_object_get(rec, "nccl");
  const char *path = ar_rec_str(n, "path", ""), *tr = ar_rec_str(rec, "nccl_transport", "");
  if (strstr(path, "NVL") || strstr(tr, "NVL")) return NULL;
  return "forces LL128 on a path without NVLink: it can corrupt data (doctor flags NCCL_PROTO=LL128 on PCIe)";
}

/* Keep in fixed (",K=V,...,") only the pairs that the point string pt ("K=V,K2=V2") also has. */
static void keep_shared(char *fixed, const char *pt) {
  char out[512] = ",", have[420];
  size_t n = 1;
  snprintf(have, sizeof have, ",%s,", pt);
  for (char *p = fixed + 1; *p;) {
    char *e = strchr(p, ',');
    if (!e) break;
    char tok[420];
    snprintf(tok, sizeof tok, ",%.*s,", (int)(e - p), p);
    if (e > p && strstr(have, tok) && n + strlen(tok) < sizeof out) n += (size_t)snprintf(out + n, sizeof out - n, "%s", tok + 1);
    p = e + 1;
  }
  snprintf(fixed, 512, "%s", out);
}

/* Is the pair "K=V" one every configuration shares? */
static int is_fixed(const struct ar_vary *v, const char *pair) {
  char tok[300];
  snprintf(tok, sizeof tok, ",%s,", pair);
  return v && strstr(v->fixed, tok) != NULL;
}

void ar_vary_of(json_t *results, json_t *runs, struct ar_vary *v) {
  char b0[8] = "", t0[8] = "", a0[8] = "";
  const char *s0 = NULL;
  int first = 1, first_fixed = 1;
  size_t i;
  json_t *r;
  memset(v, 0, sizeof *v);
  json_array_foreach(results, i, r) {
    if (ar_rec_predicted(r)) continue; /* a prediction has no method or stack of its own */
    if (first) {
      snprintf(b0, sizeof b0, "%s", ar_rec_buffers(r));
      snprintf(t0, sizeof t0, "%s", ar_rec_timing(r));
      snprintf(a0, sizeof a0, "%s", ar_rec_average(r));
      s0 = ar_rec_stack(runs, r);
      first = 0;
    }
    char pt[400];
    launch_point(r, pt, sizeof pt); /* a pair is shared when every launch had it, pooled or not */
    if (first_fixed) {
      snprintf(v->fixed, sizeof v->fixed, ",%s,", pt);
      first_fixed = 0;
    } else keep_shared(v->fixed, pt);
    v->stack |= strcmp(s0, ar_rec_stack(runs, r)) != 0;
    v->buffers |= strcmp(b0, ar_rec_buffers(r)) != 0;
    v->timing |= strcmp(t0, ar_rec_timing(r)) != 0;
    v->average |= strcmp(a0, ar_rec_average(r)) != 0;
  }
}

void ar_vary_common(json_t *rec, const struct ar_vary *v, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  if (!v->buffers) n += (size_t)snprintf(buf + n, len - n, "buffers %s", ar_rec_buffers(rec));
  if (!v->timing && n < len)
    n += (size_t)snprintf(buf + n, len - n, "%stiming %s", n ? ", " : "", ar_rec_timing(rec));
  if (!v->average && n < len) n += (size_t)snprintf(buf + n, len - n, "%s-a %s", n ? ", " : "", ar_rec_average(rec));
  const char *p = v->fixed + (*v->fixed == ',');
  for (int k = 0; *p && n < len; k++) { /* "; sweep point K=V, K2=V2" */
    const char *e = strchr(p, ',');
    if (!e) break;
    if (e == p) { /* an empty pair (no sweep point at all): nothing to name */
      p = e + 1;
      k--;
      continue;
    }
    n += (size_t)snprintf(buf + n, len - n, "%s%.*s", k ? ", " : n ? "; sweep point " : "sweep point ", (int)(e - p), p);
    p = e + 1;
  }
}

/* The point string of rec without the pairs every configuration shares. */
static void varying_point(json_t *rec, const struct ar_vary *v, char *buf, size_t len) {
  char all[400];
  size_t n = 0;
  ar_rec_point(rec, all, sizeof all);
  buf[0] = 0;
  char *save = NULL;
  for (char *t = strtok_r(all, ",", &save); t; t = strtok_r(NULL, ",", &save))
    if (!is_fixed(v, t) && n < len) n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", t);
}

void ar_cfg_label(json_t *rec, json_t *runs, const struct ar_vary *v, char *buf, size_t len) {
  char point[200], meth[80] = "";
  varying_point(rec, v, point, sizeof point);
  const char *spec = ar_rec_str(rec, "spec", NULL);
  char sp[160];
  if (!spec) {
    const char *var = ar_rec_str(rec, "variant", "");
    snprintf(sp, sizeof sp, "%s%s%s", ar_rec_str(rec, "backend", "?"), *var ? ":" : "", var);
    spec = sp;
  }
  int pred = ar_rec_predicted(rec), stack = v && v->stack && !pred;
  if (v && !pred && (v->buffers || v->timing || v->average)) {
    size_t n = 0;
    if (v->buffers) n += (size_t)snprintf(meth + n, sizeof meth - n, "buffers=%s", ar_rec_buffers(rec));
    if (v->timing) n += (size_t)snprintf(meth + n, sizeof meth - n, "%stiming=%s", n ? "," : "", ar_rec_timing(rec));
    if (v->average) snprintf(meth + n, sizeof meth - n, "%sa=%s", n ? "," : "", ar_rec_average(rec));
  }
  snprintf(buf, len, "%s%s%s%s%s%s%s%s%s%s", spec, *point ? " {" : "", point, *point ? "}" : "", stack ? " [" : "",
           stack ? ar_rec_stack(runs, rec) : "", stack ? "]" : "", *meth ? " (" : "", meth, *meth ? ")" : "");
}

int ar_stack_count(json_t *results, json_t *runs) {
  json_t *seen = json_object();
  size_t i;
  json_t *r;
  json_array_foreach(results, i, r) json_object_set_new(seen, ar_rec_stack(runs, r), json_true());
  int n = (int)json_object_size(seen);
  json_decref(seen);
  return n;
}

/* ---- filters ---- */

static int parse_ranks(const char *s, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < 1) return -1;
  *out = v;
  return 0;
}

static int add_one(struct ar_filter *f, const char *what, const char *v, char *err, size_t len) {
  if (!strcmp(what, "backend") && f->nbackend < AR_FILTER_MAX && strlen(v) < 64) {
    snprintf(f->backend[f->nbackend++], 64, "%s", v);
  } else if (!strcmp(what, "dtype") && f->ndtype < AR_FILTER_MAX && strlen(v) < 32) {
    snprintf(f->dtype[f->ndtype++], 32, "%s", v);
  } else if (!strcmp(what, "ranks") && f->nranks < AR_FILTER_MAX) {
    if (parse_ranks(v, &f->ranks[f->nranks])) {
      snprintf(err, len, "bad --ranks value '%s' (expected a positive integer)", v);
      return -AR_EINVAL;
    }
    f->nranks++;
  } else if (!strcmp(what, "placement")) {
    if (strcmp(v, "out") && strcmp(v, "in")) {
      snprintf(err, len, "bad --placement value '%s' (expected out or in)", v);
      return -AR_EINVAL;
    }
    snprintf(f->placement, sizeof f->placement, "%s", v);
  } else if (!strcmp(what, "point") && f->npoint < AR_FILTER_MAX) {
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || (size_t)(eq - v) >= 64 || strlen(eq + 1) >= 128) {
      snprintf(err, len, "bad --point value '%s' (expected NAME=VALUE)", v);
      return -AR_EINVAL;
    }
    snprintf(f->pname[f->npoint], 64, "%.*s", (int)(eq - v), v);
    snprintf(f->pval[f->npoint++], 128, "%s", eq + 1);
  } else {
    snprintf(err, len, "too many or too long --%s values ('%s')", what, v);
    return -AR_EINVAL;
  }
  return 0;
}

int ar_filter_opt(struct ar_filter *f, const char *cmd, int c, const char *arg) {
  static const char *const what[128] = {['k'] = "backend", ['d'] = "dtype", ['r'] = "ranks",
                                        ['p'] = "point", ['P'] = "placement"};
  if (c <= 0 || c >= 128 || !what[c]) return 0;
  char err[AR_ERRLEN];
  if (!ar_filter_add(f, what[c], arg, err, sizeof err)) return 1;
  fprintf(stderr, "arbench %s: %s\n", cmd, err);
  return -AR_EINVAL;
}

int ar_filter_add(struct ar_filter *f, const char *what, const char *arg, char *err, size_t len) {
  if (!strcmp(what, "point") || !strcmp(what, "placement")) return add_one(f, what, arg, err, len);
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", arg);
  char *save = NULL;
  int n = 0;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
    int rc = add_one(f, what, t, err, len);
    if (rc) return rc;
  }
  if (!n) {
    snprintf(err, len, "empty --%s value", what);
    return -AR_EINVAL;
  }
  return 0;
}

static int point_has(json_t *rec, const char *name, const char *val) {
  json_t *v = json_object_get(json_object_get(rec, "point"), name);
  if (!v && !strcmp(name, "as")) v = json_object_get(rec, "as"); /* ar_rec_point's pair */
  if (!v) v = json_object_get(json_object_get(rec, "_pooled"), name); /* filters see the launch's point */
  if (!v) v = json_object_get(json_object_get(rec, "_own"), name);    /* and the pairs fold_own moved */
  if (!v) return 0;
  char s[128];
  value_str(v, s, sizeof s);
  return !strcmp(s, val);
}

static int in_list(const char (*list)[64], int n, const char *s) {
  for (int i = 0; i < n; i++)
    if (!strcmp(list[i], s)) return 1;
  return 0;
}

static int match_dtype(const struct ar_filter *f, const char *dt) {
  for (int i = 0; i < f->ndtype; i++)
    if (!strcmp(f->dtype[i], dt)) return 1;
  return !f->ndtype;
}

static int match_ranks(const struct ar_filter *f, long r) {
  for (int i = 0; i < f->nranks; i++)
    if (f->ranks[i] == r) return 1;
  return !f->nranks;
}

static int filter_match(const struct ar_filter *f, json_t *rec) {
  if (f->nbackend && !in_list(f->backend, f->nbackend, ar_rec_str(rec, "backend", ""))) return 0;
  if (!match_dtype(f, ar_rec_str(rec, "dtype", ""))) return 0;
  if (!match_ranks(f, ar_rec_ranks(rec))) return 0;
  if (*f->placement && strcmp(f->placement, ar_rec_placement(rec))) return 0;
  for (int i = 0; i < f->npoint; i++)
    if (!point_has(rec, f->pname[i], f->pval[i])) return 0;
  return 1;
}

/* Comma list of the distinct values of key in results (for error messages). */
static void present(json_t *results, const char *key, char *buf, size_t len) {
  json_t *seen = json_object();
  size_t i, used = 0;
  json_t *r;
  buf[0] = 0;
  json_array_foreach(results, i, r) {
    char v[128];
    if (!strcmp(key, "placement")) snprintf(v, sizeof v, "%s", ar_rec_placement(r));
    else value_str(json_object_get(r, key), v, sizeof v);
    if (json_object_get(seen, v)) continue;
    json_object_set_new(seen, v, json_true());
    if (used + 1 < len) used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", v);
    if (used >= len) used = len - 1;
  }
  json_decref(seen);
}

static int any_match(json_t *results, const char *key, const char *val) {
  size_t i;
  json_t *r;
  json_array_foreach(results, i, r) {
    char v[128];
    value_str(json_object_get(r, key), v, sizeof v);
    if (!strcmp(v, val)) return 1;
  }
  return 0;
}

static int any_point(json_t *results, const char *name, const char *val) {
  size_t i;
  json_t *r;
  json_array_foreach(results, i, r) if (point_has(r, name, val)) return 1;
  return 0;
}

int ar_filter_check(const struct ar_filter *f, json_t *results, char *err, size_t len) {
  char have[400];
  for (int i = 0; i < f->nbackend; i++)
    if (!any_match(results, "backend", f->backend[i])) {
      present(results, "backend", have, sizeof have);
      snprintf(err, len, "--backend %s: no such backend in the results (present: %s)", f->backend[i], have);
      return -AR_EINVAL;
    }
  for (int i = 0; i < f->ndtype; i++)
    if (!any_match(results, "dtype", f->dtype[i])) {
      present(results, "dtype", have, sizeof have);
      snprintf(err, len, "--dtype %s: no such dtype in the results (present: %s)", f->dtype[i], have);
      return -AR_EINVAL;
    }
  for (int i = 0; i < f->nranks; i++) {
    char v[32];
    snprintf(v, sizeof v, "%ld", f->ranks[i]);
    if (!any_match(results, "ranks", v)) {
      present(results, "ranks", have, sizeof have);
      snprintf(err, len, "--ranks %ld: no results with that many ranks (present: %s)", f->ranks[i], have);
      return -AR_EINVAL;
    }
  }
  for (int i = 0; i < f->npoint; i++)
    if (!any_point(results, f->pname[i], f->pval[i])) {
      snprintf(err, len, "--point %s=%s: no result has that sweep point value", f->pname[i], f->pval[i]);
      return -AR_EINVAL;
    }
  return 0;
}

void ar_filter_apply(const struct ar_filter *f, json_t *results) {
  for (size_t i = json_array_size(results); i-- > 0;)
    if (!filter_match(f, json_array_get(results, i))) json_array_remove(results, i);
}

/* ---- grid ---- */

static void group_key(json_t *r, char *buf, size_t len) {
  snprintf(buf, len, "%s|%d|%s|%s", ar_rec_str(r, "dtype", "?"), ar_rec_ranks(r), ar_rec_placement(r),
           ar_rec_str(r, "op", "sum"));
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

static int find_cfg(const struct ar_grid *g, const char *label) {
  for (int c = 0; c < g->ncfg; c++)
    if (!strcmp(g->cfg[c], label)) return c;
  return -1;
}

static int find_size(const struct ar_grid *g, size_t s) {
  for (int i = 0; i < g->nsize; i++)
    if (g->size[i] == s) return i;
  return -1;
}

/* Add the pooled pairs of rec to acc (key -> distinct values, in order of appearance). */
static void pool_add(json_t *acc, json_t *rec) {
  const char *key;
  json_t *v;
  json_object_foreach(json_object_get(rec, "_pooled"), key, v) {
    char s[128];
    value_str(v, s, sizeof s);
    json_t *vals = json_object_get(acc, key), *x;
    size_t i;
    int seen = 0;
    if (!vals) json_object_set_new(acc, key, vals = json_array());
    json_array_foreach(vals, i, x) seen |= !strcmp(json_string_value(x), s);
    if (!seen) json_array_append_new(vals, json_string(s));
  }
}

/* "K=V1,V2; K2=V3" of acc, NULL when empty. */
static char *pool_text(json_t *acc) {
  char buf[1024] = "";
  size_t n = 0, i;
  const char *key;
  json_t *vals, *x;
  if (!json_object_size(acc)) return NULL;
  json_object_foreach(acc, key, vals) {
    n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s=", n ? "; " : "", key);
    json_array_foreach(vals, i, x) n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s",
                                                         i ? "," : "", json_string_value(x));
  }
  return strdup(buf);
}

/* Fill one grid from the records of its group (an array). */
static int grid_fill(struct ar_grid *g, json_t *recs, json_t *runs, const struct ar_vary *v) {
  size_t n = json_array_size(recs), i;
  json_t *r;
  g->cfg = calloc(n, sizeof *g->cfg);
  g->cfgrec = calloc(n, sizeof *g->cfgrec);
  g->size = calloc(n, sizeof *g->size);
  g->unsafe = calloc(n, sizeof *g->unsafe);
  g->predicted = calloc(n, 1);
  g->pooled = calloc(n, sizeof *g->pooled);
  g->vary = *v;
  if (!g->cfg || !g->cfgrec || !g->size || !g->unsafe || !g->predicted || !g->pooled) return -AR_ERUNTIME;
  json_array_foreach(recs, i, r) {
    char label[256];
    ar_cfg_label(r, runs, v, label, sizeof label);
    int c = find_cfg(g, label);
    if (c < 0) {
      snprintf(g->cfg[g->ncfg], sizeof g->cfg[0], "%s", label);
      g->predicted[g->ncfg] = (char)ar_rec_predicted(r);
      g->cfgrec[c = g->ncfg++] = r;
    }
    if (!g->unsafe[c]) g->unsafe[c] = ar_rec_unsafe(r); /* one unsafe record marks the configuration */
    size_t s = (size_t)json_integer_value(json_object_get(r, "size"));
    if (find_size(g, s) < 0) g->size[g->nsize++] = s;
  }
  qsort(g->size, (size_t)g->nsize, sizeof *g->size, cmp_size);
  g->cell = calloc((size_t)g->nsize * (size_t)g->ncfg, sizeof *g->cell);
  g->runs = calloc((size_t)g->nsize * (size_t)g->ncfg, sizeof *g->runs);
  g->wrong = calloc((size_t)g->nsize * (size_t)g->ncfg + 1, 1);
  json_t *pools = json_array(); /* per configuration: the pooled pairs of its records */
  for (int c = 0; c < g->ncfg; c++) json_array_append_new(pools, json_object());
  if (!g->cell || !g->runs || !g->wrong) return json_decref(pools), -AR_ERUNTIME;
  json_array_foreach(recs, i, r) {
    char label[256];
    ar_cfg_label(r, runs, v, label, sizeof label);
    int c = find_cfg(g, label), s = find_size(g, (size_t)json_integer_value(json_object_get(r, "size")));
    pool_add(json_array_get(pools, (size_t)c), r);
    json_t **cr = &g->runs[s * g->ncfg + c];
    if (!*cr) *cr = json_array();
    ar_runs_add(*cr, r, &g->dups); /* another run, or the same run again: the later record wins */
    if (ar_rec_num(r, "wrong", 0) > 0) g->wrong[s * g->ncfg + c] = 1; /* any record: a replaced one too */
    g->cell[s * g->ncfg + c] = r;
  }
  for (int c = 0; c < g->ncfg; c++) g->pooled[c] = pool_text(json_array_get(pools, (size_t)c));
  json_decref(pools);
  json_t *first = json_array_get(recs, 0);
  snprintf(g->dtype, sizeof g->dtype, "%s", ar_rec_str(first, "dtype", "?"));
  snprintf(g->placement, sizeof g->placement, "%s", ar_rec_placement(first));
  snprintf(g->op, sizeof g->op, "%s", ar_rec_str(first, "op", "sum"));
  g->ranks = ar_rec_ranks(first);
  for (int c = 0; c < g->ncfg; c++) /* the method, from a measured configuration */
    if (!g->predicted[c]) {
      ar_vary_common(g->cfgrec[c], v, g->method, sizeof g->method);
      break;
    }
  double nodes = ar_rec_num(first, "nodes", 1);
  g->nodes = nodes >= 1 && nodes <= 1e6 ? (int)nodes : -1;
  return 0;
}

int ar_grids_build(json_t *results, json_t *runs, struct ar_grid **out, int *n) {
  json_t *groups = json_object(), *order = json_array();
  size_t i;
  json_t *r;
  json_array_foreach(results, i, r) {
    char key[256];
    group_key(r, key, sizeof key);
    json_t *arr = json_object_get(groups, key);
    if (!arr) {
      arr = json_array();
      json_object_set_new(groups, key, arr);
      json_array_append_new(order, json_string(key));
    }
    json_array_append(arr, r);
  }
  struct ar_vary v;
  ar_vary_of(results, runs, &v);
  *n = (int)json_array_size(order);
  *out = calloc((size_t)(*n ? *n : 1), sizeof **out);
  int rc = *out ? 0 : -AR_ERUNTIME;
  for (int k = 0; !rc && k < *n; k++)
    rc = grid_fill(&(*out)[k], json_object_get(groups, json_string_value(json_array_get(order, (size_t)k))),
                   runs, &v);
  json_decref(groups);
  json_decref(order);
  return rc;
}

void ar_grids_free(struct ar_grid *g, int n) {
  for (int k = 0; g && k < n; k++) {
    free(g[k].cfg);
    free(g[k].cfgrec);
    free(g[k].unsafe);
    free(g[k].predicted);
    for (int c = 0; g[k].pooled && c < g[k].ncfg; c++) free(g[k].pooled[c]);
    free(g[k].pooled);
    free(g[k].size);
    for (int i = 0; g[k].runs && i < g[k].nsize * g[k].ncfg; i++) json_decref(g[k].runs[i]);
    free(g[k].runs);
    free(g[k].cell);
    free(g[k].wrong);
  }
  free(g);
}

double ar_grid_p50(const struct ar_grid *g, int s, int c) {
  json_t *runs = ar_grid_runs(g, s, c);
  return runs ? ar_runs_p50(runs) : NAN;
}

int ar_grid_eligible(const struct ar_grid *g, int c) { return !g->unsafe[c] && !g->predicted[c]; }

int ar_grid_cell_eligible(const struct ar_grid *g, int s, int c) {
  return ar_grid_eligible(g, c) && ar_grid_runs(g, s, c) && !g->wrong[(size_t)s * g->ncfg + c];
}

const char *ar_grid_cell_why(const struct ar_grid *g, int s, int c) {
  if (!ar_grid_runs(g, s, c)) return NULL;
  if (g->predicted[c]) return "a model prediction, not a measurement";
  if (g->unsafe[c]) return g->unsafe[c];
  return g->wrong[(size_t)s * g->ncfg + c] ? "wrong results (the correctness check reported wrong elements)" : NULL;
}

int ar_grid_is_nccl(const struct ar_grid *g, int c) { return !strcmp(ar_rec_str(g->cfgrec[c], "backend", ""), "nccl"); }

/* ---- small formatting helpers ---- */

void ar_note_line(json_t *rec, char *buf, size_t len) {
  const char *type = ar_rec_str(rec, "type", "?");
  const char *why = ar_rec_str(rec, "reason", ar_rec_str(rec, "message", ""));
  const char *spec = ar_rec_str(rec, "spec", ar_rec_str(rec, "backend", ""));
  char where[64] = "";
  if (json_is_integer(json_object_get(rec, "ranks")))
    snprintf(where, sizeof where, " (%d ranks)", ar_rec_ranks(rec));
  if (!*spec) { /* e.g. a sweep's error record: the message names the point */
    snprintf(buf, len, "%s: %s", type, *why ? why : "(no reason given)");
    return;
  }
  snprintf(buf, len, "%s: %s%s%s%s%s%s", type, spec, *ar_rec_str(rec, "dtype", "") ? " " : "",
           ar_rec_str(rec, "dtype", ""), where, *why ? ": " : "", *why ? why : "(no reason given)");
}

void ar_fmt_us(double us, char *buf, size_t len) {
  if (isnan(us)) snprintf(buf, len, "-");
  else if (us < 100) snprintf(buf, len, "%.2f", us);
  else if (us < 10000) snprintf(buf, len, "%.1f", us);
  else snprintf(buf, len, "%.0f", us);
}

int ar_ana_badopt(const char *cmd, int c, const char *arg) {
  if (c == ':')
    fprintf(stderr, "arbench %s: option '%s' needs a value (see arbench %s --help)\n", cmd, arg, cmd);
  else
    fprintf(stderr, "arbench %s: unknown option '%s' (see arbench %s --help)\n", cmd, arg, cmd);
  return AR_EXIT_USAGE;
}

/* skip / error / other records (not the sweep's bookkeeping), one line each, without repeats. */
json_t *ar_note_lines(json_t *notes) {
  json_t *out = json_array(), *seen = json_object();
  size_t i;
  json_t *r;
  json_array_foreach(notes, i, r) {
    const char *type = ar_rec_str(r, "type", "");
    if (!strcmp(type, "sweep") || !strcmp(type, "point")) continue; /* sweep bookkeeping */
    char line[700];
    ar_note_line(r, line, sizeof line);
    if (!json_object_get(seen, line)) json_array_append_new(out, json_string(line));
    json_object_set_new(seen, line, json_true());
  }
  json_decref(seen);
  return out;
}

/* ---- runs: the records of one measurement over runs (noise.c, table, tune, compare read them) ---- */

void ar_run_key(json_t *rec, char *buf, size_t len) {
  snprintf(buf, len, "%s#%lld", ar_rec_str(rec, "run_id", ""), (long long)ar_rec_num(rec, "repeat", 0));
}

void ar_runs_add(json_t *runs, json_t *rec, int *dups) {
  char k[128], kk[128];
  ar_run_key(rec, k, sizeof k);
  for (size_t i = 0; i < json_array_size(runs); i++) {
    ar_run_key(json_array_get(runs, i), kk, sizeof kk);
    if (strcmp(k, kk)) continue;
    json_array_set(runs, i, rec); /* the same run twice: the later record wins */
    if (dups) (*dups)++;
    return;
  }
  json_array_append(runs, rec);
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

double ar_runs_p50(json_t *runs) {
  size_t n = json_array_size(runs), k = 0;
  double v[64];
  for (size_t i = 0; i < n && k < 64; i++) {
    double p = ar_rec_p50(json_array_get(runs, i));
    if (!isnan(p)) v[k++] = p;
  }
  if (!k) return NAN;
  qsort(v, k, sizeof *v, cmp_double);
  return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* Median over the runs of time_us.<q> (the same rule as ar_runs_p50); NAN when no run has it. */
static double runs_median(json_t *runs, const char *q) {
  size_t n = json_array_size(runs), k = 0;
  double v[64];
  for (size_t i = 0; i < n && k < 64; i++) {
    double p = ar_rec_p(json_array_get(runs, i), q);
    if (!isnan(p)) v[k++] = p;
  }
  if (!k) return NAN;
  qsort(v, k, sizeof *v, cmp_double);
  return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}


/* The sd of the runs' log p50s (about the run-to-run coefficient of variation), NAN with fewer than 2. */
static double runs_spread(json_t *runs) {
  double sum = 0, sq = 0;
  int n = 0;
  for (size_t i = 0; i < json_array_size(runs); i++) {
    double p = ar_rec_p50(json_array_get(runs, i));
    if (!(p > 0)) continue;
    sum += log(p);
    sq += log(p) * log(p);
    n++;
  }
  return n < 2 ? NAN : sqrt(fmax(0, (sq - sum * sum / n) / (n - 1)));
}

int ar_runs_stats(json_t *runs, struct ar_cell_stats *st) {
  memset(st, 0, sizeof *st);
  st->p50 = ar_runs_p50(runs);
  if (isnan(st->p50)) return -1;
  st->p10 = runs_median(runs, "p10");
  st->p90 = runs_median(runs, "p90");
  st->p99 = runs_median(runs, "p99");
  st->mean = runs_median(runs, "mean");
  st->min = st->max = NAN;
  json_t *first = json_array_get(runs, 0);
  for (size_t i = 0; i < json_array_size(runs); i++) {
    json_t *r = json_array_get(runs, i);
    double lo = ar_rec_p(r, "min"), hi = ar_rec_p(r, "max");
    if (!isnan(lo) && (isnan(st->min) || lo < st->min)) st->min = lo;
    if (!isnan(hi) && (isnan(st->max) || hi > st->max)) st->max = hi;
    st->runs++;
    st->samples += (long long)ar_rec_num(r, "samples_n", (double)ar_rec_nsamples(r));
    st->wrong += (long long)ar_rec_num(r, "wrong", 0);
  }
  st->sampled = ar_runs_sampled(runs);
  st->spread = runs_spread(runs);
  double size = ar_rec_num(first, "size", NAN);
  st->algbw = st->p50 > 0 ? size / st->p50 / 1e3 : NAN; /* bytes per us / 1e3 = GB/s */
  st->busbw = st->algbw * ar_busbw_factor(ar_rec_ranks(first));
  return 0;
}

/* Samples of a run: the loader's window ("_wn" of them), or a samples_us array as written. */
size_t ar_rec_nsamples(json_t *rec) {
  json_t *wn = json_object_get(rec, "_wn");
  return wn ? (size_t)json_integer_value(wn) : json_array_size(json_object_get(rec, "samples_us"));
}

int ar_runs_sampled(json_t *runs) {
  int n = 0;
  for (size_t i = 0; i < json_array_size(runs); i++) n += ar_rec_nsamples(json_array_get(runs, i)) > 0;
  return n;
}
