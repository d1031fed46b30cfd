/* serving.c — `arbench tune -o DIR`'s serving.json: per engine, one group per (ranks, dtype) measured on GPUs,
 * from thresholds.json's decision and the engines' rules (serving_rules.c); serving_sh.c writes the .sh files. */
#include "analysis/serving.h"
#include "analysis/serving_priv.h"
#include "ar.h"
#include "ar_tuner_decisions.h"
#include "ncclenv.h"
#include "opts.h"
#include "results.h"
#include "runas.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- options ---- */

void ar_serving_defaults(struct ar_serving_opts *so) {
  memset(so, 0, sizeof *so);
  so->nengines = AR_SERVING_NENGINES;
  snprintf(so->engines[0], sizeof so->engines[0], "vllm");
  snprintf(so->engines[1], sizeof so->engines[1], "sglang");
}

int ar_serving_parse_engines(struct ar_serving_opts *so, const char *list, char *err, size_t len) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  so->nengines = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    const struct ar_serving_engine *e = ar_serving_engine_find(t);
    int dup = 0;
    for (int i = 0; e && i < so->nengines; i++) dup |= !strcmp(so->engines[i], t);
    if (!e || dup || so->nengines == AR_SERVING_NENGINES) {
      snprintf(err, len, "%s engine '%s' in --engines %s (known: vllm, sglang)", e ? "repeated" : "unknown", t, list);
      return -AR_EINVAL;
    }
    snprintf(so->engines[so->nengines++], sizeof so->engines[0], "%s", e->name);
  }
  if (!so->nengines) snprintf(err, len, "empty --engines (known: vllm, sglang)");
  return so->nengines ? 0 : -AR_EINVAL;
}

int ar_serving_parse_hidden(struct ar_serving_opts *so, const char *arg, char *err, size_t len) {
  char *end;
  errno = 0;
  long v = strtol(arg, &end, 10);
  if (errno || end == arg || *end || v <= 0 || v > 1048576) {
    snprintf(err, len, "bad --hidden '%s' (expected the model's hidden size, an integer from 1 to 1048576)", arg);
    return -AR_EINVAL;
  }
  so->hidden = v;
  return 0;
}

/* ---- which grids and columns ---- */

/* A column the engines' groups may use: a GPU configuration (ar_spath_of), measured on GPUs (not the CPU
 * stand-in of CUDA), not unsafe, not a prediction. */
int ar_serving_column(const struct ar_grid *g, json_t *runs, int c) {
  return ar_spath_of(g->cfgrec[c]) >= 0 && ar_grid_eligible(g, c) && !ar_rec_standin(runs, g->cfgrec[c]);
}

static int has_gpu_column(const struct ar_grid *g, json_t *runs) {
  for (int c = 0; c < g->ncfg; c++)
    if (ar_serving_column(g, runs, c)) return 1;
  return 0;
}

static int dtype_order(const char *dt) {
  static const char *const pref[] = {"bfloat16", "half", "float", "int32"};
  for (int i = 0; i < 4; i++)
    if (!strcmp(dt, pref[i])) return i;
  return 4;
}

/* Grid indices of the groups: one per (ranks, dtype) of sum grids with a GPU column, out-of-place when measured
 * (the engines' allreduce is out of place), by ranks then dtype. Count. */
int ar_serving_grids(const struct ar_grid *g, int n, json_t *runs, int *idx) {
  int m = 0;
  for (int k = 0; k < n; k++) {
    if (strcmp(g[k].op, "sum") || !has_gpu_column(&g[k], runs)) continue;
    int j = 0;
    while (j < m && !(g[idx[j]].ranks == g[k].ranks && !strcmp(g[idx[j]].dtype, g[k].dtype))) j++;
    if (j == m) idx[m++] = k;
    else if (!strcmp(g[k].placement, "out")) idx[j] = k;
  }
  for (int i = 0; i < m; i++)
    for (int j = i + 1; j < m; j++) {
      const struct ar_grid *a = &g[idx[i]], *b = &g[idx[j]];
      if (b->ranks < a->ranks || (b->ranks == a->ranks && dtype_order(b->dtype) < dtype_order(a->dtype))) {
        int t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
      }
    }
  return m;
}

int ar_serving_check(const struct ar_serving_opts *so, const struct ar_grid *g, int n, json_t *runs, char *err,
                     size_t len) {
  for (int k = 0; so->hidden && k < n; k++) {
    enum ar_dtype dt;
    if (!has_gpu_column(&g[k], runs) || ar_dtype_parse(g[k].dtype, &dt)) continue;
    size_t row = (size_t)so->hidden * ar_dtype_size(dt);
    if (row % 16 == 0) continue;
    snprintf(err, len, "--hidden %ld: a %s token row is %zu bytes, not a multiple of 16 (the engines' custom "
             "allreduce takes only multiples of 16 bytes): give a multiple of %zu", so->hidden, g[k].dtype, row,
             16 / ar_dtype_size(dt));
    return -AR_EINVAL;
  }
  return 0;
}

/* ---- one group ---- */

/* NVLink (1) or PCIe (0) as NCCL reported the path of the group's nccl results; -1 when none said. */
static int interconnect(const struct ar_grid *g, const char *cols) {
  int seen = -1;
  for (int c = 0; c < g->ncfg; c++)
    for (int s = 0; cols[c] && s < g->nsize; s++) {
      json_t *r = ar_grid_at(g, s, c);
      const char *path = ar_rec_str(json_object_get(r, "nccl"), "path", ""), *tr = ar_rec_str(r, "nccl_transport", "");
      if (strstr(path, "NVL") || strstr(tr, "NVL")) return 1;
      if (*path || *tr) seen = 0;
    }
  return seen;
}

/* The compute capability of the GPUs the group ran on (its run records' gpus[0].cc), "" when unknown. */
static void capability(const struct ar_grid *g, json_t *runs, const char *cols, char *cc, size_t len) {
  snprintf(cc, len, "%s", "");
  for (int c = 0; c < g->ncfg && !*cc; c++) {
    if (!cols[c]) continue;
    json_t *run = json_object_get(runs, ar_rec_str(g->cfgrec[c], "run_id", ""));
    snprintf(cc, len, "%s", ar_rec_str(json_array_get(json_object_get(run, "gpus"), 0), "cc", ""));
  }
}

/* The NCCL the group's runs loaded (their run records' stack.nccl_loaded), as a version code; 0 when unknown or when
 * the runs loaded different ones. */
static int nccl_version(const struct ar_grid *g, json_t *runs, const char *cols) {
  int v = 0;
  for (int c = 0; c < g->ncfg; c++) {
    if (!cols[c]) continue;
    json_t *run = json_object_get(runs, ar_rec_str(g->cfgrec[c], "run_id", ""));
    int code = ar_ncclenv_version_code(ar_rec_str(json_object_get(run, "stack"), "nccl_loaded", ""));
    if (!code) continue;
    if (v && code != v) return 0;
    v = code;
  }
  return v;
}

/* Where the loaded NCCL runs no symmetric kernel on this interconnect: the group says so (and options leave out the
 * engines' NCCL symmetric-memory switch); NULL otherwise. */
static json_t *nccl_symmetric_json(int version, int nvlink) {
  if (!ar_serving_nccl_symm_off(version, nvlink == 1)) return NULL;
  char ver[16], why[600];
  ar_ncclenv_version_str(version, ver, sizeof ver);
  snprintf(why, sizeof why, "NCCL %s runs its symmetric kernels only when every GPU pair is NVLink-connected (2.29.2 "
           "and later, no variable overrides it): on this %s box the engines' NCCL symmetric-memory switch "
           "(VLLM_USE_NCCL_SYMM_MEM=1, --enable-symm-mem) registers windows and NCCL runs its regular algorithms, so "
           "it is not recommended; nccl:symm=1 records say what ran (nccl.symmetric.ran)", ver,
           nvlink < 0 ? "PCIe (taken as PCIe: no NCCL path recorded)" : "PCIe");
  return json_pack("{s:b, s:s, s:s, s:s}", "runs", 0, "nccl", ver, "why", why, "source",
                   "NVIDIA/nccl src/sym_kernels.cc:389 at v2.29.2-1 (ncclSymkAvailable: isAllDirectNvlink), :593 at "
                   "v2.30.7-1");
}

/* Columns of path p among cols (p < 0: every one), as labels. */
static json_t *labels_of(const struct ar_grid *g, const char *cols, int p) {
  json_t *out = json_array();
  for (int c = 0; c < g->ncfg; c++)
    if (cols[c] && (p < 0 || ar_spath_of(g->cfgrec[c]) == p)) json_array_append_new(out, json_string(g->cfg[c]));
  return out;
}

/* The path of the configuration a decision names by label. */
static int path_of_label(const struct ar_grid *g, const char *label) {
  for (int c = 0; c < g->ncfg; c++)
    if (!strcmp(g->cfg[c], label)) return ar_spath_of(g->cfgrec[c]);
  return AR_SP_NONE;
}

static void add_patch(struct ar_sgroup *sg, const char *what, const char *why, json_t *measured) {
  json_array_append_new(sg->patch, json_pack("{s:s, s:s, s:o}", "what", what, "why", why, "measured", measured));
}

/* bytes as tokens of --hidden rows of the group's dtype (floor), null without --hidden. */
json_t *ar_serving_tokens(const struct ar_sgroup *sg, long long bytes) {
  enum ar_dtype dt;
  if (!sg->so->hidden || bytes < 0 || ar_dtype_parse(sg->g->dtype, &dt)) return json_null();
  return json_integer((json_int_t)(bytes / (sg->so->hidden * (long long)ar_dtype_size(dt))));
}

/* The measured sizes up to max bytes (the decision's domain: a baseline measured) and what the engine does there:
 * a cap that keeps custom allreduce where NCCL measured faster, or stops it where custom measured faster. */
static void check_cap(struct ar_sgroup *sg, long long max) {
  const struct ar_serving_engine *e = sg->e;
  long long first_nccl = -1, first_off = -1;
  for (int s = 0; s < sg->g->nsize; s++) {
    size_t b = sg->g->size[s];
    if (!sg->compared[s]) continue;
    int engine = ar_serving_custom_at(e, b), want = (long long)b <= max;
    if (engine && !want && first_nccl < 0) first_nccl = (long long)b;
    if (!engine && want && first_off < 0) first_off = (long long)b;
  }
  if (first_nccl < 0 && first_off < 0) return;
  char why[900];
  snprintf(why, sizeof why, "%s takes custom allreduce for bytes %s %zu (%s); arbench measured %s %lld bytes", e->label,
           e->cap_inclusive ? "<=" : "<", e->cap, e->cap_source,
           first_nccl >= 0 ? "NCCL faster from" : "custom allreduce faster, beyond that bound, at",
           first_nccl >= 0 ? first_nccl : first_off);
  long long v = ar_serving_cap_value(e, (size_t)max);
  add_patch(sg, "custom allreduce size cap", why,
            json_pack("{s:I, s:I, s:I, s:s, s:o, s:o}", "custom_max_bytes", (json_int_t)max, "engine_value",
                      (json_int_t)e->cap, "value", (json_int_t)v, "compare",
                      e->cap_inclusive ? "bytes <= max_size" : "bytes < max_size", "first_size_against",
                      json_integer(first_nccl >= 0 ? first_nccl : first_off), "value_tokens",
                      ar_serving_tokens(sg, max)));
}

/* The kernels the decision picks below the crossover against the one the engine picks by itself: nothing when they
 * agree, the engine's variable when one kernel wins every size, a patch when the winner changes with the size. */
static void check_kernels(struct ar_sgroup *sg, json_t *use) {
  json_t *ranges = json_array();
  int differs = 0, paths = 0, last = -1;
  for (size_t i = 0; i < json_array_size(use); i++) {
    json_t *r = json_array_get(use, i);
    int p = path_of_label(sg->g, ar_rec_str(r, "config", ""));
    if (p != last) paths++, last = p;
    for (int s = 0; s < sg->g->nsize; s++) {
      json_int_t b = (json_int_t)sg->g->size[s];
      if (sg->compared[s] && b >= json_integer_value(json_object_get(r, "min_bytes")) &&
          b <= json_integer_value(json_object_get(r, "max_bytes")))
        differs |= ar_serving_auto_kernel(sg->g->ranks, sg->nvlink == 1, (size_t)b) != p;
    }
    json_array_append_new(ranges, json_pack("{s:s, s:s, s:O, s:O}", "config", ar_rec_str(r, "config", ""), "kernel",
                                            ar_spath_name(p), "min_bytes", json_object_get(r, "min_bytes"),
                                            "max_bytes", json_object_get(r, "max_bytes")));
  }
  if (!differs) {
    json_decref(ranges);
    return;
  }
  if (paths == 1) {
    json_object_set_new(sg->env, sg->e->algo_env, json_string(last == AR_SP_CUSTOM_2STAGE ? "2stage" : "1stage"));
    json_decref(ranges);
    return;
  }
  char why[700];
  snprintf(why, sizeof why, "%s picks its custom kernel per call only by world size and NVLink, or one kernel for "
           "every size through %s (%s); arbench measured the winner change with the size", sg->e->label,
           sg->e->algo_env, sg->e->algo_source);
  add_patch(sg, "size-dependent custom kernel cut-off", why, json_pack("{s:o}", "ranges", ranges));
}

/* A measured winner below the crossover that the engine cannot run. */
static void check_paths(struct ar_sgroup *sg, json_t *use) {
  for (size_t i = 0; i < json_array_size(use); i++) {
    json_t *r = json_array_get(use, i);
    const char *cfg = ar_rec_str(r, "config", "");
    int p = path_of_label(sg->g, cfg);
    if (p != AR_SP_NONE && p != AR_SP_SYMM_MEM) continue;
    char what[400], why[900];
    snprintf(what, sizeof what, "no %s path for %s", sg->e->label, cfg);
    if (p == AR_SP_SYMM_MEM)
      snprintf(why, sizeof why, "%s%s%s", sg->e->symm_why, *sg->cc ? "; these GPUs: compute capability " : "", sg->cc);
    else
      snprintf(why, sizeof why, "%s's custom allreduce has a one-stage and a two-stage kernel, both reading the "
               "peers' buffers (pull); it has no kernel like this one", sg->e->label);
    add_patch(sg, what, why, json_pack("{s:s, s:O, s:O, s:O}", "config", cfg, "min_bytes",
                                       json_object_get(r, "min_bytes"), "max_bytes", json_object_get(r, "max_bytes"),
                                       "verdict", json_object_get(r, "verdict")));
  }
}

/* Sizes of the decision's domain: some baseline (nccl) column in mask measured there. */
static void mark_compared(struct ar_sgroup *sg, const char *mask) {
  for (int s = 0; s < sg->g->nsize; s++) {
    sg->compared[s] = 0;
    for (int c = 0; c < sg->g->ncfg; c++)
      if (mask[c] && ar_spath_of(sg->g->cfgrec[c]) == AR_SP_NCCL && !isnan(ar_grid_p50(sg->g, s, c)))
        sg->compared[s] = 1;
  }
}

/* The engine's own decision: its kernels (one-stage, two-stage) against the NCCL it runs (tuned by the plugin). */
static json_t *engine_decision(struct ar_sgroup *sg) {
  char *mask = calloc((size_t)sg->g->ncfg + 1, 1);
  for (int c = 0; mask && c < sg->g->ncfg; c++) {
    int p = ar_spath_of(sg->g->cfgrec[c]);
    mask[c] = (char)(sg->cols[c] && (p == AR_SP_NCCL || p == AR_SP_CUSTOM_1STAGE || p == AR_SP_CUSTOM_2STAGE));
  }
  if (mask) mark_compared(sg, mask);
  json_t *u = mask ? ar_tune_custom_group(sg->g, "gpu", mask, sg->nz) : NULL;
  free(mask);
  return u;
}

/* custom_allreduce, flags, env and the patches of the custom allreduce, from T (thresholds.json's decision) and
 * U (the engine's paths). */
static void decide_custom(struct ar_sgroup *sg, json_t *t, json_t *u) {
  char why[700];
  int on = ar_serving_custom_on(sg->e, sg->g->ranks, sg->g->nodes, sg->nvlink == 1, why, sizeof why);
  json_t *tuse = json_object_get(t, "use");
  if (t) check_paths(sg, tuse);
  if (!u) {
    snprintf(sg->runs_text, sizeof sg->runs_text, "%s", on ? "its own rules (no engine kernel measured against NCCL)"
                                                           : "NCCL at every size");
    return;
  }
  long long max = json_integer_value(json_object_get(u, "custom_max_bytes"));
  sg->custom = max > 0;
  if (!sg->custom) {
    json_array_append_new(sg->flags, json_string(sg->e->disable_flag));
    snprintf(sg->runs_text, sizeof sg->runs_text, "NCCL at every size (%s)", sg->e->disable_flag);
    return;
  }
  if (!on) {
    char w[1000];
    snprintf(w, sizeof w, "%s; arbench measured its kernels faster than NCCL up to %lld bytes", why, max);
    add_patch(sg, "custom allreduce turned off", w,
              json_pack("{s:I, s:o, s:O}", "custom_max_bytes", (json_int_t)max, "custom_max_tokens",
                        ar_serving_tokens(sg, max), "use", json_object_get(u, "use")));
    snprintf(sg->runs_text, sizeof sg->runs_text, "NCCL at every size: %s", why);
  } else {
    check_kernels(sg, json_object_get(u, "use"));
    const char *env = json_string_value(json_object_get(sg->env, sg->e->algo_env));
    snprintf(sg->runs_text, sizeof sg->runs_text, "custom allreduce (%s%s) for bytes %s %zu that are multiples of 16, "
             "NCCL above", env ? env : "its own choice", env ? ", forced" : sg->g->ranks == 2 ? ": 1stage at 2 GPUs" : "",
             sg->e->cap_inclusive ? "<=" : "<", sg->e->cap);
  }
  check_cap(sg, max);
}

/* The NCCL sizes: tune's tuner.json through libarbench-tuner.so when it has decisions for this group. */
static json_t *nccl_deploy(struct ar_sgroup *sg) {
  char err[400], lib[PATH_MAX] = "", file[PATH_MAX] = "";
  struct ar_tuner_decisions d;
  const char *why = NULL;
  if (!sg->so->tuner_json) why = "no tuner.json written";
  else if (!realpath(sg->so->tuner_json, file) || ar_tuner_load(file, &d, err, sizeof err)) why = "tuner.json unreadable";
  if (why) return json_pack("{s:s, s:s}", "deploy", "none", "why", why);
  int exact = 0;
  const struct ar_tuner_group *tg = ar_tuner_match(&d, sg->g->ranks, sg->g->nodes > 0 ? sg->g->nodes : 1, &exact);
  int nranks = tg ? tg->nranks : 0, nranges = tg ? tg->nranges : 0;
  ar_tuner_free(&d);
  if (!tg) return json_pack("{s:s, s:s}", "deploy", "none", "why", "tuner.json has no decisions for this rank count "
                            "(no nccl result with a known algorithm and protocol near it): NCCL tunes itself");
  if (ar_serving_tuner_lib(lib, sizeof lib))
    return json_pack("{s:s, s:s}", "deploy", "none", "why", "libarbench-tuner.so is neither in this build tree nor "
                     "installed (build it: ninja -C build; or set ARBENCH_TUNER_PLUGIN)");
  json_object_set_new(sg->env, "NCCL_TUNER_PLUGIN", json_string(lib));
  json_object_set_new(sg->env, "ARBENCH_TUNER_FILE", json_string(file));
  return json_pack("{s:s, s:s, s:s, s:i, s:b, s:i}", "deploy", "tuner plugin", "plugin", lib, "file", file,
                   "group_ranks", nranks, "exact", exact, "ranges", nranges);
}

/* Which arbench configurations stood for which engine path. */
static json_t *paths_json(const struct ar_sgroup *sg, char *measured) {
  json_t *out = json_array();
  for (int p = 0; p < AR_SP_COUNT; p++) {
    json_t *l = labels_of(sg->g, sg->cols, p);
    measured[p] = json_array_size(l) > 0;
    if (measured[p]) json_array_append_new(out, json_pack("{s:s, s:o}", "path", ar_spath_name(p), "configs", l));
    else json_decref(l);
  }
  return out;
}

/* The NCCL the custom allreduce was compared with, and whether it is the one the engine runs. */
static json_t *baseline_json(const struct ar_sgroup *sg) {
  const struct ar_runas *ra = ar_runas_find(sg->e->name), *used = ar_runas_find(sg->as);
  char note[900];
  int own = !strcmp(sg->as, sg->e->name), fair = own || (!ra->nvars && (!used || !used->nvars));
  if (own) snprintf(note, sizeof note, "measured with arbench run --as %s: %s's NCCL/CUDA environment (%s)",
                    sg->as, sg->e->label, ra->source);
  else if (fair) snprintf(note, sizeof note, "%s sets no NCCL or CUDA variable: NCCL as arbench ran it%s%s is %s's "
                          "(%s)", sg->e->label, used ? " with --as " : "", used ? used->engine : "", sg->e->label,
                          ra->note);
  else {
    int n = snprintf(note, sizeof note, "NCCL as arbench ran it; %s runs it with", sg->e->label);
    for (int i = 0; i < ra->nvars && n > 0 && (size_t)n < sizeof note; i++)
      n += snprintf(note + n, sizeof note - (size_t)n, "%s %s=%s%s", i ? "," : "", ra->vars[i].name, ra->vars[i].value,
                    ra->vars[i].force ? "" : " (unless set)");
    if (n > 0 && (size_t)n < sizeof note)
      snprintf(note + n, sizeof note - (size_t)n, ": measure that baseline with arbench run --as %s", sg->e->name);
  }
  char *nccl = calloc((size_t)sg->g->ncfg + 1, 1);
  for (int c = 0; nccl && c < sg->g->ncfg; c++) nccl[c] = sg->cols[c];
  json_t *j = json_pack("{s:o, s:o, s:b, s:s}", "as", *sg->as ? json_string(sg->as) : json_null(), "configs",
                        nccl ? labels_of(sg->g, nccl, AR_SP_NCCL) : json_array(), "fair", fair, "note", note);
  free(nccl);
  return j;
}

static json_t *basis_json(const struct ar_sgroup *sg) {
  int from = -1, to = -1, count = 0;
  for (int s = 0; s < sg->g->nsize; s++) {
    int any = 0;
    for (int c = 0; c < sg->g->ncfg; c++) any |= sg->cols[c] && !isnan(ar_grid_p50(sg->g, s, c));
    if (!any) continue;
    if (from < 0) from = s;
    to = s;
    count++;
  }
  const struct ar_serving_engine *e = sg->e;
  return json_pack("{s:o, s:I, s:I, s:i, s:f, s:s, s:[s, s, s, s]}", "configurations", labels_of(sg->g, sg->cols, -1),
                   "min_bytes", (json_int_t)(from >= 0 ? sg->g->size[from] : 0), "max_bytes",
                   (json_int_t)(to >= 0 ? sg->g->size[to] : 0), "sizes", count, "margin", sg->nz->margin,
                   "engine_source", e->source, "rules", e->cap_source, e->pcie_source, e->world_source,
                   e->algo_source);
}

/* The custom allreduce's part: thresholds.json's crossover, the engine's own, custom_allreduce and what follows. */
static void custom_part(struct ar_sgroup *sg, json_t *grp) {
  json_t *t = ar_tune_custom_group(sg->g, "gpu", sg->cols, sg->nz), *u = engine_decision(sg);
  decide_custom(sg, t, u);
  json_t *tmax = t ? json_incref(json_object_get(t, "custom_max_bytes")) : json_null();
  json_t *umax = u ? json_incref(json_object_get(u, "custom_max_bytes")) : json_null();
  json_object_set_new(grp, "custom_allreduce", u ? json_boolean(sg->custom) : json_null());
  json_object_set_new(grp, "custom_max_bytes", tmax);
  json_object_set_new(grp, "custom_max_tokens", json_is_integer(tmax) ? ar_serving_tokens(sg, json_integer_value(tmax))
                                                                      : json_null());
  json_object_set_new(grp, "engine_custom_max_bytes", umax);
  json_object_set_new(grp, "decisions", u ? json_incref(json_object_get(u, "use")) : json_array());
  if (!t || !u)
    json_object_set_new(grp, "undecided",
                        json_string(!t ? "no custom allreduce (p2p-*, symm) measured against NCCL in this group (with "
                                         "the same run --as as its NCCL): measure p2p-oneshot, p2p-twoshot and nccl"
                                       : "the engine's kernels (p2p-oneshot, p2p-twoshot) were not measured against "
                                         "NCCL: measure them"));
  json_decref(t);
  json_decref(u);
}

/* The run --as value whose columns make engine e's group: its own when measured; else none (NCCL as arbench runs
 * it); else another engine's whose set is empty (the same environment). */
static const char *pick_as(const struct ar_grid *g, const struct ar_serving_engine *e) {
  json_t *as = ar_tune_as_values(g);
  const char *pick = NULL;
  for (int pass = 0; pass < 3 && !pick; pass++)
    for (size_t i = 0; i < json_array_size(as) && !pick; i++) {
      const char *v = json_string_value(json_array_get(as, i));
      const struct ar_runas *ra = ar_runas_find(v);
      if (pass == 0 && !strcmp(v, e->name)) pick = e->name;
      else if (pass == 1 && !*v) pick = "";
      else if (pass == 2 && ra && !ra->nvars) pick = ra->engine;
    }
  json_decref(as);
  return pick ? pick : "";
}

json_t *ar_serving_group(const struct ar_grid *g, json_t *runs, const struct ar_serving_engine *e,
                         const struct ar_serving_opts *so, const struct ar_noise *nz) {
  struct ar_sgroup sg = {.g = g, .runs = runs, .e = e, .so = so, .nz = nz, .as = pick_as(g, e)};
  sg.cols = ar_tune_as_columns(g, sg.as);
  sg.compared = calloc((size_t)g->nsize + 1, 1);
  if (!sg.cols || !sg.compared) {
    free(sg.cols);
    free(sg.compared);
    return NULL;
  }
  for (int c = 0; c < g->ncfg; c++) sg.cols[c] = (char)(sg.cols[c] && ar_serving_column(g, runs, c));
  sg.nvlink = interconnect(g, sg.cols);
  capability(g, runs, sg.cols, sg.cc, sizeof sg.cc);
  sg.flags = json_array();
  sg.env = json_object();
  sg.patch = json_array();
  json_t *grp = json_pack("{s:i, s:s, s:s, s:i, s:s, s:s}", "ranks", g->ranks, "dtype", g->dtype, "placement",
                          g->placement, "nodes", g->nodes, "interconnect",
                          sg.nvlink == 1 ? "nvlink" : sg.nvlink == 0 ? "pcie" : "unknown (taken as PCIe)", "cc", sg.cc);
  custom_part(&sg, grp);
  ar_serving_fusion(&sg);
  json_t *nccl = nccl_deploy(&sg);
  char measured[AR_SP_COUNT];
  json_t *paths = paths_json(&sg, measured);
  json_object_set_new(grp, "flags", sg.flags);
  json_object_set_new(grp, "env", sg.env);
  json_object_set_new(grp, "command", ar_serving_command(&sg));
  json_object_set_new(grp, "needs_patch", sg.patch);
  json_object_set_new(grp, "engine_runs", json_string(sg.runs_text));
  json_object_set_new(grp, "paths", paths);
  if (sg.fusion) json_object_set_new(grp, "fusion", sg.fusion);
  int nv = nccl_version(g, runs, sg.cols);
  json_object_set_new(grp, "options", ar_serving_options(e, g->ranks, g->nodes, g->dtype, sg.nvlink == 1, measured, nv));
  json_t *symm = nccl_symmetric_json(nv, sg.nvlink);
  if (symm) json_object_set_new(grp, "nccl_symmetric", symm);
  json_object_set_new(grp, "nccl", nccl);
  json_object_set_new(grp, "baseline", baseline_json(&sg));
  json_object_set_new(grp, "basis", basis_json(&sg));
  free(sg.cols);
  free(sg.compared);
  return grp;
}
