/* opts.c — parse and validate `arbench run` options (nccl-tests letters where they overlap),
 * and the canonical form hashed across ranks. Pure C: no MPI. */
#include "opts.h"
#include "backend.h"
#include "runas.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR_MAX_BYTES ((size_t)1 << 40)

void ar_opts_defaults(struct ar_opts *o) {
  memset(o, 0, sizeof *o);
  o->op = AR_SUM;
  o->iters = 100;
  o->warmup = 10;
  o->check = 1;
  o->timeout = 300;
  o->placement = AR_PLACE_OUT;
  o->bind = true;
  o->max_samples = 1000;
  o->buffers = AR_BUF_HOT;
  o->timing = AR_TIME_ITER;
  o->average = AR_AVG_MAX;
  o->repeat = 1;
  o->nt_layout = 218;
}

const char *ar_buffers_name(int b) { return b == AR_BUF_COLD ? "cold" : "hot"; }
const char *ar_timing_name(int t) { return t == AR_TIME_LOOP ? "loop" : "iter"; }

const char *ar_average_name(int a) {
  static const char *const names[] = {"rank0", "mean", "min", "max"};
  return a >= 0 && a < 4 ? names[a] : "?";
}

/* One of two words; anything else is one line naming the value and what is allowed. */
static int parse_word2(const char *s, const char *flag, const char *w0, const char *w1, int *out, char *err,
                       size_t errlen) {
  if (!strcmp(s, w0)) *out = 0;
  else if (!strcmp(s, w1)) *out = 1;
  else {
    snprintf(err, errlen, "bad value '%s' for %s (expected %s or %s)", s, flag, w0, w1);
    return -AR_EINVAL;
  }
  return 0;
}

int ar_size_parse(const char *s, size_t *out, char *err, size_t errlen) {
  if (!s || !*s) {
    snprintf(err, errlen, "empty size (expected a number with optional K, M or G suffix, e.g. 8, 4K, 1M)");
    return -AR_EINVAL;
  }
  const char *p = s;
  if (!isdigit((unsigned char)*p)) goto bad;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(p, &end, 10);
  if (errno) goto bad;
  unsigned shift = 0;
  switch (toupper((unsigned char)*end)) {
  case 'K': shift = 10; end++; break;
  case 'M': shift = 20; end++; break;
  case 'G': shift = 30; end++; break;
  case 'T': shift = 40; end++; break; /* ar_size_format writes 1T (fuzz_size found the gap) */
  default: break;
  }
  if (shift && (*end == 'i' || *end == 'I')) end++;
  if (*end == 'B' || *end == 'b') end++;
  if (*end) goto bad;
  if (v == 0) {
    snprintf(err, errlen, "size '%s' must be at least 1", s);
    return -AR_EINVAL;
  }
  if (v > (AR_MAX_BYTES >> shift)) {
    snprintf(err, errlen, "size '%s' is larger than the maximum 1T", s);
    return -AR_EINVAL;
  }
  *out = (size_t)(v << shift);
  return 0;
bad:
  snprintf(err, errlen, "bad size '%s' (expected a number with optional K, M or G suffix, e.g. 8, 4K, 1M)", s);
  return -AR_EINVAL;
}

void ar_size_format(size_t b, char *buf, size_t len) {
  static const char suffix[] = {'\0', 'K', 'M', 'G', 'T'};
  int k = 0;
  while (k < 4 && b >= 1024 && b % 1024 == 0) {
    b /= 1024;
    k++;
  }
  if (k) snprintf(buf, len, "%zu%c", b, suffix[k]);
  else snprintf(buf, len, "%zu", b);
}

int ar_size_series(size_t min, size_t max, double factor, size_t *out, int cap, char *err,
                   size_t errlen) {
  if (min > max) {
    snprintf(err, errlen, "minimum size %zu is larger than maximum size %zu", min, max);
    return -AR_EINVAL;
  }
  if (!(factor > 1.0) && min != max) {
    snprintf(err, errlen, "step factor %g must be greater than 1", factor);
    return -AR_EINVAL;
  }
  int n = 0;
  double cur = (double)min;
  for (size_t s = min; s <= max;) {
    if (n == cap) {
      snprintf(err, errlen, "more than %d sizes from %zu to %zu by factor %g", cap, min, max, factor);
      return -AR_EINVAL;
    }
    out[n++] = s;
    if (min == max) break;
    cur *= factor;
    size_t next = (size_t)llround(cur);
    if (next <= s) next = s + 1;
    s = next;
  }
  return n;
}

/* Split a comma list, calling fn on each item; empty items are errors. */
static int each_item(const char *list, const char *what,
                     int (*fn)(const char *item, void *arg, char *err, size_t errlen), void *arg,
                     char *err, size_t errlen) {
  char buf[4096];
  if (strlen(list) >= sizeof buf) {
    snprintf(err, errlen, "%s list too long", what);
    return -AR_EINVAL;
  }
  strcpy(buf, list);
  char *save = NULL;
  if (!*buf || buf[strlen(buf) - 1] == ',' || buf[0] == ',' || strstr(buf, ",,")) {
    snprintf(err, errlen, "bad %s list '%s' (empty item)", what, list);
    return -AR_EINVAL;
  }
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int rc = fn(t, arg, err, errlen);
    if (rc) return rc;
  }
  return 0;
}

static int add_size(const char *item, void *arg, char *err, size_t errlen) {
  struct ar_opts *o = arg;
  if (o->nsizes == AR_MAX_SIZES) {
    snprintf(err, errlen, "more than %d sizes", AR_MAX_SIZES);
    return -AR_EINVAL;
  }
  size_t v;
  int rc = ar_size_parse(item, &v, err, errlen);
  if (rc) return rc;
  for (int i = 0; i < o->nsizes; i++)
    if (o->sizes[i] == v) { /* measured twice, the analysis would keep one */
      snprintf(err, errlen, "%s %zu given twice (give each once)", o->by_count ? "count" : "size", v);
      return -AR_EINVAL;
    }
  o->sizes[o->nsizes++] = v;
  return 0;
}

static int add_dtype(const char *item, void *arg, char *err, size_t errlen) {
  struct ar_opts *o = arg;
  if (!strcmp(item, "all")) {
    o->ndtypes = 0;
    for (int d = 0; d < AR_NDTYPES; d++) o->dtypes[o->ndtypes++] = (enum ar_dtype)d;
    return 0;
  }
  enum ar_dtype dt;
  if (ar_dtype_parse(item, &dt)) {
    snprintf(err, errlen, "unknown datatype '%s' (known: float, half, bfloat16, int32, all)", item);
    return -AR_EINVAL;
  }
  for (int i = 0; i < o->ndtypes; i++)
    if (o->dtypes[i] == dt) return 0;
  o->dtypes[o->ndtypes++] = dt;
  return 0;
}

static int add_backend(const char *item, void *arg, char *err, size_t errlen) {
  struct ar_opts *o = arg;
  if (o->nbackends == AR_MAX_BACKENDS) {
    snprintf(err, errlen, "more than %d backends", AR_MAX_BACKENDS);
    return -AR_EINVAL;
  }
  if (strlen(item) >= AR_NAMELEN) {
    snprintf(err, errlen, "backend spec '%.40s...' too long", item);
    return -AR_EINVAL;
  }
  for (int i = 0; i < o->nbackends; i++)
    if (!strcmp(o->backends[i], item)) { /* one configuration measured twice, the analysis would pool them */
      snprintf(err, errlen, "backend '%s' given twice (give each configuration once; --repeat N measures it N times)",
               item);
      return -AR_EINVAL;
    }
  strcpy(o->backends[o->nbackends++], item);
  return 0;
}

/* Backend variants use ',' inside ("nccl:algo=Ring,proto=LL"); ';' or a repeated --backend
 * separates backends. A ',' followed by a bare name (no '=') starts a new backend. */
static int parse_backends(struct ar_opts *o, const char *arg, char *err, size_t errlen) {
  char buf[4096];
  if (strlen(arg) >= sizeof buf) {
    snprintf(err, errlen, "backend list too long");
    return -AR_EINVAL;
  }
  strcpy(buf, arg);
  char cur[4096] = "";
  char *save = NULL;
  size_t n = strlen(buf);
  if (!n || strstr(buf, ",,") || strstr(buf, ";;") || strstr(buf, ",;") || strstr(buf, ";,") ||
      strchr(",;", buf[0]) || strchr(",;", buf[n - 1])) {
    snprintf(err, errlen, "bad backend list '%s' (empty item)", arg);
    return -AR_EINVAL;
  }
  for (char *t = strtok_r(buf, ",;", &save); t; t = strtok_r(NULL, ",;", &save)) {
    bool is_kv = strchr(t, '=') && !strchr(t, ':');
    if (is_kv && *cur) {
      strcat(cur, ",");
      strcat(cur, t);
      continue;
    }
    if (is_kv) {
      snprintf(err, errlen, "backend variant '%s' has no backend name before it (e.g. nccl:%s)", t, t);
      return -AR_EINVAL;
    }
    if (*cur && add_backend(cur, o, err, errlen)) return -AR_EINVAL;
    snprintf(cur, sizeof cur, "%s", t);
  }
  return *cur ? add_backend(cur, o, err, errlen) : 0;
}

static int parse_int(const char *s, const char *flag, long lo, long hi, int *out, char *err,
                     size_t errlen) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) {
    snprintf(err, errlen, "bad value '%s' for %s (expected an integer from %ld to %ld)", s, flag, lo, hi);
    return -AR_EINVAL;
  }
  *out = (int)v;
  return 0;
}

static int parse_double(const char *s, const char *flag, double lo, double hi, double *out,
                        char *err, size_t errlen) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= lo && v <= hi)) {
    snprintf(err, errlen, "bad value '%s' for %s (expected a number from %g to %g)", s, flag, lo, hi);
    return -AR_EINVAL;
  }
  *out = v;
  return 0;
}

static int copy_str(char *dst, size_t cap, const char *src, const char *flag, char *err, size_t errlen) {
  if (!*src) {
    snprintf(err, errlen, "empty value for %s", flag);
    return -AR_EINVAL;
  }
  if (strlen(src) >= cap) {
    snprintf(err, errlen, "value for %s is longer than %zu characters", flag, cap - 1);
    return -AR_EINVAL;
  }
  strcpy(dst, src);
  return 0;
}

enum {
  OPT_SIZES = 1000, OPT_COUNTS, OPT_BACKEND, OPT_INPLACE, OPT_QUIET, OPT_DEVICES, OPT_SHARED_GPU,
  OPT_ISLANDS, OPT_NOBIND, OPT_XML, OPT_POINT, OPT_MAXSAMPLES, OPT_BUFFERS, OPT_TIMING, OPT_REPEAT,
  OPT_NP, OPT_NO_LAUNCH, OPT_AS, OPT_FORMAT, OPT_NT_DIR, OPT_PER_NODE, OPT_NO_MEMCHECK, OPT_ALLOW_ENV, OPT_LAST
};

static const struct option long_opts[] = {
  {"minbytes", required_argument, 0, 'b'},
  {"maxbytes", required_argument, 0, 'e'},
  {"stepfactor", required_argument, 0, 'f'},
  {"stepbytes", required_argument, 0, 'i'},
  {"sizes", required_argument, 0, OPT_SIZES},
  {"counts", required_argument, 0, OPT_COUNTS},
  {"datatype", required_argument, 0, 'd'},
  {"op", required_argument, 0, 'o'},
  {"iters", required_argument, 0, 'n'},
  {"warmup_iters", required_argument, 0, 'w'},
  {"warmup", required_argument, 0, 'w'},
  {"check", required_argument, 0, 'c'},
  {"cudagraph", required_argument, 0, 'G'},
  {"graph", required_argument, 0, 'G'},
  {"timeout", required_argument, 0, 'T'},
  {"json", required_argument, 0, 'J'},
  {"backend", required_argument, 0, OPT_BACKEND},
  {"inplace", required_argument, 0, OPT_INPLACE},
  {"quiet", no_argument, 0, OPT_QUIET},
  {"devices", required_argument, 0, OPT_DEVICES},
  {"shared-gpu", no_argument, 0, OPT_SHARED_GPU},
  {"islands", required_argument, 0, OPT_ISLANDS},
  {"no-bind", no_argument, 0, OPT_NOBIND},
  {"xml", required_argument, 0, OPT_XML},
  {"point", required_argument, 0, OPT_POINT},
  {"max-samples", required_argument, 0, OPT_MAXSAMPLES},
  {"buffers", required_argument, 0, OPT_BUFFERS},
  {"timing", required_argument, 0, OPT_TIMING},
  {"average", required_argument, 0, 'a'},
  {"repeat", required_argument, 0, OPT_REPEAT},
  {"np", required_argument, 0, OPT_NP},
  {"no-launch", no_argument, 0, OPT_NO_LAUNCH},
  {"as", required_argument, 0, OPT_AS},
  {"format", required_argument, 0, OPT_FORMAT},
  {"nccl-tests-dir", required_argument, 0, OPT_NT_DIR},
  {"per-node", no_argument, 0, OPT_PER_NODE},
  {"per_iter_timing", required_argument, 0, 'I'}, /* nccl-tests 2.19's -I and -z, mapped (nccl_tests_timing) */
  {"blocking", required_argument, 0, 'z'},
  {"no-mem-check", no_argument, 0, OPT_NO_MEMCHECK},
  {"allow-unknown-env", no_argument, 0, OPT_ALLOW_ENV},
  {"help", no_argument, 0, 'h'},
  {0, 0, 0, 0},
};

void ar_opts_usage(FILE *f) {
  fprintf(f,
    "usage: mpirun -np N arbench run [options]   (or arbench run [--np N] [options]: see --no-launch)\n"
    "  --backend LIST        backends to run, e.g. mpi,shm-oneshot or 'nccl:algo=Ring,proto=LL;nccl'\n"
    "                        (default: nccl with GPUs, else mpi and every shm-* backend)\n"
    "  -b, --minbytes SIZE   smallest size (default 8); K, M, G suffixes are binary\n"
    "  -e, --maxbytes SIZE   largest size (default 64M)\n"
    "  -f, --stepfactor F    multiply the size by F each step (default 2)\n"
    "  -i, --stepbytes SIZE  add SIZE each step instead of multiplying\n"
    "  --sizes LIST          explicit sizes in bytes, e.g. 8,4K,1M (instead of -b/-e)\n"
    "  --counts LIST         explicit element counts, e.g. 1,7,1023 (instead of -b/-e)\n"
    "  -d, --datatype LIST   float, half, bfloat16, int32 or all (default float)\n"
    "  -o, --op OP           sum, prod, max, min or avg (default sum)\n"
    "  -n, --iters N         timed iterations per size (default 100)\n"
    "  -w, --warmup_iters N  warm-up iterations per size (default 10)\n"
    "  -c, --check N         checked iterations per size, 0 = no check (default 1)\n"
    "  -G, --cudagraph K     capture K iterations in a CUDA graph and replay it (GPU backends)\n"
    "  -T, --timeout SECS    abort a collective that makes no progress for SECS, 1 or more (default 300, 0 = off)\n"
    "  -J, --json FILE       append JSON Lines results to FILE\n"
    "  --inplace no|yes|both out-of-place, in-place or both (default no)\n"
    "  --devices LIST        CUDA device per local rank (default: local rank)\n"
    "  --shared-gpu          let several ranks use one GPU (correctness tests on one GPU)\n"
    "  --islands N           force N islands for shm-islands/p2p-islands (default: NUMA nodes)\n"
    "  --no-bind             do not bind ranks to their GPU's local cores\n"
    "  --xml FILE            hwloc XML topology instead of the live machine\n"
    "  --max-samples N       per-iteration samples kept in each result record (default 1000)\n"
    "  --buffers hot|cold    hot: one buffer set reused, as nccl-tests and OSU do (default);\n"
    "                        cold: rotate over buffer sets larger than the last-level cache / GPU L2\n"
    "  --timing iter|loop    iter: time every iteration (p50/p99 of the distribution, default);\n"
    "                        loop: one interval around all timed iterations / -n (nccl-tests)\n"
    "  -a, --average 0|1|2|3 how ranks' times combine: 0 rank 0, 1 average, 2 min, 3 max (default 3:\n"
    "                        a collective is done when its slowest rank is; nccl-tests' default is 1)\n"
    "  --repeat N            measure every size N times, each a fresh warm-up and timed loop, the\n"
    "                        sizes in turn between repeats (default 1); compare/tune resample them\n"
    "  --quiet               print only the table\n"
    "  --np N                started outside mpirun: relaunch under mpirun with N ranks (default: one per\n"
    "                        GPU when there are several; as root with Open MPI's allow-run-as-root variables)\n"
    "  --no-launch           started outside mpirun: run as this one process, never relaunch\n"
    "  --no-mem-check        relaunch even when the ranks' host buffers for the largest size exceed the\n"
    "                        node's MemAvailable or ulimit -v (checked before mpirun starts by default)\n"
    "  --as ENGINE           run with the NCCL/CUDA environment the engine sets in its own process (sglang:\n"
    "                        NCCL_CUMEM_ENABLE=0, NCCL_NVLS_ENABLE=0 unless set, CUDA_DEVICE_MAX_CONNECTIONS=8;\n"
    "                        vllm: none), applied before MPI and CUDA start; records say \"as\" (docs/serving.md)\n"
    "  --format arbench|nccl-tests  stdout as arbench's table (default) or as nccl-tests 2.18.5's\n"
    "                        all_reduce_perf output for one backend and dtype; its method is nccl-tests'\n"
    "                        unless given: --buffers hot --timing loop -a 1 --inplace both\n"
    "  --format nccl-tests-2.19  the same in nccl-tests 2.19.6's layout; with --timing iter (or -I 1) its\n"
    "                        per-iteration columns i_min i_max i_p99 i_cv%% (nccl-tests-2.18: 2.18.5's)\n"
    "  -I, --per_iter_timing 0|1  nccl-tests 2.19's -I: 1 is --timing iter (every iteration timed), 0 the default\n"
    "  -z, --blocking 0|3    nccl-tests' -z: 3 (each iteration waited for and timed alone) is --timing iter,\n"
    "                        0 the default; 1 and 2 (a wait after each call) are not measured\n"
    "  --nccl-tests-dir DIR  one nccl-tests log per backend x dtype in DIR (implies --format nccl-tests;\n"
    "                        stdout keeps arbench's table)\n"
    "  --per-node            launched over many nodes: every node measures its own ranks alone, all nodes\n"
    "                        at once; every record carries its host (arbench fleet compares the boxes)\n"
    "  --allow-unknown-env   pass an NCCL_* variable of the environment that no NCCL release reads but\n"
    "                        that is a near miss of one (NCCL_PROTOCOL: NCCL_PROTO) with a warning, not\n"
    "                        refused (docs/nccl-env.md)\n");
}

static int parse_inplace(const char *s, int *out, char *err, size_t errlen) {
  if (!strcmp(s, "no")) *out = AR_PLACE_OUT;
  else if (!strcmp(s, "yes")) *out = AR_PLACE_IN;
  else if (!strcmp(s, "both")) *out = AR_PLACE_BOTH;
  else {
    snprintf(err, errlen, "bad value '%s' for --inplace (expected no, yes or both)", s);
    return -AR_EINVAL;
  }
  return 0;
}

static int finish(struct ar_opts *o, size_t minb, size_t maxb, double factor, size_t stepb,
                  bool have_range, bool have_factor, char *err, size_t errlen) {
  if (have_factor && stepb) {
    snprintf(err, errlen, "-f (step factor) and -i (step bytes) cannot be combined; give one");
    return -AR_EINVAL;
  }
  if (o->nsizes && have_range) {
    snprintf(err, errlen, "--sizes/--counts cannot be combined with -b/-e/-f/-i");
    return -AR_EINVAL;
  }
  int from_range = !o->nsizes; /* the sizes come from -b/-e/-f/-i: a bad one names its origin */
  if (!o->nsizes) {
    if (stepb) {
      for (size_t s = minb; s <= maxb; s += stepb) {
        if (o->nsizes == AR_MAX_SIZES) {
          snprintf(err, errlen, "more than %d sizes from %zu to %zu by step %zu", AR_MAX_SIZES, minb, maxb, stepb);
          return -AR_EINVAL;
        }
        o->sizes[o->nsizes++] = s;
      }
      if (minb > maxb) {
        snprintf(err, errlen, "minimum size %zu is larger than maximum size %zu", minb, maxb);
        return -AR_EINVAL;
      }
    } else {
      int n = ar_size_series(minb, maxb, factor, o->sizes, AR_MAX_SIZES, err, errlen);
      if (n < 0) return n;
      o->nsizes = n;
    }
  }
  if (!o->ndtypes) o->dtypes[o->ndtypes++] = AR_FLOAT;
  if (!o->by_count)
    for (int i = 0; i < o->nsizes; i++)
      for (int d = 0; d < o->ndtypes; d++)
        if (o->sizes[i] % ar_dtype_size(o->dtypes[d])) {
          char from[160] = "";
          if (from_range && stepb)
            snprintf(from, sizeof from, ", term %d of -b %zu -e %zu -i %zu", i + 1, minb, maxb, stepb);
          else if (from_range)
            snprintf(from, sizeof from, ", term %d of -b %zu -e %zu -f %g", i + 1, minb, maxb, factor);
          snprintf(err, errlen,
                   "size %zu%s is not a multiple of the %s element size %zu (use --counts for element counts%s)",
                   o->sizes[i], from, ar_dtype_name(o->dtypes[d]), ar_dtype_size(o->dtypes[d]),
                   from_range ? ", or a factor whose terms stay multiples of it" : "");
          return -AR_EINVAL;
        }
  if (o->graph && o->iters % o->graph) {
    snprintf(err, errlen, "-n %d is not a multiple of -G %d (each graph replay runs -G iterations)", o->iters, o->graph);
    return -AR_EINVAL;
  }
  return 0;
}

/* nccl-tests' flags that arbench does not take, each with the one line that maps it (exit 2): a user's
 * habit gets the arbench way, not a bare "unknown option". Short letter and nccl-tests' long name. */
static const struct { char letter; const char *name, *mapping; } foreign_flags[] = {
  {'g', "ngpus", "arbench runs one rank per GPU: launch N ranks (mpirun -np N arbench run, or arbench run --np N)"},
  {'t', "nthreads", "ranks are processes here, one per GPU, never threads: launch N ranks with mpirun -np N (or --np N)"},
  {'R', "local_register", "-R 1 (registered buffers) is --backend nccl:reg=1; -R 2 (symmetric memory) is "
                          "--backend nccl:symm=1, or the symm backend for arbench's own kernel"},
  {'K', "per_iter_skip", "-K N leaves the first N timed iterations out of -I's summary; arbench never times its "
                         "warm-up, so add N to -w (and -I 1 is --timing iter)"},
  {'D', "device_implementation", "-D N runs nccl-tests' own device-API (ncclDevComm) kernels, which arbench does not "
                                 "have: the nearest are --backend nccl:symm=1 (NCCL's symmetric kernels) and --backend "
                                 "symm (arbench's kernel over symmetric memory)"},
  {'V', "device_cta_count", "-V N sets the CTAs of nccl-tests' -D device-API kernels, which arbench does not run; "
                            "NCCL's own CTA count is --backend nccl:ctas=N"},
  {'N', "run_cycles", "use --repeat N (each repeat a fresh warm-up and timed loop over every size)"},
  {'m', "agg_iters", "aggregated collectives per group are not measured: arbench times one allreduce per call"},
};

/* One line for an option getopt did not know: its nccl-tests mapping, else "unknown option". */
static void unknown_option(int letter, const char *arg, char *err, size_t errlen) {
  const char *name = arg && !strncmp(arg, "--", 2) ? arg + 2 : NULL;
  size_t nlen = name ? strcspn(name, "=") : 0;
  for (size_t i = 0; i < sizeof foreign_flags / sizeof foreign_flags[0]; i++) {
    bool hit = letter ? letter == foreign_flags[i].letter
                      : name && nlen == strlen(foreign_flags[i].name) && !strncmp(name, foreign_flags[i].name, nlen);
    if (!hit) continue;
    snprintf(err, errlen, "-%c/--%s is an nccl-tests option, not an arbench one: %s", foreign_flags[i].letter,
             foreign_flags[i].name, foreign_flags[i].mapping);
    return;
  }
  if (letter) snprintf(err, errlen, "unknown option '-%c' (see arbench run --help)", letter);
  else snprintf(err, errlen, "unknown option '%s' (see arbench run --help)", arg);
}

/* --format arbench | nccl-tests (2.18.5's layout) | nccl-tests-2.18 | nccl-tests-2.19 (2.19.6's). */
static int parse_format(const char *s, struct ar_opts *o, char *err, size_t errlen) {
  static const struct { const char *name; int format, layout; } f[] = {
    {"arbench", AR_FMT_TABLE, 218}, {"nccl-tests", AR_FMT_NCCL_TESTS, 218}, {"nccl-tests-2.18", AR_FMT_NCCL_TESTS, 218},
    {"nccl-tests-2.19", AR_FMT_NCCL_TESTS, 219},
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    if (!strcmp(s, f[i].name)) {
      o->format = f[i].format;
      o->nt_layout = f[i].layout;
      return 0;
    }
  snprintf(err, errlen, "bad value '%s' for --format (expected arbench, nccl-tests (2.18.5's layout), nccl-tests-2.18 "
                        "or nccl-tests-2.19)", s);
  return -AR_EINVAL;
}

/* nccl-tests 2.19's -I 0|1 and -z 0..3 (src/common.cu at v2.19.6): -I 1 and -z 3 time every iteration alone,
 * arbench's --timing iter (iter_by names the flag); -I 0 and -z 0 are nccl-tests' defaults, nothing to do;
 * -z 1 and -z 2 (a wait after every call inside the timed loop) have no arbench equivalent: one line. */
static int nccl_tests_timing(int c, const char *v, char *iter_by, size_t len, char *err, size_t errlen) {
  int x;
  if (parse_int(v, c == 'I' ? "-I" : "-z", 0, c == 'I' ? 1 : 3, &x, err, errlen)) return -AR_EINVAL;
  if (c == 'z' && (x == 1 || x == 2)) {
    snprintf(err, errlen, "-z/--blocking %d is an nccl-tests mode arbench does not take: there is no blocking mode "
                          "that waits%s after each call; -z 3 (each -n iteration waited for and timed alone, barrier "
                          "excluded) is --timing iter, -z 0 the default", x, x == 1 ? " and barriers" : "");
    return -AR_EINVAL;
  }
  if (x && !*iter_by) snprintf(iter_by, len, "-%c %d", c, x);
  return 0;
}

/* Options that take one value: a second one would silently replace the first, so it is refused. Flags
 * and --backend (a list that grows) may repeat. */
static int once(int c, unsigned char *seen, char *err, size_t errlen) {
  if (c == OPT_BACKEND || c <= 0 || c >= OPT_LAST) return 0;
  static const char with_value[] = "befidonwcGTJaIz";
  if (c < 256 && !strchr(with_value, c)) return 0;
  if (c >= 1000 && (c == OPT_QUIET || c == OPT_SHARED_GPU || c == OPT_NOBIND || c == OPT_NO_LAUNCH || c == OPT_NO_MEMCHECK ||
                    c == OPT_ALLOW_ENV)) return 0;
  if (!seen[c]++) return 0;
  char name[64];
  snprintf(name, sizeof name, "-%c", c);
  for (const struct option *l = long_opts; c >= 256 && l->name; l++)
    if (l->val == c) snprintf(name, sizeof name, "--%s", l->name);
  snprintf(err, errlen, "option %s given twice (give it once; the later would silently win)", name);
  return -AR_EINVAL;
}

int ar_opts_parse(struct ar_opts *o, int argc, char **argv, char *err, size_t errlen) {
  size_t minb = 8, maxb = 64u << 20, stepb = 0;
  double factor = 2;
  bool have_range = false, have_factor = false;
  unsigned char seen[OPT_LAST] = {0};
  int rc = 0, c;
  opterr = 0;
  optind = 0; /* glibc: 0 also forgets a half-read "-xyz" cluster of an earlier parse (fuzz_opts) */
  char iter_by[32] = ""; /* -I 1 or -z 3: nccl-tests 2.19's ways of asking for --timing iter */
  while ((c = getopt_long(argc, argv, ":b:e:f:i:d:o:n:w:c:G:T:J:a:I:z:h", long_opts, NULL)) != -1) {
    if (c != ':' && c != '?' && (rc = once(c, seen, err, errlen))) return rc;
    switch (c) {
    case 'b': rc = ar_size_parse(optarg, &minb, err, errlen); have_range = true; break;
    case 'e': rc = ar_size_parse(optarg, &maxb, err, errlen); have_range = true; break;
    case 'i': rc = ar_size_parse(optarg, &stepb, err, errlen); have_range = true; break;
    case 'f':
      rc = parse_double(optarg, "-f", 1.0000001, 1024, &factor, err, errlen);
      if (rc) snprintf(err, errlen, "bad value '%s' for -f (expected a factor greater than 1, at most 1024)", optarg);
      have_range = have_factor = true;
      break;
    case OPT_SIZES:
    case OPT_COUNTS:
      if (o->nsizes) {
        snprintf(err, errlen, "give only one --sizes or --counts");
        return -AR_EINVAL;
      }
      o->by_count = c == OPT_COUNTS;
      rc = each_item(optarg, c == OPT_SIZES ? "size" : "count", add_size, o, err, errlen);
      break;
    case 'd': o->ndtypes = 0; rc = each_item(optarg, "datatype", add_dtype, o, err, errlen); break;
    case 'o':
      if (ar_op_parse(optarg, &o->op)) {
        snprintf(err, errlen, "unknown op '%s' (known: sum, prod, max, min, avg)", optarg);
        rc = -AR_EINVAL;
      }
      break;
    case 'n': rc = parse_int(optarg, "-n", 1, 10000000, &o->iters, err, errlen); break;
    case 'w': rc = parse_int(optarg, "-w", 0, 10000000, &o->warmup, err, errlen); break;
    case 'c': rc = parse_int(optarg, "-c", 0, 1000000, &o->check, err, errlen); break;
    case 'G': rc = parse_int(optarg, "-G", 0, 100000, &o->graph, err, errlen); break;
    case 'T': { /* 0 = off; below 1 s not even start-up could show progress in time */
      double t = 0;
      rc = parse_double(optarg, "-T", 0, 1e6, &t, err, errlen);
      if (rc || (t > 0 && t < 1)) {
        snprintf(err, errlen, "bad value '%s' for -T (expected 0 = off, or seconds from 1 to 1000000)", optarg);
        rc = -AR_EINVAL;
      } else o->timeout = t;
      break;
    }
    case 'J': rc = copy_str(o->json, sizeof o->json, optarg, "-J", err, errlen); break;
    case OPT_BACKEND: rc = parse_backends(o, optarg, err, errlen); break;
    case OPT_INPLACE: rc = parse_inplace(optarg, &o->placement, err, errlen); break;
    case OPT_QUIET: o->quiet = true; break;
    case OPT_DEVICES: rc = copy_str(o->devices, sizeof o->devices, optarg, "--devices", err, errlen); break;
    case OPT_SHARED_GPU: o->shared_gpu = true; break;
    case OPT_ISLANDS: rc = parse_int(optarg, "--islands", 1, 1024, &o->islands, err, errlen); break;
    case OPT_NOBIND: o->bind = false; break;
    case OPT_XML: rc = copy_str(o->xml, sizeof o->xml, optarg, "--xml", err, errlen); break;
    case OPT_POINT: rc = copy_str(o->point, sizeof o->point, optarg, "--point", err, errlen); break;
    case OPT_MAXSAMPLES: rc = parse_int(optarg, "--max-samples", 0, 1000000, &o->max_samples, err, errlen); break;
    case OPT_BUFFERS: rc = parse_word2(optarg, "--buffers", "hot", "cold", &o->buffers, err, errlen); break;
    case OPT_TIMING: rc = parse_word2(optarg, "--timing", "iter", "loop", &o->timing, err, errlen); break;
    case 'a': rc = parse_int(optarg, "-a", 0, 3, &o->average, err, errlen); break;
    case OPT_REPEAT: rc = parse_int(optarg, "--repeat", 1, 1000, &o->repeat, err, errlen); break;
    case OPT_NP: rc = parse_int(optarg, "--np", 1, 4096, &o->np, err, errlen); break;
    case OPT_NO_LAUNCH: o->no_launch = true; break;
    case OPT_NO_MEMCHECK: o->no_mem_check = true; break;
    case OPT_AS: {
      const struct ar_runas *a;
      rc = ar_runas_parse(optarg, &a, err, errlen);
      if (!rc) snprintf(o->as, sizeof o->as, "%s", a->engine);
      break;
    }
    case OPT_FORMAT: rc = parse_format(optarg, o, err, errlen); break;
    case 'I':
    case 'z': rc = nccl_tests_timing(c, optarg, iter_by, sizeof iter_by, err, errlen); break;
    case OPT_NT_DIR: rc = copy_str(o->nt_dir, sizeof o->nt_dir, optarg, "--nccl-tests-dir", err, errlen); break;
    case OPT_PER_NODE: o->per_node = true; break;
    case OPT_ALLOW_ENV: o->allow_unknown_env = true; break;
    case 'h': return 1;
    case ':':
      snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
      return -AR_EINVAL;
    default:
      unknown_option(optopt, argv[optind - 1], err, errlen);
      return -AR_EINVAL;
    }
    if (rc) return rc;
  }
  if (optind < argc) {
    snprintf(err, errlen, "unexpected argument '%s' (see arbench run --help)", argv[optind]);
    return -AR_EINVAL;
  }
  if (*o->nt_dir && seen[OPT_FORMAT] && o->format != AR_FMT_NCCL_TESTS) {
    snprintf(err, errlen, "--nccl-tests-dir writes nccl-tests logs: not with --format arbench (stdout keeps "
                          "arbench's table with --nccl-tests-dir)");
    return -AR_EINVAL;
  }
  if (*o->nt_dir) o->format = AR_FMT_NCCL_TESTS;
  if (*iter_by && ((seen[OPT_TIMING] && o->timing == AR_TIME_LOOP) || o->graph)) {
    snprintf(err, errlen, "%s times every iteration (arbench's --timing iter), which %s: drop one", iter_by,
             o->graph ? "nccl-tests turns off under CUDA graphs (-G; arbench's --timing iter with -G times each graph "
                        "replay)" : "--timing loop (one interval around -n calls) contradicts");
    return -AR_EINVAL;
  }
  if (*iter_by) {
    o->timing = AR_TIME_ITER;
    seen[OPT_TIMING] = 1;
  }
  if (*iter_by && o->format == AR_FMT_NCCL_TESTS && o->nt_layout != 219) {
    snprintf(err, errlen, "%s: nccl-tests 2.18.5's layout (--format nccl-tests) has no per-iteration columns: give "
                          "--format nccl-tests-2.19", iter_by);
    return -AR_EINVAL;
  }
  if (o->format == AR_FMT_NCCL_TESTS) { /* nccl-tests' method, unless given */
    if (!seen[OPT_TIMING]) o->timing = AR_TIME_LOOP;
    if (!seen['a']) o->average = AR_AVG_MEAN;
    if (!seen[OPT_INPLACE]) o->placement = AR_PLACE_BOTH;
  }
  return finish(o, minb, maxb, factor, stepb, have_range, have_factor, err, errlen);
}

int ar_opts_canon(const struct ar_opts *o, char *buf, size_t len) {
  size_t n = 0;
#define PUT(...) do { int k = snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__); if (k > 0) n += (size_t)k; } while (0)
  PUT("sizes%s=", o->by_count ? "(counts)" : "");
  for (int i = 0; i < o->nsizes; i++) PUT("%zu,", o->sizes[i]);
  PUT(";backends=");
  for (int i = 0; i < o->nbackends; i++) PUT("%s;", o->backends[i]);
  PUT(";dtypes=");
  for (int i = 0; i < o->ndtypes; i++) PUT("%d,", (int)o->dtypes[i]);
  PUT(";op=%d;n=%d;w=%d;c=%d;G=%d;T=%g;place=%d;shared_gpu=%d;islands=%d;max_samples=%d;bind=%d",
      (int)o->op, o->iters, o->warmup, o->check, o->graph, o->timeout, o->placement,
      (int)o->shared_gpu, o->islands, o->max_samples, (int)o->bind);
  PUT(";xml=%s;devices=%s;point=%s;as=%s", o->xml, o->devices, o->point, o->as);
  PUT(";buffers=%d;timing=%d;a=%d;repeat=%d;format=%d;per_node=%d;nt_layout=%d", o->buffers, o->timing, o->average,
      o->repeat, o->format, (int)o->per_node, o->nt_layout);
#undef PUT
  return n < len ? 0 : -AR_EINVAL;
}

uint64_t ar_opts_hash(const struct ar_opts *o) {
  size_t len = 8192 + (size_t)o->nsizes * 24 + (size_t)o->nbackends * (AR_NAMELEN + 1);
  char *buf = malloc(len);
  uint64_t h = 0xcbf29ce484222325ull;
  if (!buf || ar_opts_canon(o, buf, len)) {
    free(buf);
    return 0;
  }
  for (const unsigned char *p = (const unsigned char *)buf; *p; p++) {
    h ^= *p;
    h *= 0x100000001b3ull;
  }
  free(buf);
  return h;
}

/* Options that do nothing for the chosen backends: -G (CUDA graphs) on backends that cannot be captured
 * (the host backends). None of them can: one line, -AR_EINVAL. Some: one warning line naming them. */
/* --devices (or --shared-gpu) with only host backends: nothing would use it, said instead of ignored. */
static int devices_unused(const struct ar_opts *o, char *err, size_t errlen) {
  if (!*o->devices && !o->shared_gpu) return 0;
  for (int i = 0; i < o->nbackends; i++) {
    const struct ar_backend *be;
    const char *variant;
    char why[AR_ERRLEN];
    if (ar_backend_resolve(o->backends[i], &be, &variant, why, sizeof why) || !(be->flags & AR_BE_HOST)) return 0;
  }
  if (!o->nbackends) return 0; /* the defaults: GPU backends where GPUs are */
  snprintf(err, errlen, "%s: every chosen backend runs on the host (CPU ranks), none uses a GPU: drop it, or add a "
                        "GPU backend (nccl, p2p-*, fused, symm)", *o->devices ? "--devices" : "--shared-gpu");
  return -AR_EINVAL;
}

int ar_opts_check_backends(const struct ar_opts *o, char *warn, size_t wlen, char *err, size_t errlen) {
  if (warn && wlen) *warn = 0;
  if (devices_unused(o, err, errlen)) return -AR_EINVAL;
  if (!o->graph) return 0;
  char ignored[1024] = "";
  size_t k = 0;
  int takers = 0, n = 0;
  for (int i = 0; i < o->nbackends; i++) {
    const struct ar_backend *be;
    const char *variant;
    char why[AR_ERRLEN];
    if (ar_backend_resolve(o->backends[i], &be, &variant, why, sizeof why)) continue; /* named later */
    if (be->flags & AR_BE_GRAPH) {
      takers++;
      continue;
    }
    if (k < sizeof ignored) k += (size_t)snprintf(ignored + k, sizeof ignored - k, "%s%s", n++ ? ", " : "", be->name);
  }
  if (!n) return 0;
  if (!takers) {
    snprintf(err, errlen, "-G %d captures CUDA graphs, but none of the chosen backends (%s) can be captured: "
                          "drop -G, or add a GPU backend (nccl, p2p-*, fused, symm)", o->graph, ignored);
    return -AR_EINVAL;
  }
  snprintf(warn, wlen, "warning: -G %d does nothing for %s (not captured in CUDA graphs; timed as plain calls)",
           o->graph, ignored);
  return 0;
}
