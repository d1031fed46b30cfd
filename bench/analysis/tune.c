/* tune.c — `arbench tune FILE...`: the best configuration per size range (margin over the runner-up),
 * and the files a serving stack reads: NCCL tuner-plugin CSV, custom-allreduce thresholds, NCCL env. */
#include "analysis/analysis.h"
#include "analysis/serving.h"
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
  struct ar_serving_opts serving; /* -o DIR: serving.json, vllm.sh, sglang.sh (serving.c) */
  int nfiles;
  int standin; /* --standin: keep the CPU stand-in's records */
  int explain; /* --explain: the statistics paragraph in place of the line saying where it is */
  char **files;
};

static void print_excluded(FILE *f, const char *pre, const struct ar_grid *g, int n);

static void usage(FILE *f) {
  fprintf(f,
          "usage: arbench tune [options] RESULTS.jsonl...\n"
          "Prints, per (dtype, ranks, placement, op), the pick per size range (adjacent sizes with the same\n"
          "pick merged), by arbench table's rule: the fastest p50 unless another configuration is shown\n"
          "equivalent within --margin (two one-sided tests), then the previous size's pick, else the next\n"
          "clear size's, else the simplest algorithm among the equivalent ones. Each range says its sizes'\n"
          "verdicts (clear, equivalent, undecided: the data cannot tell the pick from another configuration,\n"
          "with the runs per side that would decide), the configurations shown equivalent, the fastest one\n"
          "outside them and the pick's lead over it (its p50 / the pick's - 1, smallest..largest). The same\n"
          "rule picks the nccl setting per size in the tuner CSV and tuner.json and the custom allreduce per\n"
          "range in the thresholds, and every file says the verdicts of its ranges.\n"
          "  --margin PCT         the practical margin of equivalence (default 5)\n"
          "  --drift PCT          run-to-run drift allowed when a side has a single run (default 5)\n"
          "  --explain            print the statistics paragraph (how picks, verdicts and bounds are decided)\n"
          "  --standin            keep the records of the CPU stand-in of CUDA (a -Dcuda-emu build; left out by\n"
          "                       default: their times are not GPU numbers)\n"
          "Optionally writes:\n"
          "  -o, --output DIR     DIR/nccl_tuner.conf, DIR/tuner.json, DIR/thresholds.json, DIR/nccl_env.sh, and\n"
          "                       the serving engines' settings DIR/serving.json, DIR/vllm.sh, DIR/sglang.sh: per\n"
          "                       (ranks, dtype) measured on GPUs, custom allreduce on or off, its crossover,\n"
          "                       flags, env, what needs a patch (docs/serving.md)\n"
          "  --engines LIST       engines of serving.json and their .sh files: vllm, sglang (default both)\n"
          "  --hidden H           the model's hidden size: crossovers also in tokens (bytes / (H x element size))\n"
          "  --tuner-json FILE    decisions for arbench's tuner plugin (libarbench-tuner.so, docs/tuner.md):\n"
          "                       per nRanks x nNodes the tuner CSV's ranges (algorithm, protocol, channels),\n"
          "                       and the sizes where a custom allreduce is the pick against every nccl setting\n"
          "  --tuner-csv FILE     NCCL example tuner plugin config (NCCL_TUNER_CONFIG_FILE): lines\n"
          "                       collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,\n"
          "                       numPipeOps,regBuff from the picked nccl result per size whose\n"
          "                       algorithm and protocol are known (variant algo=/proto=/ctas=, else\n"
          "                       point NCCL_ALGO/NCCL_PROTO, else the nccl_algo/nccl_proto/nccl_channels\n"
          "                       the backend reported); channels -1 when unknown; numPipeOps and regBuff\n"
          "                       -1 (any). Ranges: the first starts at 0, each ends at a measured size,\n"
          "                       the next starts one byte later, the last ends at the largest measured size;\n"
          "                       a comment above each line says its verdicts.\n"
          "  --thresholds FILE    JSON: per group and family (host: shm-* against mpi; gpu: p2p-*/symm\n"
          "                       against nccl and nccl-tests), from one decision: custom_max_bytes, the\n"
          "                       size up to which the pick is a custom allreduce at every measured size;\n"
          "                       which one per size range below it, with verdicts; where each is the pick\n"
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

/* ---- report: the pick per size range ---- */

static void fmt_lead(double m, char *buf, size_t len) {
  if (isnan(m)) snprintf(buf, len, "-");
  else snprintf(buf, len, "%+.0f%%", m * 100);
}

/* A range's verdicts: one name when all sizes share it, else the counts; the runs that would decide. */
static void fmt_verdict(const struct ar_range *r, char *buf, size_t len) {
  static const char *const names[] = {"clear", "equivalent", "undecided"};
  const int k[3] = {r->clear, r->equivalent, r->undecided};
  int n = 0;
  buf[0] = 0;
  if ((k[0] > 0) + (k[1] > 0) + (k[2] > 0) == 1) n = snprintf(buf, len, "%s", ar_range_verdict(r));
  else
    for (int i = 0; i < 3 && n >= 0 && (size_t)n < len; i++)
      if (k[i]) n += snprintf(buf + n, len - (size_t)n, "%s%d %s", n ? ", " : "", k[i], names[i]);
  if (!r->undecided || n < 0 || (size_t)n >= len) return;
  if (r->launches == 2) snprintf(buf + n, len - (size_t)n, " (one launch a side: record 3+ launches of each)");
  else if (r->launches && r->runs_needed > AR_REPEAT_CAP)
    snprintf(buf + n, len - (size_t)n, " (over %d launches a side to decide: the bound stands)", AR_REPEAT_CAP);
  else if (r->launches && r->runs_needed > 0) snprintf(buf + n, len - (size_t)n, " (%d launches a side)", r->runs_needed);
  else if (r->runs_needed < 0) snprintf(buf + n, len - (size_t)n, " (measure 2+ runs)");
  else if (r->runs_needed > AR_REPEAT_CAP) snprintf(buf + n, len - (size_t)n, " (over %d runs to decide: the bound stands)", AR_REPEAT_CAP);
  else snprintf(buf + n, len - (size_t)n, " (repeat %d)", r->runs_needed);
}

/* The fastest column at s outside the pick's equivalent set, -1 when none. */
static int next_outside(const struct ar_grid *g, const struct ar_decisions *d, int s) {
  int r = -1;
  for (int c = 0; c < g->ncfg; c++) {
    int rel = ar_decision_rel(d, s, c);
    if (rel == AR_REL_OUT || rel == AR_REL_FASTEST || rel == AR_REL_EQUIV || c == d->at[s].pick) continue;
    if (r < 0 || ar_grid_p50(g, s, c) < ar_grid_p50(g, s, r)) r = c;
  }
  return r;
}

static void print_range(const struct ar_grid *g, const struct ar_decisions *d, const struct ar_range *r) {
  char a[32], b[32], ua[32], ub[32], ma[32], mb[32], v[96], eq[600] = "";
  double mmin = NAN, mmax = NAN;
  int closest = -1, best = r->pick, from = r->from, to = r->to, n = 0;
  for (int s = from; s <= to; s++) {
    for (int c = 0; c < g->ncfg; c++) { /* the others shown equivalent to the pick's size's fastest */
      int rel = ar_decision_rel(d, s, c);
      if (c == best || d->at[s].pick != best || (rel != AR_REL_EQUIV && rel != AR_REL_FASTEST)) continue;
      if (strstr(eq, g->cfg[c]) && (n = (int)strlen(eq))) continue;
      n = (int)strlen(eq);
      snprintf(eq + n, sizeof eq - (size_t)n, "%s%s", n ? ", " : "", g->cfg[c]);
    }
    int second = d->at[s].pick == best ? next_outside(g, d, s) : -1;
    if (second < 0) continue;
    double m = ar_grid_p50(g, s, second) / ar_grid_p50(g, s, best) - 1;
    if (isnan(mmin) || m < mmin) mmin = m, closest = second;
    if (isnan(mmax) || m > mmax) mmax = m;
  }
  ar_size_format(g->size[from], a, sizeof a);
  ar_size_format(g->size[to], b, sizeof b);
  ar_fmt_us(ar_grid_p50(g, from, best), ua, sizeof ua);
  ar_fmt_us(ar_grid_p50(g, to, best), ub, sizeof ub);
  fmt_lead(mmin, ma, sizeof ma);
  fmt_lead(mmax, mb, sizeof mb);
  fmt_verdict(r, v, sizeof v);
  int w = -1, unknown = 0; /* the worst bound over the range's sizes; unknown at one of them: none */
  for (int s = from; s <= to; s++)
    if (isnan(d->at[s].bound)) unknown = 1;
    else if (w < 0 || d->at[s].bound > d->at[w].bound) w = s;
  char bound[400] = "-";
  if (w >= 0 && !unknown) ar_bound_text(g, d, w, bound, sizeof bound);
  printf("| %s%s%s | %s | %s | %s%s%s | %s | %s | %s%s%s | %s |\n", a, from == to ? "" : " .. ", from == to ? "" : b,
         g->cfg[best], v, ua, from == to ? "" : " .. ", from == to ? "" : ub, *eq ? eq : "-",
         closest >= 0 ? g->cfg[closest] : "-", ma, isnan(mmin) || mmin == mmax ? "" : " .. ",
         isnan(mmin) || mmin == mmax ? "" : mb, bound);
}

/* The sizes of g where a measured configuration is not eligible for wrong results (one line per configuration),
 * and those with no valid configuration left: left out of every file. Returns how many sizes have none. */
static int print_wrong(const struct ar_grid *g, const struct ar_decisions *d) {
  char sz[32], list[800];
  int none = 0, k = 0;
  for (int c = 0; c < g->ncfg; c++) {
    list[k = 0] = 0;
    for (int s = 0; s < g->nsize && k < (int)sizeof list - 40; s++)
      if (ar_grid_runs(g, s, c) && g->wrong[(size_t)s * g->ncfg + c] && !g->predicted[c]) {
        ar_size_format(g->size[s], sz, sizeof sz);
        k += snprintf(list + k, sizeof list - (size_t)k, "%s%s", k ? ", " : "", sz);
      }
    if (k) printf("Wrong results: %s at %s (the correctness check reported wrong elements): never chosen there.\n",
                  g->cfg[c], list);
  }
  list[k = 0] = 0;
  for (int s = 0; s < g->nsize; s++) {
    if (d->at[s].verdict != AR_V_INVALID) continue;
    none++;
    ar_size_format(g->size[s], sz, sizeof sz);
    if (k < (int)sizeof list - 40) k += snprintf(list + k, sizeof list - (size_t)k, "%s%s", k ? ", " : "", sz);
  }
  if (none)
    printf("No valid configuration at %s: every configuration measured there computed wrong results or is unsafe; "
           "left out of every file written (tune exits 1).\n", list);
  if (none || k) printf("\n");
  return none;
}

static int print_group(const struct ar_grid *g, const struct ar_noise *nz) {
  struct ar_decisions d;
  struct ar_range *r = NULL;
  int n, none;
  printf("## %s, %d rank%s, %s, %s\n\n", g->dtype, g->ranks, g->ranks == 1 ? "" : "s",
         strcmp(g->placement, "in") ? "out-of-place" : "in-place", g->op);
  if (ar_grid_decide(g, NULL, nz, &d) || (n = ar_decision_ranges(g, &d, &r)) < 0) {
    free(r);
    printf("(out of memory)\n\n");
    return 0;
  }
  if (*g->method) printf("Method: %s.\n\n", g->method);
  char fam[400];
  ar_family_text(&d, fam, sizeof fam);
  if (g->ncfg > 1) printf("%s\n\n", fam);
  printf("| sizes | pick | verdict | p50 us | equivalent | next (not equivalent) | lead | bound (95%%, worst size) |\n"
         "|---|---|---|---:|---|---|---:|---|\n");
  for (int i = 0; i < n; i++) print_range(g, &d, &r[i]);
  printf("\n");
  none = print_wrong(g, &d);
  free(r);
  ar_decisions_free(&d);
  return none;
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

/* The nccl configuration picked at size index s (among nccl results whose setting is known), with its
 * setting. */
static int best_nccl(const struct ar_grid *g, const struct ar_decisions *d, int s, struct nccl_setting *out) {
  int c = d->at[s].pick;
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

static void csv_line(FILE *f, const struct ar_grid *g, const struct ar_tune_range *r) {
  char v[96];
  struct ar_range vr = {.clear = r->clear, .equivalent = r->equivalent, .undecided = r->undecided,
                        .runs_needed = r->runs_needed, .launches = r->launches};
  fmt_verdict(&vr, v, sizeof v);
  fprintf(f, "# %zu..%zu: %s: %s\n", r->lo, r->hi, g->cfg[r->cfg], v);
  fprintf(f, "allreduce,%zu,%zu,%s,%s,%d,%d,%d,-1,-1\n", r->lo, r->hi, r->algo, r->proto, r->channels,
          g->nodes > 0 ? g->nodes : 1, g->ranks);
}

/* Count size s's verdict into range r. */
static void range_count(struct ar_tune_range *r, const struct ar_decision *a) {
  r->clear += a->verdict == AR_V_CLEAR;
  r->equivalent += a->verdict == AR_V_EQUIVALENT;
  if (a->verdict != AR_V_UNDECIDED) return;
  if (a->launches > r->launches) r->launches = a->launches;
  if (!r->undecided++ || r->runs_needed >= 0)
    r->runs_needed = a->runs_needed < 0 ? -1 : a->runs_needed > r->runs_needed ? a->runs_needed : r->runs_needed;
}

/* The nccl setting per size range of g (the decision among nccl results with a known setting): what
 * the tuner CSV and tuner.json (tune_plugin.c) write. Adjacent sizes merge when the pick is the same
 * column with the same setting. Ranges in *out (malloc'd); count, or -1. */
static int nccl_ranges(const struct ar_grid *g, const struct ar_noise *nz, struct ar_tune_range **out) {
  struct nccl_setting st, prev;
  struct ar_decisions d;
  struct ar_tune_range *r = calloc((size_t)g->nsize + 1, sizeof *r);
  int n = 0;
  char *use = nccl_columns(g);
  *out = NULL;
  if (!r || !use || ar_grid_decide(g, use, nz, &d)) {
    free(use);
    free(r);
    return -1;
  }
  free(use);
  int comm = default_comm_channels(g);
  size_t next_lo = 0; /* one byte after the last size covered or left out */
  for (int s = 0; s < g->nsize; s++) {
    if (d.at[s].verdict == AR_V_INVALID) { /* no valid configuration: left out; no range spans it */
      next_lo = g->size[s] + 1;
      continue;
    }
    if (best_nccl(g, &d, s, &st)) continue;
    struct ar_tune_range *cur = n ? &r[n - 1] : NULL;
    if (cur && cur->hi + 1 < next_lo) cur = NULL;
    if (cur && cur->cfg == d.at[s].pick && same_setting(&prev, &st)) {
      cur->hi = g->size[s];
      cur->sizes++;
      range_count(cur, &d.at[s]);
      continue;
    }
    size_t lo = n && r[n - 1].hi + 1 > next_lo ? r[n - 1].hi + 1 : next_lo;
    r[n] = (struct ar_tune_range){.lo = lo, .hi = g->size[s], .cfg = d.at[s].pick, .sizes = 1, .comm_channels = comm};
    r[n].channels = ar_tune_plugin_channels(st.channels, st.forced, comm, st.algo, &r[n].wanted);
    range_count(&r[n], &d.at[s]);
    prev = st;
    snprintf(r[n].algo, sizeof r[n].algo, "%s", st.algo);
    snprintf(r[n].proto, sizeof r[n].proto, "%s", st.proto);
    n++;
  }
  ar_decisions_free(&d);
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
  for (int i = 0; i < n; i++) csv_line(f, g, &r[i]);
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

/* The distinct "as" values of g's columns ("" for columns measured without run --as), "" first. */
json_t *ar_tune_as_values(const struct ar_grid *g) {
  json_t *out = json_array();
  for (int c = 0; c < g->ncfg; c++) {
    const char *e = ar_rec_str(g->cfgrec[c], "as", "");
    int seen = 0;
    for (size_t i = 0; i < json_array_size(out); i++) seen |= !strcmp(json_string_value(json_array_get(out, i)), e);
    if (!seen) *e ? json_array_append_new(out, json_string(e)) : json_array_insert_new(out, 0, json_string(e));
  }
  return out;
}

/* Mask of g's columns measured with run --as engine ("": without). */
char *ar_tune_as_columns(const struct ar_grid *g, const char *engine) {
  char *mask = calloc((size_t)g->ncfg + 1, 1);
  for (int c = 0; mask && c < g->ncfg; c++) mask[c] = (char)!strcmp(ar_rec_str(g->cfgrec[c], "as", ""), engine);
  return mask;
}

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

/* The fastest baseline among the columns in cols (the group's: family_columns) at size index s. */
static double baseline_at(const struct ar_grid *g, int s, const char *cols) {
  double best = INFINITY;
  for (int c = 0; c < g->ncfg; c++) {
    int base;
    double v = cols[c] && ar_grid_cell_eligible(g, s, c) ? p50_at(g, s, c) : INFINITY;
    family_of(ar_rec_str(g->cfgrec[c], "backend", ""), &base);
    if (base && v < best) best = v;
  }
  return best;
}


/* Is some baseline among cols (not unsafe, no prediction) measured at s, its results right or wrong? A size without one is no comparison. */
static int baseline_measured(const struct ar_grid *g, int s, const char *cols) {
  for (int c = 0; c < g->ncfg; c++) {
    int base;
    family_of(ar_rec_str(g->cfgrec[c], "backend", ""), &base);
    if (cols[c] && base && ar_grid_runs(g, s, c) && ar_grid_eligible(g, c)) return 1; /* wrong there counts */
  }
  return 0;
}

/* The sizes where custom configuration c is the family's pick, as contiguous [lo, hi] ranges of measured
 * sizes (sizes without a baseline measured are skipped); NULL when c was never compared with a baseline. */
static json_t *custom_json(const struct ar_grid *g, const struct ar_decisions *d, int c, const char *cols) {
  json_t *ranges = json_array(), *cur = NULL;
  int compared = 0;
  double first = NAN;
  for (int s = 0; s < g->nsize; s++) {
    double base = baseline_at(g, s, cols), v = p50_at(g, s, c);
    if (isinf(v) || !baseline_measured(g, s, cols)) continue;
    if (!ar_grid_cell_eligible(g, s, c)) { /* wrong results here: no range spans it */
      cur = NULL;
      continue;
    }
    if (!compared++ && !isinf(base)) first = base / v; /* every baseline wrong here: no speedup to state */
    if (d->at[s].pick == c) {
      if (!cur) json_array_append_new(ranges, cur = json_pack("[I, I]", (json_int_t)g->size[s], (json_int_t)g->size[s]));
      json_array_set_new(cur, 1, json_integer((json_int_t)g->size[s]));
    } else cur = NULL;
  }
  if (!compared) {
    json_decref(ranges);
    return NULL;
  }
  return json_pack("{s:s, s:o, s:i, s:o}", "config", g->cfg[c], "win_ranges", ranges, "sizes_compared", compared,
                   "speedup_at_smallest", isnan(first) ? json_null() : json_real(first));
}

static int is_custom(const struct ar_grid *g, int c, const char *family) {
  int base;
  const char *fam = family_of(ar_rec_str(g->cfgrec[c], "backend", ""), &base);
  return fam && !base && !strcmp(fam, family);
}

/* Columns of the family (its custom allreduces and its baselines) among those of mask (NULL: all). */
static char *family_columns(const struct ar_grid *g, const char *family, const char *mask) {
  char *use = calloc((size_t)g->ncfg + 1, 1);
  for (int c = 0; use && c < g->ncfg; c++) {
    int base;
    const char *fam = family_of(ar_rec_str(g->cfgrec[c], "backend", ""), &base);
    use[c] = (char)(fam && !strcmp(fam, family) && (!mask || mask[c]));
  }
  return use;
}

/* One use range as JSON: the config, its bytes, its verdicts. */
static json_t *use_range(const struct ar_grid *g, const struct ar_tune_range *r) {
  struct ar_range vr = {.clear = r->clear, .equivalent = r->equivalent, .undecided = r->undecided,
                        .runs_needed = r->runs_needed, .launches = r->launches};
  return json_pack("{s:s, s:I, s:I, s:s, s:i, s:i, s:i, s:o}", "config", g->cfg[r->cfg], "min_bytes", (json_int_t)r->lo,
                   "max_bytes", (json_int_t)r->hi, "verdict", ar_range_verdict(&vr), "clear", r->clear, "equivalent",
                   r->equivalent, "undecided", r->undecided, "runs_needed",
                   r->runs_needed < 0 ? json_null() : json_integer(r->runs_needed));
}

/* Up to custom_max_bytes the family's pick is a custom allreduce at every measured size (sizes without a
 * baseline measured are skipped); "use" says which one per size range below it (ranges as in the tuner
 * CSV: from 0, each starting one byte after the last), both from the one decision d. */
static json_t *use_json(const struct ar_grid *g, const struct ar_decisions *d, const char *family, const char *cols,
                        json_int_t *max) {
  json_t *use = json_array();
  struct ar_tune_range cur = {.cfg = -1};
  *max = 0;
  for (int s = 0; s < g->nsize; s++) {
    int pick = d->at[s].pick;
    if (d->at[s].verdict == AR_V_INVALID) break; /* no valid configuration there: the custom range ends */
    if (!baseline_measured(g, s, cols)) continue;
    if (pick < 0 || !is_custom(g, pick, family)) break;
    if (pick != cur.cfg) {
      if (cur.cfg >= 0) json_array_append_new(use, use_range(g, &cur));
      cur = (struct ar_tune_range){.lo = cur.cfg >= 0 ? cur.hi + 1 : 0, .cfg = pick};
    }
    cur.hi = g->size[s];
    cur.sizes++;
    range_count(&cur, &d->at[s]);
    *max = (json_int_t)g->size[s];
  }
  if (cur.cfg >= 0) json_array_append_new(use, use_range(g, &cur));
  return use;
}

json_t *ar_tune_custom_group(const struct ar_grid *g, const char *family, const char *mask, const struct ar_noise *nz) {
  json_t *custom = json_array(), *base = json_array();
  struct ar_decisions d;
  char *cols = family_columns(g, family, mask);
  if (!cols || ar_grid_decide(g, cols, nz, &d)) {
    free(cols);
    json_decref(custom);
    json_decref(base);
    return NULL;
  }
  for (int c = 0; c < g->ncfg; c++) {
    int isbase;
    family_of(ar_rec_str(g->cfgrec[c], "backend", ""), &isbase);
    if (!cols[c] || !ar_grid_eligible(g, c)) continue;
    json_t *j = isbase ? json_string(g->cfg[c]) : custom_json(g, &d, c, cols);
    if (j) json_array_append_new(isbase ? base : custom, j);
  }
  if (!json_array_size(custom) || !json_array_size(base)) {
    free(cols);
    ar_decisions_free(&d);
    json_decref(custom);
    json_decref(base);
    return NULL;
  }
  json_int_t max;
  json_t *use = use_json(g, &d, family, cols, &max);
  free(cols);
  ar_decisions_free(&d);
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
      json_t *as = ar_tune_as_values(&g[k]);
      for (size_t i = 0; i < json_array_size(as); i++) { /* run --as ENGINE: its own group */
        const char *e = json_string_value(json_array_get(as, i));
        char *mask = ar_tune_as_columns(&g[k], e);
        json_t *j = mask ? ar_tune_custom_group(&g[k], fams[f], mask, &o->noise) : NULL;
        if (j && *e) json_object_set_new(j, "as", json_string(e));
        if (j) json_array_append_new(groups, j);
        free(mask);
      }
      json_decref(as);
    }
  }
  return json_pack("{s:s, s:o, s:s, s:o, s:o}", "generated_by", "arbench tune", "files", files, "rule",
                   "One decision per group (arbench table's rule over the group's custom allreduces and baselines "
                   "(host: mpi; gpu: nccl, nccl-tests): the pick is the fastest p50 unless another is shown equivalent "
                   "within the margin, then the previous size's pick, else the simplest; clear / equivalent / "
                   "undecided per size) gives all three: custom_max_bytes: the largest measured size up to which, at "
                   "every measured size, the pick is a custom allreduce; 0: none. use: the picks below it, per size "
                   "range, with their verdicts (undecided: the data cannot tell the pick from another configuration; "
                   "runs_needed: the runs per side that would decide). custom[].win_ranges: [first, last] measured "
                   "sizes where that one is the pick. as: measured with run --as ENGINE (that engine's NCCL/CUDA "
                   "environment), a group of its own. excluded: the configurations in no group, and why.",
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
    if (!(v > 0) || !ar_grid_cell_eligible(g, i, c)) return NAN; /* wrong results at a size: never the setting */
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
    fprintf(f, nsz ? "# no nccl results valid at every size for this group\n" : "# no nccl results for this group\n");
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
    {"margin", required_argument, 0, 'G'},
    {"standin", no_argument, 0, 'S'},       {"explain", no_argument, 0, 'X'},
    {"hidden", required_argument, 0, 'H'},   {"engines", required_argument, 0, 'N'},
    AR_FILTER_OPTIONS,
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};
  char *dir = NULL, *csv = NULL, *thr = NULL, *env = NULL, *tj = NULL;
  const char *serving_opt = NULL;
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
    else if (c == 'X') o->explain = 1;
    else if (c == 'H' || c == 'N') {
      char err[AR_ERRLEN];
      serving_opt = c == 'H' ? "--hidden" : "--engines";
      if (c == 'H' ? ar_serving_parse_hidden(&o->serving, optarg, err, sizeof err)
                   : ar_serving_parse_engines(&o->serving, optarg, err, sizeof err)) {
        fprintf(stderr, "arbench tune: %s\n", err);
        return -AR_EINVAL;
      }
    }
    else if (c == 'D' || c == 'G') {
      char err[AR_ERRLEN];
      if (c == 'D' ? ar_noise_drift_parse(&o->noise, optarg, err, sizeof err)
                   : ar_noise_margin_parse(&o->noise, optarg, err, sizeof err)) {
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
  if (serving_opt && !dir) {
    fprintf(stderr, "arbench tune: %s needs -o DIR (serving.json, vllm.sh and sglang.sh are written there)\n",
            serving_opt);
    return -AR_EINVAL;
  }
  if (dir && set_dir(o, dir)) return -AR_EINVAL;
  o->serving.dir = dir;
  if (csv) snprintf(o->csv, sizeof o->csv, "%s", csv);
  if (thr) snprintf(o->thresholds, sizeof o->thresholds, "%s", thr);
  if (env) snprintf(o->env, sizeof o->env, "%s", env);
  if (tj) snprintf(o->plugin, sizeof o->plugin, "%s", tj);
  o->serving.tuner_json = *o->plugin ? o->plugin : NULL;
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
  ar_serving_defaults(&o.serving);
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
    if (o.serving.dir && ar_serving_check(&o.serving, g, n, a.runs, err, sizeof err)) {
      fprintf(stderr, "arbench tune: %s\n", err); /* before anything is written */
      status = AR_EXIT_USAGE;
    } else if (write_outputs(&o, g, n)) status = AR_EXIT_USAGE; /* first: a bad path fails before any output */
    else if (o.serving.dir && ar_serving_write(&o.serving, g, n, a.runs, o.files, o.nfiles, &o.noise) < 0)
      status = AR_EXIT_USAGE;
    if (!status) print_excluded(stdout, "", g, n);
    int none = 0;
    for (int k = 0; !status && k < n; k++) none += print_group(&g[k], &o.noise);
    char rule[3000];
    if (o.explain) ar_rule_text(&o.noise, rule, sizeof rule);
    else ar_explain_hint("tune", rule, sizeof rule);
    if (!status && n) printf("%s\n", rule); /* the statistics paragraph, once, behind --explain */
    if (!status && none) status = AR_EXIT_FAIL; /* sizes with no valid configuration: nothing to act on there */
  }
  ar_grids_free(g, n);
  ar_ana_free(&a);
  return status;
}
