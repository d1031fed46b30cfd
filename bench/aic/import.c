/* import.c — `arbench import aiconfigurator PATH`: aiconfigurator's comm tables (nccl_perf, custom_allreduce_perf with
 * their collection_meta.yaml; a file or a folder) as results, labelled as its reference box with its method. */
#include "aic/aic.h"
#include "ar.h"
#include "infile.h"
#include "results.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How aiconfigurator measured, read from its collector at ai-dynamo/aiconfigurator 302edbc4 (collect_nccl.py) and
 * 0a3146b1 (collect_all_reduce.py): imported records carry it, never arbench's method. */
#define AIC_NCCL_METHOD                                                                                            \
  "aiconfigurator collector/collect_nccl.py: nccl-tests all_reduce_perf -b S -e S -t N -w 40 -a 1 -n 1000|500|100 " \
  "-c 0 (one process, N threads), the out-of-place time: interval around the loop / iterations, mean over ranks, "   \
  "unchecked"
#define AIC_CUSTOM_METHOD                                                                                          \
  "aiconfigurator collector/collect_all_reduce.py: rank 0's best of 3 CUDA-graph replays of 100 allreduces "       \
  "interleaved with a 256x256 GEMM, minus the GEMM-only graph, / 100 (eager kernel sources: the same loop without " \
  "the engine's graph buffers registered), unchecked"

struct aic_opts {
  const char *json, *system, *nccl_dtype;
};

/* arbench's dtype and element size of an aiconfigurator dtype name; NULL when arbench has no such dtype. */
static const char *dtype_of(const char *s, int *esize) {
  static const char *const map[][3] = {{"half", "half", "2"}, {"float16", "half", "2"}, {"fp16", "half", "2"},
                                       {"bfloat16", "bfloat16", "2"}, {"bf16", "bfloat16", "2"},
                                       {"float", "float", "4"}, {"float32", "float", "4"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(s, map[i][0])) return *esize = atoi(map[i][2]), map[i][1];
  return NULL;
}

/* The system: --system, else the folder above "comm/" in the file's path (systems/data/SYSTEM/comm/...). */
static void system_of(const char *file, const char *given, char *buf, size_t len) {
  if (given) {
    snprintf(buf, len, "%s", given);
    return;
  }
  const char *c = strstr(file, "/comm/"), *b = c;
  while (b && b > file && b[-1] != '/') b--;
  if (c && b < c) snprintf(buf, len, "%.*s", (int)(c - b), b);
  else snprintf(buf, len, "unknown system");
}

/* One table: its run record and result records appended to out; rows left out counted in *other. */
static void table_records(json_t *t, const struct aic_opts *o, json_t *out, int *kept, int *other) {
  const char *file = json_string_value(json_object_get(t, "file")), *table = json_string_value(json_object_get(t, "table"));
  json_t *meta = json_object_get(t, "meta"), *rows = json_object_get(t, "rows"), *r;
  json_t *rt = json_object_get(meta, "runtime");
  int nccl = !strcmp(table, "nccl_perf");
  char sys[128], rid[512];
  system_of(file, o->system, sys, sizeof sys);
  const char *fw = ar_rec_str(rt, "framework", ar_rec_str(json_array_get(rows, 0), "framework", "?"));
  const char *ver = ar_rec_str(rt, "version", ar_rec_str(json_array_get(rows, 0), "version", "?"));
  snprintf(rid, sizeof rid, "aiconfigurator:%s:%s:%s-%s", sys, table, fw, ver);
  json_t *run = json_pack("{s:s, s:s, s:i, s:i, s:[s], s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s, s:s, s:O}}", "type",
                          "run", "run_id", rid, "schema", AR_SCHEMA_VERSION, "nodes", 1, "hosts", sys, "stack", "name",
                          "aiconfigurator", nccl ? "nccl_loaded" : "framework", ver, "imported", "from",
                          "aiconfigurator", "file", file, "table", table, "system", sys, "framework", fw, "version",
                          ver, "collection_meta", meta ? meta : json_null());
  int maxg = 0;
  size_t i;
  json_t *res = json_array();
  json_array_foreach(rows, i, r) {
    const char *dn = ar_rec_str(r, nccl ? "nccl_dtype" : "allreduce_dtype", "");
    int esize = 0;
    const char *dt = dtype_of(dn, &esize);
    json_int_t ms = json_integer_value(json_object_get(r, "message_size")), g = json_integer_value(json_object_get(r, "num_gpus"));
    double lat = json_number_value(json_object_get(r, "latency"));
    if (strcmp(ar_rec_str(r, "op_name", ""), "all_reduce") || !dt || ms <= 0 || g < 1 || !(lat > 0)) {
      (*other)++;
      continue;
    }
    const char *measured = dt;
    if (nccl && o->nccl_dtype && !strcmp(dt, "half")) dt = o->nccl_dtype;
    const char *ks = ar_rec_str(r, "kernel_source", "?");
    char spec[256], variant[256];
    snprintf(spec, sizeof spec, "aiconfigurator:%s@%s-%s", ks, fw, ver);
    snprintf(variant, sizeof variant, "%s@%s-%s", ks, fw, ver);
    int graph = !nccl && !strstr(ks, "eager") && !strstr(ar_rec_str(r, "backend", ""), "eager");
    double us = lat * 1000.0; /* latency is in ms */
    json_t *rec = json_pack(
      "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:i, s:b, s:s, s:s, s:s, s:i, s:{s:f, s:f, s:f}, s:s, "
      "s:{s:s, s:s, s:s, s:s, s:s, s:s}}",
      "type", "result", "run_id", rid, "backend", "aiconfigurator", "variant", variant, "spec", spec, "dtype", dt, "op",
      "sum", "placement", "out", "size", (json_int_t)(ms * esize), "count", ms, "ranks", g, "nodes", 1, "checked", 0,
      "buffers", "hot", "timing", "loop", "average", nccl ? "mean" : "rank0", "graph", graph ? 100 : 0, "time_us",
      "min", us, "p50", us, "max", us, "method", nccl ? AIC_NCCL_METHOD : AIC_CUSTOM_METHOD, "imported", "from",
      "aiconfigurator", "system", sys, "framework", fw, "version", ver, "kernel_source", ks, "table", table);
    if (strcmp(measured, dt)) json_object_set_new(rec, "measured_dtype", json_string(measured));
    if (g > maxg) maxg = (int)g;
    json_array_append_new(res, rec);
  }
  json_object_set_new(run, "ranks", json_integer(maxg));
  json_object_set_new(run, "gpus", json_pack("[{s:s}]", "name", ar_rec_str(json_array_get(rows, 0), "device", "?")));
  if (json_array_size(res)) {
    json_array_append_new(out, run);
    json_array_extend(out, res);
    *kept += (int)json_array_size(res);
  } else json_decref(run);
  json_decref(res);
}

static void usage(FILE *f) {
  fprintf(f, "usage: arbench import aiconfigurator PATH [-J FILE] [--system NAME] [--nccl-dtype bfloat16]\n"
             "aiconfigurator's comm tables (nccl_perf.parquet, custom_allreduce_perf.parquet with their\n"
             "collection_meta.yaml; PATH a file or a folder searched for them) as results: its reference box, its\n"
             "framework, version and kernel source, and its method on every record (docs/impact.md#aiconfigurator).\n"
             "Reads Parquet through plots/arbench-aic (pyarrow, pyyaml).\n"
             "  -J, --json FILE     write the records there (default: stdout)\n"
             "  --system NAME       the reference box's name (default: the folder above comm/ in the path)\n"
             "  --nccl-dtype bfloat16  record the NCCL table's half rows as bfloat16 (2-byte elements both; the\n"
             "                      records keep measured_dtype half), to set them beside bf16 custom allreduces\n");
}

int ar_aic_import(int argc, char **argv) {
  static const struct option lo[] = {{"json", required_argument, 0, 'J'}, {"system", required_argument, 0, 's'},
                                     {"nccl-dtype", required_argument, 0, 'd'}, {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  struct aic_opts o = {"-", NULL, NULL};
  int c;
  optind = 0;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hJ:", lo, NULL)) != -1) {
    if (c == 'h') return usage(stdout), AR_EXIT_OK;
    if (c == 'J') o.json = optarg;
    else if (c == 's') o.system = optarg;
    else if (c == 'd' && !strcmp(optarg, "bfloat16")) o.nccl_dtype = optarg;
    else {
      fprintf(stderr, "arbench import aiconfigurator: %s '%s' (see arbench import aiconfigurator --help)\n",
              c == 'd' ? "bad --nccl-dtype (expected bfloat16):" : c == ':' ? "option needs a value:" : "unknown option",
              c == 'd' ? optarg : argv[optind - 1]);
      return AR_EXIT_USAGE;
    }
  }
  if (argc - optind != 1) {
    fprintf(stderr, "arbench import aiconfigurator: expected one PATH (a comm table's .parquet or a folder), e.g. "
                    "arbench import aiconfigurator systems/data/rtx_pro_6000_server/comm -J aic.jsonl\n");
    return AR_EXIT_USAGE;
  }
  const char *path = argv[optind];
  char err[AR_ERRLEN];
  if (access(path, F_OK)) {
    fprintf(stderr, "arbench import aiconfigurator: '%s' does not exist (expected a .parquet file or a folder)\n", path);
    return AR_EXIT_USAGE;
  }
  /* the checks every command makes of a file it is given (a device, FIFO, /proc file, over 4 GiB: one line) */
  if (ar_infile_check(path, "comm table (aiconfigurator's .parquet)", AR_INFILE_DIR | AR_INFILE_BINARY, err,
                      sizeof err) < 0) { /* 1: a folder, taken */
    fprintf(stderr, "arbench import aiconfigurator: %s\n", err);
    return AR_EXIT_USAGE;
  }
  json_t *doc;
  char *args[] = {"read", (char *)path, NULL};
  int rc = ar_aic_run(args, &doc, err, sizeof err);
  if (rc) {
    fprintf(stderr, "arbench import aiconfigurator: %s\n", err);
    return rc == 2 ? AR_EXIT_USAGE : AR_EXIT_FAIL;
  }
  json_t *out = json_array(), *t;
  int kept = 0, other = 0;
  size_t i;
  json_array_foreach(json_object_get(doc, "tables"), i, t) table_records(t, &o, out, &kept, &other);
  json_decref(doc);
  FILE *f = strcmp(o.json, "-") ? fopen(o.json, "w") : stdout;
  if (!f) {
    fprintf(stderr, "arbench import aiconfigurator: cannot write '%s'\n", o.json);
    json_decref(out);
    return AR_EXIT_USAGE;
  }
  json_t *rec;
  json_array_foreach(out, i, rec) {
    json_dumpf(rec, f, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    fputc('\n', f);
  }
  int bad = f != stdout ? fclose(f) : fflush(f);
  json_decref(out);
  fprintf(stderr, "arbench import aiconfigurator: %d allreduce records from %s; left out: %d rows of other "
                  "collectives or of dtypes arbench has not\n", kept, path, other);
  return bad ? AR_EXIT_FAIL : kept ? AR_EXIT_OK : AR_EXIT_NOTHING;
}
