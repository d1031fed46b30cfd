/* cmd.c — `arbench impact FILES --model M --tp N`: what the allreduce costs a model per forward and per output
 * token, on the picks of the one decider (ar_grid_decide); markdown, csv or json; --by stack side by side. */
#include "impact/calc.h"
#include "ar.h"
#include "commands.h"
#include "results.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR_IMPACT_TOKENS_MAX 64

struct impact_opts {
  struct ar_impact_model m;
  int tp, ntok, nstep, fmt; /* fmt: 0 markdown, 1 csv, 2 json */
  long tokens[AR_IMPACT_TOKENS_MAX];
  double step_ms[AR_IMPACT_TOKENS_MAX]; /* per tokens value: the default's forward, ms (from --step-ms or --tps) */
  double accept;
  const char *by;
  const struct ar_serving_engine *e;
  struct ar_noise noise;
  int have_model;
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: arbench impact --model M --tp N [options] RESULTS.jsonl...\n"
          "What the allreduce costs a dense decoder-only transformer under tensor parallelism, per forward and per\n"
          "output token: 2 allreduces per layer (attention output and MLP down projections) + 1 (vocab-parallel\n"
          "embedding), each of tokens x hidden x element-size bytes (docs/impact.md). Per tokens value: the\n"
          "engine's default path, the best path it can take unpatched and the pick (both from the decider table\n"
          "uses), their time per forward (calls x time per call, with the lowest and highest run), the savings,\n"
          "and with --tps or --step-ms the predicted tok/s. Sizes between measured ones: log-log interpolation\n"
          "between the neighbours (marked ~); outside the measured sizes a cell is refused, naming what to measure.\n"
          "  --model M            a Hugging Face config.json, or hidden=N,layers=N,dtype=bfloat16|float16|float32\n"
          "  --tp N               tensor-parallel size: the results' rank count\n"
          "  --tokens LIST        tokens per forward (default 1): decode batch; speculative verify batch x (draft+1)\n"
          "  --engine E           vllm (default) or sglang: its default path and what it reaches unpatched\n"
          "  --tps LIST           decode tok/s of one sequence measured with the engine's default, one per --tokens\n"
          "  --step-ms LIST       or the forward's time (ms) measured with the default, one per --tokens\n"
          "  --accept A           output tokens of a sequence per forward (default 1; speculative decoding: the\n"
          "                       mean accepted tokens per verify)\n"
          "  --by stack           one table per stack and the difference between them\n"
          "  --format F           markdown (default), csv or json\n"
          "  --margin PCT, --drift PCT   as in table\n");
}

static int list_long(const char *opt, const char *arg, long *out, int max, char *err, size_t len) {
  int n = 0;
  const char *p = arg;
  while (*p) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (errno || end == p || (*end && *end != ',') || v <= 0 || v > (1L << 20) || n == max) {
      snprintf(err, len, "bad %s '%s' (expected a comma list of at most %d integers 1..1048576)", opt, arg, max);
      return -1;
    }
    out[n++] = v;
    p = *end ? end + 1 : end;
  }
  if (!n) snprintf(err, len, "bad %s '%s' (expected a comma list of integers)", opt, arg);
  return n ? n : -1;
}

static int list_double(const char *opt, const char *arg, double *out, int max, char *err, size_t len) {
  int n = 0;
  const char *p = arg;
  while (*p) {
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (errno || end == p || (*end && *end != ',') || !(v > 0) || v > 1e9 || n == max) {
      snprintf(err, len, "bad %s '%s' (expected a comma list of at most %d positive numbers)", opt, arg, max);
      return -1;
    }
    out[n++] = v;
    p = *end ? end + 1 : end;
  }
  if (!n) snprintf(err, len, "bad %s '%s' (expected a comma list of positive numbers)", opt, arg);
  return n ? n : -1;
}

/* 0; 1 for --help; -AR_EINVAL with one line printed. */
static int parse(int argc, char **argv, struct impact_opts *o) {
  static const struct option lo[] = {
    {"model", required_argument, 0, 'm'}, {"tp", required_argument, 0, 't'},
    {"tokens", required_argument, 0, 'n'}, {"engine", required_argument, 0, 'E'},
    {"tps", required_argument, 0, 'T'}, {"step-ms", required_argument, 0, 'S'},
    {"accept", required_argument, 0, 'A'}, {"by", required_argument, 0, 'Y'},
    {"format", required_argument, 0, 'F'}, {"margin", required_argument, 0, 'G'},
    {"drift", required_argument, 0, 'D'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  char err[AR_ERRLEN] = "";
  double tps[AR_IMPACT_TOKENS_MAX];
  int ntps = 0, c;
  optind = 1;
  opterr = 0;
  o->ntok = 1, o->tokens[0] = 1, o->accept = 1;
  o->e = ar_serving_engine_find("vllm");
  while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
    int bad = 0;
    char *end;
    switch (c) {
    case 'h': usage(stdout); return 1;
    case 'm': bad = ar_impact_model_parse(optarg, &o->m, err, sizeof err) != 0, o->have_model = 1; break;
    case 't':
      errno = 0;
      o->tp = (int)strtol(optarg, &end, 10);
      if ((bad = errno || end == optarg || *end || o->tp < 2 || o->tp > 1024))
        snprintf(err, sizeof err, "bad --tp '%s' (expected an integer 2..1024: the tensor-parallel size)", optarg);
      break;
    case 'n': bad = (o->ntok = list_long("--tokens", optarg, o->tokens, AR_IMPACT_TOKENS_MAX, err, sizeof err)) < 0; break;
    case 'E':
      if ((bad = !(o->e = ar_serving_engine_find(optarg))))
        snprintf(err, sizeof err, "bad --engine '%s' (expected vllm or sglang)", optarg);
      break;
    case 'T': bad = (ntps = list_double("--tps", optarg, tps, AR_IMPACT_TOKENS_MAX, err, sizeof err)) < 0; break;
    case 'S': bad = (o->nstep = list_double("--step-ms", optarg, o->step_ms, AR_IMPACT_TOKENS_MAX, err, sizeof err)) < 0; break;
    case 'A':
      errno = 0;
      o->accept = strtod(optarg, &end);
      if ((bad = errno || end == optarg || *end || !(o->accept >= 1) || o->accept > 64))
        snprintf(err, sizeof err, "bad --accept '%s' (expected a number 1..64: output tokens per forward)", optarg);
      break;
    case 'Y':
      if ((bad = strcmp(optarg, "stack") != 0)) snprintf(err, sizeof err, "bad --by '%s' (expected stack)", optarg);
      o->by = optarg;
      break;
    case 'F':
      o->fmt = !strcmp(optarg, "csv") ? 1 : !strcmp(optarg, "json") ? 2 : 0;
      if ((bad = !o->fmt && strcmp(optarg, "markdown") && strcmp(optarg, "md")))
        snprintf(err, sizeof err, "bad --format '%s' (expected markdown, csv or json)", optarg);
      break;
    case 'G': bad = ar_noise_margin_parse(&o->noise, optarg, err, sizeof err) != 0; break;
    case 'D': bad = ar_noise_drift_parse(&o->noise, optarg, err, sizeof err) != 0; break;
    default: return ar_ana_badopt("impact", c, argv[optind - 1]), -AR_EINVAL;
    }
    if (bad) {
      fprintf(stderr, "arbench impact: %s\n", err);
      return -AR_EINVAL;
    }
  }
  const char *miss = !o->have_model ? "--model (a config.json or hidden=N,layers=N,dtype=D)"
                     : !o->tp       ? "--tp N (the tensor-parallel size)"
                     : optind >= argc ? "results files" : NULL;
  if (miss) {
    fprintf(stderr, "arbench impact: no %s given (usage: arbench impact --model M --tp N [options] FILE...)\n", miss);
    return -AR_EINVAL;
  }
  if (ntps && o->nstep) {
    fprintf(stderr, "arbench impact: --tps and --step-ms both given (expected one: the default's measured rate)\n");
    return -AR_EINVAL;
  }
  int ngiven = ntps ? ntps : o->nstep;
  if (ngiven && ngiven != o->ntok) {
    fprintf(stderr, "arbench impact: %s has %d value%s for %d --tokens value%s (expected one per tokens value)\n",
            ntps ? "--tps" : "--step-ms", ngiven, ngiven > 1 ? "s" : "", o->ntok, o->ntok > 1 ? "s" : "");
    return -AR_EINVAL;
  }
  for (int i = 0; i < ntps; i++) o->step_ms[i] = 1000.0 * o->accept / tps[i];
  if (ntps) o->nstep = ntps;
  return 0;
}

/* ---- one group (a stack, or all the results) ---- */

struct group {
  const char *name;  /* the stack, or NULL */
  struct ar_grid *g; /* all grids of the group */
  int n, k;          /* k: the grid impact reads, -1 when none */
  struct ar_decisions d;
  int decided, nvlink;
  struct ar_impact_row row[AR_IMPACT_TOKENS_MAX];
};

/* The grid of the model's dtype at TP ranks, sum, out-of-place preferred. */
static int pick_grid(const struct ar_grid *g, int n, const struct impact_opts *o) {
  int k = -1;
  for (int i = 0; i < n; i++)
    if (g[i].ranks == o->tp && !strcmp(g[i].dtype, o->m.dtype) && !strcmp(g[i].op, "sum") &&
        (k < 0 || !strcmp(g[i].placement, "out")))
      k = i;
  return k;
}

static void grids_list(const struct ar_grid *g, int n, char *buf, size_t len) {
  size_t off = 0;
  *buf = 0;
  for (int i = 0; i < n && off < len; i++)
    off += (size_t)snprintf(buf + off, len - off, "%s%s at %d ranks", i ? ", " : "", g[i].dtype, g[i].ranks);
  if (!n) snprintf(buf, len, "no result records");
}

static int group_compute(struct group *gr, json_t *results, json_t *runs, struct impact_opts *o) {
  if (ar_grids_build(results, runs, &gr->g, &gr->n)) return -AR_ERUNTIME;
  gr->k = pick_grid(gr->g, gr->n, o);
  if (gr->k < 0) return 0;
  struct ar_noise nz = o->noise;
  nz.grids = gr->n; /* as table decides these files: its family split over the tables */
  const struct ar_grid *g = &gr->g[gr->k];
  char *plain = ar_impact_plain_mask(g);
  int bad = !plain || ar_grid_decide(g, plain, &nz, &gr->d);
  free(plain);
  if (bad) return -AR_ERUNTIME;
  gr->decided = 1;
  gr->nvlink = ar_impact_nvlink(g);
  struct ar_impact_ctx x = {&o->m, g, &gr->d, &nz, o->e, gr->nvlink, o->accept};
  for (int i = 0; i < o->ntok; i++)
    if (ar_impact_row(&x, o->tokens[i], o->nstep ? o->step_ms[i] : 0, &gr->row[i])) return -AR_ERUNTIME;
  return 0;
}

static void group_free(struct group *gr) {
  if (gr->decided) ar_decisions_free(&gr->d);
  ar_grids_free(gr->g, gr->n);
}

/* ---- output ---- */

static const char *const path_names[4] = {"default", "best unpatched", "pick", "fused"};

static const struct ar_impact_path *path_of(const struct ar_impact_row *r, int i) {
  return i == 0 ? &r->def : i == 1 ? &r->unpatched : i == 2 ? &r->pick : &r->fusion;
}

/* Whether the group holds a fused allreduce + RMSNorm at all: its row is shown only then. */
static int has_fusion(const struct ar_grid *g) {
  for (int c = 0; c < g->ncfg; c++)
    if (ar_spath_of(g->cfgrec[c]) == AR_SP_FUSION) return 1;
  return 0;
}

/* How the columns used were timed, and what that means for a decode step (one sentence). */
static void method_note(const struct group *gr, const struct impact_opts *o, char *buf, size_t len) {
  const struct ar_grid *g = &gr->g[gr->k];
  int graph = 0, plain = 0;
  for (int t = 0; t < o->ntok; t++)
    for (int i = 0; i < 3; i++) {
      const struct ar_impact_path *p = path_of(&gr->row[t], i);
      if (!p->ok) continue;
      if (ar_rec_num(g->cfgrec[p->col], "graph", 0) > 0) graph = 1;
      else plain = 1;
    }
  long calls = ar_impact_calls(&o->m);
  if (plain)
    snprintf(buf, len, "timing: %s plain launches; the engines run decode inside CUDA graphs, so each call here "
             "includes a launch a graph removes: a few us per call, up to %ld x 3 us = %ld us per forward; measure with "
             "-G for the engines' method", graph ? "some configurations from" : "from", calls, calls * 3);
  else if (graph) snprintf(buf, len, "timing: CUDA graphs (-G), as the engines run decode");
  else snprintf(buf, len, "timing: nothing measured");
}

static void fmt_range(char *buf, size_t len, double v, double lo, double hi, int prec) {
  if (isnan(v)) snprintf(buf, len, "-");
  else snprintf(buf, len, "%.*f [%.*f, %.*f]", prec, v, prec, lo, prec, hi);
}

static void print_md(const struct group *gr, const struct impact_opts *o) {
  const struct ar_grid *g = &gr->g[gr->k];
  printf("### %s at TP %d, %s%s%s\n\n", o->m.name, o->tp, o->e->label, gr->name ? ", stack " : "",
         gr->name ? gr->name : "");
  printf("%ld allreduces per forward (2 per layer x %ld layers + 1 embedding), each tokens x %ld x %d B (%s); "
         "%s, %d ranks, %s.\n\n", ar_impact_calls(&o->m), o->m.layers, o->m.hidden, o->m.esize, o->m.dtype, g->dtype,
         g->ranks, gr->nvlink ? "NVLink" : "PCIe");
  printf("| tokens | message | path | configuration | per call (us) | per forward (us) | saving per forward (us) | "
         "saving per output token (us) | tok/s | verdict | patch needed |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  json_t *refused = json_array();
  int npath = has_fusion(g) ? 4 : 3;
  for (int t = 0; t < o->ntok; t++) {
    const struct ar_impact_row *r = &gr->row[t];
    for (int i = 0; i < npath; i++) {
      const struct ar_impact_path *p = path_of(r, i);
      char call[64], fwd[96], sav[96], tok[96], tps[96], cfg[600];
      if (!p->ok) {
        printf("| %ld | %zu B | %s | refused | - | - | - | - | - | - | - |\n", r->tokens, r->bytes, path_names[i]);
        json_array_append_new(refused, json_sprintf("tokens %ld, %s: %s", r->tokens, path_names[i], p->why));
        continue;
      }
      snprintf(call, sizeof call, "%s%.2f", p->t.interpolated ? "~" : "", p->t.us);
      fmt_range(fwd, sizeof fwd, p->fwd_us, p->fwd_lo, p->fwd_hi, 1);
      if (i == 3 || (i && r->def.ok)) {
        fmt_range(sav, sizeof sav, p->save_us, p->save_lo, p->save_hi, 1);
        fmt_range(tok, sizeof tok, p->tok_us, p->tok_lo, p->tok_hi, 1);
      } else snprintf(sav, sizeof sav, "-"), snprintf(tok, sizeof tok, "-");
      if (!i && r->step_ms > 0) snprintf(tps, sizeof tps, "%.2f (measured)", r->tps);
      else if (i && !isnan(p->tps)) fmt_range(tps, sizeof tps, p->tps, p->tps_lo, p->tps_hi, 2);
      else snprintf(tps, sizeof tps, "-");
      if (i == 3) snprintf(cfg, sizeof cfg, "%s against %s (%ld calls)", g->cfg[p->col], g->cfg[r->fusion_base_col],
                           2 * o->m.layers);
      else snprintf(cfg, sizeof cfg, "%s", g->cfg[p->col]);
      printf("| %ld | %zu B | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->tokens, r->bytes, path_names[i],
             cfg, call, fwd, sav, tok, tps, i ? p->verdict : "", *p->patch ? p->patch : i ? "none" : "");
    }
  }
  char note[600];
  method_note(gr, o, note, sizeof note);
  printf("\n~ interpolated in log-log between the measured sizes either side. Intervals: the lowest and highest run "
         "(per forward: calls x each; savings and tok/s from the opposite ends); they cover measurement noise only, "
         "not overlap with compute or contention. %s.\n", note);
  size_t i;
  json_t *v;
  json_array_foreach(refused, i, v) printf("- refused: %s\n", json_string_value(v));
  printf("\n");
  json_decref(refused);
}

static json_t *num(double v) { return isnan(v) ? json_null() : json_real(v); }

static json_t *path_json(const struct group *gr, const struct ar_impact_row *r, int i) {
  const struct ar_impact_path *p = path_of(r, i);
  if (!p->ok) return json_pack("{s:s, s:b, s:s}", "path", path_names[i], "ok", 0, "refused", p->why);
  json_t *o = json_pack("{s:s, s:b, s:s, s:o, s:o, s:o, s:b, s:o, s:o, s:o}", "path", path_names[i], "ok", 1,
                        "config", gr->g[gr->k].cfg[p->col], "per_call_us", num(p->t.us), "per_call_lo_us",
                        num(p->t.lo), "per_call_hi_us", num(p->t.hi), "interpolated", p->t.interpolated,
                        "per_forward_us", num(p->fwd_us), "per_forward_lo_us", num(p->fwd_lo), "per_forward_hi_us",
                        num(p->fwd_hi));
  if (p->t.interpolated)
    json_object_set_new(o, "between", json_pack("[I, I]", (json_int_t)p->t.below, (json_int_t)p->t.above));
  if (i == 3) {
    json_object_set_new(o, "against", json_string(gr->g[gr->k].cfg[r->fusion_base_col]));
    json_object_set_new(o, "against_per_call_us", num(r->fusion_base.us));
    json_object_set_new(o, "calls", json_integer(r->calls - 1)); /* 2 x layers: the embedding is not fused */
  }
  if (i == 3 || (i && r->def.ok)) {
    json_object_set_new(o, "saving_per_forward_us", json_pack("[o, o, o]", num(p->save_us), num(p->save_lo), num(p->save_hi)));
    json_object_set_new(o, "saving_per_token_us", json_pack("[o, o, o]", num(p->tok_us), num(p->tok_lo), num(p->tok_hi)));
    if (r->step_ms > 0) json_object_set_new(o, "tps", json_pack("[o, o, o]", num(p->tps), num(p->tps_lo), num(p->tps_hi)));
  }
  if (i) json_object_set_new(o, "verdict", json_string(p->verdict)), json_object_set_new(o, "patch", json_string(p->patch));
  else json_object_set_new(o, "engine_path", json_string(ar_spath_name(r->def_path)));
  return o;
}

static json_t *group_json(const struct group *gr, const struct impact_opts *o) {
  json_t *rows = json_array();
  for (int t = 0; gr->k >= 0 && t < o->ntok; t++) {
    const struct ar_impact_row *r = &gr->row[t];
    json_t *paths = json_array();
    for (int i = 0; i < (has_fusion(&gr->g[gr->k]) ? 4 : 3); i++) json_array_append_new(paths, path_json(gr, r, i));
    json_t *row = json_pack("{s:I, s:I, s:I, s:o}", "tokens", (json_int_t)r->tokens, "bytes", (json_int_t)r->bytes,
                            "allreduces", (json_int_t)r->calls, "paths", paths);
    if (r->step_ms > 0)
      json_object_set_new(row, "step_ms", json_real(r->step_ms)), json_object_set_new(row, "tps", json_real(r->tps));
    json_array_append_new(rows, row);
  }
  char note[600] = "";
  if (gr->k >= 0) method_note(gr, o, note, sizeof note);
  return json_pack("{s:o, s:s, s:o}", "stack", gr->name ? json_string(gr->name) : json_null(), "method", note, "rows",
                   rows);
}

static void print_csv(const struct group *gr, const struct impact_opts *o) {
  for (int t = 0; gr->k >= 0 && t < o->ntok; t++) {
    const struct ar_impact_row *r = &gr->row[t];
    for (int i = 0; i < 3; i++) {
      const struct ar_impact_path *p = path_of(r, i);
      printf("%s,%ld,%zu,%ld,%s,", gr->name ? gr->name : "", r->tokens, r->bytes, r->calls, path_names[i]);
      if (!p->ok) {
        printf(",,,,,,,,,,,,,,,\"%s\"\n", p->why);
        continue;
      }
      printf("\"%s\",%.17g,%.17g,%.17g,%d,%.17g,%.17g,%.17g,", gr->g[gr->k].cfg[p->col], p->t.us, p->t.lo, p->t.hi,
             p->t.interpolated, p->fwd_us, p->fwd_lo, p->fwd_hi);
      if (i && r->def.ok) printf("%.17g,%.17g,%.17g,%.17g,", p->save_us, p->save_lo, p->save_hi, p->tok_us);
      else printf(",,,,");
      if (i && r->step_ms > 0 && !isnan(p->tps)) printf("%.17g,%.17g,%.17g,", p->tps, p->tps_lo, p->tps_hi);
      else if (!i && r->step_ms > 0) printf("%.17g,,,", r->tps);
      else printf(",,,");
      printf("%s,\"%s\",\n", i ? p->verdict : "", p->patch);
    }
  }
}

/* --by stack: each later stack against the first, per tokens value (pick and default per forward). */
static json_t *stack_diff(const struct group *gr, int ng, const struct impact_opts *o, int md) {
  json_t *out = json_array();
  if (ng < 2) return out;
  if (md) printf("### Stacks: %s against %s\n\n| tokens | stack | default per forward (us) | pick per forward (us) | "
                 "pick saves per output token (ms) |\n|---|---|---|---|---|\n", gr[1].name, gr[0].name);
  for (int k = 1; k < ng; k++)
    for (int t = 0; gr[0].k >= 0 && gr[k].k >= 0 && t < o->ntok; t++) {
      const struct ar_impact_row *a = &gr[0].row[t], *b = &gr[k].row[t];
      double dd = a->def.ok && b->def.ok ? a->def.fwd_us - b->def.fwd_us : NAN;
      double dp = a->pick.ok && b->pick.ok ? a->pick.fwd_us - b->pick.fwd_us : NAN;
      json_array_append_new(out, json_pack("{s:s, s:s, s:I, s:o, s:o}", "stack", gr[k].name, "against", gr[0].name,
                                           "tokens", (json_int_t)a->tokens, "default_saving_per_forward_us", num(dd),
                                           "pick_saving_per_forward_us", num(dp)));
      if (md) {
        char sd[32] = "-", sp[32] = "-", st[32] = "-";
        if (!isnan(dd)) snprintf(sd, sizeof sd, "%+.1f", -dd);
        if (!isnan(dp)) snprintf(sp, sizeof sp, "%+.1f", -dp), snprintf(st, sizeof st, "%.3f", dp / 1000.0 / o->accept);
        printf("| %ld | %s | %s | %s | %s |\n", a->tokens, gr[k].name, sd, sp, st);
      }
    }
  if (md) printf("\n(differences: the later stack minus %s; saves: %s's pick faster per output token of a sequence)\n\n",
                 gr[0].name, gr[1].name);
  return out;
}

int ar_cmd_impact(int argc, char **argv) {
  struct impact_opts o;
  memset(&o, 0, sizeof o);
  ar_noise_defaults(&o.noise);
  int rc = parse(argc, argv, &o);
  if (rc) return rc > 0 ? AR_EXIT_OK : AR_EXIT_USAGE;
  struct ar_ana a;
  char err[AR_ERRLEN];
  int nf = argc - optind;
  if (ar_ana_load(&a, nf, argv + optind, err, sizeof err)) {
    fprintf(stderr, "arbench impact: %s\n", err);
    ar_ana_free(&a);
    return AR_EXIT_USAGE;
  }
  ar_results_drop_standin(a.results, a.runs);
  if (ar_ana_nothing(&a, "impact", nf, argv + optind)) {
    ar_ana_free(&a);
    return AR_EXIT_NOTHING;
  }
  struct ar_by by = {0};
  int ng = 1, status = AR_EXIT_OK;
  if (o.by && ar_by_split(&by, a.results, a.runs, o.by, err, sizeof err)) {
    fprintf(stderr, "arbench impact: %s\n", err);
    ar_ana_free(&a);
    return AR_EXIT_USAGE;
  }
  if (o.by) ng = (int)json_array_size(by.groups);
  else if (ar_stack_count(a.results, a.runs) > 1) {
    fprintf(stderr, "arbench impact: the files hold %d stacks (stacks are never pooled): give --by stack\n",
            ar_stack_count(a.results, a.runs));
    ar_ana_free(&a);
    return AR_EXIT_USAGE;
  }
  struct group *gr = calloc((size_t)ng, sizeof *gr);
  int found = 0;
  for (int k = 0; gr && k < ng && !status; k++) {
    json_t *res = a.results, *runs = a.runs;
    if (o.by) {
      gr[k].name = json_string_value(json_array_get(by.groups, (size_t)k));
      res = json_array();
      size_t i;
      json_t *r;
      json_array_foreach(by.results, i, r) if (!strcmp(ar_rec_str(r, "_by", ""), gr[k].name)) json_array_append(res, r);
      runs = by.runs;
    }
    if (group_compute(&gr[k], res, runs, &o)) status = AR_EXIT_FAIL;
    found += gr[k].k >= 0;
    if (o.by) json_decref(res);
  }
  if (!gr) status = AR_EXIT_FAIL;
  if (!status && !found) {
    char have[512];
    grids_list(gr[0].g, gr[0].n, have, sizeof have);
    fprintf(stderr, "arbench impact: no results of %s at %d ranks (--tp %d with the model's dtype) in the files "
            "(they hold: %s)\n", o.m.dtype, o.tp, o.tp, have);
    status = AR_EXIT_USAGE;
  }
  if (!status) {
    if (o.fmt == 2) {
      json_t *groups = json_array();
      for (int k = 0; k < ng; k++) json_array_append_new(groups, group_json(&gr[k], &o));
      json_t *root = json_pack(
        "{s:s, s:{s:s, s:I, s:I, s:s, s:I, s:I}, s:i, s:s, s:s, s:f, s:o, s:o}", "generated_by", "arbench impact",
        "model", "name", o.m.name, "hidden", (json_int_t)o.m.hidden, "layers", (json_int_t)o.m.layers, "dtype",
        o.m.dtype, "element_bytes", (json_int_t)o.m.esize, "allreduces_per_forward",
        (json_int_t)ar_impact_calls(&o.m), "tp", o.tp, "engine", o.e->name, "engine_source", o.e->source, "accept",
        o.accept, "groups", groups, "stacks", stack_diff(gr, ng, &o, 0));
      char *txt = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
      printf("%s\n", txt ? txt : "{}");
      free(txt);
      json_decref(root);
    } else if (o.fmt == 1) {
      printf("stack,tokens,bytes,allreduces,path,config,per_call_us,per_call_lo_us,per_call_hi_us,interpolated,"
             "per_forward_us,per_forward_lo_us,per_forward_hi_us,saving_per_forward_us,saving_lo_us,saving_hi_us,"
             "saving_per_token_us,tps,tps_lo,tps_hi,verdict,patch,refused\n");
      for (int k = 0; k < ng; k++) print_csv(&gr[k], &o);
    } else {
      for (int k = 0; k < ng; k++)
        if (gr[k].k >= 0) print_md(&gr[k], &o);
        else printf("### stack %s: no results of %s at %d ranks\n\n", gr[k].name ? gr[k].name : "", o.m.dtype, o.tp);
      json_decref(stack_diff(gr, ng, &o, 1));
    }
  }
  for (int k = 0; gr && k < ng; k++) group_free(&gr[k]);
  free(gr);
  ar_by_free(&by);
  ar_ana_free(&a);
  return status;
}
