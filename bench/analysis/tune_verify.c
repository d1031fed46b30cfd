/* tune_verify.c — `arbench tune --verify`: default NCCL against nccl:tuner=FILE on the sizes tune
 * decided from, in separate interleaved runs, then per size faster / same / slower and a verdict. */
#include "analysis/analysis.h"
#include "ar.h"
#include "ar_tuner_decisions.h"
#include "device/gpu.h"
#include "commands.h"
#include "opts.h"
#include "results.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define AR_VERIFY_MAX_SIZES 64

struct verify {
  char tuner[PATH_MAX], out[PATH_MAX + 16], judge[PATH_MAX], self[PATH_MAX];
  int np, repeats, dry_run;
  char dtype[32], placement[8];
  size_t sizes[AR_VERIFY_MAX_SIZES];
  int nsizes;
  struct ar_noise noise;
  int nfiles;
  char **files;
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: arbench tune --verify --tuner FILE [options] RESULTS.jsonl...\n"
          "Checks that the decisions in FILE (tuner.json of arbench tune -o DIR) help: runs default NCCL\n"
          "(--backend nccl) and nccl:tuner=FILE on the sizes RESULTS measured for nccl, as separate\n"
          "mpirun launches interleaved A B, B A, ... (NCCL loads a tuner plugin once per process and keeps\n"
          "it, or a failed load, for later communicators: the two cannot share a process), then per size\n"
          "the ratio tuned/default p50 with its bootstrap 95%% interval (as compare): faster, same or\n"
          "slower, and whether to deploy (faster somewhere, slower nowhere). Needs the GPUs: without them\n"
          "it says so and exits 3.\n"
          "  --tuner FILE     the decisions to verify (required)\n"
          "  --np N           ranks (default: the largest single-node group in FILE)\n"
          "  --repeats N      launches per side (default 3, 2..50)\n"
          "  --out FILE       the measurements (default: verify.jsonl beside FILE); appended\n"
          "  --dry-run        print the launches and stop\n"
          "  --judge FILE     no launches: judge measurements made before (FILE as --out wrote it)\n"
          "  --drift PCT      as in tune (single-run sides)\n");
}

static int bad(const char *msg, const char *val) {
  fprintf(stderr, "arbench tune --verify: %s%s%s\n", msg, val ? ": " : "", val ? val : "");
  return -AR_EINVAL;
}

static int parse(int argc, char **argv, struct verify *v) {
  static const struct option lo[] = {{"verify", no_argument, 0, 'V'},       {"tuner", required_argument, 0, 't'},
                                     {"np", required_argument, 0, 'n'},     {"repeats", required_argument, 0, 'r'},
                                     {"out", required_argument, 0, 'o'},    {"dry-run", no_argument, 0, 'y'},
                                     {"judge", required_argument, 0, 'j'},  {"drift", required_argument, 0, 'D'},
                                     {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
  int c;
  char err[AR_ERRLEN], *end;
  optind = 1;
  opterr = 0;
  v->repeats = 3;
  while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
    long x;
    switch (c) {
    case 'V': break;
    case 'h': return usage(stdout), 1;
    case 't': snprintf(v->tuner, sizeof v->tuner, "%s", optarg); break;
    case 'o': snprintf(v->out, sizeof v->out, "%s", optarg); break;
    case 'j': snprintf(v->judge, sizeof v->judge, "%s", optarg); break;
    case 'y': v->dry_run = 1; break;
    case 'n':
    case 'r':
      x = strtol(optarg, &end, 10);
      if (!*optarg || *end || x < (c == 'n' ? 2 : 2) || x > (c == 'n' ? 4096 : 50))
        return bad(c == 'n' ? "bad --np (expected 2..4096)" : "bad --repeats (expected 2..50)", optarg);
      *(c == 'n' ? &v->np : &v->repeats) = (int)x;
      break;
    case 'D':
      if (ar_noise_drift_parse(&v->noise, optarg, err, sizeof err)) return bad(err, NULL);
      break;
    default: return ar_ana_badopt("tune --verify", c, argv[optind - 1]), -AR_EINVAL;
    }
  }
  v->nfiles = argc - optind;
  v->files = argv + optind;
  if (*v->judge) return 0;
  if (!*v->tuner) return bad("--tuner FILE is required (the tuner.json of arbench tune -o DIR)", NULL);
  if (!v->nfiles) return bad("no results files given (the ones tune decided from)", NULL);
  return 0;
}

/* The decisions file, absolute and loadable; np and the group's dtype/placement from it. */
static int read_tuner(struct verify *v) {
  char abs[PATH_MAX], err[512];
  struct ar_tuner_decisions d;
  if (!realpath(v->tuner, abs)) return bad(strerror(errno), v->tuner);
  if (ar_tuner_load(v->tuner, &d, err, sizeof err)) { /* the path as the user gave it; the plugin's own prefix dropped */
    const char *m = strncmp(err, "arbench tuner: ", 15) ? err : err + 15;
    return fprintf(stderr, "arbench tune --verify: %s\n", m), -AR_EINVAL;
  }
  snprintf(v->tuner, sizeof v->tuner, "%s", abs);
  int best = 0;
  for (int i = 0; i < d.ngroups; i++)
    if (d.group[i].nnodes == 1 && d.group[i].nranks > best) best = d.group[i].nranks;
  ar_tuner_free(&d);
  if (!v->np) v->np = best;
  if (v->np < 2) return bad("no single-node group of 2+ ranks in the decisions: give --np", v->tuner);
  if (!*v->out) {
    snprintf(v->out, sizeof v->out, "%s", abs);
    char *slash = strrchr(v->out, '/');
    snprintf(slash + 1, sizeof v->out - (size_t)(slash + 1 - v->out), "verify.jsonl");
  }
  return 0;
}

static int dtype_pref(const char *dt) {
  static const char *const pref[] = {"bfloat16", "half", "float", "int32"};
  for (int i = 0; i < 4; i++)
    if (!strcmp(dt, pref[i])) return i;
  return 4;
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

/* The nccl sizes of RESULTS at np ranks, in the dtype tune prefers (bfloat16, half, float, int32). */
static int read_sizes(struct verify *v) {
  struct ar_ana a;
  char err[AR_ERRLEN];
  if (ar_ana_load(&a, v->nfiles, v->files, err, sizeof err)) {
    ar_ana_free(&a);
    return fprintf(stderr, "arbench tune --verify: %s\n", err), -AR_EINVAL;
  }
  size_t i;
  json_t *r;
  json_array_foreach(a.results, i, r) {
    if (strcmp(ar_rec_str(r, "backend", ""), "nccl") || ar_rec_ranks(r) != v->np) continue;
    const char *dt = ar_rec_str(r, "dtype", "float");
    if (*v->dtype && dtype_pref(dt) > dtype_pref(v->dtype)) continue;
    if (!*v->dtype || dtype_pref(dt) < dtype_pref(v->dtype)) {
      snprintf(v->dtype, sizeof v->dtype, "%s", dt);
      v->nsizes = 0;
    }
    if (!*v->placement || !strcmp(ar_rec_placement(r), "out"))
      snprintf(v->placement, sizeof v->placement, "%s", ar_rec_placement(r));
    size_t sz = (size_t)ar_rec_num(r, "size", 0);
    int seen = 0;
    for (int k = 0; k < v->nsizes; k++) seen |= v->sizes[k] == sz;
    if (!seen && v->nsizes < AR_VERIFY_MAX_SIZES) v->sizes[v->nsizes++] = sz;
  }
  ar_ana_free(&a);
  if (!v->nsizes) {
    char n[16];
    snprintf(n, sizeof n, "%d", v->np);
    return bad("no nccl results at this many ranks in the results files (--np)", n);
  }
  qsort(v->sizes, (size_t)v->nsizes, sizeof v->sizes[0], cmp_size);
  return 0;
}

/* One launch: mpirun -np N arbench run --backend B --sizes ... -d DT --inplace no|yes -J OUT. */
static void launch_argv(const struct verify *v, int tuned, char **av, char *np, char *backend, char *sizes, size_t sl) {
  int k = 0;
  snprintf(np, 16, "%d", v->np);
  snprintf(backend, PATH_MAX + 32, tuned ? "nccl:tuner=%s" : "nccl", v->tuner);
  size_t o = 0;
  for (int i = 0; i < v->nsizes && o < sl; i++) o += (size_t)snprintf(sizes + o, sl - o, "%s%zu", i ? "," : "", v->sizes[i]);
  av[k++] = "mpirun", av[k++] = "-np", av[k++] = np, av[k++] = (char *)v->self, av[k++] = "run";
  av[k++] = "--backend", av[k++] = backend, av[k++] = "--sizes", av[k++] = sizes, av[k++] = "-d";
  av[k++] = (char *)v->dtype, av[k++] = "--inplace", av[k++] = strcmp(v->placement, "in") ? "no" : "yes";
  av[k++] = "-J", av[k++] = (char *)v->out, av[k] = NULL;
}

static int run_plan(const struct verify *v) {
  for (int r = 0; r < v->repeats; r++)
    for (int k = 0; k < 2; k++) {
      int tuned = (r % 2) ? !k : k; /* A B, B A, A B ...: drift cancels between the sides */
      char *av[24], np[16], backend[PATH_MAX + 32], sizes[AR_VERIFY_MAX_SIZES * 24];
      launch_argv(v, tuned, av, np, backend, sizes, sizeof sizes);
      for (int i = 0; av[i]; i++) printf("%s%s", i ? " " : "", av[i]);
      printf("\n");
      fflush(stdout);
      if (v->dry_run) continue;
      pid_t pid;
      int st;
      if (posix_spawnp(&pid, av[0], NULL, NULL, av, environ))
        return fprintf(stderr, "arbench tune --verify: cannot start mpirun: %s\n", strerror(errno)), AR_EXIT_FAIL;
      if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
        return fprintf(stderr, "arbench tune --verify: launch %d of %d (%s) failed: nothing judged\n", 2 * r + k + 1,
                       2 * v->repeats, tuned ? "tuned" : "default"), AR_EXIT_FAIL;
    }
  return AR_EXIT_OK;
}

static int strcmp_ptr(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Per size: ratio tuned/default with the noise rule tune and compare use; the verdict. */
static int judge(const struct verify *v, const char *path) {
  struct ar_ana a;
  char err[AR_ERRLEN], *p = (char *)path;
  if (ar_ana_load(&a, 1, &p, err, sizeof err)) {
    ar_ana_free(&a);
    return fprintf(stderr, "arbench tune --verify: %s\n", err), AR_EXIT_USAGE;
  }
  json_t *sides[2] = {json_object(), json_object()}; /* "dtype|placement|ranks|size" -> runs */
  size_t i;
  json_t *r;
  int notran = 0, ran = 0, dups = 0;
  json_array_foreach(a.results, i, r) {
    if (strcmp(ar_rec_str(r, "backend", ""), "nccl")) continue;
    const char *var = ar_rec_str(r, "variant", "");
    int tuned = !strncmp(var, "tuner=", 6);
    if (*var && !tuned) continue;
    if (tuned) {
      if (json_is_true(json_object_get(json_object_get(r, "nccl_tuner"), "ran"))) ran++;
      else notran++;
    }
    char key[128];
    snprintf(key, sizeof key, "%s|%s|%d|%012.0f", ar_rec_str(r, "dtype", ""), ar_rec_placement(r), ar_rec_ranks(r),
             ar_rec_num(r, "size", 0));
    json_t *runs = json_object_get(sides[tuned], key);
    if (!runs) json_object_set_new(sides[tuned], key, runs = json_array());
    ar_runs_add(runs, r, &dups);
  }
  int n[3] = {0, 0, 0}, rc = AR_EXIT_OK; /* faster, same, slower */
  if (notran) {
    fprintf(stderr, "arbench tune --verify: %s: %d tuned records say the plugin did not run (nccl_tuner.ran false):"
            " no verdict\n", path, notran);
    rc = AR_EXIT_FAIL;
  }
  printf("| size | default p50 us | tuned p50 us | tuned/default | 95%% interval | verdict |\n|---|---:|---:|---:|---|---|\n");
  void *it = json_object_iter(sides[0]);
  /* keys sort by size within a (dtype, placement, ranks) thanks to the zero-padded size */
  const char **keys = calloc(json_object_size(sides[0]) + 1, sizeof *keys);
  size_t nk = 0;
  for (; it; it = json_object_iter_next(sides[0], it)) keys[nk++] = json_object_iter_key(it);
  qsort(keys, nk, sizeof *keys, strcmp_ptr);
  for (size_t k = 0; rc == AR_EXIT_OK && k < nk; k++) {
    json_t *ra = json_object_get(sides[0], keys[k]), *rb = json_object_get(sides[1], keys[k]);
    if (!rb) continue;
    double pa = ar_runs_p50(ra), pb = ar_runs_p50(rb), ratio = pb / pa, lo = NAN, hi = NAN;
    int single = ar_runs_sampled(ra) < 2 || ar_runs_sampled(rb) < 2;
    int boot = ar_boot_ratio(ra, rb, keys[k], &v->noise, &lo, &hi);
    const char *verdict;
    if (boot) verdict = "no samples";
    else if (single && fabs(ratio - 1) < v->noise.drift) verdict = "same";
    else verdict = hi < 1 ? "faster" : lo > 1 ? "slower" : "same";
    if (!boot) n[!strcmp(verdict, "faster") ? 0 : !strcmp(verdict, "same") ? 1 : 2]++;
    char sz[32], ua[32], ub[32];
    ar_size_format((size_t)atof(strrchr(keys[k], '|') + 1), sz, sizeof sz);
    ar_fmt_us(pa, ua, sizeof ua);
    ar_fmt_us(pb, ub, sizeof ub);
    printf("| %s | %s | %s | %.3f | [%.3f, %.3f] | %s |\n", sz, ua, ub, ratio, lo, hi, verdict);
  }
  free(keys);
  if (rc == AR_EXIT_OK) {
    if (!n[0] && !n[1] && !n[2]) {
      fprintf(stderr, "arbench tune --verify: %s has no size measured both by default nccl and nccl:tuner=\n", path);
      rc = AR_EXIT_FAIL;
    } else if (n[2])
      printf("\nverdict: do not deploy: the plugin is slower at %d size%s (faster at %d, same at %d)\n", n[2],
             n[2] == 1 ? "" : "s", n[0], n[1]);
    else if (!n[0])
      printf("\nverdict: no gain: same as NCCL's defaults at all %d sizes: not worth deploying\n", n[1]);
    else
      printf("\nverdict: deploy: faster at %d size%s, same at %d, slower at none (plugin ran in %d records)\n", n[0],
             n[0] == 1 ? "" : "s", n[1], ran);
  }
  json_decref(sides[0]);
  json_decref(sides[1]);
  ar_ana_free(&a);
  return rc;
}

int ar_tune_verify(int argc, char **argv) {
  struct verify v;
  memset(&v, 0, sizeof v);
  ar_noise_defaults(&v.noise);
  int rc = parse(argc, argv, &v);
  if (rc) return rc > 0 ? AR_EXIT_OK : AR_EXIT_USAGE;
  if (*v.judge) return judge(&v, v.judge);
  if (read_tuner(&v) || read_sizes(&v)) return AR_EXIT_USAGE;
  ssize_t n = readlink("/proc/self/exe", v.self, sizeof v.self - 1);
  if (n <= 0) return fprintf(stderr, "arbench tune --verify: cannot find the arbench executable\n"), AR_EXIT_FAIL;
  v.self[n] = 0;
  if (!v.dry_run) {
    char why[256] = "";
    int gpus = ar_gpu_count(why, sizeof why);
    if (gpus < v.np) {
      fprintf(stderr, "arbench tune --verify: needs %d GPUs on this node, found %d%s%s: nothing run (--dry-run prints"
              " the launches)\n", v.np, gpus, *why ? ": " : "", why);
      return 3;
    }
  }
  fprintf(stderr, "arbench tune --verify: %d ranks, %s %s-of-place, %d sizes, %d launches per side into %s\n", v.np,
          v.dtype, strcmp(v.placement, "in") ? "out" : "in", v.nsizes, v.repeats, v.out);
  rc = run_plan(&v);
  return rc || v.dry_run ? rc : judge(&v, v.out);
}
