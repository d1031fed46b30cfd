/* cmd.c — `arbench model`: options, the predicted table (size x algorithm, us and busbw) with the best
 * per size and the crossovers, and `prediction` records (JSON Lines) that the analysis tools read. */
#include "infile.h"
#include "model/model.h"
#include "ar.h"
#include "commands.h"
#include "opts.h"
#include "results.h"
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define AR_MSIZES 64

enum model_mode { AR_MODEL_PREDICT = 0, AR_MODEL_FIT, AR_MODEL_AGAINST };

struct model_opts {
  const char *xml, *calib, *out, *jfile, *dtype;
  enum model_mode mode;
  char **files; /* results files of --fit / --against */
  int nfiles, np, json, algo_mask;
  int no_p2p_dropped;  /* custom algorithms left out: --calib nccl_no_p2p says the GPUs have no P2P */
  size_t sizes[AR_MSIZES];
  int nsizes;
};

static void usage(FILE *f) {
  fprintf(f,
    "usage: arbench model [--xml FILE] [--np N] [--calib FILE] [-b MIN -e MAX -f FACTOR] [--algo LIST]\n"
    "                     [--format text|json] [-J FILE]\n"
    "       arbench model --fit RESULTS.jsonl... [-o CALIB.json]\n"
    "       arbench model --against RESULTS.jsonl... [--xml FILE] [--calib FILE] [--format text|json]\n"
    "Predicted allreduce time per size for NCCL ring/tree (LL, Simple) and the custom one-shot (pull,\n"
    "push), two-shot (flat, staged) and islands algorithms, from the PCIe topology (live, or --xml):\n"
    "link speeds, shared links (switch uplinks, the socket link) under max-min fair sharing, per-hop\n"
    "latency by path class and per-call costs. Defaults and their published sources: bench/model/params.c.\n"
    "  --np N            GPUs (the first N in PCI bus id order; default all)\n"
    "  -b/-e/-f          sizes (default 256 B to 256 MiB, factor 2; K, M, G binary)\n"
    "  --algo LIST       only these algorithms (%s, ...)\n"
    "  --calib FILE      parameters fitted by --fit, or written by hand, in a file or inline:\n"
    "                    --calib '{\"params\":{\"socket_gbs\":39}}' (knobs: bench/model/params.c)\n"
    "  --fit FILE...     fit fixed cost and cost per byte per algorithm family from measured results, and\n"
    "                    from `arbench links` records a copy's time per (method, path class) and the flag\n"
    "                    latency per class (the calib file's \"links\", read by arbench links --calib)\n"
    "  --against FILE... measured / predicted per result, with a diagnosis where measured is far below;\n"
    "                    with link records, each result against the least time the measured links allow\n"
    "  -J FILE           append `prediction` records (table, compare and plots read them with results)\n",
    ar_malgo_name(0));
}

static int bad(const char *msg, const char *val) {
  fprintf(stderr, "arbench model: %s '%s'\n", msg, val);
  return -AR_EINVAL;
}

static int parse_algos(struct model_opts *o, const char *arg) {
  char buf[512], *save = NULL;
  snprintf(buf, sizeof buf, "%s", arg);
  o->algo_mask = 0;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int a = ar_malgo_parse(t);
    if (a < 0) {
      fprintf(stderr, "arbench model: --algo %s: unknown algorithm (known: nccl-ring-ll, nccl-ring-simple, "
              "nccl-tree-ll, nccl-tree-simple, oneshot-pull, oneshot-push, twoshot-flat, twoshot-staged, "
              "islands)\n", t);
      return -AR_EINVAL;
    }
    o->algo_mask |= 1 << a;
  }
  return o->algo_mask ? 0 : bad("--algo: empty list", arg);
}

static int parse_sizes(struct model_opts *o, const char *b, const char *e, const char *f) {
  size_t lo, hi;
  char err[AR_ERRLEN], *end;
  double fac = strtod(f, &end);
  if (ar_size_parse(b, &lo, err, sizeof err) || ar_size_parse(e, &hi, err, sizeof err)) {
    fprintf(stderr, "arbench model: %s\n", err);
    return -AR_EINVAL;
  }
  if (*end || !(fac > 1)) return bad("-f: the factor must be a number > 1, got", f);
  int n = ar_size_series(lo, hi, fac, o->sizes, AR_MSIZES, err, sizeof err);
  if (n <= 0) {
    fprintf(stderr, "arbench model: %s\n", err);
    return -AR_EINVAL;
  }
  o->nsizes = n;
  return 0;
}

static int parse(struct model_opts *o, int argc, char **argv) {
  static const struct option lo[] = {
    {"xml", required_argument, 0, 'x'}, {"np", required_argument, 0, 'n'}, {"calib", required_argument, 0, 'c'},
    {"fit", no_argument, 0, 'F'}, {"against", no_argument, 0, 'A'}, {"algo", required_argument, 0, 'a'},
    {"format", required_argument, 0, 'm'}, {"dtype", required_argument, 0, 'd'}, {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};
  const char *b = "256", *e = "256M", *f = "2";
  int c, fit = 0, against = 0;
  char *end;
  memset(o, 0, sizeof *o);
  o->algo_mask = (1 << AR_M_NALGO) - 1;
  o->dtype = "float";
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":b:e:f:o:J:h", lo, NULL)) != -1) {
    switch (c) {
    case 'x': o->xml = optarg; break;
    case 'c': o->calib = optarg; break;
    case 'n':
      o->np = (int)strtol(optarg, &end, 10);
      if (*end || o->np < 2) return bad("--np: need an integer >= 2, got", optarg);
      break;
    case 'F': fit = 1; break;
    case 'A': against = 1; break;
    case 'a': if (parse_algos(o, optarg)) return -AR_EINVAL; break;
    case 'm':
      if (strcmp(optarg, "text") && strcmp(optarg, "json")) return bad("--format: allowed text or json, got", optarg);
      o->json = !strcmp(optarg, "json");
      break;
    case 'd': {
      enum ar_dtype dt;
      if (ar_dtype_parse(optarg, &dt)) return bad("--dtype: allowed float, half, bfloat16, int32, got", optarg);
      o->dtype = ar_dtype_name(dt);
      break;
    }
    case 'b': b = optarg; break;
    case 'e': e = optarg; break;
    case 'f': f = optarg; break;
    case 'o': o->out = optarg; break;
    case 'J': o->jfile = optarg; break;
    case 'h': usage(stdout); return 1;
    case ':': return bad("missing value for", argv[optind - 1]);
    default: return bad("unknown option", argv[optind - 1]);
    }
  }
  if (fit && against) return bad("--fit and --against: choose one, got", "--fit --against");
  if ((fit || against) && optind >= argc) return bad(fit ? "--fit needs results files" : "--against needs results files", "");
  if (!fit && !against && optind < argc) return bad("unexpected argument", argv[optind]);
  if (o->out && !fit) return bad("-o is for --fit, got", o->out);
  if (against && o->np) return bad("--np: --against takes each result's own rank count; drop", "--np");
  o->mode = fit ? AR_MODEL_FIT : against ? AR_MODEL_AGAINST : AR_MODEL_PREDICT;
  o->files = argv + optind;
  o->nfiles = argc - optind;
  return parse_sizes(o, b, e, f);
}

/* ---- output ---- */

static void fmt_size(size_t s, char *buf, size_t len) { ar_size_format(s, buf, len); }

static int best_at(const struct ar_mgraph *g, const struct ar_mparams *p, const struct ar_nccl_graph *ng, int mask,
                   double bytes) {
  int best = -1;
  double bt = INFINITY;
  for (int a = 0; a < AR_M_NALGO; a++) {
    if (!(mask & 1 << a)) continue;
    double t = ar_nccl_family_time(g, p, ng, a, bytes);
    if (t < bt) {
      bt = t;
      best = a;
    }
  }
  return best;
}

/* "ring/LL x2": NCCL's default at this size, as its algorithm/protocol names and channels. */
static void choice_words(const struct ar_nccl_choice *c, char *buf, size_t len) {
  int tree = c->family == AR_M_TREE_LL || c->family == AR_M_TREE_SIMPLE;
  int ll = c->family == AR_M_RING_LL || c->family == AR_M_TREE_LL;
  snprintf(buf, len, "%s/%s x%d", tree ? "Tree" : "Ring", ll ? "LL" : "Simple", c->channels);
}

static void print_table(const struct model_opts *o, const struct ar_mgraph *g, const struct ar_mparams *p,
                        const struct ar_nccl_graph *ng) {
  int n = ar_mgraph_n(g), dflt = (o->algo_mask & AR_M_NCCL_MASK) != 0;
  printf("%-9s", "size");
  for (int a = 0; a < AR_M_NALGO; a++)
    if (o->algo_mask & 1 << a) printf(" %19s", ar_malgo_name(a));
  if (dflt) printf(" %32s", "nccl-default");
  printf("\n");
  for (int s = 0; s < o->nsizes; s++) {
    char sz[32];
    double bytes = (double)o->sizes[s];
    int best = best_at(g, p, ng, o->algo_mask, bytes);
    fmt_size(o->sizes[s], sz, sizeof sz);
    printf("%-9s", sz);
    for (int a = 0; a < AR_M_NALGO; a++) {
      if (!(o->algo_mask & 1 << a)) continue;
      double t = ar_nccl_family_time(g, p, ng, a, bytes);
      char cell[40];
      snprintf(cell, sizeof cell, "%s%.1f (%.1f)", a == best ? "*" : "", t, ar_model_busbw(bytes, t, n));
      printf(" %19s", cell);
    }
    if (dflt) {
      struct ar_nccl_choice c;
      char w[32], cell[64];
      double t = ar_nccl_default_time(g, p, ng, bytes, &c);
      choice_words(&c, w, sizeof w);
      snprintf(cell, sizeof cell, "%s %.1f (%.1f)", w, t, ar_model_busbw(bytes, t, n));
      printf(" %32s", cell);
    }
    printf("\n");
  }
  printf("predicted us (busbw GB/s); * = fastest at that size\n");
  if (dflt) {
    char tr[160];
    ar_nccl_transport_words(ng, tr, sizeof tr);
    printf("nccl-default: what NCCL runs unforced (its tuning model at v2.29.2-1, LL128 off on PCIe): "
           "algorithm/protocol x channels, and the model's time for it; NCCL's ring graph here: %d channel%s x "
           "%g GB/s%s%s; %s\n", ng->channels, ng->channels == 1 ? "" : "s", ng->bw_intra,
           ng->fallback ? " (no ring at NCCL's speeds: its fallback order)" : "",
           ng->intel_phb ? " (Intel root complex: NCCL counts a hop through it x6/5)" : "", tr);
  }
}

/* "from 64K", or "at no size up to 256M" (the largest size asked) when NCCL never gets ahead. */
static void crossover_words(size_t x, size_t top, char *buf, size_t len) {
  char sz[32];
  fmt_size(x ? x : top, sz, sizeof sz);
  snprintf(buf, len, x ? "from %s" : "at no size up to %s", sz);
}

static void print_crossovers(const struct model_opts *o, const struct ar_mgraph *g, const struct ar_mparams *p,
                             const struct ar_nccl_graph *ng) {
  int prev = -1;
  printf("crossovers:");
  for (int s = 0; s < o->nsizes; s++) {
    int b = best_at(g, p, ng, o->algo_mask, (double)o->sizes[s]);
    char sz[32];
    fmt_size(o->sizes[s], sz, sizeof sz);
    if (prev >= 0 && b != prev) printf(" %s: %s -> %s;", sz, ar_malgo_name(prev), ar_malgo_name(b));
    prev = b;
  }
  printf("\n");
  int nccl = o->algo_mask & AR_M_NCCL_MASK, one = o->algo_mask & AR_M_ONESHOT_MASK;
  int cust = o->algo_mask & ~AR_M_NCCL_MASK;
  if (!nccl || !one) return;
  (void)nccl; /* NCCL as it runs by default: its own choice per size */
  size_t x1 = ar_model_crossover_default(g, p, ng, o->sizes, o->nsizes, one);
  size_t x2 = ar_model_crossover_default(g, p, ng, o->sizes, o->nsizes, cust);
  char a[48], b[48];
  crossover_words(x1, o->sizes[o->nsizes - 1], a, sizeof a);
  crossover_words(x2, o->sizes[o->nsizes - 1], b, sizeof b);
  printf("NCCL (its default choice) beats one-shot %s; it beats every custom algorithm %s\n", a, b);
}

static json_t *prediction(const struct model_opts *o, const struct ar_mgraph *g, const struct ar_mparams *p,
                          const struct ar_topo *t, const struct ar_nccl_graph *ng, const char *run_id, enum ar_malgo a,
                          size_t size, const struct ar_nccl_choice *dflt) {
  int n = ar_mgraph_n(g);
  double fx, pb, tm;
  ar_model_time(g, p, a, (double)size, &fx, &pb);
  tm = ar_nccl_family_time(g, p, ng, a, (double)size); /* no P2P at any level: bounded by its hops through host memory */
  if (!dflt) pb = fmax(pb, ar_nccl_family_floor(g, p, ng, a)); /* the per-byte cost time_us was computed with */
  if (dflt) tm = dflt->model_us;
  double algbw = (double)size / tm / 1e3;
  enum ar_dtype dt = AR_FLOAT;
  ar_dtype_parse(o->dtype, &dt);
  char spec[64];
  snprintf(spec, sizeof spec, "model:%s", dflt ? "nccl-default" : ar_malgo_name(a));
  json_t *topo = ar_topo_summary(t);
  json_t *r = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:i,s:i,s:i,s:{s:f,s:f,s:f,s:f},s:f,s:f,s:f,s:f}",
    "type", "prediction", "run_id", run_id, "backend", "model", "variant", dflt ? "nccl-default" : ar_malgo_name(a), "spec", spec,
    "dtype", o->dtype, "op", "sum", "placement", "out", "size", (json_int_t)size,
    "count", (json_int_t)(size / ar_dtype_size(dt)), "ranks", n, "nodes", 1, "samples_n", 0,
    "time_us", "p50", tm, "mean", tm, "min", tm, "max", tm,
    "algbw_gbs", algbw, "busbw_gbs", ar_model_busbw((double)size, tm, n), "algbw_p50_gbs", algbw,
    "busbw_p50_gbs", ar_model_busbw((double)size, tm, n));
  json_object_set_new(r, "model", json_pack("{s:s,s:s,s:f,s:f,s:o}", "topology", ar_topo_source(t),
    "digest", json_string_value(json_object_get(topo, "digest")) ? json_string_value(json_object_get(topo, "digest")) : "",
    "fixed_us", fx, "us_per_byte", pb, "params", ar_mparams_json(p)));
  json_decref(topo);
  if (dflt) {
    int tree = a == AR_M_TREE_LL || a == AR_M_TREE_SIMPLE, ll = a == AR_M_RING_LL || a == AR_M_TREE_LL;
    json_object_set_new(r, "nccl_default", json_pack("{s:s,s:s,s:s,s:i,s:f,s:s}", "family", ar_malgo_name(a),
                        "algo", tree ? "Tree" : "Ring", "proto", ll ? "LL" : "Simple", "channels", dflt->channels,
                        "nccl_estimate_us", dflt->nccl_us, "nccl_tags", "v2.29.2-1"));
  }
  return r;
}

static int write_predictions(const struct model_opts *o, const struct ar_mgraph *g, const struct ar_mparams *p,
                             const struct ar_topo *t, const struct ar_nccl_graph *ng, json_t *assumed) {
  char run_id[20], err[AR_ERRLEN];
  struct ar_writer w;
  snprintf(run_id, sizeof run_id, "%016llx",
           (unsigned long long)time(NULL) * 2654435761ULL ^ (unsigned long long)getpid() << 32);
  if (ar_writer_open(&w, o->jfile ? o->jfile : "-", err, sizeof err)) {
    fprintf(stderr, "arbench model: %s\n", err);
    return AR_EXIT_FAIL;
  }
  /* A run record first, so analysis tools label the predictions' stack "model". */
  json_t *run = json_pack("{s:s,s:s,s:i,s:s,s:{s:s},s:o,s:o,s:O,s:{s:i,s:f,s:i,s:b,s:i}}", "type", "run", "run_id",
                          run_id, "schema", AR_SCHEMA_VERSION, "source", "model", "stack", "name", "model", "topology",
                          ar_topo_summary(t), "model_params", ar_mparams_json(p), "assumptions", assumed,
                          "nccl_graph", "channels", ng->channels, "bw_intra_gbs", ng->bw_intra, "comm_channels",
                          ng->comm_channels, "fallback", ng->fallback, "cc", ng->cc);
  json_t *gr = json_object_get(run, "nccl_graph");
  json_object_set_new(gr, "ring_hops", json_integer(ng->ring_hops));
  json_object_set_new(gr, "shm_hops", json_integer(ng->shm_hops));
  if (ng->shm_hops) json_object_set_new(gr, "shm_link_gbs", json_real(ng->shm_link_gbs));
  json_object_set_new(gr, "p2p_level", json_string(ar_path_name(ng->p2p_level)));
  json_object_set_new(gr, "intel_p2p_overhead", json_boolean(ng->intel_phb));
  int rc = ar_writer_put(&w, run, err, sizeof err);
  json_decref(run);
  for (int s = 0; s < o->nsizes && !rc; s++) {
    for (int a = 0; a < AR_M_NALGO && !rc; a++)
      if (o->algo_mask & 1 << a) {
        json_t *r = prediction(o, g, p, t, ng, run_id, a, o->sizes[s], NULL);
        rc = ar_writer_put(&w, r, err, sizeof err);
        json_decref(r);
      }
    if (!rc && (o->algo_mask & AR_M_NCCL_MASK)) { /* what NCCL runs unforced at this size */
      struct ar_nccl_choice c;
      c.model_us = ar_nccl_default_time(g, p, ng, (double)o->sizes[s], &c);
      json_t *r = prediction(o, g, p, t, ng, run_id, c.family, o->sizes[s], &c);
      rc = ar_writer_put(&w, r, err, sizeof err);
      json_decref(r);
    }
  }
  ar_writer_close(&w);
  if (rc) fprintf(stderr, "arbench model: %s\n", err);
  return rc ? AR_EXIT_FAIL : AR_EXIT_OK;
}

void ar_model_print_assumed(const struct ar_massume *a, int n) {
  for (int i = 0; i < n; i++) printf("# assumed: %s = %s: %s\n", a[i].name, a[i].value, a[i].why);
}

static void print_header(const struct ar_topo *t, const struct ar_mgraph *g, const struct ar_massume *a, int na) {
  json_t *s = ar_topo_summary(t);
  const char *v = ar_topo_cpu_vendor(t);
  printf("# model: %s, %d of %d GPUs, %d socket(s)%s%s, digest %s\n", ar_topo_source(t), ar_mgraph_n(g),
         ar_topo_ngpus(t), ar_mgraph_islands(g, NULL), *v ? ", CPU " : "", v,
         json_string_value(json_object_get(s, "digest")) ? json_string_value(json_object_get(s, "digest")) : "?");
  json_decref(s);
  double path = ar_topo_bottleneck_gbs(t, NULL, ar_mgraph_n(g)), gpu = ar_topo_gpu_link_min_gbs(t);
  if (path > 0 && gpu > 0 && path < gpu)
    printf("# note: a link on the GPU paths reports %.2f GB/s, below the GPUs' %.2f (a slower uplink, or a port "
           "trained down while idle); the model uses it as read: capture the XML under load or pass --calib\n",
           path, gpu);
  ar_model_print_assumed(a, na);
}

static int run_model(const struct model_opts *o, const struct ar_mparams *p) {
  struct ar_topo *t = NULL;
  struct ar_mgraph *g = NULL;
  char err[AR_ERRLEN] = "";
  int rc = ar_topo_load(&t, o->xml, err, sizeof err);
  if (!rc && o->mode == AR_MODEL_AGAINST) {
    rc = ar_model_against(p, t, o->nfiles, o->files, o->json, err, sizeof err);
    if (rc) fprintf(stderr, "arbench model: %s\n", err);
    ar_topo_destroy(t);
    return rc == -AR_EINVAL ? AR_EXIT_USAGE : rc ? AR_EXIT_FAIL : AR_EXIT_OK;
  }
  double t0 = ar_model_clock();
  if (!rc) rc = ar_mgraph_build(&g, t, o->np ? o->np : ar_topo_ngpus(t), p, err, sizeof err);
  if (rc && t && ar_topo_ngpus(t) < 2) /* nothing to model here: where a box to model comes from */
    snprintf(err, sizeof err, "%s has %d NVIDIA GPU%s; the model needs 2 or more: give the box to model with --xml "
             "FILE (lstopo --of xml there, or an NCCL topology dump), e.g. tests/fixtures/model/sw2-8g-gen5.xml "
             "(8 GPUs on two Gen5 switches) or ds-8g-gen5.xml (two sockets) of arbench's source tree",
             o->xml ? o->xml : "this machine's topology", ar_topo_ngpus(t), ar_topo_ngpus(t) == 1 ? "" : "s");
  if (rc) {
    fprintf(stderr, "arbench model: %s\n", err);
    ar_topo_destroy(t);
    return rc == -AR_EINVAL ? AR_EXIT_USAGE : AR_EXIT_FAIL;
  }
  ar_model_prepare(g, p, o->algo_mask, ar_mgraph_n(g) >= AR_MODEL_PROGRESS_GPUS ? stderr : NULL, t0);
  int ex = AR_EXIT_OK;
  struct ar_massume as[AR_MAX_ASSUME];
  struct ar_nccl_graph ng;
  int na = ar_model_assumptions(t, g, p, as);
  ar_nccl_graph(g, t, p, &ng);
  if (!o->json) {
    print_header(t, g, as, na);
    if (o->no_p2p_dropped) {
      printf("# left out:");
      for (int a = 0; a < AR_M_NALGO; a++)
        if (o->no_p2p_dropped & 1 << a) printf(" %s", ar_malgo_name(a));
      printf(": the custom algorithms load and store across P2P, which --calib nccl_no_p2p says NVML does not "
             "support between these GPUs\n");
    }
    print_table(o, g, p, &ng);
    print_crossovers(o, g, p, &ng);
  }
  json_t *assumed = ar_model_assumptions_json(as, na);
  if (o->json || o->jfile) ex = write_predictions(o, g, p, t, &ng, assumed);
  json_decref(assumed);
  ar_mgraph_free(g);
  ar_topo_destroy(t);
  return ex;
}

int ar_cmd_model(int argc, char **argv) {
  struct model_opts o;
  struct ar_mparams p;
  char err[AR_ERRLEN] = "";
  int rc = parse(&o, argc, argv);
  if (rc) return rc > 0 ? AR_EXIT_OK : AR_EXIT_USAGE;
  if (o.mode == AR_MODEL_FIT) {
    if (o.out && ar_outfile_check(o.out, "-o", err, sizeof err)) /* before the fit: exit 2, nothing written */
      return fprintf(stderr, "arbench model: %s\n", err), AR_EXIT_USAGE;
    rc = ar_model_fit(o.nfiles, o.files, o.out, err, sizeof err);
    if (rc) fprintf(stderr, "arbench model: %s\n", err);
    return rc == -AR_EINVAL ? AR_EXIT_USAGE : rc ? AR_EXIT_FAIL : AR_EXIT_OK;
  }
  ar_mparams_default(&p);
  if (o.calib && ar_mparams_load(&p, o.calib, err, sizeof err)) {
    fprintf(stderr, "arbench model: %s\n", err);
    return AR_EXIT_USAGE;
  }
  if (p.nccl_no_p2p > 0 && o.mode == AR_MODEL_PREDICT) { /* no P2P: the custom kernels cannot map their peers */
    o.no_p2p_dropped = o.algo_mask & ~AR_M_NCCL_MASK;
    o.algo_mask &= AR_M_NCCL_MASK;
    if (!o.algo_mask) {
      fprintf(stderr, "arbench model: --algo: the custom algorithms need P2P between the GPUs, which --calib "
              "nccl_no_p2p says NVML does not support (allowed with it: nccl-ring-ll, nccl-ring-simple, "
              "nccl-tree-ll, nccl-tree-simple)\n");
      return AR_EXIT_USAGE;
    }
  }
  return run_model(&o, &p);
}
