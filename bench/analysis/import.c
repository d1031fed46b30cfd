/* import.c — `arbench import nccl-tests LOG [-J FILE]`: all_reduce_perf logs as published (nccl-tests
 * 2.0-2.19, rccl-tests, arbench's own --format nccl-tests) -> one run record and its results per test. */
#include "ar.h"
#include "commands.h"
#include "import.h"
#include "aic/aic.h"
#include "results.h"
#include "infile.h"
#include "knownbad.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Imported results are backend "nccl-tests" (not "nccl"): they sit in their own column beside arbench's
 * nccl, with nccl-tests' method on every record (one buffer set, one interval around the loop, -a 1). A
 * log arbench wrote itself names its configuration in a header comment, and its records take it back. */
#define NT_BACKEND "nccl-tests"

enum { EV_VERSION = 1, EV_START = 2, EV_NTHREAD = 4, EV_HEADER = 8 };

struct nt {
  struct ar_nt_ctx c;
  const char *stack;    /* --stack */
  int forced_ranks;     /* --ranks */
  unsigned long long hash;
  int ntest;
  json_t *out;          /* records of the imported tests, in order */
  json_t *skipped;      /* one string per test left out */
  json_t *warnings;     /* printed when the whole log imported */
  struct ar_nt_test *t; /* the test being read */
  int events;           /* EV_* seen by t */
  json_t *pending;      /* facts seen before a test's first line: stack, versions, tool */
  char hint[64];        /* the *_perf program of the last command line */
  int launcher;         /* ranks the last command line starts */
  int average;          /* its -a, -1 none */
  char cmd[8192];       /* a command line continued with '\' */
  int in_cmd;
  int table_line;       /* on_line's last line was a row or a '#' line of nccl-tests */
  json_t *cmd_opts;     /* nccl-tests 2.19 options of the last command line (-I -K -z -R -D -V), by long name */
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: arbench import nccl-tests LOG [-J FILE] [--stack NAME] [--ranks N]\n"
          "       arbench import nccl-tests-json FILE [-J FILE] [--stack NAME] [--ranks N]   (all_reduce_perf -J)\n"
          "Reads all_reduce_perf output as published: nccl-tests 2.0 to 2.19 (the old 'error' column, 'root' and\n"
          "'#wrong'), rccl-tests, arbench run --format nccl-tests; lines prefixed by mpirun --tag-output or srun -l,\n"
          "indented or quoted, with their '#' stripped, NCCL INFO lines and elisions ('...') among them. Every\n"
          "all_reduce_perf test of the log becomes a run record (versions, devices, hosts, options) and two result\n"
          "records per row (out-of-place, in-place); tests of other collectives are left out and named.\n"
          "Results have backend \"nccl-tests\" (a log arbench wrote: its configuration), source \"nccl-tests\", no\n"
          "samples (time_us.mean = time_us.p50 = the time printed) and nccl-tests' method: buffers hot, timing\n"
          "loop, average mean (-a 1, or the -a of the log's command line; -z 3: timing iter). nccl-tests 2.19's -I\n"
          "columns (i_min i_max i_p99 i_cv%%) become time_us.min/max/p99 and per_iter. The rank count is the one busbw/algbw\n"
          "= 2(n-1)/n allows, cross-checked with the Rank lines and a launcher line (one warning when they differ).\n"
          "  -J, --json FILE   append the records to FILE (default: stdout)\n"
          "  --stack NAME      the runs' stack.name (default from the log: nccl-<version>+cuda<version>, or\n"
          "                    'nccl-<version> (CUDA unknown)' when its NCCL version line has no +cuda; else 'unknown')\n"
          "  --ranks N         the rank count of every test, whatever the log says\n");
}

static int fail(struct nt *p, const char *fmt, const char *a, const char *b) {
  char msg[300];
  snprintf(msg, sizeof msg, fmt, a, b);
  snprintf(p->c.err, sizeof p->c.err, "%.200s:%d: %s", p->c.path, p->c.line, msg);
  return -AR_EINVAL;
}

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

/* "22907" (NCCL >= 2.9: major*10000+minor*100+patch) or "2708" (older: major*1000+minor*100+patch). */
static int nccl_code(const char *s, char *buf, size_t len) {
  long c = strtol(s, NULL, 10);
  if (c <= 0) return -1; /* arbench writes 0 when no NCCL was loaded */
  if (c >= 10000) snprintf(buf, len, "%ld.%ld.%ld", c / 10000, c % 10000 / 100, c % 100);
  else snprintf(buf, len, "%ld.%ld.%ld", c / 1000, c % 1000 / 100, c % 100);
  return 0;
}

/* ---- tests ---- */

/* A fact of the test being read (before its rows), else of the next test. */
static void set_fact(struct nt *p, const char *group, const char *key, json_t *val) {
  json_t *into = p->t && !json_array_size(p->t->rows) && !p->t->done ? p->t->run : p->pending;
  json_t *g = group ? json_object_get(into, group) : into;
  if (group && !g) json_object_set_new(into, group, g = json_object());
  json_object_set_new(g, key, val);
}

static struct ar_nt_test *test_new(struct nt *p) {
  struct ar_nt_test *t = calloc(1, sizeof *t);
  const char *base = strrchr(p->c.path, '/');
  char id[64];
  snprintf(id, sizeof id, "nccltests-%012llx-%d", p->hash & 0xffffffffffffull, p->ntest++);
  t->run = json_pack("{s:s, s:s, s:i, s:s, s:s, s:{s:s}, s:{s:n, s:n, s:n}, s:o, s:o, s:o, s:n}", "type", "run",
                     "run_id", id, "schema", AR_SCHEMA_VERSION, "source", "nccl-tests", "imported_from",
                     base ? base + 1 : p->c.path, "arbench", "version", AR_VERSION_STRING, "stack", "name",
                     "nccl_loaded", "cuda_runtime", "rank_map", json_array(), "gpus", json_array(), "options",
                     json_object(), "topology");
  const char *key;
  json_t *v;
  json_object_foreach(p->pending, key, v) {
    if (json_is_object(v) && json_is_object(json_object_get(t->run, key))) json_object_update(json_object_get(t->run, key), v);
    else json_object_set(t->run, key, v);
  }
  json_object_clear(p->pending);
  json_t *opts = json_object_get(t->run, "options");
  json_object_foreach(p->cmd_opts, key, v) if (!json_object_get(opts, key)) json_object_set(opts, key, v);
  t->rows = json_array();
  t->ranks_seen = json_object();
  t->line = p->c.line;
  t->ev.forced = p->forced_ranks;
  t->ev.launcher = p->launcher;
  ar_nt_ratio_init(&t->ev.ratio);
  snprintf(t->name, sizeof t->name, "%s", p->hint);
  *p->hint = 0;
  p->events = 0;
  return t;
}

static void test_free(struct ar_nt_test *t) {
  if (!t) return;
  json_decref(t->run);
  json_decref(t->rows);
  json_decref(t->ranks_seen);
  free(t);
}

static const char *average_name(int a) {
  static const char *const names[] = {"rank0", "mean", "min", "max"};
  return a >= 0 && a < 4 ? names[a] : "mean";
}

/* The method of every record: nccl-tests' (one buffer set, one interval around the loop, -a 1 by default),
 * or what an arbench header comment says it used. */
static void method_of(struct nt *p, struct ar_nt_test *t, const char **buf, const char **tim, const char **avg) {
  json_t *w = json_object_get(t->run, "written_by");
  *buf = ar_rec_str(w, "buffers", "hot");
  /* -z 3 (2.19.2+, src/common.cu BenchTime): each iteration waited for and timed alone, barrier excluded, the time
   * their mean: arbench's --timing iter, not one interval around the loop. */
  int z3 = !w && ar_rec_num(json_object_get(t->run, "options"), "blocking_mode", 0) == 3;
  *tim = ar_rec_str(w, "timing", z3 ? "iter" : "loop");
  *avg = ar_rec_str(w, "average", average_name(p->average));
  const char *from = w ? "the arbench header of the log"
                     : z3 ? (p->average >= 0 ? "nccl-tests -z 3 (each iteration timed alone), with -a of its command line"
                                             : "nccl-tests -z 3 (each iteration timed alone), -a 1")
                     : p->average >= 0 ? "nccl-tests, with -a of its command line"
                                       : "nccl-tests' defaults (-a 1)";
  json_object_set_new(t->run, "method", json_pack("{s:s, s:s, s:s, s:s}", "buffers", *buf, "timing", *tim,
                                                  "average", *avg, "from", from));
}

/* Hosts of the Rank lines; nodes when they name every rank, else from an arbench header, else unknown. */
static json_t *nodes_of(struct ar_nt_test *t, int ranks, json_t **hosts) {
  json_t *seen = json_object(), *m;
  size_t i;
  *hosts = json_array();
  json_array_foreach(json_object_get(t->run, "rank_map"), i, m) {
    const char *h = json_string_value(json_object_get(m, "host"));
    if (h && !json_object_get(seen, h)) json_array_append_new(*hosts, json_string(h));
    if (h) json_object_set_new(seen, h, json_true());
  }
  json_decref(seen);
  if (t->ev.rank_lines == ranks && t->ev.rank_hi == ranks && json_array_size(*hosts))
    return json_integer((json_int_t)json_array_size(*hosts));
  json_t *stated = json_object_get(json_object_get(t->run, "written_by"), "nodes");
  return stated ? json_incref(stated) : json_null();
}

static void skip_test(struct nt *p, struct ar_nt_test *t) {
  char s[300];
  if (t->other) snprintf(s, sizeof s, "%s (line %d: %s)", *t->name ? t->name : "another collective's table", t->other_line, t->why);
  else if (*t->name && !ar_nt_is_allreduce(t->name)) snprintf(s, sizeof s, "%s (line %d)", t->name, t->line);
  else snprintf(s, sizeof s, "%s (line %d: no result rows)", *t->name ? t->name : "a test", t->line);
  json_array_append_new(p->skipped, json_string(s));
}

/* stack.name: --stack, an arbench log's own, nccl-<version>+cuda<version> (or "nccl-<version> (CUDA unknown)")
 * / rccl-<version> from the log, else unknown. */
static void name_stack(struct nt *p, struct ar_nt_test *t) {
  json_t *st = json_object_get(t->run, "stack"), *w = json_object_get(t->run, "written_by");
  const char *ver = json_string_value(json_object_get(st, "nccl_loaded")), *lib = ar_rec_str(st, "library", "nccl");
  char name[128];
  if (p->stack) snprintf(name, sizeof name, "%s", p->stack);
  else if (json_string_value(json_object_get(w, "stack"))) snprintf(name, sizeof name, "%s", ar_rec_str(w, "stack", ""));
  else if (ver && strcmp(lib, "nccl")) snprintf(name, sizeof name, "%s-%s", lib, ver);
  else if (ver) { /* the CUDA NCCL was built for, from "NCCL version X+cudaY": two imports never look alike without it */
    const char *cu = json_string_value(json_object_get(st, "nccl_cuda"));
    if (cu && *cu) snprintf(name, sizeof name, "nccl-%s+cuda%s", ver, cu);
    else snprintf(name, sizeof name, "nccl-%s (CUDA unknown)", ver);
  }
  else snprintf(name, sizeof name, "unknown");
  json_object_set_new(st, "name", json_string(name));
}

/* What every result of the test shares, known at its end: configuration, ranks, nodes, method, repeats. */
static void stamp_rows(struct nt *p, struct ar_nt_test *t, int ranks, json_t *nodes) {
  json_t *w = json_object_get(t->run, "written_by");
  const char *buf, *tim, *avg, *spec = ar_rec_str(w, "spec", NT_BACKEND);
  method_of(p, t, &buf, &tim, &avg);
  char backend[256];
  snprintf(backend, sizeof backend, "%s", spec);
  char *colon = strchr(backend, ':');
  if (colon) *colon = 0;
  size_t i;
  json_t *r;
  json_int_t repeats = t->cycle + 1;
  json_array_foreach(t->rows, i, r) {
    json_object_set_new(r, "backend", json_string(backend));
    json_object_set_new(r, "variant", json_string(colon ? colon + 1 : ""));
    json_object_set_new(r, "spec", json_string(spec));
    json_object_set_new(r, "ranks", json_integer(ranks));
    json_object_set(r, "nodes", nodes);
    json_object_set_new(r, "buffers", json_string(buf));
    json_object_set_new(r, "timing", json_string(tim));
    json_object_set_new(r, "average", json_string(avg));
    json_object_set_new(r, "repeats", json_integer(repeats));
    json_array_append(p->out, r);
  }
}

static int flush(struct nt *p) {
  struct ar_nt_test *t = p->t;
  p->t = NULL;
  if (!t) return 0;
  if (t->other || (*t->name && !ar_nt_is_allreduce(t->name)) || !json_array_size(t->rows)) {
    skip_test(p, t);
    test_free(t);
    return 0;
  }
  const char *from;
  char warn[512], err[512];
  int ranks = ar_nt_decide_ranks(&t->ev, &from, warn, sizeof warn, err, sizeof err);
  if (!ranks) {
    snprintf(p->c.err, sizeof p->c.err, "%.150s:%d: %.300s", p->c.path, t->line, err);
    test_free(t);
    return -AR_EINVAL;
  }
  if (*warn) {
    char w[700];
    snprintf(w, sizeof w, "%.150s:%d: %.500s", p->c.path, t->line, warn);
    json_array_append_new(p->warnings, json_string(w));
  }
  json_t *hosts, *nodes = nodes_of(t, ranks, &hosts);
  json_object_set_new(t->run, "hosts", hosts);
  json_object_set_new(t->run, "ranks", json_integer(ranks));
  json_object_set(t->run, "nodes", nodes);
  json_object_set_new(t->run, "ranks_from", json_string(from));
  if (*t->name) json_object_set_new(t->run, "collective", json_string(t->name));
  name_stack(p, t);
  char kb[2048]; /* the log's NCCL version and GPU lines against bench/knownbad.c: the run's known_bad, a warning */
  if (ar_knownbad_record(t->run, kb, sizeof kb) && *kb) json_array_append_new(p->warnings, json_sprintf("%.150s:%d: %s", p->c.path, t->line, kb));
  json_array_append(p->out, t->run);
  stamp_rows(p, t, ranks, nodes);
  json_decref(nodes);
  test_free(t);
  return 0;
}

/* A line that starts a test (its version, starting, nThread or column header line): a new test when the
 * current one has rows, has ended, or already had a line of this kind. */
static int begin(struct nt *p, int event) {
  if (p->t && (json_array_size(p->t->rows) || p->t->done || p->t->other || (p->events & event)))
    if (flush(p)) return -AR_EINVAL;
  if (!p->t) p->t = test_new(p);
  p->events |= event;
  return 0;
}

/* ---- header lines ---- */

static void on_nthread(struct nt *p, char **tok, int n) {
  json_t *opts = json_object_get(p->t->run, "options");
  static const char *const keys[][2] = {{"nThread", "nthread"}, {"nGpus", "ngpus"}, {"minBytes", "minbytes"},
                                        {"maxBytes", "maxbytes"}, {"validation:", "validation"}, {"graph:", "graph"},
                                        {"unalign:", "unalign"}};
  for (int i = 0; i + 1 < n; i++) {
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
      if (!strcmp(tok[i], keys[k][0])) json_object_set_new(opts, keys[k][1], json_integer(atoll(tok[i + 1])));
    if (!strcmp(tok[i], "iters:")) /* "warmup iters: 5", "agg iters: 1" or the plain "iters: 20" */
      json_object_set_new(opts, i && !strcmp(tok[i - 1], "warmup") ? "warmup" : i && !strcmp(tok[i - 1], "agg") ? "agg_iters" : "iters",
                          json_integer(atoll(tok[i + 1])));
    if (!strcmp(tok[i], "step:")) /* "step: 2(factor)" or "step: 1048576(bytes)" */
      json_object_set_new(opts, strstr(tok[i + 1], "(bytes)") ? "step_bytes" : "step_factor", json_integer(atoll(tok[i + 1])));
  }
}

/* "Rank  0 Group  0 Pid  31706 on HOST device  0 [0000:b4:00] NVIDIA GeForce RTX 2080 Ti", older ones
 * without Group, rccl-tests' without a name, arbench's CPU ranks "device -1" without a bus id. */
static int on_rank(struct nt *p, char *body, char **tok, int n) {
  long rank = -1, pid = -1, dev = -2;
  const char *host = NULL;
  for (int i = 0; i + 1 < n; i++) {
    if (!strcmp(tok[i], "Rank") && all_digits(tok[i + 1])) rank = atol(tok[i + 1]);
    else if (!strcmp(tok[i], "Pid")) pid = atol(tok[i + 1]);
    else if (!strcmp(tok[i], "on") && !host) host = tok[i + 1];
    else if (!strcmp(tok[i], "device") && dev == -2) dev = atol(tok[i + 1]);
  }
  if (rank < 0 || rank > 10000000 || !host || dev < -1)
    return fail(p, "malformed device line (expected 'Rank N ... on HOST device D [BUS] NAME')%s%s", "", "");
  const char *after = strstr(body, host) + strlen(host); /* the bus id and name follow "device D" */
  while ((after = strstr(after, "device")) && !(strchr(" \t", after[-1]) && strchr(" \t", after[6]))) after++;
  after = after ? after + 6 : body + strlen(body);
  after += strspn(after, " \t");
  after += strspn(after, "-0123456789");
  after += strspn(after, " \t");
  char bus[64] = "";
  if (*after == '[' && strchr(after, ']')) {
    snprintf(bus, sizeof bus, "%.*s", (int)(strchr(after, ']') - after - 1), after + 1);
    after = strchr(after, ']') + 1;
    after += strspn(after, " ");
  }
  if (begin(p, 0)) return -AR_EINVAL;
  char key[24];
  snprintf(key, sizeof key, "%ld", rank);
  if (!json_object_get(p->t->ranks_seen, key)) p->t->ev.rank_lines++;
  json_object_set_new(p->t->ranks_seen, key, json_true());
  if (rank + 1 > p->t->ev.rank_hi) p->t->ev.rank_hi = (int)rank + 1;
  json_array_append_new(json_object_get(p->t->run, "rank_map"),
                        json_pack("{s:i, s:s, s:i, s:i}", "rank", (int)rank, "host", host, "device", (int)dev, "pid", (int)pid));
  json_array_append_new(json_object_get(p->t->run, "gpus"),
                        json_pack("{s:i, s:o, s:s}", "rank", (int)rank, "busid", *bus ? json_string(bus) : json_null(),
                                  "name", after));
  return 0;
}

/* "nccl-tests version 2.18.0 nccl-headers=22907 nccl-library=22907 [arbench=0.1.0]" */
static void on_version(struct nt *p, char **tok, int n) {
  char v[32];
  for (int i = 0; i < n; i++) {
    if (!strncmp(tok[i], "nccl-headers=", 13) && !nccl_code(tok[i] + 13, v, sizeof v)) set_fact(p, "stack", "nccl_compiled", json_string(v));
    if (!strncmp(tok[i], "nccl-library=", 13) && !nccl_code(tok[i] + 13, v, sizeof v)) set_fact(p, "stack", "nccl_loaded", json_string(v));
  }
  if (n > 2) set_fact(p, NULL, "nccl_tests_version", json_string(tok[2]));
}

/* "... NCCL INFO NCCL version 2.26.5+cuda12.9", a bare "NCCL version 2.9.6+cuda11.2", rccl-tests' "RCCL
 * version : 2.22.3-HEAD:7d8d67c". */
static void scan_library_version(struct nt *p, const char *s) {
  const char *at = strstr(s, "NCCL version");
  const char *lib = "nccl";
  if (!at && (at = strstr(s, "RCCL version"))) lib = "rccl";
  if (!at) return;
  at += 12;
  at += strspn(at, " :");
  char v[64];
  size_t k = strspn(at, "0123456789.");
  if (!k || k >= sizeof v || !isdigit((unsigned char)*at)) return;
  snprintf(v, sizeof v, "%.*s", (int)k, at);
  if (!strncmp(at + k, "+cuda", 5)) {
    char cu[32];
    snprintf(cu, sizeof cu, "%.*s", (int)strspn(at + k + 5, "0123456789."), at + k + 5);
    set_fact(p, "stack", "nccl_cuda", json_string(cu));
  }
  set_fact(p, "stack", "nccl_loaded", json_string(v));
  if (!strcmp(lib, "rccl")) set_fact(p, "stack", "library", json_string("rccl"));
}

/* "arbench 0.1.0 run 0123456789abcdef: spec=mpi dtype=float op=sum ranks=4 nodes=1 placements=out,in
 * stack=host-only" and "arbench method: buffers=hot timing=loop average=mean": the log arbench wrote. */
static int on_arbench(struct nt *p, char **tok, int n) {
  if (!p->t && begin(p, 0)) return -AR_EINVAL;
  json_t *w = json_object_get(p->t->run, "written_by");
  if (!w) json_object_set_new(p->t->run, "written_by", w = json_object());
  for (int i = 1; i < n && tok[i][0] != '('; i++) { /* up to a parenthesis: what follows is for people */
    char *eq = strchr(tok[i], '=');
    if (i == 1 && isdigit((unsigned char)tok[i][0])) json_object_set_new(w, "arbench", json_string(tok[i]));
    if (i > 1 && !strcmp(tok[i - 1], "run")) json_object_set_new(w, "run_id", json_stringn(tok[i], strcspn(tok[i], ":")));
    if (!eq || eq == tok[i]) continue;
    *eq = 0;
    if (!strcmp(tok[i], "nodes") || !strcmp(tok[i], "ranks")) json_object_set_new(w, tok[i], json_integer(atoll(eq + 1)));
    else json_object_set_new(w, tok[i], json_string(eq + 1));
    if (!strcmp(tok[i], "placements"))
      p->t->placements = (strstr(eq + 1, "out") ? 1 : 0) | (strstr(eq + 1, "in") ? 2 : 0);
  }
  return 0;
}

static void on_footer(struct nt *p, char **tok, int n, int avg) {
  int i = 0;
  while (i < n && strcmp(tok[i], ":")) i++;
  if (!p->t || i + 1 >= n) return;
  char *end;
  double v = strtod(tok[i + 1], &end);
  if (end == tok[i + 1] || !isfinite(v)) return;
  if (avg) json_object_set_new(p->t->run, "avg_busbw_gbs", json_real(v));
  else json_object_set_new(p->t->run, "out_of_bounds", json_integer((json_int_t)v));
  p->t->done = 1;
}

/* nccl-tests' "# Blocking Enabled: ..." line: -z 1, 2 or 3, told apart by its words in every version (2.19.2+,
 * src/util.cu writeDeviceReport: "... after each outer iteration (-n); time excludes barrier" for 3, "..., no
 * barrier" for 2; before: "... after each collective (no barrier)" for 2, "... and barrier ..." for 1). */
static int blocking_mode(const char *body) {
  if (strstr(body, "outer iteration")) return 3;
  return strstr(body, "no barrier") ? 2 : 1;
}

/* "# Per-Iteration Report: CUDA event timing; i_* uses max over process rows[; summary skips first K
 * iterations]" (nccl-tests 2.19.2+ -I 1, -K K since 2.19.6). */
static void on_per_iter(struct nt *p, const char *body) {
  json_t *opts = json_object_get(p->t->run, "options");
  json_object_set_new(opts, "per_iter_timing", json_integer(1));
  const char *k = strstr(body, "skips first ");
  if (k) json_object_set_new(opts, "per_iter_skip", json_integer(atoll(k + 12)));
}

/* A header line, '#' or not (docs strip it): 1 when it was one, 0 when not, -AR_EINVAL on bad input. */
static int header_line(struct nt *p, int hashed, char *body, char **tok, int n) {
  int rc = 0;
  if (n > 1 && !strcmp(tok[0], "nccl-tests") && !strcmp(tok[1], "version")) {
    if (!(rc = begin(p, EV_VERSION))) on_version(p, tok, n);
  } else if (n > 3 && !strcmp(tok[0], "Collective") && !strcmp(tok[2], "starting:")) {
    if (!(rc = begin(p, EV_START))) snprintf(p->t->name, sizeof p->t->name, "%s", tok[3]);
  } else if (n > 3 && !strcmp(tok[0], "Collective") && !strcmp(tok[2], "concluded:")) {
    if (p->t) p->t->done = 1;
  } else if (n > 1 && !strcmp(tok[0], "nThread")) {
    if (!(rc = begin(p, EV_NTHREAD))) on_nthread(p, tok, n);
  } else if (n > 4 && !strcmp(tok[0], "Rank") && all_digits(tok[1]) && (hashed || strstr(body, " device "))) {
    rc = on_rank(p, body, tok, n);
  } else if (n > 3 && (!strcmp(tok[0], "size") || !strcmp(tok[0], "bytes")) && strstr(body, "busbw")) {
    if (!(rc = begin(p, EV_HEADER))) rc = ar_nt_import_header(&p->c, &p->t->lay, tok, n);
  } else if (n > 1 && !strcmp(tok[0], "(B)")) {
    if (p->t && strstr(body, "(ms)")) p->t->lay.time_scale = 1000;
  } else if (n > 3 && !strcmp(tok[0], "Out") && !strcmp(tok[2], "bounds")) {
    on_footer(p, tok, n, 0);
  } else if (n > 3 && !strcmp(tok[0], "Avg") && !strcmp(tok[2], "bandwidth")) {
    on_footer(p, tok, n, 1);
  } else if (n > 1 && !strcmp(tok[0], "Blocking") && p->t) {
    json_object_set_new(json_object_get(p->t->run, "options"), "blocking", json_true());
    json_object_set_new(json_object_get(p->t->run, "options"), "blocking_mode", json_integer(blocking_mode(body)));
  } else if (n > 1 && !strcmp(tok[0], "Per-Iteration") && p->t) {
    on_per_iter(p, body);
  } else if (n > 1 && !strcmp(tok[0], "rccl-tests:")) {
    set_fact(p, NULL, "tool", json_string("rccl-tests"));
    set_fact(p, NULL, "rccl_tests_version", json_string(tok[n - 1]));
    set_fact(p, "stack", "library", json_string("rccl"));
  } else if (hashed && n > 1 && !strcmp(tok[0], "arbench")) {
    rc = on_arbench(p, tok, n);
  } else {
    return 0;
  }
  return rc ? rc : 1;
}

/* ---- command lines ---- */

static void command_done(struct nt *p) {
  char prog[64];
  p->in_cmd = 0;
  if (!ar_nt_command_program(p->cmd, prog, sizeof prog)) return;
  int r = ar_nt_launcher_ranks(p->cmd);
  if (r) p->launcher = r;
  p->average = ar_nt_command_average(p->cmd);
  ar_nt_command_options(p->cmd, p->cmd_opts);
  if (*prog) snprintf(p->hint, sizeof p->hint, "%s", prog);
}

/* A command line (continued over lines ending in '\'), or a runner's "===begin X_perf test===" marker: 1
 * when the line was one. */
static int command_line(struct nt *p, const char *s, int row) {
  size_t len = strlen(s);
  int more = len && s[len - 1] == '\\';
  if (p->in_cmd && (row || *s == '#')) command_done(p); /* the output began: the command ended unfinished */
  if (p->in_cmd) {
    size_t k = strlen(p->cmd);
    snprintf(p->cmd + k, sizeof p->cmd - k, " %.*s", (int)(more ? len - 1 : len), s);
    if (!more) command_done(p);
    return 1;
  }
  char prog[64];
  if (!strncmp(s, "===", 3)) {
    const char *perf = strstr(s, "_perf");
    const char *b = perf;
    while (b && b > s && (isalnum((unsigned char)b[-1]) || b[-1] == '_')) b--;
    if (perf) snprintf(p->hint, sizeof p->hint, "%.*s", (int)(perf + 5 - b), b);
    return perf != NULL;
  }
  if (!ar_nt_command_program(s, prog, sizeof prog)) return 0;
  snprintf(p->cmd, sizeof p->cmd, "%.*s", (int)(more ? len - 1 : len), s);
  p->in_cmd = 1;
  if (!more) command_done(p);
  return 1;
}

/* ---- one line ---- */

/* Prefixes before a log line: indentation, markdown quotes, mpirun --tag-output "[1,0]<stdout>:", srun -l
 * "0: ". *err set for a stderr line (nccl-tests prints its table on stdout). */
static char *strip_prefix(char *s, int *err) {
  *err = 0;
  for (;;) {
    s += strspn(s, " \t");
    if (*s == '>') {
      s++;
      continue;
    }
    if (*s == '[') {
      char *gt = strstr(s, ">:");
      if (gt && gt - s >= 8 && (!strncmp(gt - 7, "<stdout", 7) || !strncmp(gt - 7, "<stderr", 7))) {
        *err = !strncmp(gt - 7, "<stderr", 7);
        s = gt + 2;
        continue;
      }
    }
    size_t d = strspn(s, "0123456789");
    if (d && d < 7 && s[d] == ':' && (s[d + 1] == ' ' || s[d + 1] == '#' || !s[d + 1])) {
      s += d + 1;
      continue;
    }
    return s;
  }
}

static int is_row(char **tok, int n) {
  return n >= 4 && all_digits(tok[0]) && all_digits(tok[1]) && isalpha((unsigned char)tok[2][0]);
}

static int on_line(struct nt *p, char *raw) {
  int err;
  char *s = strip_prefix(raw, &err), *tok[96], copy[4096];
  if (err) return 0;
  int hashed = *s == '#';
  char *body = hashed ? s + 1 + strspn(s + 1, " \t") : s;
  snprintf(copy, sizeof copy, "%s", body);
  int n = split(copy, tok, 96);
  p->table_line = n && (hashed || is_row(tok, n));
  if (command_line(p, s, !hashed && is_row(tok, n))) return 0;
  scan_library_version(p, s);
  if (!n) return 0;
  int rc = header_line(p, hashed, body, tok, n);
  if (rc) return rc < 0 ? rc : 0;
  if (hashed || !is_row(tok, n)) return 0;
  if (!p->t || p->t->done) {
    if (flush(p)) return -AR_EINVAL;
    p->t = test_new(p);
  }
  if (*p->t->name && !ar_nt_is_allreduce(p->t->name)) return 0; /* another collective's table: not read */
  return ar_nt_import_row(&p->c, p->t, tok, n);
}

/* ---- the log ---- */

static unsigned long long fnv_file(FILE *f) {
  unsigned long long h = 0xcbf29ce484222325ull;
  int c;
  while ((c = fgetc(f)) != EOF) h = (h ^ (unsigned char)c) * 0x100000001b3ull;
  rewind(f);
  return h;
}

static int no_tests(struct nt *p) {
  size_t n = json_array_size(p->skipped);
  if (!n) {
    snprintf(p->c.err, sizeof p->c.err, "%s: no all_reduce_perf result rows found (is this nccl-tests output?)", p->c.path);
    return -AR_EINVAL;
  }
  char list[600] = "";
  size_t k = 0;
  for (size_t i = 0; i < n && k < sizeof list; i++)
    k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? "; " : "", json_string_value(json_array_get(p->skipped, i)));
  snprintf(p->c.err, sizeof p->c.err, "%s: no all_reduce_perf test in it, only %s; arbench imports all_reduce_perf output",
           p->c.path, list);
  return -AR_EINVAL;
}

static int parse_log(struct nt *p) {
  FILE *f;
  int orc = ar_infile_open(p->c.path, "nccl-tests log", 0, &f, p->c.err, sizeof p->c.err);
  if (orc) return orc;
  p->hash = fnv_file(f);
  char buf[4096], torn[AR_ERRLEN] = "";
  int rc = 0, torn_line = 0;
  while (!rc && fgets(buf, sizeof buf, f)) {
    p->c.line++;
    buf[strcspn(buf, "\r\n")] = 0;
    p->c.short_row = 0;
    rc = on_line(p, buf);
    if (*torn && p->table_line) { /* a table goes on after the short row: it was malformed, not torn */
      snprintf(p->c.err, sizeof p->c.err, "%s", torn);
      rc = -AR_EINVAL;
    } else if (rc && p->c.short_row && !*torn) { /* torn, if nothing of a table follows (a killed job's log) */
      snprintf(torn, sizeof torn, "%s", p->c.err);
      torn_line = p->c.line;
      rc = 0;
    }
  }
  fclose(f);
  if (!rc && *torn) {
    char w[AR_ERRLEN + 64];
    snprintf(w, sizeof w, "%.150s:%d: ignoring a torn last row (its job stopped while writing it; %.200s); the "
             "complete rows before it are imported", p->c.path, torn_line, strstr(torn, "found") ? strstr(torn, "expected") : torn);
    json_array_append_new(p->warnings, json_string(w));
  }
  if (!rc) rc = flush(p);
  if (!rc && !json_array_size(p->out)) rc = no_tests(p);
  return rc;
}

static int write_out(struct nt *p, const char *json) {
  struct ar_writer w;
  char err[AR_ERRLEN];
  if (ar_writer_open(&w, json, err, sizeof err)) return fprintf(stderr, "arbench import: %s\n", err), AR_EXIT_USAGE;
  size_t i, nres = 0, nrun = 0;
  json_t *r;
  json_array_foreach(p->out, i, r) {
    if (ar_writer_put(&w, r, err, sizeof err)) {
      fprintf(stderr, "arbench import: %s\n", err);
      ar_writer_close(&w);
      return AR_EXIT_FAIL;
    }
    nres += !strcmp(ar_rec_str(r, "type", ""), "result");
    nrun += !strcmp(ar_rec_str(r, "type", ""), "run");
  }
  ar_writer_close(&w);
  if (strcmp(json, "-"))
    printf("imported %zu result records in %zu run%s from %s into %s\n", nres, nrun, nrun == 1 ? "" : "s", p->c.path, json);
  return AR_EXIT_OK;
}

/* What the import said besides its records: one line per rank-count disagreement, one for the tests left out. */
static void report(struct nt *p) {
  size_t i, n = json_array_size(p->skipped);
  json_t *w;
  json_array_foreach(p->warnings, i, w) fprintf(stderr, "arbench import: warning: %s\n", json_string_value(w));
  if (!n) return;
  fprintf(stderr, "arbench import: %s: left out %zu test%s of other collectives or without results: ", p->c.path, n,
          n == 1 ? "" : "s");
  for (i = 0; i < n; i++) fprintf(stderr, "%s%s", i ? "; " : "", json_string_value(json_array_get(p->skipped, i)));
  fprintf(stderr, "\n");
}

int ar_cmd_import(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "aiconfigurator")) return ar_aic_import(argc - 1, argv + 1); /* bench/aic/ */
  static const struct option lo[] = {{"json", required_argument, 0, 'J'}, {"stack", required_argument, 0, 's'},
                                     {"ranks", required_argument, 0, 'r'}, {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  const char *json = "-";
  struct nt p = {.average = -1};
  int c;
  optind = 0; /* glibc: 0 also forgets a half-read "-xyz" cluster of an earlier parse (fuzz_opts) */
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hJ:", lo, NULL)) != -1) {
    char *end;
    if (c == 'h') return usage(stdout), AR_EXIT_OK;
    if (c == 'J') json = optarg;
    else if (c == 's') p.stack = optarg;
    else if (c == 'r') {
      long v = strtol(optarg, &end, 10);
      if (end == optarg || *end || v < 1 || v > 10000000) {
        fprintf(stderr, "arbench import: bad --ranks '%s' (expected an integer from 1 to 10000000)\n", optarg);
        return AR_EXIT_USAGE;
      }
      p.forced_ranks = (int)v;
    } else {
      fprintf(stderr, "arbench import: %s '%s' (see arbench import --help)\n",
              c == ':' ? "option needs a value:" : "unknown option", argv[optind - 1]);
      return AR_EXIT_USAGE;
    }
  }
  int as_json = argc - optind == 2 && !strcmp(argv[optind], "nccl-tests-json"); /* -J files: import_json.c */
  if (argc - optind != 2 || (strcmp(argv[optind], "nccl-tests") && !as_json)) {
    if (argc - optind >= 1 && strcmp(argv[optind], "nccl-tests") && strcmp(argv[optind], "nccl-tests-json"))
      fprintf(stderr, "arbench import: unknown format '%s' (formats imported: nccl-tests LOG, nccl-tests-json FILE "
                      "(all_reduce_perf -J), aiconfigurator)\n", argv[optind]);
    else
      fprintf(stderr, "arbench import: expected 'nccl-tests LOG' (one log), e.g. arbench import nccl-tests "
                      "all_reduce.log -J results.jsonl\n");
    return AR_EXIT_USAGE;
  }
  p.c.path = argv[optind + 1];
  p.out = json_array();
  p.skipped = json_array();
  p.warnings = json_array();
  p.pending = json_object();
  p.cmd_opts = json_object();
  int status = (as_json ? ar_nt_import_json(p.c.path, p.stack, p.forced_ranks, p.out, p.c.err, sizeof p.c.err)
                        : parse_log(&p))
                   ? (fprintf(stderr, "arbench import: %s\n", p.c.err), AR_EXIT_USAGE)
                   : AR_EXIT_OK;
  if (status == AR_EXIT_OK) {
    report(&p);
    status = write_out(&p, json);
  }
  test_free(p.t);
  json_decref(p.out);
  json_decref(p.skipped);
  json_decref(p.warnings);
  json_decref(p.pending);
  json_decref(p.cmd_opts);
  return status;
}
