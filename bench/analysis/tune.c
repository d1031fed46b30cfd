/* tune.c — `arbench tune FILE...`: the best configuration per size range (margin over the runner-up),
 * and the files a serving stack reads: NCCL tuner-plugin CSV, custom-allreduce thresholds, NCCL env. */
#include "analysis/analysis.h"
#include "analysis/tune_plugin.h"
#include "ar.h"
#include "backend.h"
#include "commands.h"
#include "opts.h"
#include "results.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

struct tune_opts {
  char csv[1024], thresholds[1024], env[1024], plugin[1024];
  struct ar_filter filter;
  struct ar_noise noise;
  int nfiles;
  int standin; /* --standin: keep the CPU stand-in's records */
  char **files;
};

static void print_excluded(FILE *f, const char *pre, const struct ar_grid *g, int n);

static void usage(FILE *f) {
  fprintf(f,
          "usage: arbench tune [options] RESULTS.jsonl...\n"
          "Prints, per (dtype, ranks, placement, op), the best configuration per size range (adjacent\n"
          "sizes with the same winner merged) and its margin over the runner-up (runner-up p50 / best\n"
          "p50 - 1, smallest..largest over the range). A configuration wins a size only when it is faster\n"
          "beyond the noise: its difference from the fastest survives Holm-Bonferroni over every comparison\n"
          "of the table (5%% family-wise, split over the tables of the call; p from the bootstrap over runs\n"
          "and samples and, with 2+ runs a side, a t test on their log p50s, as in compare). Otherwise the size is a tie\n"
          "(counted in 'ties'; the margin may be negative) and keeps the previous size's choice, else\n"
          "the next clear winner's, else the simplest algorithm, so ranges do not flip on noise. The\n"
          "same rule picks the nccl setting per\n"
          "size in the tuner CSV and the custom allreduce per range in the thresholds. When a side has a\n"
          "single run its samples cannot show drift between runs: differences below --drift are ties.\n"
          "  --drift PCT          run-to-run drift allowed for single-run measurements (default 5)\n"
          "  --standin            keep the records of the CPU stand-in of CUDA (a -Dcuda-emu build; left out by\n"
          "                       default: their times are not GPU numbers)\n"
          "Optionally writes:\n"
          "  -o, --output DIR     DIR/nccl_tuner.conf, DIR/tuner.json, DIR/thresholds.json, DIR/nccl_env.sh\n"
          "  --tuner-json FILE    decisions for arbench's tuner plugin (libarbench-tuner.so, docs/tuner.md):\n"
          "                       per nRanks x nNodes the tuner CSV's ranges (algorithm, protocol, channels),\n"
          "                       and the sizes where a custom allreduce beats every nccl setting, by how much\n"
          "  --tuner-csv FILE     NCCL example tuner plugin config (NCCL_TUNER_CONFIG_FILE): lines\n"
          "                       collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,\n"
          "                       numPipeOps,regBuff from the fastest nccl result per size whose\n"
          "                       algorithm and protocol are known (variant algo=/proto=/ctas=, else\n"
          "                       point NCCL_ALGO/NCCL_PROTO, else the nccl_algo/nccl_proto/nccl_channels\n"
          "                       the backend reported); channels -1 when unknown; numPipeOps and regBuff\n"
          "                       -1 (any). Ranges: the first starts at 0, each ends at a measured size,\n"
          "                       the next starts one byte later, the last ends at the largest measured size.\n"
          "  --thresholds FILE    JSON: per group and family (host: shm-* against mpi; gpu: p2p-*/symm\n"
          "                       against nccl and nccl-tests): custom_max_bytes, the size up to which a\n"
          "                       custom allreduce beats the best baseline at every measured size; which\n"
          "                       custom one to use per size range below it; each one's winning ranges\n"
          "  --env FILE           export NCCL_... lines of the single nccl setting with the best geometric\n"
          "                       mean p50 over all sizes (shell; exports of other rank counts commented)\n"
          "The NCCL files use, per rank count, dtype bfloat16 if present (else half, float, int32, other)\n"
          "and out-of-place if present; choose others with --dtype / --placement.\n"
          "  --backend, --dtype, --ranks, --point NAME=V, --placement out|in: filters, as in table\n"
          "  --verify --tuner FILE ...  measure default NCCL against the plugin with FILE (arbench tune --verify -h)\n");
}

/* ---- NCCL settings of a record ---- */

struct nccl_setting {
  char algo[32], proto[16];
  int channels; /* -1: NCCL decides */
  int forced;   /* channels set by the configuration (ctas=, channels=, NCCL_MIN/MAX_CTAS, ..._NCHANNELS) */
};

/* Value of key in a "k=v,k2=v2" variant string. */
static int variant_get(const char *variant, const char *key, char *out, size_t len) {
  size_t kl = strlen(key);
  for (const char *p = variant; p && *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n > kl && !strncmp(p, key, kl) && p[kl] == '=') {
      snprintf(out, len, "%.*s", (int)(n - kl - 1), p + kl + 1);
      return 1;
    }
    p = end ? end + 1 : NULL;
  }
  return 0;
}

static int point_get(json_t *rec, const char *key, char *out, size_t len) {
  json_t *v = json_object_get(json_object_get(rec, "point"), key);
  if (json_is_string(v)) snprintf(out, len, "%s", json_string_value(v));
  else if (json_is_integer(v)) snprintf(out, len, "%lld", (long long)json_integer_value(v));
  else return 0;
  return 1;
}

/* The example plugin's spellings. */
static const char *algo_name(const char *s) {
  static const char *const map[][2] = {{"ring", "ring"}, {"tree", "tree"}, {"collnet", "collnet_direct"},
                                       {"collnetdirect", "collnet_direct"}, {"collnet_direct", "collnet_direct"},
                                       {"collnetchain", "collnet_chain"}, {"collnet_chain", "collnet_chain"},
                                       {"nvls", "nvls"}, {"nvlstree", "nvls_tree"}, {"nvls_tree", "nvls_tree"},
                                       {"pat", "pat"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcasecmp(s, map[i][0])) return map[i][1];
  return NULL;
}

static const char *proto_name(const char *s) {
  if (!strcasecmp(s, "ll")) return "ll";
  if (!strcasecmp(s, "ll128")) return "ll128";
  if (!strcasecmp(s, "simple")) return "simple";
  return NULL;
}

/* The channel count of a record's configuration; *forced = 1 when the configuration set it (then the
 * communicator was built for it), 0 when it is the count NCCL reported choosing. */
static int channels_of(json_t *rec, const char *variant, int *forced) {
  char v[32], w[32];
  *forced = 1;
  if (variant_get(variant, "ctas", v, sizeof v) || variant_get(variant, "channels", v, sizeof v) ||
      variant_get(variant, "nchannels", v, sizeof v))
    return atoi(v) > 0 ? atoi(v) : -1;
  if (point_get(rec, "NCCL_MIN_CTAS", v, sizeof v) && point_get(rec, "NCCL_MAX_CTAS", w, sizeof w) && !strcmp(v, w))
    return atoi(v) > 0 ? atoi(v) : -1;
  if (point_get(rec, "NCCL_MIN_NCHANNELS", v, sizeof v) && point_get(rec, "NCCL_MAX_NCHANNELS", w, sizeof w) &&
      !strcmp(v, w))
    return atoi(v) > 0 ? atoi(v) : -1;
  *forced = 0;
  double c = ar_rec_num(rec, "nccl_channels", -1);
  return c > 0 ? (int)c : -1;
}

/* A configuration that changes the communicator's channel count (any CTA or channel bound). */
static int sets_channels(json_t *rec) {
  static const char *const keys[] = {"NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS"};
  const char *variant = ar_rec_str(rec, "variant", "");
  char v[32];
  if (variant_get(variant, "ctas", v, sizeof v) || variant_get(variant, "channels", v, sizeof v) ||
      variant_get(variant, "nchannels", v, sizeof v))
    return 1;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (point_get(rec, keys[i], v, sizeof v)) return 1;
  return 0;
}

/* The channels a communicator built with NCCL's defaults has in group g, as far as the records show: the
 * largest of its init line's count (nccl.coll_channels) and the counts NCCL ran (a call never runs more than
 * its communicator has), over the nccl configurations that leave the channel bounds alone. 0: unknown. */
static int default_comm_channels(const struct ar_grid *g) {
  int best = 0;
  for (int c = 0; c < g->ncfg; c++)
    for (int s = 0; s < g->nsize; s++) {
      json_t *r = ar_grid_at(g, s, c);
      if (!r || !ar_grid_is_nccl(g, c) || sets_channels(r)) continue;
      int a = (int)ar_rec_num(json_object_get(r, "nccl"), "coll_channels", 0), b = (int)ar_rec_num(r, "nccl_channels", 0);
      if (a > best) best = a;
      if (b > best) best = b;
    }
  return best;
}

/* 0 when the record is an nccl result whose algorithm and protocol are known. */
static int nccl_setting_of(json_t *rec, struct nccl_setting *s) {
  if (strcmp(ar_rec_str(rec, "backend", ""), "nccl")) return -1;
  const char *variant = ar_rec_str(rec, "variant", "");
  char a[64] = "", p[64] = "";
  if (!variant_get(variant, "algo", a, sizeof a) && !point_get(rec, "NCCL_ALGO", a, sizeof a))
    snprintf(a, sizeof a, "%s", ar_rec_str(rec, "nccl_algo", ""));
  if (!variant_get(variant, "proto", p, sizeof p) && !point_get(rec, "NCCL_PROTO", p, sizeof p))
    snprintf(p, sizeof p, "%s", ar_rec_str(rec, "nccl_proto", ""));
  const char *an = algo_name(a), *pn = proto_name(p);
  if (!an || !pn) return -1;
  snprintf(s->algo, sizeof s->algo, "%s", an);
  snprintf(s->proto, sizeof s->proto, "%s", pn);
  s->channels = channels_of(rec, variant, &s->forced);
  return 0;
}

static int same_setting(const struct nccl_setting *a, const struct nccl_setting *b) {
  return !strcmp(a->algo, b->algo) && !strcmp(a->proto, b->proto) && a->channels == b->channels;
}

/* ---- report: best per size range ---- */

static void fmt_margin(double m, char *buf, size_t len) {
  if (isnan(m)) snprintf(buf, len, "-");
  else snprintf(buf, len, "%+.0f%%", m * 100);
}

/* Choices of a grid among the columns in use (NULL: all); 0, or -1 when out of memory. */
struct choices {
  int *choice;
  char *tied;
  struct ar_family fam; /* what the ties were tested with (the legend names it) */
};

static int choose(const struct ar_grid *g, const char *use, const struct ar_noise *nz, struct choices *ch) {
  ch->choice = calloc((size_t)g->nsize + 1, sizeof *ch->choice);
  ch->tied = calloc((size_t)g->nsize * (size_t)g->ncfg + 1, 1);
  if (ch->choice && ch->tied && !ar_grid_choose(g, use, nz, ch->choice, ch->tied, &ch->fam)) return 0;
  free(ch->choice);
  free(ch->tied);
  ch->choice = NULL;
  ch->tied = NULL;
  return -1;
}

static void choices_free(struct choices *ch) {
  free(ch->choice);
  free(ch->tied);
}

/* Fastest eligible column (not unsafe, not a prediction) other than c at size s, -1 when none. */
static int runner_up(const struct ar_grid *g, int s, int c) {
  int r = -1;
  for (int k = 0; k < g->ncfg; k++) {
    double v = k == c || !ar_grid_eligible(g, k) ? NAN : ar_grid_p50(g, s, k);
    if (!isnan(v) && (r < 0 || v < ar_grid_p50(g, s, r))) r = k;
  }
  return r;
}

static void print_range(const struct ar_grid *g, const struct choices *ch, int from, int to, int best) {
  char a[32], b[32], ua[32], ub[32], ma[32], mb[32];
  double mmin = NAN, mmax = NAN;
  int closest = -1, ties = 0;
  for (int s = from; s <= to; s++) {
    int second = runner_up(g, s, best);
    if (ch->choice[s] == best && ar_grid_ties(g, ch->tied, s) > 1) ties++;
    if (second < 0) continue;
    double m = ar_grid_p50(g, s, second) / ar_grid_p50(g, s, best) - 1;
    if (isnan(mmin) || m < mmin) mmin = m, closest = second;
    if (isnan(mmax) || m > mmax) mmax = m;
  }
  ar_size_format(g->size[from], a, sizeof a);
  ar_size_format(g->size[to], b, sizeof b);
  ar_fmt_us(ar_grid_p50(g, from, best), ua, sizeof ua);
  ar_fmt_us(ar_grid_p50(g, to, best), ub, sizeof ub);
  fmt_margin(mmin, ma, sizeof ma);
  fmt_margin(mmax, mb, sizeof mb);
  printf("| %s%s%s | %s | %s%s%s | %s | %s%s%s | %d |\n", a, from == to ? "" : " .. ", from == to ? "" : b,
         g->cfg[best], ua, from == to ? "" : " .. ", from == to ? "" : ub, closest >= 0 ? g->cfg[closest] : "-", ma,
         isnan(mmin) || mmin == mmax ? "" : " .. ", isnan(mmin) || mmin == mmax ? "" : mb, ties);
}

static void print_group(const struct ar_grid *g, const struct ar_noise *nz) {
  struct choices ch;
  printf("## %s, %d rank%s, %s, %s\n\n", g->dtype, g->ranks, g->ranks == 1 ? "" : "s",
         strcmp(g->placement, "in") ? "out-of-place" : "in-place", g->op);
  if (choose(g, NULL, nz, &ch)) {
    printf("(out of memory)\n\n");
    return;
  }
  if (*g->method) printf("Method: %s.\n\n", g->method);
  char fam[400];
  ar_family_text(&ch.fam, fam, sizeof fam);
  if (g->ncfg > 1) printf("%s\n\n", fam);
  printf("| sizes | best | p50 us | runner-up (closest) | margin | ties |\n|---|---|---:|---|---:|---:|\n");
  int start = -1, cur = -1;
  for (int s = 0; s < g->nsize; s++) {
    int b = ch.choice[s];
    if (b < 0) continue;
    if (b != cur) {
      if (cur >= 0) print_range(g, &ch, start, s - 1, cur);
      start = s;
      cur = b;
    }
  }
  if (cur >= 0) print_range(g, &ch, start, g->nsize - 1, cur);
  printf("\n");
  choices_free(&ch);
}

/* ---- which group feeds the NCCL files ---- */

static int dtype_rank(const char *dt) {
  static const char *const pref[] = {"bfloat16", "half", "float", "int32"};
  for (int i = 0; i < 4; i++)
    if (!strcmp(dt, pref[i])) return i;
  return 4;
}

/* Index of the preferred group for rank count ranks, -1 if none. */
static int preferred(const struct ar_grid *g, int n, int ranks) {
  int best = -1;
  for (int k = 0; k < n; k++) {
    if (g[k].ranks != ranks || strcmp(g[k].op, "sum")) continue;
    if (best < 0) {
      best = k;
      continue;
    }
    int dk = dtype_rank(g[k].dtype), db = dtype_rank(g[best].dtype);
    int pk = !strcmp(g[k].placement, "out"), pb = !strcmp(g[best].placement, "out");
    if (dk < db || (dk == db && pk > pb)) best = k;
  }
  return best;
}

/* Distinct rank counts, descending. */
static int rank_counts(const struct ar_grid *g, int n, int *out) {
  int m = 0;
  for (int k = 0; k < n; k++) {
    int seen = 0;
    for (int i = 0; i < m; i++) seen |= out[i] == g[k].ranks;
    if (!seen) out[m++] = g[k].ranks;
  }
  for (int i = 0; i < m; i++)
    for (int j = i + 1; j < m; j++)
      if (out[j] > out[i]) {
        int t = out[i];
        out[i] = out[j];
        out[j] = t;
      }
  return m;
}

/* ---- NCCL tuner CSV ---- */

/* The nccl configuration chosen at size index s (beyond the noise, among nccl results whose setting
 * is known), with its setting. */
static int best_nccl(const struct ar_grid *g, const struct choices *ch, int s, struct nccl_setting *out) {
  int c = ch->choice[s];
  return c >= 0 && ar_grid_at(g, s, c) ? nccl_setting_of(ar_grid_at(g, s, c), out) : -1;
}

/* Columns with a known nccl setting at every size they were measured at. */
static char *nccl_columns(const struct ar_grid *g) {
  char *use = calloc((size_t)g->ncfg + 1, 1);
  struct nccl_setting st;
  for (int c = 0; use && c < g->ncfg; c++) {
    use[c] = 1;
    for (int s = 0; s < g->nsize; s++)
      if (ar_grid_at(g, s, c) && nccl_setting_of(ar_grid_at(g, s, c), &st)) use[c] = 0;
  }
  return use;
}

static void csv_line(FILE *f, const struct ar_grid *g, size_t lo, size_t hi, const struct nccl_setting *st) {
  fprintf(f, "allreduce,%zu,%zu,%s,%s,%d,%d,%d,-1,-1\n", lo, hi, st->algo, st->proto, st->channels,
          g->nodes > 0 ? g->nodes : 1, g->ranks);
}

/* The nccl setting per size range of g (tune's rule among nccl results with a known setting): what
 * the tuner CSV and tuner.json (tune_plugin.c) write. Ranges in *out (malloc'd); count, or -1. */
static int nccl_ranges(const struct ar_grid *g, const struct ar_noise *nz, struct ar_tune_range **out) {
  struct nccl_setting st, prev;
  struct choices ch;
  struct ar_tune_range *r = calloc((size_t)g->nsize + 1, sizeof *r);
  int n = 0;
  char *use = nccl_columns(g);
  *out = NULL;
  if (!r || !use || choose(g, use, nz, &ch)) {
    free(use);
    free(r);
    return -1;
  }
  free(use);
  int comm = default_comm_channels(g);
  for (int s = 0; s < g->nsize; s++) {
    if (best_nccl(g, &ch, s, &st)) continue;
    struct ar_tune_range *cur = n ? &r[n - 1] : NULL;
    if (cur && same_setting(&prev, &st)) {
      cur->hi = g->size[s];
      cur->sizes++;
      continue;
    }
    r[n] = (struct ar_tune_range){.lo = cur ? cur->hi + 1 : 0, .hi = g->size[s], .cfg = ch.choice[s], .sizes = 1,
                                  .comm_channels = comm};
    r[n].channels = ar_tune_plugin_channels(st.channels, st.forced, comm, st.algo, &r[n].wanted);
    prev = st;
    snprintf(r[n].algo, sizeof r[n].algo, "%s", st.algo);
    snprintf(r[n].proto, sizeof r[n].proto, "%s", st.proto);
    n++;
  }
  choices_free(&ch);
  *out = r;
  return n;
}

static int csv_group(FILE *f, const struct ar_grid *g, const struct ar_noise *nz) {
  struct ar_tune_range *r;
  int n = nccl_ranges(g, nz, &r);
  if (n < 0) {
    fprintf(f, "# out of memory\n");
    return 0;
  }
  fprintf(f, "# %s %s allreduce, %d ranks on %d node%s\n", g->dtype,
          strcmp(g->placement, "in") ? "out-of-place" : "in-place", g->ranks, g->nodes, g->nodes == 1 ? "" : "s");
  for (int i = 0; i < n; i++) {
    struct nccl_setting st = {.channels = r[i].channels};
    snprintf(st.algo, sizeof st.algo, "%s", r[i].algo);
    snprintf(st.proto, sizeof st.proto, "%s", r[i].proto);
    csv_line(f, g, r[i].lo, r[i].hi, &st);
  }
  if (!n) fprintf(f, "# no nccl results with a known algorithm and protocol for this group\n");
  free(r);
  return n;
}

static void write_csv(FILE *f, const struct tune_opts *o, const struct ar_grid *g, int n) {
  int ranks[64], m = rank_counts(g, n, ranks);
  fprintf(f, "# NCCL tuner plugin config (ext-tuner/example format), written by arbench tune from");
  for (int i = 0; i < o->nfiles; i++) fprintf(f, " %s", o->files[i]);
  fprintf(f, "\n# collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n");
  fprintf(f, "# use: export NCCL_TUNER_PLUGIN=<example plugin .so> NCCL_TUNER_CONFIG_FILE=<this file>\n");
  print_excluded(f, "# ", g, n);
  for (int i = 0; i < m && i < 64; i++) {
    int k = preferred(g, n, ranks[i]);
    if (k >= 0) csv_group(f, &g[k], &o->noise);
  }
}

/* DIR/tuner.json for libarbench-tuner.so (tune_plugin.c): the same groups and ranges as the CSV. */
static int write_plugin(FILE *f, const struct tune_opts *o, const struct ar_grid *g, int n) {
  int ranks[64], m = rank_counts(g, n, ranks), rc = 0;
  json_t *groups = json_array();
  for (int i = 0; groups && !rc && i < m && i < 64; i++) {
    int k = preferred(g, n, ranks[i]);
    struct ar_tune_range *r;
    int nr = k >= 0 ? nccl_ranges(&g[k], &o->noise, &r) : 0;
    if (nr < 0) rc = -1;
    else if (k >= 0) rc = ar_tune_plugin_group(groups, &g[k], r, nr, &o->noise), free(r);
  }
  if (!groups || rc || ar_tune_plugin_write(f, o->files, o->nfiles, groups)) rc = -1;
  json_decref(groups);
  return rc;
}

/* ---- thresholds JSON ---- */

/* The thresholds group of a backend (its table's family, ar_backend_family) and whether it is a baseline
 * there; NULL when it is in no group (excluded_why says why). */
static const char *family_of(const char *backend, int *baseline) {
  unsigned flags;
  int f = ar_backend_family(backend, &flags);
  *baseline = (flags & AR_BE_BASELINE) != 0;
  if (f == AR_BE_FAM_HOST) return "host";
  if (f == AR_BE_FAM_NCCL || f == AR_BE_FAM_P2P || f == AR_BE_FAM_SYMM) return "gpu";
  return NULL;
}

/* Why a backend's columns are in no thresholds group (thresholds.json "excluded"). */
static const char *excluded_why(const char *backend) {
  unsigned flags;
  int f = ar_backend_family(backend, &flags);
  if (f == AR_BE_FAM_FUSED)
    return "fused does allreduce + residual add + RMSNorm, more work than the allreduce baselines: compare it with "
           "its own unfused= variants (arbench table)";
  return "a backend this build does not know";
}

static json_t *excluded_json(const struct ar_grid *g, int n) {
  json_t *out = json_array();
  for (int k = 0; k < n; k++)
    for (int c = 0; c < g[k].ncfg; c++) {
      int base;
      const char *be = ar_rec_str(g[k].cfgrec[c], "backend", "");
      if (family_of(be, &base)) continue;
      int seen = 0;
      for (size_t i = 0; !seen && i < json_array_size(out); i++)
        seen = !strcmp(json_string_value(json_object_get(json_array_get(out, i), "config")), g[k].cfg[c]);
      if (!seen) json_array_append_new(out, json_pack("{s:s, s:s}", "config", g[k].cfg[c], "why", excluded_why(be)));
    }
  return out;
}

/* p50 of column c at size index s, INFINITY when not measured. */
static double p50_at(const struct ar_grid *g, int s, int c) {
  double v = ar_grid_p50(g, s, c);
  return isnan(v) ? INFINITY : v;
}

static double baseline_at(const struct ar_grid *g, int s, const char *family) {
  double best = INFINITY;
  for (int c = 0; c < g->ncfg; c++) {
    int base;
    double v = ar_grid_eligible(g, c) ? p50_at(g, s, c) : INFINITY;
    const char *fam = family_of(ar_rec_str(g->cfgrec[c], "backend", ""), &base);
    if (base && fam && !strcmp(fam, family) && v < best) best = v;
  }
  return best;
}


/* Sizes where custom configuration c beats the best baseline, as contiguous [lo, hi] ranges. */
static json_t *custom_json(const struct ar_grid *g, int c, const char *family) {
  json_t *ranges = json_array(), *cur = NULL;
  int compared = 0;
  double first = NAN;
  for (int s = 0; s < g->nsize; s++) {
    double base = baseline_at(g, s, family), v = p50_at(g, s, c);
    if (isinf(v) || isinf(base)) continue;
    if (!compared++) first = base / v;
    if (v < base) {
      if (!cur) json_array_append_new(ranges, cur = json_pack("[I, I]", (json_int_t)g->size[s], (json_int_t)g->size[s]));
      json_array_set_new(cur, 1, json_integer((json_int_t)g->size[s]));
    } else cur = NULL;
  }
  if (!compared) {
    json_decref(ranges);
    return NULL;
  }
  return json_pack("{s:s, s:o, s:i, s:f}", "config", g->cfg[c], "win_ranges", ranges, "sizes_compared", compared,
                   "speedup_at_smallest", first);
}

static int is_custom(const struct ar_grid *g, int c, const char *family) {
  int base;
  const char *fam = family_of(ar_rec_str(g->cfgrec[c], "backend", ""), &base);
  return fam && !base && !strcmp(fam, family);
}

/* Columns of the family: customs only (which custom), or customs and baselines (custom or not). */
static char *family_columns(const struct ar_grid *g, const char *family, int with_base) {
  char *use = calloc((size_t)g->ncfg + 1, 1);
  for (int c = 0; use && c < g->ncfg; c++) {
    int base;
    const char *fam = family_of(ar_rec_str(g->cfgrec[c], "backend", ""), &base);
    use[c] = (char)(fam && !strcmp(fam, family) && (!base || with_base));
  }
  return use;
}

static int choose_family(const struct ar_grid *g, const char *family, int with_base, const struct ar_noise *nz,
                         struct choices *ch) {
  char *use = family_columns(g, family, with_base);
  int rc = use ? choose(g, use, nz, ch) : -1;
  free(use);
  return rc;
}

/* Up to custom_max_bytes a custom allreduce is the choice against the baselines at every measured
 * size (faster beyond the noise, or kept at a tie); "use" says which custom one per size range (ranges
 * as in the tuner CSV: from 0, each starting one byte after the last). */
static json_t *use_json(const struct ar_grid *g, const char *family, const struct ar_noise *nz, json_int_t *max) {
  json_t *use = json_array(), *cur = NULL;
  int curc = -1;
  json_int_t lo = 0;
  struct choices which, vs_base;
  *max = 0;
  if (choose_family(g, family, 0, nz, &which)) return use;
  if (choose_family(g, family, 1, nz, &vs_base)) {
    choices_free(&which);
    return use;
  }
  for (int s = 0; s < g->nsize; s++) {
    int bc = which.choice[s], any = vs_base.choice[s];
    if (isinf(baseline_at(g, s, family))) continue;
    if (bc < 0 || any < 0 || !is_custom(g, any, family)) break;
    if (bc != curc) {
      lo = cur ? json_integer_value(json_object_get(cur, "max_bytes")) + 1 : 0;
      cur = json_pack("{s:s, s:I, s:I}", "config", g->cfg[bc], "min_bytes", lo, "max_bytes", (json_int_t)g->size[s]);
      json_array_append_new(use, cur);
      curc = bc;
    }
    json_object_set_new(cur, "max_bytes", json_integer((json_int_t)g->size[s]));
    *max = (json_int_t)g->size[s];
  }
  choices_free(&which);
  choices_free(&vs_base);
  return use;
}

static json_t *family_json(const struct ar_grid *g, const char *family, const struct ar_noise *nz) {
  json_t *custom = json_array(), *base = json_array();
  for (int c = 0; c < g->ncfg; c++) {
    int isbase;
    const char *fam = family_of(ar_rec_str(g->cfgrec[c], "backend", ""), &isbase);
    if (!fam || strcmp(fam, family) || !ar_grid_eligible(g, c)) continue;
    json_t *j = isbase ? json_string(g->cfg[c]) : custom_json(g, c, family);
    if (j) json_array_append_new(isbase ? base : custom, j);
  }
  if (!json_array_size(custom) || !json_array_size(base)) {
    json_decref(custom);
    json_decref(base);
    return NULL;
  }
  json_int_t max;
  json_t *use = use_json(g, family, nz, &max);
  char sz[32];
  ar_size_format((size_t)max, sz, sizeof sz);
  return json_pack("{s:s, s:i, s:s, s:s, s:s, s:o, s:I, s:s, s:o, s:o}", "dtype", g->dtype, "ranks", g->ranks,
                   "placement", g->placement, "op", g->op, "family", family, "baseline", base, "custom_max_bytes", max,
                   "custom_max_size", sz, "use", use, "custom", custom);
}

static json_t *thresholds_json(const struct tune_opts *o, const struct ar_grid *g, int n) {
  json_t *groups = json_array(), *files = json_array();
  for (int i = 0; i < o->nfiles; i++) json_array_append_new(files, json_string(o->files[i]));
  for (int k = 0; k < n; k++) {
    static const char *const fams[] = {"host", "gpu"};
    for (int f = 0; f < 2; f++) {
      json_t *j = family_json(&g[k], fams[f], &o->noise);
      if (j) json_array_append_new(groups, j);
    }
  }
  return json_pack("{s:s, s:o, s:s, s:o, s:o}", "generated_by", "arbench tune", "files", files, "rule",
                   "custom_max_bytes: the largest measured size up to which, at every measured size, a custom "
                   "allreduce is the choice against the baselines (host: mpi; gpu: nccl, nccl-tests): faster beyond "
                   "the noise (its difference survives Holm-Bonferroni over the table's comparisons at 5% family-wise, "
                   "split over the tables; single runs: by more than --drift), "
                   "or kept at a tie from the previous size (a tie at the smallest size goes to the baseline); 0: none. "
                   "use: the custom allreduce per size range below it, chosen by the same rule among the custom ones. "
                   "custom[].win_ranges: [first, last] measured sizes where that one beats the baseline. "
                   "excluded: the configurations in no group, and why.",
                   "groups", groups, "excluded", excluded_json(g, n));
}

/* ---- env ---- */

/* Geometric mean p50 of column c over the sizes in mask; NAN when c lacks one. */
static double geomean(const struct ar_grid *g, int c, const char *mask) {
  double s = 0;
  int n = 0;
  for (int i = 0; i < g->nsize; i++) {
    if (!mask[i]) continue;
    double v = ar_grid_p50(g, i, c); /* the cell's p50 over all its runs, as table prints it */
    if (!(v > 0)) return NAN;
    s += log(v);
    n++;
  }
  return n ? exp(s / n) : NAN;
}

/* An nccl configuration that may be chosen (not unsafe). */
static int nccl_column(const struct ar_grid *g, int c) {
  return ar_grid_eligible(g, c) && ar_grid_is_nccl(g, c);
}

/* Sizes every nccl column covers when some column covers all nccl sizes; else their intersection. */
static int env_sizes(const struct ar_grid *g, char *mask) {
  int full = 0, any = 0;
  for (int i = 0; i < g->nsize; i++) {
    mask[i] = 0;
    for (int c = 0; c < g->ncfg; c++) mask[i] |= nccl_column(g, c) && ar_grid_at(g, i, c);
  }
  for (int c = 0; c < g->ncfg; c++) full |= nccl_column(g, c) && !isnan(geomean(g, c, mask));
  for (int i = 0; !full && i < g->nsize; i++)
    for (int c = 0; c < g->ncfg; c++)
      if (nccl_column(g, c) && !ar_grid_at(g, i, c)) mask[i] = 0;
  for (int i = 0; i < g->nsize; i++) any += mask[i];
  return any;
}

static void env_exports(FILE *f, json_t *rec, const char *pre) {
  const char *variant = ar_rec_str(rec, "variant", "");
  char v[64];
  int n = 0;
  if (variant_get(variant, "algo", v, sizeof v)) fprintf(f, "%sexport NCCL_ALGO=%s\n", pre, v), n++;
  if (variant_get(variant, "proto", v, sizeof v)) fprintf(f, "%sexport NCCL_PROTO=%s\n", pre, v), n++;
  if (variant_get(variant, "ctas", v, sizeof v))
    fprintf(f, "%sexport NCCL_MIN_CTAS=%s\n%sexport NCCL_MAX_CTAS=%s\n", pre, v, pre, v), n++;
  if (variant_get(variant, "channels", v, sizeof v) || variant_get(variant, "nchannels", v, sizeof v))
    fprintf(f, "%sexport NCCL_MIN_NCHANNELS=%s\n%sexport NCCL_MAX_NCHANNELS=%s\n", pre, v, pre, v), n++;
  const char *key;
  json_t *val;
  json_object_foreach(json_object_get(rec, "point"), key, val) {
    char s[128];
    if (!point_get(rec, key, s, sizeof s)) continue;
    if (!strncmp(key, "NCCL_", 5)) fprintf(f, "%sexport %s=%s\n", pre, key, s), n++;
    else fprintf(f, "# (sweep axis %s=%s is not an NCCL variable: set it yourself)\n", key, s);
  }
  if (!n) fprintf(f, "# NCCL's defaults are the best setting measured: nothing to export\n");
}

/* The tuner files' ranges measured with more channels than a plugin can get (ar_tune_plugin_channels): the
 * communicator must be built with them, which only NCCL_MIN_CTAS does (for every size). */
static void env_plugin_channels(FILE *f, const struct ar_grid *g, const struct ar_noise *nz) {
  struct ar_tune_range *r;
  int n = nccl_ranges(g, nz, &r), most = 0;
  for (int i = 0; i < n; i++) {
    if (r[i].wanted <= 0) continue;
    char comm[48] = "unknown: no default nccl record says";
    if (r[i].comm_channels > 0) snprintf(comm, sizeof comm, "%d", r[i].comm_channels);
    fprintf(f, "# tuner plugin: allreduce %zu..%zu B was measured with %d channels (%s); NCCL caps a plugin's "
            "channel count at the communicator's (%s), so tuner.json leaves it to NCCL\n", r[i].lo, r[i].hi,
            r[i].wanted, g->cfg[r[i].cfg], comm);
    if (r[i].wanted > most) most = r[i].wanted;
  }
  if (most) /* commented even for the live group: it changes every size's communicator, not one range's */
    fprintf(f, "# to run it with the plugin as measured (every size's communicator then has %d channels):\n"
            "# export NCCL_MIN_CTAS=%d\n", most, most);
  if (n > 0) free(r);
}

static void env_group(FILE *f, const struct ar_grid *g, const struct ar_noise *nz, int live) {
  char *mask = calloc((size_t)g->nsize + 1, 1);
  int nsz = mask ? env_sizes(g, mask) : 0, best = -1, dflt = -1;
  double gb = NAN;
  for (int c = 0; nsz && c < g->ncfg; c++) {
    double v = nccl_column(g, c) ? geomean(g, c, mask) : NAN;
    if (!isnan(v) && (best < 0 || v < gb)) best = c, gb = v;
    if (!isnan(v) && !*ar_rec_str(g->cfgrec[c], "variant", "") && !json_object_size(json_object_get(g->cfgrec[c], "point")))
      dflt = c;
  }
  fprintf(f, "\n# %d ranks, %s %s allreduce%s\n", g->ranks, g->dtype,
          strcmp(g->placement, "in") ? "out-of-place" : "in-place", live ? "" : " (commented out: another rank count)");
  if (best < 0) {
    fprintf(f, "# no nccl results for this group\n");
    free(mask);
    return;
  }
  char us[32];
  ar_fmt_us(gb, us, sizeof us);
  fprintf(f, "# best single setting: %s, geometric-mean p50 %s us over %d sizes\n", g->cfg[best], us, nsz);
  if (dflt >= 0 && dflt != best) {
    ar_fmt_us(geomean(g, dflt, mask), us, sizeof us);
    fprintf(f, "# NCCL defaults (%s): %s us, %.2fx the best\n", g->cfg[dflt], us, geomean(g, dflt, mask) / gb);
  }
  env_exports(f, g->cfgrec[best], live ? "" : "# ");
  env_plugin_channels(f, g, nz);
  free(mask);
}

static void write_env(FILE *f, const struct tune_opts *o, const struct ar_grid *g, int n) {
  int ranks[64], m = rank_counts(g, n, ranks);
  fprintf(f, "# NCCL environment written by arbench tune from");
  for (int i = 0; i < o->nfiles; i++) fprintf(f, " %s", o->files[i]);
  fprintf(f, "\n# source this file in the shell that starts the serving or training job\n");
  print_excluded(f, "# ", g, n);
  for (int i = 0; i < m && i < 64; i++) {
    int k = preferred(g, n, ranks[i]);
    if (k >= 0) env_group(f, &g[k], &o->noise, i == 0);
  }
}

/* ---- exclusions ---- */

/* Each unsafe configuration once over all groups, as "# "-prefixed (pre) lines: why it is never chosen. */
static void print_excluded(FILE *f, const char *pre, const struct ar_grid *g, int n) {
  json_t *seen = json_object();
  for (int k = 0; k < n; k++)
    for (int c = 0; c < g[k].ncfg; c++) {
      if (!g[k].unsafe[c] || json_object_get(seen, g[k].cfg[c])) continue;
      json_object_set_new(seen, g[k].cfg[c], json_true());
      fprintf(f, "%sExcluded: %s %s; it is never chosen.\n", pre, g[k].cfg[c], g[k].unsafe[c]);
    }
  json_decref(seen);
}

/* ---- command ---- */

static int open_out(const char *path, FILE **f) {
  *f = fopen(path, "w");
  if (!*f) fprintf(stderr, "arbench tune: cannot write '%s': %s\n", path, strerror(errno));
  return *f ? 0 : -AR_EINVAL;
}

static int write_outputs(const struct tune_opts *o, const struct ar_grid *g, int n) {
  FILE *f;
  if (*o->csv) {
    if (open_out(o->csv, &f)) return -AR_EINVAL;
    write_csv(f, o, g, n);
    fclose(f);
    fprintf(stderr, "arbench tune: wrote NCCL tuner config %s\n", o->csv);
  }
  if (*o->thresholds) {
    if (open_out(o->thresholds, &f)) return -AR_EINVAL;
    json_t *j = thresholds_json(o, g, n);
    json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    fputc('\n', f);
    json_decref(j);
    fclose(f);
    fprintf(stderr, "arbench tune: wrote custom-allreduce thresholds %s\n", o->thresholds);
  }
  if (*o->plugin) { /* a running job's plugin may read it at any time: whole file or the old one (rename) */
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", o->plugin);
    if (open_out(tmp, &f)) return -AR_EINVAL;
    int bad = write_plugin(f, o, g, n);
    if (fclose(f) || bad || rename(tmp, o->plugin)) {
      remove(tmp);
      return fprintf(stderr, "arbench tune: cannot write '%s'\n", o->plugin), -AR_EINVAL;
    }
    fprintf(stderr, "arbench tune: wrote tuner-plugin decisions %s\n", o->plugin);
  }
  if (*o->env) {
    if (open_out(o->env, &f)) return -AR_EINVAL;
    write_env(f, o, g, n);
    fclose(f);
    fprintf(stderr, "arbench tune: wrote NCCL environment %s\n", o->env);
  }
  return 0;
}

static int set_dir(struct tune_opts *o, const char *dir) {
  struct stat st;
  if (stat(dir, &st) && mkdir(dir, 0777)) {
    fprintf(stderr, "arbench tune: cannot create output directory '%s': %s\n", dir, strerror(errno));
    return -AR_EINVAL;
  }
  snprintf(o->csv, sizeof o->csv, "%s/nccl_tuner.conf", dir);
  snprintf(o->thresholds, sizeof o->thresholds, "%s/thresholds.json", dir);
  snprintf(o->env, sizeof o->env, "%s/nccl_env.sh", dir);
  snprintf(o->plugin, sizeof o->plugin, "%s/tuner.json", dir);
  return 0;
}

static int parse(int argc, char **argv, struct tune_opts *o) {
  static const struct option lo[] = {
    {"output", required_argument, 0, 'o'},     {"tuner-csv", required_argument, 0, 'C'},
    {"thresholds", required_argument, 0, 'T'}, {"env", required_argument, 0, 'E'},
    {"drift", required_argument, 0, 'D'},   {"tuner-json", required_argument, 0, 'J'},
    {"standin", no_argument, 0, 'S'},
    AR_FILTER_OPTIONS,
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};
  char *dir = NULL, *csv = NULL, *thr = NULL, *env = NULL, *tj = NULL;
  int c, f;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":ho:d:", lo, NULL)) != -1) {
    if (c == 'h') return usage(stdout), 1;
    if (c == 'o') dir = optarg;
    else if (c == 'C') csv = optarg;
    else if (c == 'T') thr = optarg;
    else if (c == 'E') env = optarg;
    else if (c == 'J') tj = optarg;
    else if (c == 'S') o->standin = 1;
    else if (c == 'D') {
      char err[AR_ERRLEN];
      if (ar_noise_drift_parse(&o->noise, optarg, err, sizeof err)) {
        fprintf(stderr, "arbench tune: %s\n", err);
        return -AR_EINVAL;
      }
    }
    else if ((f = ar_filter_opt(&o->filter, "tune", c, optarg)) < 0) {
      return -AR_EINVAL;
    } else if (!f) return ar_ana_badopt("tune", c, argv[optind - 1]), -AR_EINVAL;
  }
  if (optind >= argc) {
    fprintf(stderr, "arbench tune: no results files given (usage: arbench tune [options] FILE...)\n");
    return -AR_EINVAL;
  }
  if (dir && set_dir(o, dir)) return -AR_EINVAL;
  if (csv) snprintf(o->csv, sizeof o->csv, "%s", csv);
  if (thr) snprintf(o->thresholds, sizeof o->thresholds, "%s", thr);
  if (env) snprintf(o->env, sizeof o->env, "%s", env);
  if (tj) snprintf(o->plugin, sizeof o->plugin, "%s", tj);
  o->nfiles = argc - optind;
  o->files = argv + optind;
  return 0;
}

int ar_cmd_tune(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--verify")) return ar_tune_verify(argc, argv); /* tune_verify.c */
  struct tune_opts o;
  memset(&o, 0, sizeof o);
  ar_noise_defaults(&o.noise);
  int rc = parse(argc, argv, &o);
  if (rc) return rc > 0 ? AR_EXIT_OK : AR_EXIT_USAGE;
  struct ar_ana a;
  char err[AR_ERRLEN];
  if (ar_ana_load(&a, o.nfiles, o.files, err, sizeof err) || ar_filter_check(&o.filter, a.results, err, sizeof err)) {
    fprintf(stderr, "arbench tune: %s\n", err);
    ar_ana_free(&a);
    return AR_EXIT_USAGE;
  }
  ar_filter_apply(&o.filter, a.results);
  int standin = o.standin ? 0 : ar_results_drop_standin(a.results, a.runs);
  if (standin)
    fprintf(stderr, "arbench tune: left out %d result%s of the CPU stand-in of CUDA (stack cuda-standin): its times "
            "are not GPU numbers (--standin keeps them)\n", standin, standin == 1 ? "" : "s");
  struct ar_grid *g = NULL;
  int n = 0, status = AR_EXIT_OK;
  if (ar_ana_nothing(&a, "tune", o.nfiles, o.files)) {
    status = AR_EXIT_NOTHING;
  } else if (ar_grids_build(a.results, a.runs, &g, &n)) {
    fprintf(stderr, "arbench tune: out of memory\n");
    status = AR_EXIT_FAIL;
  } else {
    o.noise.grids = n; /* the family-wise error is split over the tables of this call */
    if (write_outputs(&o, g, n)) status = AR_EXIT_USAGE; /* first: a bad path fails before any output */
    if (!status) print_excluded(stdout, "", g, n);
    for (int k = 0; !status && k < n; k++) print_group(&g[k], &o.noise);
  }
  ar_grids_free(g, n);
  ar_ana_free(&a);
  return status;
}
