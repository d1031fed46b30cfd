/* import_rows.c — the table of one nccl-tests test: its columns (from the header line, or from the
 * first row of a headerless fragment) and its rows, checked to be all_reduce output, as result records. */
#include "import.h"
#include "results.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(struct ar_nt_ctx *c, const char *fmt, const char *a, const char *b) {
  char msg[300];
  snprintf(msg, sizeof msg, fmt, a, b);
  snprintf(c->err, sizeof c->err, "%.200s:%d: %s", c->path, c->line, msg);
  return -AR_EINVAL;
}

int ar_nt_is_allreduce(const char *name) { return !strncmp(name, "all_reduce_perf", 15); }

static int number(const char *s, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return end != s && !*end && !errno && isfinite(*v) ? 0 : -1;
}

/* ---- columns ---- */

static int find(char **tok, int n, int from, int to, const char *a, const char *b) {
  for (int i = from; i < to && i < n; i++)
    if (!strcmp(tok[i], a) || (b && !strcmp(tok[i], b))) return i;
  return -1;
}

int ar_nt_import_header(struct ar_nt_ctx *c, struct ar_nt_layout *l, char **tok, int n) {
  double scale = l->time_scale;
  memset(l, 0, sizeof *l);
  l->time_scale = scale ? scale : 1;
  l->redop = find(tok, n, 0, n, "redop", NULL);
  l->root = find(tok, n, 0, n, "root", NULL);
  l->timestamp = find(tok, n, 0, n, "timestamp", NULL) >= 0;
  l->cputime = find(tok, n, 0, n, "cputime", NULL) >= 0;
  if (l->cputime)
    return fail(c, "'cputime' columns (nccl-tests -C) time the launch, not the allreduce: not imported%s%s", "", "");
  int g0 = find(tok, n, 0, n, "time", NULL), g1 = g0 >= 0 ? find(tok, n, g0 + 1, n, "time", NULL) : -1;
  int starts[2] = {g0, g1};
  for (int h = 0; h < 2; h++) {
    int from = starts[h], to = h == 0 && g1 >= 0 ? g1 : n;
    l->col[h][0] = from;
    for (int k = 1; k < 4; k++) l->col[h][k] = -1;
    for (int k = 0; k < 4; k++) l->iter[h][k] = -1;
    if (from < 0) continue;
    static const char *const inames[] = {"i_min", "i_max", "i_p99", "i_cv%"}; /* 2.19.2+ -I 1 (src/util.cu) */
    for (int k = 0; k < 4; k++) l->iter[h][k] = find(tok, n, from, to, inames[k], NULL);
    l->col[h][1] = find(tok, n, from, to, "algbw", NULL);
    l->col[h][2] = find(tok, n, from, to, "busbw", NULL);
    l->col[h][3] = find(tok, n, from, to, "#wrong", "wrong");
    if (l->col[h][3] < 0 && (l->col[h][3] = find(tok, n, from, to, "error", NULL)) >= 0) l->error_col = 1;
    if (l->col[h][1] < 0 || l->col[h][2] < 0)
      return fail(c, "header line without algbw and busbw after its time column%s%s", "", "");
  }
  if (g0 < 0) return fail(c, "header line without a time column%s%s", "", "");
  if (g1 < 0) /* rows would be read as two halves (fuzz_import): nccl-tests prints out-of-place and in-place */
    return fail(c, "header line with one time column: all_reduce_perf prints an out-of-place and an in-place group%s%s",
                "", "");
  l->ncols = n + l->timestamp; /* a timestamp is two tokens in a row ("2025-01-01 12:00:00") */
  l->known = 1;
  return 0;
}

/* A headerless fragment: the layout its first row's token count implies (nccl-tests 2.x prints 13; 2.19.2+
 * with -I 1 prints 21: each group's time, algbw, busbw, #wrong, then i_min, i_max, i_p99, i_cv%). */
static void layout_infer(struct ar_nt_layout *l, char **tok, int rn) {
  double scale = l->time_scale;
  memset(l, 0, sizeof *l);
  l->time_scale = scale ? scale : 1;
  for (int h = 0; h < 2; h++)
    for (int k = 0; k < 4; k++) l->iter[h][k] = -1;
  if (rn == 21) {
    l->ncols = 21;
    l->redop = 3;
    l->root = 4;
    for (int h = 0; h < 2; h++)
      for (int k = 0; k < 4; k++) {
        l->col[h][k] = 5 + 8 * h + k;
        l->iter[h][k] = 9 + 8 * h + k;
      }
    l->known = 1;
    return;
  }
  int n = rn < 11 || rn > 13 ? 13 : rn; /* no layout of that width: read as today's, so the row is refused */
  l->ncols = n;
  l->redop = n >= 12 && isalpha((unsigned char)tok[3][0]) ? 3 : -1;
  l->root = n == 13 ? 4 : n == 12 && l->redop < 0 ? 3 : -1;
  int first = n - 8;
  for (int h = 0; h < 2; h++)
    for (int k = 0; k < 4; k++) l->col[h][k] = first + 4 * h + k;
  l->error_col = n < 13 && strpbrk(tok[rn - 1], ".e") != NULL; /* old logs: max error "2e-07", not a count */
  l->known = 1;
}

/* ---- checks ---- */

static const struct { const char *name, *dtype; int bytes; } types[] = {
  {"float", "float", 4},    {"float32", "float", 4}, {"half", "half", 2},       {"float16", "half", 2},
  {"bfloat16", "bfloat16", 2}, {"int32", "int32", 4}, {"int", "int32", 4},   {"uint32", "uint32", 4},
  {"int8", "int8", 1},      {"char", "int8", 1},     {"uint8", "uint8", 1},     {"int64", "int64", 8},
  {"uint64", "uint64", 8},  {"double", "double", 8}, {"float64", "double", 8}, {"f8e4m3", "f8e4m3", 1},
  {"f8e5m2", "f8e5m2", 1},
};

static int type_of(const char *t) {
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (!strcmp(t, types[i].name)) return (int)i;
  return -1;
}

int ar_nt_type(const char *name, const char **dtype, int *bytes) {
  int i = type_of(name);
  if (i < 0) return -1;
  *dtype = types[i].dtype;
  *bytes = types[i].bytes;
  return 0;
}

static int allreduce_op(const char *op) {
  static const char *const ops[] = {"sum", "prod", "max", "min", "avg", "mulsum"};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(op, ops[i])) return 1;
  return 0;
}

/* Why this row is not all_reduce_perf output, or NULL. */
static const char *other_collective(const struct ar_nt_layout *l, char **tok, int ti, char *why, size_t len) {
  if (l->redop < 0) return snprintf(why, len, "no redop column: all_gather, broadcast or alltoall output"), why;
  if (!allreduce_op(tok[l->redop]))
    return snprintf(why, len, "redop '%s': all_gather, alltoall or sendrecv output", tok[l->redop]), why;
  if (l->root >= 0 && strcmp(tok[l->root], "-1"))
    return snprintf(why, len, "root column %s: reduce or broadcast output", tok[l->root]), why;
  unsigned long long size = strtoull(tok[0], NULL, 10), count = strtoull(tok[1], NULL, 10);
  if (count * (unsigned long long)types[ti].bytes != size)
    return snprintf(why, len, "%llu elements of %s are not %llu bytes: reduce_scatter or all_gather output", count,
                    tok[2], size),
           why;
  return NULL;
}

/* ---- one half (out-of-place or in-place) ---- */

struct half {
  double time, algbw, busbw, err;
  int err_na;
  int has_iter;   /* the -I columns were printed */
  double iter[4]; /* i_min, i_max, i_p99 (us, scaled as time), i_cv% */
};

/* nccl-tests -I 1's columns of one group: min, max and p99 of the per-iteration times, their CV in %. */
static int parse_iter(struct ar_nt_ctx *c, const struct ar_nt_layout *l, char **tok, const int *icol, struct half *h) {
  static const char *const names[] = {"i_min", "i_max", "i_p99", "i_cv%"};
  h->has_iter = icol[0] >= 0 && icol[1] >= 0 && icol[2] >= 0 && icol[3] >= 0;
  for (int k = 0; h->has_iter && k < 4; k++) {
    if (number(tok[icol[k]], &h->iter[k])) return fail(c, "bad number '%s' in the %s column", tok[icol[k]], names[k]);
    if (h->iter[k] < 0) return fail(c, "negative value '%s' in the %s column: no measurement has one", tok[icol[k]], names[k]);
    if (k < 3) h->iter[k] *= l->time_scale;
  }
  if (h->has_iter && !(h->iter[0] <= h->iter[2] && h->iter[2] <= h->iter[1]))
    return fail(c, "i_min, i_p99 and i_max out of order (%s .. %s): not per-iteration statistics", tok[icol[0]], tok[icol[1]]);
  return 0;
}

static int parse_half(struct ar_nt_ctx *c, const struct ar_nt_layout *l, char **tok, const int *col, struct half *h) {
  static const char *const names[] = {"time", "algbw", "busbw"};
  double *dst[] = {&h->time, &h->algbw, &h->busbw};
  for (int i = 0; i < 3; i++) {
    if (number(tok[col[i]], dst[i])) return fail(c, "bad number '%s' in the %s column", tok[col[i]], names[i]);
    if (*dst[i] < 0) return fail(c, "negative value '%s' in the %s column: no measurement has one", tok[col[i]], names[i]);
  }
  h->time *= l->time_scale;
  h->err_na = 1;
  if (col[3] < 0) return 0;
  char v[64];
  snprintf(v, sizeof v, "%s", tok[col[3]]);
  size_t vl = strlen(v);
  if (vl > 1 && v[vl - 1] == '*') v[vl - 1] = 0; /* rccl-tests marks errors past its threshold */
  h->err_na = !strcmp(v, "N/A");
  if (!h->err_na && (number(v, &h->err) || h->err < 0))
    return fail(c, "bad value '%s' in the %s column", tok[col[3]], l->error_col ? "error" : "#wrong");
  return 0;
}

static json_t *result_rec(struct ar_nt_ctx *c, struct ar_nt_test *t, char **tok, int ti, const char *place,
                          const struct half *h) {
  json_t *opts = json_object_get(t->run, "options");
  json_t *r = json_pack("{s:s, s:s}", "type", "result", "run_id", json_string_value(json_object_get(t->run, "run_id")));
  json_object_set_new(r, "dtype", json_string(types[ti].dtype));
  json_object_set_new(r, "op", json_string(tok[t->lay.redop]));
  json_object_set_new(r, "placement", json_string(place));
  json_object_set_new(r, "size", json_integer((json_int_t)strtoull(tok[0], NULL, 10)));
  json_object_set_new(r, "count", json_integer((json_int_t)strtoull(tok[1], NULL, 10)));
  json_t *v;
  json_object_set(r, "iters", (v = json_object_get(opts, "iters")) ? v : json_null());
  json_object_set(r, "warmup", (v = json_object_get(opts, "warmup")) ? v : json_null());
  json_object_set_new(r, "graph", (v = json_object_get(opts, "graph")) ? json_incref(v) : json_integer(0));
  json_object_set_new(r, "samples_n", json_integer(0));
  json_object_set_new(r, "source", json_string("nccl-tests"));
  /* A #wrong that is no count (inf, nan, 1e300: fuzz_import) is no check; the cast would be UB. */
  int bad_count = !t->lay.error_col && !h->err_na && !(h->err >= 0 && h->err <= 9.0e15);
  json_object_set_new(r, "checked", json_boolean(ar_rec_num(opts, "validation", 1) > 0 && !h->err_na && !bad_count));
  if (!t->lay.error_col) json_object_set_new(r, "wrong", h->err_na || bad_count ? json_null() : json_integer((json_int_t)h->err));
  else {
    json_object_set_new(r, "wrong", json_null());
    json_object_set_new(r, "max_error", h->err_na ? json_null() : json_real(h->err));
  }
  json_object_set_new(r, "time_us", json_pack("{s:f, s:f}", "mean", h->time, "p50", h->time));
  if (h->has_iter) { /* -I 1: the per-iteration spread, as nccl-tests computed it (docs/nccl-tests.md) */
    json_t *tu = json_object_get(r, "time_us");
    json_object_set_new(tu, "min", json_real(h->iter[0]));
    json_object_set_new(tu, "max", json_real(h->iter[1]));
    json_object_set_new(tu, "p99", json_real(h->iter[2]));
    json_int_t iters = (json_int_t)ar_rec_num(opts, "iters", 0), skip = (json_int_t)ar_rec_num(opts, "per_iter_skip", 0);
    json_t *w = json_object_get(t->run, "written_by");
    json_object_set_new(r, "per_iter", json_pack("{s:f, s:f, s:f, s:f, s:I, s:o, s:s}", "min_us", h->iter[0], "max_us",
                                                 h->iter[1], "p99_us", h->iter[2], "cv_pct", h->iter[3], "skipped", skip,
                                                 "n", iters > skip ? json_integer(iters - skip) : json_null(), "from",
                                                 w ? "arbench's per-iteration samples (its header's method)"
                                                   : "nccl-tests -I 1: CUDA events per iteration, max over GPUs and "
                                                     "processes, nearest-rank p99, population CV"));
  }
  json_object_set_new(r, "algbw_gbs", json_real(h->algbw));
  json_object_set_new(r, "busbw_gbs", json_real(h->busbw));
  json_object_set_new(r, "algbw_p50_gbs", json_real(h->algbw));
  json_object_set_new(r, "busbw_p50_gbs", json_real(h->busbw));
  json_object_set_new(r, "repeat", json_integer(t->cycle));
  json_object_set_new(r, "log_line", json_integer(c->line));
  return r;
}

/* ---- a row ---- */

static int check_row(struct ar_nt_ctx *c, struct ar_nt_test *t, char **tok, int n, int *halves) {
  struct ar_nt_layout *l = &t->lay;
  *halves = 2;
  if (l->redop >= 0 && n == l->ncols - 1 && !isalpha((unsigned char)tok[l->redop][0])) { /* old alltoall: empty redop */
    *halves = 0;
    return 0;
  }
  int width = l->col[1][0] >= 0 ? l->col[1][0] - l->col[0][0] : 0;
  if (width && n == l->ncols - width) *halves = 1; /* nccl-tests' null body: a half not measured */
  else if (n != l->ncols) {
    c->short_row = n < l->ncols;
    char a[16], b[16];
    snprintf(a, sizeof a, "%d", l->ncols);
    snprintf(b, sizeof b, "%d", n);
    return fail(c, "malformed all_reduce_perf row: expected %s columns, found %s", a, b);
  }
  for (int i = 0; i < 2; i++) {
    errno = 0;
    unsigned long long v = strtoull(tok[i], NULL, 10);
    if (errno || v > (1ull << 50)) /* 1 PiB: no message is larger; beyond 2^53 a double would round it */
      return fail(c, "%s %s is out of range: no allreduce has one", i ? "count" : "size", tok[i]);
  }
  return 0;
}

static int mark_other(struct ar_nt_ctx *c, struct ar_nt_test *t, const char *why) {
  if (ar_nt_is_allreduce(t->name)) return fail(c, "this row of an %s test is not allreduce output: %s", t->name, why);
  if (t->sized) /* rows of 0 bytes fit every collective: they do not count */
    return fail(c, "this row is not allreduce output (%s), the rows above it are: a table of two collectives%s", why, "");
  json_array_clear(t->rows);
  if (!t->other && why != t->why) {
    t->other = 1;
    t->other_line = c->line;
    snprintf(t->why, sizeof t->why, "%s", why);
  }
  return 0;
}

int ar_nt_import_row(struct ar_nt_ctx *c, struct ar_nt_test *t, char **tok, int n) {
  if (!t->lay.known) layout_infer(&t->lay, tok, n);
  int halves;
  if (check_row(c, t, tok, n, &halves)) return -AR_EINVAL;
  if (!halves) return mark_other(c, t, "empty redop column: alltoall output");
  int ti = type_of(tok[2]);
  if (ti < 0)
    return fail(c, "unknown data type '%s' (nccl-tests prints int8, uint8, int32, uint32, int64, uint64, half, float, "
                   "double, bfloat16, f8e4m3, f8e5m2)%s", tok[2], "");
  char why[160];
  if (other_collective(&t->lay, tok, ti, why, sizeof why)) return mark_other(c, t, why);
  if (t->other) return mark_other(c, t, t->why);
  struct half hv[2];
  int only_in = halves == 1 && t->placements != 1; /* nccl-tests leaves out-of-place blank; arbench the other */
  for (int h = 0; h < halves; h++) /* one group printed: its columns are the first group's */
    if (parse_half(c, &t->lay, tok, t->lay.col[h], &hv[h]) || parse_iter(c, &t->lay, tok, t->lay.iter[h], &hv[h]))
      return -AR_EINVAL;
  unsigned long long size = strtoull(tok[0], NULL, 10);
  if (size && t->last_size && size <= t->last_size) t->cycle++; /* sizes start over: the next cycle (-N) */
  if (size) t->last_size = size;
  t->sized += size != 0;
  for (int h = 0; h < halves; h++) {
    ar_nt_ratio_add(&t->ev.ratio, tok[t->lay.col[h][1]], tok[t->lay.col[h][2]]);
    const char *place = halves == 2 ? (h ? "in" : "out") : only_in ? "in" : "out";
    json_array_append_new(t->rows, result_rec(c, t, tok, ti, place, &hv[h]));
  }
  return 0;
}
