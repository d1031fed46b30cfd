/* import_ranks.c — the rank count of an imported nccl-tests test: busbw/algbw intervals from the printed
 * digits, launcher command lines, and the decision that cross-checks them with the Rank lines. */
#include "import_ranks.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

void ar_nt_ratio_init(struct ar_nt_ratio *r) {
  r->lo = 1;
  r->hi = INFINITY;
  r->rows = 0;
  r->empty = 0;
}

double ar_nt_half_unit(const char *s) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(v)) return -1;
  const char *e = strpbrk(s, "eE"), *dot = strchr(s, '.');
  int decimals = 0;
  if (dot && (!e || dot < e)) decimals = (int)((e ? e : s + strlen(s)) - dot - 1);
  long exp10 = e ? strtol(e + 1, NULL, 10) : 0;
  return 0.5 * pow(10.0, (double)(exp10 - decimals));
}

/* n from r = 2(n-1)/n: n = 2/(2-r); r at or past 2 is any n. */
static double n_of(double r) { return r >= 2 ? INFINITY : 2 / (2 - r); }

void ar_nt_ratio_add(struct ar_nt_ratio *r, const char *algbw, const char *busbw) {
  double ha = ar_nt_half_unit(algbw), hb = ar_nt_half_unit(busbw);
  if (ha < 0 || hb < 0) return;
  double a = strtod(algbw, NULL), b = strtod(busbw, NULL);
  if (a - ha <= 0 || b < 0) return; /* 0.00 GB/s: the printed digits say nothing of the ratio */
  double rlo = (b - hb > 0 ? b - hb : 0) / (a + ha), rhi = (b + hb) / (a - ha);
  double nlo = rlo > 0 ? n_of(rlo) : 1, nhi = n_of(rhi);
  if (nlo > r->lo) r->lo = nlo;
  if (nhi < r->hi) r->hi = nhi;
  r->rows++;
  if (ceil(r->lo - EPS) > floor(r->hi + EPS)) r->empty = 1; /* no whole n fits every row */
}

/* ---- the decision ---- */

static int fits(const struct ar_nt_ratio *r, int n) { return !r->rows || r->empty || (n >= r->lo - EPS && n <= r->hi + EPS); }

/* "busbw/algbw says 16; Rank lines end at rank 3; launcher starts 16" */
static void describe(const struct ar_nt_evidence *ev, char *buf, size_t len) {
  size_t k = 0;
  buf[0] = 0;
  const struct ar_nt_ratio *r = &ev->ratio;
  if (ev->forced) k += (size_t)snprintf(buf + k, len - k, "--ranks %d", ev->forced);
  if (r->rows && !r->empty) {
    double first = ceil(r->lo - EPS), last = floor(r->hi + EPS);
    const char *sep = k ? "; " : "";
    if (first == last) k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%sbusbw/algbw says %.0f", sep, first);
    else if (isinf(last)) k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%sbusbw/algbw says %.0f or more", sep, first);
    else k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%sbusbw/algbw allows %.0f..%.0f", sep, first, last);
  } else if (r->empty) {
    k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%sbusbw/algbw fits no rank count (not 2(n-1)/n)", k ? "; " : "");
  }
  if (ev->rank_hi)
    k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%sRank lines end at rank %d (%d line%s)", k ? "; " : "",
                          ev->rank_hi - 1, ev->rank_lines, ev->rank_lines == 1 ? "" : "s");
  if (ev->launcher) k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%slauncher starts %d", k ? "; " : "", ev->launcher);
  if (!k) snprintf(buf, len, "no Rank lines, no launcher line, no busbw/algbw to go by");
}

int ar_nt_decide_ranks(const struct ar_nt_evidence *ev, const char **from, char *warn, size_t wlen, char *err,
                       size_t elen) {
  const struct ar_nt_ratio *r = &ev->ratio;
  int usable = r->rows && !r->empty;
  double first = usable ? ceil(r->lo - EPS) : 0, last = usable ? floor(r->hi + EPS) : 0;
  int n = 0;
  *warn = *err = 0;
  if (ev->forced) n = ev->forced, *from = "--ranks";
  else if (usable && first == last && first <= 1e6) n = (int)first, *from = "busbw/algbw";
  else if (ev->rank_hi && fits(r, ev->rank_hi)) n = ev->rank_hi, *from = "Rank lines";
  else if (ev->launcher && fits(r, ev->launcher)) n = ev->launcher, *from = "launcher";
  char what[400];
  describe(ev, what, sizeof what);
  if (!n) {
    snprintf(err, elen, "cannot tell the number of ranks (%s): pass --ranks N", what);
    return 0;
  }
  int disagree = (ev->rank_hi && ev->rank_hi != n) || (ev->launcher && ev->launcher != n) || !fits(r, n) ||
                 (r->rows && r->empty);
  if (disagree) snprintf(warn, wlen, "rank count: %s: using %d (%s)", what, n, *from);
  return n;
}

/* ---- launcher lines ---- */

static const char *base(const char *t) {
  const char *s = strrchr(t, '/');
  return s ? s + 1 : t;
}

static int is_perf(const char *t) {
  const char *b = base(t), *p = strstr(b, "_perf");
  return p && (!p[5] || !strcmp(p + 5, "_mpi"));
}

/* The value of option name in tok[i] ("-np 16", "-np=16", "--ntasks=16", "-g8" for short names), or -1. */
static long opt_value(char **tok, int n, int *i, const char *name) {
  size_t len = strlen(name);
  const char *t = tok[*i], *v = NULL;
  if (!strcmp(t, name)) {
    if (*i + 1 >= n) return -1;
    v = tok[++*i];
  } else if (!strncmp(t, name, len) && t[len] == '=') v = t + len + 1;
  else if (len == 2 && !strncmp(t, name, 2) && isdigit((unsigned char)t[2])) v = t + 2;
  if (!v) return -1;
  char *end;
  long x = strtol(v, &end, 10);
  return end != v && !*end && x > 0 && x < 10000000 ? x : -2; /* -2: named, but not a number ($N) */
}

/* -g/-t of the *_perf program from tok[i] on: ranks per process. */
static long per_process(char **tok, int n, int i) {
  long g = 1, t = 1, v;
  for (; i < n && strcmp(tok[i], ":"); i++) {
    if ((v = opt_value(tok, n, &i, "-g")) > 0 || (v = opt_value(tok, n, &i, "--ngpus")) > 0) g = v;
    else if ((v = opt_value(tok, n, &i, "-t")) > 0 || (v = opt_value(tok, n, &i, "--nthreads")) > 0) t = v;
  }
  return g * t;
}

static const char *const mpi_np[] = {"-np", "--np", "-n", "--n", "-c", NULL}, *const srun_np[] = {"-n", "--ntasks", NULL};

/* One launcher: its options up to the program (the *_perf one, or the next part), summed over MPMD parts. */
static long count_ranks(char **tok, int n, int i, int srun) {
  long total = 0, part = -1, nodes = -1, per_node = -1, mult = 1;
  for (; i <= n; i++) {
    if (i == n || !strcmp(tok[i], ":")) { /* end of an MPMD part */
      if (part < 0 && srun && nodes > 0 && per_node > 0) part = nodes * per_node;
      if (part < 0) return 0;
      total += part;
      part = nodes = per_node = -1;
      continue;
    }
    if (is_perf(tok[i])) {
      mult = per_process(tok, n, i + 1);
      while (i + 1 < n && strcmp(tok[i + 1], ":")) i++; /* the program's own options (-n is iterations) */
      continue;
    }
    long v;
    for (const char *const *name = srun ? srun_np : mpi_np; *name; name++)
      if ((v = opt_value(tok, n, &i, *name)) != -1) {
        if (v < 0) return 0;
        part = v;
        break;
      }
    if (srun && ((v = opt_value(tok, n, &i, "-N")) > 0 || (v = opt_value(tok, n, &i, "--nodes")) > 0)) nodes = v;
    if (srun && (v = opt_value(tok, n, &i, "--ntasks-per-node")) > 0) per_node = v;
  }
  return total * mult;
}

/* Tokens a command line starts with that are not its program: a shell prompt ("$", "root@h:~#", "-" of a
 * list item) or an environment assignment (NCCL_DEBUG=INFO). */
static int preamble(const char *t) {
  size_t n = strlen(t);
  if (!strcmp(t, "-") || !strcmp(t, "*") || t[n - 1] == '$' || t[n - 1] == '#' || t[n - 1] == '>') return 1;
  const char *eq = strchr(t, '=');
  return eq && eq > t && (isalpha((unsigned char)t[0]) || t[0] == '_') && !memchr(t, '/', (size_t)(eq - t));
}

static int launcher_word(const char *b) {
  return !strcmp(b, "mpirun") || !strcmp(b, "mpiexec") || !strcmp(b, "orterun") || !strcmp(b, "prterun") ||
         !strcmp(b, "srun");
}

static int split_cmd(const char *cmd, char *buf, size_t len, char **tok, int max) {
  snprintf(buf, len, "%s", cmd);
  int n = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, " \t\r\n`", &save); t && n < max; t = strtok_r(NULL, " \t\r\n`", &save))
    if (strcmp(t, "\\")) tok[n++] = t;
  return n;
}

int ar_nt_command_program(const char *cmd, char *prog, size_t len) {
  char buf[8192], *tok[512];
  int n = split_cmd(cmd, buf, sizeof buf, tok, 512), i = 0;
  while (i < n && preamble(tok[i])) i++;
  if (i == n || (!launcher_word(base(tok[i])) && !is_perf(tok[i]))) return 0;
  for (; i < n; i++)
    if (is_perf(tok[i])) {
      snprintf(prog, len, "%s", base(tok[i]));
      return 1;
    }
  snprintf(prog, len, "%s", "");
  return 1;
}

int ar_nt_command_average(const char *cmd) {
  char buf[8192], *tok[512];
  int n = split_cmd(cmd, buf, sizeof buf, tok, 512), i = 0;
  while (i < n && !is_perf(tok[i])) i++;
  for (i++; i < n && strcmp(tok[i], ":"); i++) {
    const char *v = !strcmp(tok[i], "-a") || !strcmp(tok[i], "--average") ? (i + 1 < n ? tok[i + 1] : "")
                    : !strncmp(tok[i], "-a", 2) && tok[i][2] ? tok[i] + 2
                    : !strncmp(tok[i], "--average=", 10) ? tok[i] + 10 : NULL;
    if (v) return v[0] >= '0' && v[0] <= '3' && !v[1] ? v[0] - '0' : -1;
  }
  return -1;
}

void ar_nt_command_options(const char *cmd, json_t *opts) {
  static const struct { const char *letter, *name, *key; } flags[] = {
    {"-I", "--per_iter_timing", "per_iter_timing"}, {"-K", "--per_iter_skip", "per_iter_skip"},
    {"-z", "--blocking", "blocking_mode"},         {"-R", "--local_register", "local_register"},
    {"-D", "--device_implementation", "device_implementation"}, {"-V", "--device_cta_count", "device_cta_count"},
  };
  char buf[8192], *tok[512];
  json_object_clear(opts);
  int n = split_cmd(cmd, buf, sizeof buf, tok, 512), i = 0;
  while (i < n && !is_perf(tok[i])) i++;
  for (i++; i < n && strcmp(tok[i], ":"); i++)
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
      size_t ln = strlen(flags[f].name);
      const char *v = !strcmp(tok[i], flags[f].letter) || !strcmp(tok[i], flags[f].name) ? (i + 1 < n ? tok[i + 1] : "")
                      : !strncmp(tok[i], flags[f].letter, 2) && tok[i][2] && tok[i][1] != '-' ? tok[i] + 2
                      : !strncmp(tok[i], flags[f].name, ln) && tok[i][ln] == '=' ? tok[i] + ln + 1 : NULL;
      if (!v) continue;
      char *end;
      long x = strtol(v, &end, 0); /* nccl-tests reads them with strtol(optarg, NULL, 0) */
      if (end != v && !*end && x >= -1000000 && x <= 1000000) json_object_set_new(opts, flags[f].key, json_integer(x));
    }
}

int ar_nt_launcher_ranks(const char *cmd) {
  char buf[8192], *tok[512];
  int n = split_cmd(cmd, buf, sizeof buf, tok, 512);
  for (int i = 0; i < n; i++) {
    const char *b = base(tok[i]);
    long r = 0;
    if (launcher_word(b)) r = count_ranks(tok, n, i + 1, !strcmp(b, "srun"));
    else if (is_perf(tok[i])) r = per_process(tok, n, i + 1); /* the program alone: one process */
    else continue;
    return r > 0 && r < 10000000 ? (int)r : 0;
  }
  for (int i = 0; i < n; i++)
    if (!strncmp(tok[i], "SLURM_NTASKS=", 13)) {
      char *end;
      long v = strtol(tok[i] + 13, &end, 10);
      if (end != tok[i] + 13 && !*end && v > 0 && v < 10000000) return (int)v;
    }
  return 0;
}
