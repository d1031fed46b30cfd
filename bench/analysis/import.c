/* import.c — `arbench import nccl-tests LOG [-J FILE]`: all_reduce_perf text output -> a run record
 * (preamble: versions, devices, options) and result records (out-of-place and in-place per row). */
#include "ar.h"
#include "commands.h"
#include "results.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Imported results are backend "nccl-tests" (not "nccl"): nccl-tests reports the mean over its
 * iterations of a per-rank timing, arbench the p50 of per-iteration maxima over ranks, so they sit in
 * their own column beside arbench's nccl and match only other nccl-tests imports in `compare`. */
#define NT_BACKEND "nccl-tests"

struct nt {
  const char *path, *stack;
  int line, forced_ranks, nrun;
  unsigned long long hash;
  json_t *out;     /* all records, in order */
  json_t *run;     /* the run record being filled */
  json_t *rows;    /* its result records */
  json_t *pending; /* version facts seen before the run's "# nThread" line */
  int cols, has_root, wrong_col;
  double time_scale;
  char err[AR_ERRLEN];
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: arbench import nccl-tests LOG [-J FILE] [--stack NAME] [--ranks N]\n"
          "Reads all_reduce_perf output (any nccl-tests version: old logs with an 'error' column and no\n"
          "'root' column, new ones with 'root' and '#wrong'; mpirun --tag-output prefixes and NCCL INFO\n"
          "lines are skipped) and writes arbench results: one run record per test in the log (NCCL\n"
          "version, devices, hosts, options) and two result records per row (out-of-place, in-place).\n"
          "Results have backend \"nccl-tests\", source \"nccl-tests\", samples_n 0 and no samples:\n"
          "nccl-tests reports only the average time, stored as time_us.mean and time_us.p50 alike.\n"
          "  -J, --json FILE   append the records to FILE (default: stdout)\n"
          "  --stack NAME      the run's stack.name (default: nccl-<version> from the log, else 'unknown')\n"
          "  --ranks N         rank count when the log has no '# Rank' device lines\n");
}

static int fail(struct nt *p, const char *fmt, const char *a, const char *b) {
  char msg[300];
  snprintf(msg, sizeof msg, fmt, a, b);
  snprintf(p->err, sizeof p->err, "%.200s:%d: %s", p->path, p->line, msg);
  return -AR_EINVAL;
}

/* ---- tokens ---- */

static int split(char *s, char **tok, int max) {
  int n = 0;
  for (char *save = NULL, *t = strtok_r(s, " \t\r", &save); t && n < max; t = strtok_r(NULL, " \t\r", &save))
    tok[n++] = t;
  return n;
}

static int all_digits(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

static int number(const char *s, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return end != s && !*end && !errno && isfinite(*v) ? 0 : -1;
}

/* Value after "key" in a "# nThread 1 nGpus 8 ... iters: 20 ..." line (the key may end in ':'). */
static int after(char **tok, int n, const char *key, long *v) {
  for (int i = 0; i + 1 < n; i++)
    if (!strcmp(tok[i], key)) {
      char *end;
      *v = strtol(tok[i + 1], &end, 10);
      return end != tok[i + 1] ? 0 : -1;
    }
  return -1;
}

/* "22907" (NCCL >= 2.9: major*10000+minor*100+patch) or "2708" (older: major*1000+minor*100+patch). */
static void nccl_code(const char *s, char *buf, size_t len) {
  long c = strtol(s, NULL, 10);
  if (c >= 10000) snprintf(buf, len, "%ld.%ld.%ld", c / 10000, c % 10000 / 100, c % 100);
  else snprintf(buf, len, "%ld.%ld.%ld", c / 1000, c % 1000 / 100, c % 100);
}

/* ---- run records ---- */

static const char *dtype_name(const char *t) {
  static const char *const map[][2] = {{"float", "float"}, {"float32", "float"}, {"half", "half"},
                                       {"float16", "half"}, {"bfloat16", "bfloat16"}, {"int32", "int32"},
                                       {"int", "int32"}, {"char", "int8"}, {"int8", "int8"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(t, map[i][0])) return map[i][1];
  return t; /* double, uint8, int64, f8e4m3, ... kept as nccl-tests names them */
}

static json_t *new_run(struct nt *p) {
  const char *base = strrchr(p->path, '/');
  char id[64];
  snprintf(id, sizeof id, "nccltests-%012llx-%d", p->hash & 0xffffffffffffull, p->nrun);
  json_t *run = json_pack("{s:s, s:s, s:i, s:s, s:s, s:{s:s}, s:o, s:o, s:o, s:o, s:n}", "type", "run", "run_id", id,
                          "schema", AR_SCHEMA_VERSION, "source", "nccl-tests", "imported_from", base ? base + 1 : p->path,
                          "arbench", "version", AR_VERSION_STRING, "stack",
                          json_pack("{s:n, s:n, s:n, s:n}", "name", "nccl_loaded", "nccl_compiled", "cuda_runtime"),
                          "rank_map", json_array(), "gpus", json_array(), "options", json_object(), "topology");
  json_object_update(json_object_get(run, "stack"), json_object_get(p->pending, "stack"));
  json_t *v = json_object_get(p->pending, "nccl_tests_version");
  if (v) json_object_set(run, "nccl_tests_version", v);
  return run;
}

static void flush_run(struct nt *p);

static int on_nthread(struct nt *p, char **tok, int n) {
  if (p->run && json_array_size(p->rows)) flush_run(p);
  if (!p->run) p->run = new_run(p);
  static const char *const keys[][2] = {{"nThread", "nthread"},  {"nGpus", "ngpus"},        {"minBytes", "minbytes"},
                                        {"maxBytes", "maxbytes"}, {"warmup", "warmup"},      {"iters:", "iters"},
                                        {"agg", "agg_iters"},     {"validation:", "validation"}, {"graph:", "graph"}};
  json_t *opts = json_object_get(p->run, "options");
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    long v;
    const char *k = keys[i][0];
    if (!strcmp(k, "warmup") || !strcmp(k, "agg")) { /* "warmup iters: 5", "agg iters: 1" */
      for (int t = 0; t + 2 < n; t++)
        if (!strcmp(tok[t], k) && !strcmp(tok[t + 1], "iters:")) json_object_set_new(opts, keys[i][1], json_integer(atol(tok[t + 2])));
      continue;
    }
    if (!strcmp(k, "iters:")) { /* the plain "iters: 20" (not preceded by warmup/agg) */
      for (int t = 1; t + 1 < n; t++)
        if (!strcmp(tok[t], "iters:") && strcmp(tok[t - 1], "warmup") && strcmp(tok[t - 1], "agg"))
          json_object_set_new(opts, "iters", json_integer(atol(tok[t + 1])));
      continue;
    }
    if (!after(tok, n, k, &v)) json_object_set_new(opts, keys[i][1], json_integer(v));
  }
  return 0;
}

/* "#  Rank  0 Group  0 Pid  31706 on HOST device  0 [0000:b4:00] NVIDIA GeForce RTX 2080 Ti"
 * or the older "#   Rank  0 Pid    195 on HOST device  0 [0x00] Tesla K80". */
static int on_rank(struct nt *p, char *line) {
  char *tok[64];
  char copy[4096];
  snprintf(copy, sizeof copy, "%.4000s", line);
  int n = split(copy, tok, 64);
  long rank = -1, pid = -1, dev = -1;
  const char *host = NULL, *bus = NULL;
  for (int i = 0; i + 1 < n; i++) {
    if (!strcmp(tok[i], "Rank")) rank = atol(tok[i + 1]);
    else if (!strcmp(tok[i], "Pid")) pid = atol(tok[i + 1]);
    else if (!strcmp(tok[i], "on")) host = tok[i + 1];
    else if (!strcmp(tok[i], "device")) dev = atol(tok[i + 1]);
  }
  char *lb = strchr(line, '['), *rb = lb ? strchr(lb, ']') : NULL;
  if (rank < 0 || !host || dev < 0 || !rb) return fail(p, "malformed device line (expected '# Rank N ... on HOST device D [BUS] NAME')", "", "");
  *rb = 0;
  bus = lb + 1;
  const char *name = rb + 1;
  while (*name == ' ') name++;
  if (!p->run) p->run = new_run(p);
  json_array_append_new(json_object_get(p->run, "rank_map"),
                        json_pack("{s:i, s:s, s:i, s:i}", "rank", (int)rank, "host", host, "device", (int)dev, "pid", (int)pid));
  json_array_append_new(json_object_get(p->run, "gpus"),
                        json_pack("{s:i, s:s, s:s}", "rank", (int)rank, "busid", bus, "name", name));
  return 0;
}

static void set_stack(struct nt *p, const char *key, const char *val) {
  json_t *target = p->run && !json_array_size(p->rows) ? json_object_get(p->run, "stack") : NULL;
  if (!json_object_get(p->pending, "stack")) json_object_set_new(p->pending, "stack", json_object());
  json_object_set_new(json_object_get(p->pending, "stack"), key, json_string(val));
  if (target) json_object_set_new(target, key, json_string(val));
}

/* "# nccl-tests version 2.18.0 nccl-headers=22907 nccl-library=22907" */
static void on_version(struct nt *p, char **tok, int n) {
  for (int i = 0; i < n; i++) {
    char v[32];
    if (!strncmp(tok[i], "nccl-headers=", 13)) nccl_code(tok[i] + 13, v, sizeof v), set_stack(p, "nccl_compiled", v);
    if (!strncmp(tok[i], "nccl-library=", 13)) nccl_code(tok[i] + 13, v, sizeof v), set_stack(p, "nccl_loaded", v);
  }
  if (n > 3) json_object_set_new(p->pending, "nccl_tests_version", json_string(tok[3]));
  if (p->run && n > 3) json_object_set_new(p->run, "nccl_tests_version", json_string(tok[3]));
}

/* "... NCCL INFO NCCL version 2.26.5+cuda12.9" or a bare "NCCL version 2.9.6+cuda11.2". */
static void on_nccl_version(struct nt *p, const char *at) {
  char v[64];
  if (sscanf(at, "NCCL version %63s", v) != 1) return;
  char *plus = strchr(v, '+');
  if (plus) {
    if (!strncmp(plus + 1, "cuda", 4)) set_stack(p, "nccl_cuda", plus + 5);
    *plus = 0;
  }
  set_stack(p, "nccl_loaded", v);
}

/* "#       size         count      type   redop    root     time   algbw   busbw #wrong ..." */
static void on_header(struct nt *p, char **tok, int n) {
  p->has_root = 0;
  p->wrong_col = 1;
  for (int i = 0; i < n; i++) {
    if (!strcmp(tok[i], "root")) p->has_root = 1;
    if (!strcmp(tok[i], "error") || !strcmp(tok[i], "res")) p->wrong_col = 0;
  }
  p->cols = p->has_root ? 13 : 12;
}

/* ---- rows ---- */

struct half {
  double time, algbw, busbw, err;
  int err_na;
};

static int parse_half(struct nt *p, char **tok, struct half *h) {
  static const char *const names[] = {"time", "algbw", "busbw"};
  double *dst[] = {&h->time, &h->algbw, &h->busbw};
  for (int i = 0; i < 3; i++) {
    if (number(tok[i], dst[i])) return fail(p, "bad number '%s' in the %s column", tok[i], names[i]);
    if (*dst[i] < 0) return fail(p, "negative value '%s' in the %s column: no measurement has one", tok[i], names[i]);
  }
  h->err_na = !strcmp(tok[3], "N/A");
  if (!h->err_na && number(tok[3], &h->err)) return fail(p, "bad value '%s' in the %s column", tok[3], p->wrong_col ? "#wrong" : "error");
  h->time *= p->time_scale;
  return 0;
}

static json_t *result_rec(struct nt *p, long long size, long long count, const char *type, const char *op,
                          const char *place, const struct half *h) {
  json_t *opts = json_object_get(p->run, "options");
  json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}", "type", "result", "run_id",
                        json_string_value(json_object_get(p->run, "run_id")), "backend", NT_BACKEND, "variant", "",
                        "spec", NT_BACKEND, "dtype", dtype_name(type), "op", op, "placement", place, "size",
                        (json_int_t)size, "count", (json_int_t)count);
  json_object_set_new(r, "ranks", json_integer(0)); /* filled when the run ends */
  json_object_set_new(r, "nodes", json_integer(0));
  json_object_set(r, "iters", json_object_get(opts, "iters") ? json_object_get(opts, "iters") : json_null());
  json_object_set(r, "warmup", json_object_get(opts, "warmup") ? json_object_get(opts, "warmup") : json_null());
  json_t *graph = json_object_get(opts, "graph");
  json_object_set_new(r, "graph", graph ? json_incref(graph) : json_integer(0));
  json_object_set_new(r, "samples_n", json_integer(0));
  json_object_set_new(r, "source", json_string("nccl-tests"));
  /* A #wrong that is no count (inf, nan, 1e300: fuzz_import) is no check; the cast would be UB. */
  int bad_count = p->wrong_col && !h->err_na && !(h->err >= 0 && h->err <= 9.0e15);
  json_object_set_new(r, "checked", json_boolean(ar_rec_num(opts, "validation", 1) > 0 && !h->err_na && !bad_count));
  if (p->wrong_col) json_object_set_new(r, "wrong", h->err_na || bad_count ? json_null() : json_integer((json_int_t)h->err));
  else {
    json_object_set_new(r, "wrong", json_null());
    json_object_set_new(r, "max_error", h->err_na ? json_null() : json_real(h->err));
  }
  json_object_set_new(r, "time_us", json_pack("{s:f, s:f}", "mean", h->time, "p50", h->time));
  json_object_set_new(r, "algbw_gbs", json_real(h->algbw));
  json_object_set_new(r, "busbw_gbs", json_real(h->busbw));
  json_object_set_new(r, "algbw_p50_gbs", json_real(h->algbw));
  json_object_set_new(r, "busbw_p50_gbs", json_real(h->busbw));
  json_object_set_new(r, "log_line", json_integer(p->line));
  return r;
}

static int on_row(struct nt *p, char **tok, int n) {
  if (!p->cols && (n == 12 || n == 13)) { /* no header line: 13 columns = root + #wrong */
    p->cols = n;
    p->has_root = p->wrong_col = n == 13;
  }
  if (n != p->cols) {
    char a[16], b[16];
    snprintf(a, sizeof a, "%d", p->cols);
    snprintf(b, sizeof b, "%d", n);
    return fail(p, "malformed all_reduce_perf row: expected %s columns, found %s", a, b);
  }
  if (p->has_root && strcmp(tok[4], "-1"))
    return fail(p, "root column is %s: this is reduce/broadcast output, not all_reduce_perf%s", tok[4], "");
  static const char *const redops[] = {"sum", "prod", "max", "min", "avg"};
  int op_ok = 0;
  for (size_t i = 0; i < sizeof redops / sizeof redops[0]; i++) op_ok |= !strcmp(tok[3], redops[i]);
  if (!op_ok) /* all_gather_perf, alltoall_perf, sendrecv_perf print "none" */
    return fail(p, "redop '%s': not all_reduce_perf output (an allreduce reduces with sum, prod, max, min or avg)%s",
                tok[3], "");
  for (int i = 0; i < 2; i++) {
    errno = 0;
    unsigned long long v = strtoull(tok[i], NULL, 10);
    if (errno || v > (1ull << 50)) /* 1 PiB: no message is larger; beyond 2^53 a double would round it */
      return fail(p, "%s %s is out of range: no allreduce has one", i ? "count" : "size", tok[i]);
  }
  struct half out, in;
  int k = p->has_root ? 5 : 4;
  if (parse_half(p, tok + k, &out) || parse_half(p, tok + k + 4, &in)) return -AR_EINVAL;
  if (!p->run) p->run = new_run(p);
  long long size = atoll(tok[0]), count = atoll(tok[1]);
  json_array_append_new(p->rows, result_rec(p, size, count, tok[2], tok[3], "out", &out));
  json_array_append_new(p->rows, result_rec(p, size, count, tok[2], tok[3], "in", &in));
  return 0;
}

/* ---- one line ---- */

static char *strip_prefix(char *s) {
  /* mpirun --tag-output: "[1,0]<stdout>:" */
  if (s[0] == '[') {
    char *gt = strstr(s, ">:");
    if (gt && (strstr(s, "<stdout>:") == gt - 7 || strstr(s, "<stderr>:") == gt - 7)) s = gt + 2;
  }
  while (*s == ' ' || *s == '\t') s++;
  return s;
}

static int on_line(struct nt *p, char *raw) {
  char *s = strip_prefix(raw), *tok[64], copy[4096];
  const char *nv = strstr(s, "NCCL version ");
  if (nv) on_nccl_version(p, nv);
  snprintf(copy, sizeof copy, "%s", s);
  int n = split(copy, tok, 64);
  if (!n) return 0;
  if (!strcmp(tok[0], "#")) {
    if (n > 2 && !strcmp(tok[1], "nccl-tests") && !strcmp(tok[2], "version")) on_version(p, tok, n);
    else if (n > 4 && !strcmp(tok[1], "Collective") && strstr(s, "starting:") && strncmp(tok[n - 1], "all_reduce_perf", 15))
      return fail(p, "this is %s output; only all_reduce_perf is imported%s", tok[n - 1], "");
    else if (n > 1 && !strcmp(tok[1], "nThread")) return on_nthread(p, tok, n);
    else if (n > 1 && !strcmp(tok[1], "Rank")) return on_rank(p, s);
    else if (n > 3 && (!strcmp(tok[1], "size") || !strcmp(tok[1], "bytes")) && strstr(s, "busbw")) on_header(p, tok, n);
    else if (strstr(s, "(ms)") && strstr(s, "(GB/s)")) p->time_scale = 1000;
    else if (strstr(s, "Out of bounds values") && n > 6 && p->run)
      json_object_set_new(p->run, "out_of_bounds", json_integer(atol(tok[6])));
    else if (strstr(s, "Avg bus bandwidth") && p->run) {
      double v;
      if (!number(tok[n - 1], &v)) json_object_set_new(p->run, "avg_busbw_gbs", json_real(v));
    }
    return 0;
  }
  if (n >= 4 && all_digits(tok[0]) && all_digits(tok[1]) && isalpha((unsigned char)tok[2][0])) return on_row(p, tok, n);
  return 0;
}

/* ---- finishing a run ---- */

static int infer_ranks(json_t *rows) {
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    double a = ar_rec_num(r, "algbw_gbs", 0), b = ar_rec_num(r, "busbw_gbs", 0);
    if (a >= 1 && b > 0 && b / a < 1.99) return (int)lround(2 / (2 - b / a));
  }
  return 0;
}

static void flush_run(struct nt *p) {
  json_t *map = json_object_get(p->run, "rank_map"), *hosts = json_array(), *seen = json_object();
  size_t i;
  json_t *m;
  json_array_foreach(map, i, m) {
    const char *h = json_string_value(json_object_get(m, "host"));
    if (!json_object_get(seen, h)) json_array_append_new(hosts, json_string(h));
    json_object_set_new(seen, h, json_true());
  }
  json_decref(seen);
  int ranks = p->forced_ranks ? p->forced_ranks : json_array_size(map) ? (int)json_array_size(map) : infer_ranks(p->rows);
  int nodes = json_array_size(hosts) ? (int)json_array_size(hosts) : 1;
  json_object_set_new(p->run, "hosts", hosts);
  json_object_set_new(p->run, "ranks", json_integer(ranks));
  json_object_set_new(p->run, "nodes", json_integer(nodes));
  json_t *st = json_object_get(p->run, "stack");
  const char *ver = json_string_value(json_object_get(st, "nccl_loaded"));
  char name[128];
  snprintf(name, sizeof name, "%s%s", p->stack ? p->stack : ver ? "nccl-" : "unknown", p->stack ? "" : ver ? ver : "");
  json_object_set_new(st, "name", json_string(name));
  json_array_append(p->out, p->run);
  json_array_foreach(p->rows, i, m) {
    json_object_set_new(m, "ranks", json_integer(ranks));
    json_object_set_new(m, "nodes", json_integer(nodes));
    json_array_append(p->out, m);
  }
  json_decref(p->run);
  json_decref(p->rows);
  p->run = NULL;
  p->rows = json_array();
  p->nrun++;
}

static unsigned long long fnv_file(FILE *f) {
  unsigned long long h = 0xcbf29ce484222325ull;
  int c;
  while ((c = fgetc(f)) != EOF) h = (h ^ (unsigned char)c) * 0x100000001b3ull;
  rewind(f);
  return h;
}

static int parse_log(struct nt *p) {
  FILE *f = fopen(p->path, "r");
  if (!f) {
    snprintf(p->err, sizeof p->err, "cannot open nccl-tests log '%s': %s", p->path, strerror(errno));
    return -AR_EINVAL;
  }
  p->hash = fnv_file(f);
  char buf[4096];
  int rc = 0;
  while (!rc && fgets(buf, sizeof buf, f)) {
    p->line++;
    buf[strcspn(buf, "\n")] = 0;
    rc = on_line(p, buf);
  }
  fclose(f);
  if (!rc && p->run && json_array_size(p->rows)) flush_run(p);
  if (!rc && !json_array_size(p->out)) {
    snprintf(p->err, sizeof p->err, "%s: no all_reduce_perf result rows found (is this nccl-tests output?)", p->path);
    rc = -AR_EINVAL;
  }
  for (size_t i = 0; !rc && i < json_array_size(p->out); i++) {
    json_t *r = json_array_get(p->out, i);
    if (!strcmp(ar_rec_str(r, "type", ""), "run") && !ar_rec_num(r, "ranks", 0)) {
      snprintf(p->err, sizeof p->err, "%s: cannot tell the number of ranks (no '# Rank' lines): pass --ranks N", p->path);
      rc = -AR_EINVAL;
    }
  }
  return rc;
}

static int write_out(struct nt *p, const char *json) {
  struct ar_writer w;
  char err[AR_ERRLEN];
  if (ar_writer_open(&w, json, err, sizeof err)) return fprintf(stderr, "arbench import: %s\n", err), AR_EXIT_USAGE;
  size_t i, nres = 0;
  json_t *r;
  json_array_foreach(p->out, i, r) {
    if (ar_writer_put(&w, r, err, sizeof err)) {
      fprintf(stderr, "arbench import: %s\n", err);
      ar_writer_close(&w);
      return AR_EXIT_FAIL;
    }
    nres += !strcmp(ar_rec_str(r, "type", ""), "result");
  }
  ar_writer_close(&w);
  if (strcmp(json, "-"))
    printf("imported %zu result records in %d run%s from %s into %s\n", nres, p->nrun, p->nrun == 1 ? "" : "s", p->path, json);
  return AR_EXIT_OK;
}

int ar_cmd_import(int argc, char **argv) {
  static const struct option lo[] = {{"json", required_argument, 0, 'J'}, {"stack", required_argument, 0, 's'},
                                     {"ranks", required_argument, 0, 'r'}, {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  const char *json = "-";
  struct nt p = {.time_scale = 1};
  int c;
  optind = 0; /* glibc: 0 also forgets a half-read "-xyz" cluster of an earlier parse (fuzz_opts) */
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hJ:", lo, NULL)) != -1) {
    char *end;
    if (c == 'h') return usage(stdout), AR_EXIT_OK;
    if (c == 'J') json = optarg;
    else if (c == 's') p.stack = optarg;
    else if (c == 'r') {
      p.forced_ranks = (int)strtol(optarg, &end, 10);
      if (end == optarg || *end || p.forced_ranks < 1) {
        fprintf(stderr, "arbench import: bad --ranks '%s' (expected a positive integer)\n", optarg);
        return AR_EXIT_USAGE;
      }
    } else {
      fprintf(stderr, "arbench import: %s '%s' (see arbench import --help)\n",
              c == ':' ? "option needs a value:" : "unknown option", argv[optind - 1]);
      return AR_EXIT_USAGE;
    }
  }
  if (argc - optind != 2 || strcmp(argv[optind], "nccl-tests")) {
    fprintf(stderr, "arbench import: expected 'nccl-tests LOG' (the only format imported), e.g. "
                    "arbench import nccl-tests all_reduce.log -J results.jsonl\n");
    return AR_EXIT_USAGE;
  }
  p.path = argv[optind + 1];
  p.out = json_array();
  p.rows = json_array();
  p.pending = json_object();
  int status = parse_log(&p) ? (fprintf(stderr, "arbench import: %s\n", p.err), AR_EXIT_USAGE) : write_out(&p, json);
  json_decref(p.out);
  json_decref(p.rows);
  json_decref(p.run);
  json_decref(p.pending);
  return status;
}
