/* opts.c — the options of `arbench links` (sizes as `run`'s -b/-e/-f, methods, directions, patterns) and
 * the pattern generator: which flows each instance of a pattern puts on the links. Pure. */
#include "links/links.h"
#include "links/cuda_plan.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[AR_LM_N] = {"read", "write", "ce-read", "ce-write", "sm-read", "sm-write"};
static const char *const dir_names[AR_LD_N] = {"uni", "bi"};
static const char *const pat_names[AR_LP_N] = {"pairs", "all", "to-one", "from-one", "oneshot", "ring"};

const char *ar_lmethod_name(int m) { return m >= 0 && m < AR_LM_N ? method_names[m] : "?"; }
const char *ar_ldir_name(int d) { return d >= 0 && d < AR_LD_N ? dir_names[d] : "?"; }
const char *ar_lpat_name(int p) { return p >= 0 && p < AR_LP_N ? pat_names[p] : "?"; }

void ar_links_defaults(struct ar_links_opts *o) {
  memset(o, 0, sizeof *o);
  o->methods = AR_LM_HOST_SET; /* without --method: the run picks (ar_links_resolve_methods) */
  o->dirs = (1u << AR_LD_N) - 1;
  o->patterns = (1u << AR_LP_N) - 1;
  o->iters = 20;
  o->warmup = 3;
  o->repeat = 3;
  o->lat_iters = 200;
  o->smoke_timeout = 2.0;
  o->timeout = 300;
  o->bind = true;
}

void ar_links_usage(FILE *f) {
  fprintf(f,
    "usage: mpirun -np N arbench links [options]\n"
    "Every rank pair's link: bandwidth of read (pull) and write (push) copies, alone and under each\n"
    "pattern's load, and the one-way flag latency; on GPUs (one rank each) through CUDA IPC, after a P2P\n"
    "smoke test per pair; on CPU ranks between the ranks' MPI shared-memory windows.\n"
    "  -b, --minbytes SIZE    smallest transfer (default 64K); K, M, G suffixes are binary\n"
    "  -e, --maxbytes SIZE    largest transfer (default 4M); the matrices show the largest\n"
    "  -f, --stepfactor F     multiply the size by F each step (default 4)\n"
    "  -n, --iters N          timed copies per measurement (default 20)\n"
    "  -w, --warmup_iters N   warm-up copies per measurement (default 3)\n"
    "  --repeat N             measurements per point; GB/s is the p50 over them (default 3)\n"
    "  --method LIST          CPU ranks: read, write; GPUs: ce-read, ce-write (copy engine), sm-read,\n"
    "                         sm-write (copy kernel), over CUDA IPC (default: the GPU methods when every\n"
    "                         rank has a GPU, else read, write)\n"
    "  --devices LIST         CUDA device per local rank, as in run (default: by local rank)\n"
    "  --shared-gpu           let several ranks share one GPU (IPC between processes on one GPU)\n"
    "  --direction LIST       uni, bi (default both)\n"
    "  --pattern LIST         pairs, all, to-one, from-one, oneshot, ring (default all of them; every\n"
    "                         pattern but pairs needs pairs for its loaded/isolated ratio)\n"
    "  --lat-iters N          flag ping-pongs per latency repeat, 0 = no latency (default 200)\n"
    "  --smoke-timeout S      seconds a smoke-test transfer may take before its pair is skipped (default 2)\n"
    "  -T, --timeout SECS     end the probe when a phase makes no progress for SECS, naming the rank that\n"
    "                         stopped (default 300, 0 = off; a phase's own bounded waits get their bound)\n"
    "  -J, --json FILE        append JSON Lines records (run, link, skip)\n"
    "  --calib FILE           link parameters fitted by arbench model --fit LINKS.jsonl: the records get the\n"
    "                         model's expected_gbs (expected_us) and ratio = measured / expected\n"
    "  --no-bind              leave the ranks where mpirun put them\n"
    "  --np N                 started outside mpirun: relaunch under mpirun with N ranks (default: one per GPU\n"
    "                         when there are several), as arbench run --np does\n"
    "  --no-launch            started outside mpirun: run as this one process, never relaunch\n"
    "  -q, --quiet            no matrices or findings, records only\n"
    "  --per-node             launched over many nodes: every node probes its own ranks alone, all nodes at\n"
    "                         once; every record carries its host (arbench fleet compares the boxes)\n");
}

static int parse_list(const char *arg, const char *flag, const char *const *names, int n, unsigned *out, char *err,
                      size_t len) {
  char buf[256];
  if (!*arg || strlen(arg) >= sizeof buf) {
    snprintf(err, len, "bad %s '%.100s' (expected a comma list)", flag, arg);
    return -AR_EINVAL;
  }
  snprintf(buf, sizeof buf, "%s", arg);
  unsigned set = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int k = 0;
    while (k < n && strcmp(t, names[k])) k++;
    if (k == n) {
      char allowed[160] = "";
      for (int i = 0; i < n; i++)
        snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s", i ? ", " : "", names[i]);
      snprintf(err, len, "bad %s '%s' (allowed: %s)", flag, t, allowed);
      return -AR_EINVAL;
    }
    set |= 1u << k;
  }
  if (!set) {
    snprintf(err, len, "bad %s '%.100s' (expected a comma list)", flag, arg);
    return -AR_EINVAL;
  }
  *out = set;
  return 0;
}

static int parse_int(const char *s, const char *flag, long lo, long hi, int *out, char *err, size_t len) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end || errno || v < lo || v > hi) {
    snprintf(err, len, "bad %s '%.100s' (allowed: an integer from %ld to %ld)", flag, s, lo, hi);
    return -AR_EINVAL;
  }
  *out = (int)v;
  return 0;
}

static int parse_pos(const char *s, const char *flag, double lo, double hi, double *out, char *err, size_t len) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !(v >= lo && v <= hi)) {
    snprintf(err, len, "bad %s '%.100s' (allowed: a number from %g to %g)", flag, s, lo, hi);
    return -AR_EINVAL;
  }
  *out = v;
  return 0;
}

/* --devices: comma-separated device indices 0..255, as `run` takes them (checked here in every build, so a
 * build without CUDA refuses a bad list too). */
static int devices_ok(const char *s) {
  if (!*s) return 0;
  for (const char *p = s;;) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (*p < '0' || *p > '9' || errno || v > 255) return 0;
    if (!*end) return 1;
    if (*end != ',') return 0; /* "0," ends at the empty entry: no digit */
    p = end + 1;
  }
}

enum { OPT_REPEAT = 256, OPT_METHOD, OPT_DIR, OPT_PAT, OPT_LAT, OPT_SMOKE, OPT_NOBIND, OPT_DEVICES, OPT_SHARED, OPT_CALIB,
       OPT_PER_NODE, OPT_NP, OPT_NO_LAUNCH };
static const struct option long_opts[] = {
  {"minbytes", required_argument, 0, 'b'}, {"maxbytes", required_argument, 0, 'e'},
  {"stepfactor", required_argument, 0, 'f'}, {"iters", required_argument, 0, 'n'},
  {"warmup_iters", required_argument, 0, 'w'}, {"repeat", required_argument, 0, OPT_REPEAT},
  {"method", required_argument, 0, OPT_METHOD}, {"direction", required_argument, 0, OPT_DIR},
  {"pattern", required_argument, 0, OPT_PAT}, {"lat-iters", required_argument, 0, OPT_LAT},
  {"smoke-timeout", required_argument, 0, OPT_SMOKE}, {"json", required_argument, 0, 'J'},
  {"no-bind", no_argument, 0, OPT_NOBIND}, {"devices", required_argument, 0, OPT_DEVICES},
  {"shared-gpu", no_argument, 0, OPT_SHARED}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
  {"calib", required_argument, 0, OPT_CALIB}, {"timeout", required_argument, 0, 'T'},
  {"per-node", no_argument, 0, OPT_PER_NODE}, {"np", required_argument, 0, OPT_NP},
  {"no-launch", no_argument, 0, OPT_NO_LAUNCH}, {0, 0, 0, 0},
};

/* The sizes from -b/-e/-f: a transfer of at least 4 bytes, a multiple of 4 (the data check's words). */
static int finish(struct ar_links_opts *o, size_t minb, size_t maxb, double factor, char *err, size_t len) {
  int n = ar_size_series(minb, maxb, factor, o->sizes, AR_MAX_SIZES, err, len);
  if (n < 0) return -AR_EINVAL;
  o->nsizes = n;
  for (int i = 0; i < n; i++)
    if (o->sizes[i] % 4) {
      snprintf(err, len, "size %zu is not a multiple of 4 bytes (the data check's word)", o->sizes[i]);
      return -AR_EINVAL;
    }
  if ((o->patterns & ~(1u << AR_LP_PAIRS)) && !(o->patterns & (1u << AR_LP_PAIRS))) {
    snprintf(err, len, "--pattern without pairs: the loaded patterns are measured against pairs alone "
             "(add pairs to the list)");
    return -AR_EINVAL;
  }
  return 0;
}

int ar_links_parse(struct ar_links_opts *o, int argc, char **argv, char *err, size_t len) {
  size_t minb = 64u << 10, maxb = 4u << 20;
  double factor = 4;
  int c, rc = 0;
  optind = 1;
  opterr = 0;
  while (!rc && (c = getopt_long(argc, argv, ":b:e:f:n:w:J:T:qh", long_opts, NULL)) != -1) {
    switch (c) {
    case 'b': rc = ar_size_parse(optarg, &minb, err, len); break;
    case 'e': rc = ar_size_parse(optarg, &maxb, err, len); break;
    case 'f': rc = parse_pos(optarg, "-f", 1.000001, 1024, &factor, err, len); break;
    case 'n': rc = parse_int(optarg, "-n", 1, 1000000, &o->iters, err, len); break;
    case 'w': rc = parse_int(optarg, "-w", 0, 1000000, &o->warmup, err, len); break;
    case OPT_REPEAT: rc = parse_int(optarg, "--repeat", 1, 1000, &o->repeat, err, len); break;
    case OPT_METHOD:
      rc = parse_list(optarg, "--method", method_names, AR_LM_N, &o->methods, err, len);
      o->methods_given = true;
      break;
    case OPT_DIR: rc = parse_list(optarg, "--direction", dir_names, AR_LD_N, &o->dirs, err, len); break;
    case OPT_PAT: rc = parse_list(optarg, "--pattern", pat_names, AR_LP_N, &o->patterns, err, len); break;
    case OPT_LAT: rc = parse_int(optarg, "--lat-iters", 0, 1000000, &o->lat_iters, err, len); break;
    case OPT_SMOKE: rc = parse_pos(optarg, "--smoke-timeout", 0.001, 3600, &o->smoke_timeout, err, len); break;
    case 'T': rc = parse_pos(optarg, "-T", 0, 1e6, &o->timeout, err, len); break;
    case 'J':
      if (!*optarg || strlen(optarg) >= sizeof o->json) {
        snprintf(err, len, "bad -J '%.100s' (expected a file name)", optarg);
        rc = -AR_EINVAL;
      } else snprintf(o->json, sizeof o->json, "%s", optarg);
      break;
    case OPT_CALIB:
      if (!*optarg || strlen(optarg) >= sizeof o->calib) {
        snprintf(err, len, "bad --calib '%.100s' (expected a file written by arbench model --fit)", optarg);
        rc = -AR_EINVAL;
      } else snprintf(o->calib, sizeof o->calib, "%s", optarg);
      break;
    case OPT_NOBIND: o->bind = false; break;
    case OPT_NP: rc = parse_int(optarg, "--np", 2, 4096, &o->np, err, len); break;
    case OPT_NO_LAUNCH: o->no_launch = true; break;
    case OPT_SHARED: o->shared_gpu = true; break;
    case OPT_DEVICES:
      if (!devices_ok(optarg) || strlen(optarg) >= sizeof o->devices) {
        snprintf(err, len, "bad --devices '%.100s' (expected comma-separated CUDA device indices like 0,1,2,3)", optarg);
        rc = -AR_EINVAL;
      } else snprintf(o->devices, sizeof o->devices, "%s", optarg);
      break;
    case 'q': o->quiet = true; break;
    case OPT_PER_NODE: o->per_node = true; break;
    case 'h': return 1;
    case ':': snprintf(err, len, "option '%s' needs a value", argv[optind - 1]); return -AR_EINVAL;
    default:
      snprintf(err, len, "unknown option '%s' for links (see arbench links --help)", argv[optind - 1]);
      return -AR_EINVAL;
    }
  }
  if (rc) return -AR_EINVAL;
  if (optind < argc) {
    snprintf(err, len, "unexpected argument '%.100s' for links (see arbench links --help)", argv[optind]);
    return -AR_EINVAL;
  }
  return finish(o, minb, maxb, factor, err, len);
}

/* ---- patterns ---- */

int ar_links_ninstances(int pat, int dir, int n) {
  if (n < 2) return 0;
  switch (pat) {
  case AR_LP_PAIRS: return dir == AR_LD_BI ? n * (n - 1) / 2 : n * (n - 1);
  case AR_LP_TO_ONE:
  case AR_LP_FROM_ONE: return n;
  case AR_LP_ALL:
  case AR_LP_ONESHOT:
  case AR_LP_RING: return 1;
  }
  return 0;
}

/* Instance k of pairs: the k-th ordered pair (uni) or unordered pair a < b (bi). */
static void pair_of(int dir, int n, int k, int *a, int *b) {
  for (int i = 0; i < n; i++)
    for (int j = dir == AR_LD_BI ? i + 1 : 0; j < n; j++) {
      if (i == j) continue;
      if (k-- == 0) {
        *a = i;
        *b = j;
        return;
      }
    }
}

static int has(const int *m, int n, int s, int d) { return m[s * n + d]; }

int ar_links_flows(int pat, int dir, int n, int k, struct ar_flow *out, int max, int *root) {
  if (root) *root = -1;
  if (k < 0 || k >= ar_links_ninstances(pat, dir, n)) return 0;
  int *m = calloc((size_t)n * (size_t)n, sizeof *m);
  if (!m) return 0;
  int a = 0, b = 0;
  switch (pat) {
  case AR_LP_PAIRS:
    pair_of(dir, n, k, &a, &b);
    m[a * n + b] = 1;
    if (root) *root = a;
    break;
  case AR_LP_TO_ONE:
  case AR_LP_FROM_ONE:
    for (int r = 0; r < n; r++)
      if (r != k) m[pat == AR_LP_TO_ONE ? r * n + k : k * n + r] = 1;
    if (root) *root = k;
    break;
  case AR_LP_ALL:
  case AR_LP_ONESHOT:
    for (int s = 0; s < n; s++)
      for (int d = 0; d < n; d++) m[s * n + d] = s != d;
    break;
  case AR_LP_RING:
    for (int r = 0; r < n; r++) m[r * n + (r + 1) % n] = 1;
    break;
  }
  if (dir == AR_LD_BI)
    for (int s = 0; s < n; s++)
      for (int d = 0; d < n; d++)
        if (m[s * n + d] == 1) m[d * n + s] |= 2;
  int nf = 0;
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++)
      if (has(m, n, s, d) && nf < max) out[nf++] = (struct ar_flow){s, d};
  free(m);
  return nf;
}

int ar_links_initiator(int method, struct ar_flow f) { return ar_lmethod_pull(method) ? f.dst : f.src; }
