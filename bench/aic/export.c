/* export.c — `arbench export aiconfigurator FILES -o DIR`: the user's measurements in aiconfigurator's layout
 * (DIR/data/SYSTEM/comm/nccl/V/nccl_perf.parquet, DIR/data/SYSTEM/comm/FRAMEWORK/V/custom_allreduce_perf.parquet, each
 * with its collection_meta.yaml), so aiconfigurator's own estimate runs on this box's numbers. */
#include "aic/aic.h"
#include "analysis/analysis.h"
#include "analysis/serving.h"
#include "ar.h"
#include "results.h"
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct exp_opts {
  const char *dir, *system, *framework, *version;
};

static int element_size(const char *dtype) {
  return !strcmp(dtype, "half") || !strcmp(dtype, "bfloat16") ? 2 : !strcmp(dtype, "float") ? 4 : 0;
}

/* The NCCL version of a column's records (the record's nccl.version, else its run's stack), "unknown". */
static const char *nccl_version(json_t *rec, json_t *runs) {
  const char *v = ar_rec_str(json_object_get(rec, "nccl"), "version", "");
  if (*v) return v;
  json_t *run = json_object_get(runs, ar_rec_str(rec, "run_id", ""));
  return ar_rec_str(json_object_get(run, "stack"), "nccl_loaded", "unknown");
}

/* A column with no sweep point and no variant. */
static int plain(const struct ar_grid *g, int c) {
  char pt[256];
  ar_rec_point(g->cfgrec[c], pt, sizeof pt);
  return !*pt && !*ar_rec_str(g->cfgrec[c], "variant", "");
}

static json_t *row(const char *table, const char *fw, const char *ver, const char *device, const char *ks,
                   int gpus, long long elems, double us, const char *backend) {
  json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:f}", "framework", fw, "version", ver, "device",
                        device, "op_name", "all_reduce", "kernel_source", ks,
                        strcmp(table, "nccl_perf") ? "allreduce_dtype" : "nccl_dtype", "half", "num_gpus", gpus,
                        "message_size", (json_int_t)elems, "latency", us / 1000.0);
  if (backend) json_object_set_new(r, "backend", json_string(backend));
  return r;
}

/* One grid's rows: NCCL's defaults into nccl, the decider's pick among the engine's custom kernels into custom. */
static int grid_rows(const struct ar_grid *g, json_t *runs, const struct ar_noise *nz, const struct exp_opts *o,
                     json_t *nccl, json_t *custom, char *nver, size_t nlen) {
  int es = element_size(g->dtype);
  if (!es || es == 4 || strcmp(g->op, "sum") || strcmp(g->placement, "out") || g->nodes > 1) return 0;
  json_t *run = json_object_get(runs, ar_rec_str(g->cfgrec[0], "run_id", ""));
  const char *device = ar_rec_str(json_array_get(json_object_get(run, "gpus"), 0), "name", "unknown");
  int nc = -1;
  char *mask = calloc((size_t)g->ncfg, 1);
  for (int c = 0; mask && c < g->ncfg; c++) {
    int p = ar_spath_of(g->cfgrec[c]);
    if (p == AR_SP_NCCL && ar_grid_is_nccl(g, c) && plain(g, c) && nc < 0) nc = c;
    mask[c] = (p == AR_SP_CUSTOM_1STAGE || p == AR_SP_CUSTOM_2STAGE) && ar_grid_eligible(g, c);
  }
  if (!mask) return -1;
  struct ar_decisions d;
  int have_custom = 0;
  for (int c = 0; c < g->ncfg; c++) have_custom |= mask[c];
  if (have_custom && ar_grid_decide(g, mask, nz, &d)) {
    free(mask);
    return -1;
  }
  for (int s = 0; s < g->nsize; s++) {
    if (g->size[s] % (size_t)es) continue;
    long long elems = (long long)(g->size[s] / (size_t)es);
    double v;
    if (nc >= 0 && ar_grid_eligible(g, nc) && !isnan(v = ar_grid_p50(g, s, nc))) {
      snprintf(nver, nlen, "%s", nccl_version(g->cfgrec[nc], runs));
      json_array_append_new(nccl, row("nccl_perf", "arbench", nver, device, "NCCL", g->ranks, elems, v, NULL));
    }
    int k = have_custom ? d.at[s].pick : -1;
    if (k >= 0 && !isnan(v = ar_grid_p50(g, s, k))) {
      char ks[160];
      snprintf(ks, sizeof ks, "arbench_%s", ar_rec_str(g->cfgrec[k], "spec", "?"));
      json_array_append_new(custom, row("custom_allreduce_perf", o->framework, o->version, device, ks, g->ranks, elems,
                                        v, "arbench"));
    }
  }
  if (have_custom) ar_decisions_free(&d);
  free(mask);
  return 0;
}

static json_t *meta(const char *fw, const char *ver, const char *table) {
  return json_pack("{s:i, s:s, s:{s:s, s:s}, s:{s:{s:s}}}", "schema_version", 1, "provenance", "collected", "runtime",
                   "framework", fw, "version", ver, "tables", table, "status", "complete");
}

static void usage(FILE *f) {
  fprintf(f, "usage: arbench export aiconfigurator RESULTS.jsonl... -o DIR --framework vllm|sglang|trtllm --version V\n"
             "          [--system NAME]\n"
             "The measurements in aiconfigurator's layout, for its own estimate on this box: NCCL with its defaults as\n"
             "DIR/data/NAME/comm/nccl/NCCL_VERSION/nccl_perf.parquet, and per size the pick among the engines' custom\n"
             "kernels (p2p-oneshot, p2p-twoshot; the one decider) as DIR/data/NAME/comm/FRAMEWORK/V/\n"
             "custom_allreduce_perf.parquet with kernel_source arbench_SPEC; each with its collection_meta.yaml.\n"
             "message_size in elements, latency in ms (the cell's p50); 16-bit dtypes as aiconfigurator's 'half'.\n"
             "Writes Parquet through plots/arbench-aic (pyarrow, pyyaml). --system: default arbench_box.\n");
}

int ar_cmd_export(int argc, char **argv) {
  static const struct option lo[] = {{"output", required_argument, 0, 'o'}, {"system", required_argument, 0, 's'},
                                     {"framework", required_argument, 0, 'f'}, {"version", required_argument, 0, 'v'},
                                     {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  struct exp_opts o = {NULL, "arbench_box", NULL, NULL};
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1) {
    if (c == 'h') return usage(stdout), AR_EXIT_OK;
    const char *bad = NULL;
    if (c == 'o') o.dir = optarg;
    else if (c == 's') o.system = optarg, bad = !*optarg || strpbrk(optarg, "/ ") ? "--system" : NULL;
    else if (c == 'f')
      o.framework = optarg, bad = strcmp(optarg, "vllm") && strcmp(optarg, "sglang") && strcmp(optarg, "trtllm") ? "--framework" : NULL;
    else if (c == 'v') o.version = optarg, bad = !*optarg || strpbrk(optarg, "/ ") ? "--version" : NULL;
    else return ar_ana_badopt("export", c, argv[optind - 1]), AR_EXIT_USAGE;
    if (bad) {
      fprintf(stderr, "arbench export: bad %s '%s' (expected %s)\n", bad, optarg,
              c == 'f' ? "vllm, sglang or trtllm" : "a name without '/' or spaces");
      return AR_EXIT_USAGE;
    }
  }
  if (optind >= argc || strcmp(argv[optind], "aiconfigurator") || optind + 1 >= argc || !o.dir || !o.framework ||
      !o.version) {
    fprintf(stderr, "arbench export: expected 'aiconfigurator RESULTS.jsonl... -o DIR --framework vllm|sglang|trtllm "
                    "--version V' (the only format exported is aiconfigurator's)\n");
    return AR_EXIT_USAGE;
  }
  struct ar_ana a;
  char err[AR_ERRLEN];
  int nf = argc - optind - 1;
  if (ar_ana_load(&a, nf, argv + optind + 1, err, sizeof err)) {
    fprintf(stderr, "arbench export: %s\n", err);
    ar_ana_free(&a);
    return AR_EXIT_USAGE;
  }
  ar_results_drop_standin(a.results, a.runs); /* the CPU stand-in's times are no GPU numbers */
  size_t i = 0;
  while (i < json_array_size(a.results)) /* aiconfigurator's own records are not exported back as this box's */
    if (!strcmp(ar_rec_str(json_array_get(a.results, i), "backend", ""), "aiconfigurator")) json_array_remove(a.results, i);
    else i++;
  if (ar_stack_count(a.results, a.runs) > 1) {
    fprintf(stderr, "arbench export: the files hold %d stacks; export one stack at a time (stacks are never pooled)\n",
            ar_stack_count(a.results, a.runs));
    ar_ana_free(&a);
    return AR_EXIT_USAGE;
  }
  struct ar_grid *g = NULL;
  int n = 0, status = AR_EXIT_OK;
  json_t *nccl = json_array(), *custom = json_array();
  char nver[64] = "unknown";
  struct ar_noise nz;
  ar_noise_defaults(&nz);
  if (ar_grids_build(a.results, a.runs, &g, &n)) status = AR_EXIT_FAIL;
  nz.grids = n;
  for (int k = 0; !status && k < n; k++)
    if (grid_rows(&g[k], a.runs, &nz, &o, nccl, custom, nver, sizeof nver)) status = AR_EXIT_FAIL;
  if (!status && !json_array_size(nccl) && !json_array_size(custom)) {
    fprintf(stderr, "arbench export: nothing to export: no nccl or p2p-oneshot/p2p-twoshot results in 16-bit dtypes, "
                    "out-of-place, on one node\n");
    status = AR_EXIT_NOTHING;
  }
  if (!status) {
    json_t *tables = json_array();
    char d1[512], d2[512];
    snprintf(d1, sizeof d1, "data/%s/comm/nccl/%s", o.system, nver);
    snprintf(d2, sizeof d2, "data/%s/comm/%s/%s", o.system, o.framework, o.version);
    if (json_array_size(nccl))
      json_array_append_new(tables, json_pack("{s:s, s:s, s:o, s:O}", "dir", d1, "table", "nccl_perf", "meta",
                                              meta("nccl", nver, "nccl_perf"), "rows", nccl));
    if (json_array_size(custom))
      json_array_append_new(tables, json_pack("{s:s, s:s, s:o, s:O}", "dir", d2, "table", "custom_allreduce_perf", "meta",
                                              meta(o.framework, o.version, "custom_allreduce_perf"), "rows", custom));
    char in[] = "/tmp/arbench-aic-in.XXXXXX";
    int fd = mkstemp(in);
    json_t *doc = json_pack("{s:o}", "tables", tables), *res = NULL;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f || json_dumpf(doc, f, JSON_REAL_PRECISION(17)) || fclose(f)) {
      fprintf(stderr, "arbench export: cannot write a temporary file in /tmp\n");
      status = AR_EXIT_FAIL;
    } else {
      char *args[] = {"write", (char *)o.dir, in, NULL};
      int rc = ar_aic_run(args, &res, err, sizeof err);
      if (rc) fprintf(stderr, "arbench export: %s\n", err), status = rc == 2 ? AR_EXIT_USAGE : AR_EXIT_FAIL;
      else {
        json_t *w;
        json_array_foreach(json_object_get(res, "written"), i, w) printf("wrote %s\n", json_string_value(w));
        printf("%zu NCCL rows (NCCL %s), %zu custom allreduce rows (%s %s), system %s\n", json_array_size(nccl), nver,
               json_array_size(custom), o.framework, o.version, o.system);
      }
    }
    if (fd >= 0) unlink(in);
    json_decref(res);
    json_decref(doc);
  }
  json_decref(nccl);
  json_decref(custom);
  ar_grids_free(g, n);
  ar_ana_free(&a);
  return status;
}
