/* serving_files.c — DIR/serving.json and DIR/ENGINE.sh: the groups of every engine asked for, the mapping, what
 * was left out and why; each .sh exports exactly its group's env and prints the command line with its flags. */
#include "analysis/serving_priv.h"
#include "ar.h"
#include "ar_config.h"
#include "backend.h"
#include "results.h"
#include "sweep/plan.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <errno.h>

int ar_serving_tuner_lib(char *out, size_t len) {
  const char *env = getenv("ARBENCH_TUNER_PLUGIN"), *const tries[] = {AR_TUNER_LIB_BUILD, AR_TUNER_LIB_INSTALLED};
  if (env && *env) return access(env, R_OK) ? -1 : (snprintf(out, len, "%s", env), 0);
  for (int i = 0; i < 2; i++)
    if (!access(tries[i], R_OK)) return snprintf(out, len, "%s", tries[i]), 0;
  return -1;
}

json_t *ar_serving_command(const struct ar_sgroup *sg) {
  char cmd[600];
  int n = snprintf(cmd, sizeof cmd, "%s %s %d", sg->e->serve, sg->e->tp_flag, sg->g->ranks);
  for (size_t i = 0; i < json_array_size(sg->flags) && n > 0 && (size_t)n < sizeof cmd; i++)
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, " %s", json_string_value(json_array_get(sg->flags, i)));
  return json_string(cmd);
}

/* ---- serving.json ---- */

static void exclude(json_t *out, const char *label, const char *why) {
  for (size_t i = 0; i < json_array_size(out); i++)
    if (!strcmp(ar_rec_str(json_array_get(out, i), "config", ""), label)) return;
  json_array_append_new(out, json_pack("{s:s, s:s}", "config", label, "why", why));
}

/* Why a configuration of grid k is in no group; NULL when it is in one. */
static const char *left_out(const struct ar_grid *g, int n, const int *idx, int m, int k, int c, json_t *runs) {
  int in = 0;
  for (int i = 0; i < m; i++) in |= idx[i] == k;
  if (ar_spath_of(g[k].cfgrec[c]) < 0) return "not a GPU allreduce: no serving engine runs it";
  if (ar_rec_standin(runs, g[k].cfgrec[c]))
    return "measured on the CPU stand-in of CUDA (its run's stack has \"standin\"): its times are not GPU numbers";
  if (!ar_grid_eligible(&g[k], c)) return g[k].unsafe[c] ? g[k].unsafe[c] : "a model prediction, not a measurement";
  if (strcmp(g[k].op, "sum")) return "the engines' tensor-parallel allreduce is a sum";
  (void)n;
  return in ? NULL : "in-place: the out-of-place results of the same ranks and dtype make the group";
}

static json_t *excluded_json(const struct ar_grid *g, int n, const int *idx, int m, json_t *runs) {
  json_t *out = json_array();
  for (int k = 0; k < n; k++)
    for (int c = 0; c < g[k].ncfg; c++) {
      const char *why = left_out(g, n, idx, m, k, c, runs);
      if (why) exclude(out, g[k].cfg[c], why);
    }
  return out;
}

/* Why there is no group at all. */
static const char *none_why(const struct ar_grid *g, int n, json_t *runs) {
  int standin = 0;
  for (int k = 0; k < n; k++)
    for (int c = 0; c < g[k].ncfg; c++) standin |= ar_spath_of(g[k].cfgrec[c]) >= 0 && ar_rec_standin(runs, g[k].cfgrec[c]);
  if (standin) return "no GPU results: the GPU backends ran on the CPU stand-in of CUDA only, whose times are not GPU "
                      "numbers; measure on the GPUs the engine serves on";
  return "no GPU results: the files hold host backends only (mpi, shm-*), and serving engines allreduce on GPUs; "
         "measure nccl and p2p-* on the GPUs the engine serves on";
}

static json_t *serving_json(const struct ar_serving_opts *so, const struct ar_grid *g, int n, json_t *runs, char **files,
                            int nfiles, const struct ar_noise *nz, int *ngroups) {
  int *idx = calloc((size_t)n + 1, sizeof *idx), m = idx ? ar_serving_grids(g, n, runs, idx) : 0;
  json_t *engines = json_object(), *jf = json_array(), *src = json_object();
  for (int i = 0; i < nfiles; i++) json_array_append_new(jf, json_string(files[i]));
  *ngroups = m;
  for (int i = 0; i < so->nengines; i++) {
    const struct ar_serving_engine *e = ar_serving_engine_find(so->engines[i]);
    json_t *arr = json_array();
    for (int k = 0; k < m; k++) {
      json_t *grp = ar_serving_group(&g[idx[k]], runs, e, so, nz);
      if (grp) json_array_append_new(arr, grp);
    }
    json_object_set_new(engines, e->name, arr);
    json_object_set_new(src, e->name, json_string(e->source));
  }
  json_t *j = json_pack(
      "{s:s, s:i, s:s, s:o, s:o, s:s, s:o, s:o, s:o}", "schema", "arbench.serving", "version", 1, "generated_by",
      "arbench tune", "files", jf, "hidden", so->hidden ? json_integer(so->hidden) : json_null(), "rule",
      "One group per engine and (ranks, dtype) measured on GPUs. custom_max_bytes: thresholds.json's (the gpu group "
      "of the same run --as value): the largest measured size up to which, at every measured size, the pick of one "
      "decision over every custom allreduce and NCCL configuration is a custom allreduce. engine_custom_max_bytes: the "
      "same decision over the engine's own kernels (p2p-oneshot: one-stage, p2p-twoshot: two-stage) and NCCL, which "
      "sets custom_allreduce, flags and env. needs_patch: what the engine cannot be told from outside, with the value "
      "arbench would put there. options: engine paths arbench did not measure, to try, never measured settings. The "
      "baseline is NCCL as the engine runs it when measured with arbench run --as ENGINE (else it says it is not).",
      "engines", engines, "engine_sources", src, "mapping", ar_spath_table());
  json_object_set_new(j, "excluded", excluded_json(g, n, idx, m, runs));
  if (!m) json_object_set_new(j, "none", json_string(none_why(g, n, runs)));
  free(idx);
  return j;
}

/* ---- ENGINE.sh ---- */

static void sh_echo(FILE *f, const char *text, int to_stderr) {
  fputs("  echo ", f);
  ar_shell_quote(f, text);
  fputs(to_stderr ? " >&2\n" : "\n", f);
}

/* A path inside the settings' folder dir is written relative to where the script lies when sourced, so the
 * folder works wherever it is copied (the serving box, no build tree): "$__arbench_dir/NAME". */
static void sh_value(FILE *f, const char *value, const char *dir) {
  size_t n = strlen(dir);
  if (*dir && !strncmp(value, dir, n) && value[n] == '/' && !strchr(value + n + 1, '/') &&
      !strpbrk(value + n + 1, "\"$`\\")) {
    fprintf(f, "\"$__arbench_dir/%s\"", value + n + 1);
    return;
  }
  ar_shell_quote(f, value);
}

static void sh_group(FILE *f, const struct ar_serving_engine *e, json_t *grp, const char *dir) {
  char line[1400];
  const char *key;
  json_t *v;
  json_object_foreach(json_object_get(grp, "env"), key, v) {
    fprintf(f, "  export %s=", key);
    sh_value(f, json_string_value(v), dir);
    fputc('\n', f);
  }
  json_t *p;
  size_t i;
  json_array_foreach(json_object_get(grp, "needs_patch"), i, p) {
    snprintf(line, sizeof line, "# %s TP %d %s needs a patch: %s (serving.json: needs_patch)", e->label,
             (int)json_integer_value(json_object_get(grp, "ranks")), ar_rec_str(grp, "dtype", ""), ar_rec_str(p, "what", ""));
    sh_echo(f, line, 1);
  }
  sh_echo(f, ar_rec_str(grp, "command", ""), 0);
}

static void sh_groups_list(json_t *arr, char *buf, size_t len) {
  size_t n = 0;
  json_t *grp;
  size_t i;
  buf[0] = 0;
  json_array_foreach(arr, i, grp) {
    int k = snprintf(buf + n, n < len ? len - n : 0, "%s%d %s", i ? ", " : "", (int)json_integer_value(json_object_get(grp, "ranks")),
                     ar_rec_str(grp, "dtype", ""));
    if (k > 0) n += (size_t)k;
  }
}

/* The dtypes of TP ranks in arr: how many, and the one when only one. */
static int dtypes_of(json_t *arr, int ranks, const char **one) {
  int k = 0;
  json_t *grp;
  size_t i;
  json_array_foreach(arr, i, grp) if (json_integer_value(json_object_get(grp, "ranks")) == ranks) {
    k++;
    *one = ar_rec_str(grp, "dtype", "");
  }
  return k;
}

static void write_sh(FILE *f, const struct ar_serving_engine *e, json_t *j, const char *where) {
  json_t *arr = json_object_get(json_object_get(j, "engines"), e->name), *grp;
  char list[2000], msg[2400], dir[PATH_MAX];
  if (!realpath(where, dir)) snprintf(dir, sizeof dir, "%s", where);
  sh_groups_list(arr, list, sizeof list);
  fprintf(f, "# %s settings written by arbench tune (%s/serving.json holds the same, with why; docs/serving.md)\n"
             "# Source it in the shell that starts %s:  source %s.sh TP [DTYPE]\n"
             "# It exports that group's env (nothing else) and prints the command line with its flags; what %s\n"
             "# cannot be told without a patch is said on stderr. Rules read at %s.\n# groups: %s\n",
          e->label, dir, e->label, e->name, e->label, e->source, *list ? list : "none");
  fprintf(f, "(return 0 2>/dev/null) || { echo '%s.sh: source it: source %s.sh TP [DTYPE]' >&2; exit 2; }\n", e->name,
          e->name);
  fprintf(f, "__arbench_dir=$(cd \"$(dirname \"${BASH_SOURCE[0]:-$0}\")\" && pwd) # this folder, wherever it was copied\n");
  if (json_object_get(j, "none")) {
    snprintf(msg, sizeof msg, "%s.sh: no settings: %s", e->name, ar_rec_str(j, "none", ""));
    fputs("echo ", f);
    ar_shell_quote(f, msg);
    fputs(" >&2\nreturn 1\n", f);
    return;
  }
  fprintf(f, "case \"${1:-}/${2:-}\" in\n");
  size_t i;
  json_array_foreach(arr, i, grp) {
    int ranks = (int)json_integer_value(json_object_get(grp, "ranks"));
    const char *dt = ar_rec_str(grp, "dtype", ""), *one = NULL;
    int alone = dtypes_of(arr, ranks, &one) == 1;
    if (alone) fprintf(f, "%d/%s | %d/)\n", ranks, dt, ranks); /* the dtype may be left out */
    else fprintf(f, "%d/%s)\n", ranks, dt);
    sh_group(f, e, grp, dir);
    fputs("  ;;\n", f);
  }
  snprintf(msg, sizeof msg, "%s.sh: no group for that TP and dtype (groups: %s; give the dtype where a TP has several)",
           e->name, list);
  fputs("*)\n", f);
  sh_echo(f, msg, 1);
  fputs("  return 2\n  ;;\nesac\n", f);
}

static int write_file(const char *path, json_t *j, const struct ar_serving_engine *e, const char *dir) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "arbench tune: cannot write '%s': %s\n", path, strerror(errno));
    return -AR_EINVAL;
  }
  if (e) write_sh(f, e, j, dir);
  else {
    json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    fputc('\n', f);
  }
  if (fclose(f)) {
    fprintf(stderr, "arbench tune: cannot write '%s': %s\n", path, strerror(errno));
    return -AR_EINVAL;
  }
  return 0;
}

/* The groups that deploy the tuner plugin get the copy tune puts beside the settings (DIR/libarbench-tuner.so):
 * the folder is what goes to the serving box, the build tree is not. 0, or -AR_EINVAL with one line said. */
static int copy_plugin(json_t *j, const char *where, int *copied) {
  char dir[PATH_MAX], dst[PATH_MAX + 32], src[PATH_MAX] = "";
  if (!realpath(where, dir)) return 0;
  snprintf(dst, sizeof dst, "%s/libarbench-tuner.so", dir);
  const char *name;
  json_t *arr, *grp;
  size_t i;
  json_object_foreach(json_object_get(j, "engines"), name, arr) json_array_foreach(arr, i, grp) {
    json_t *env = json_object_get(grp, "env");
    const char *lib = json_string_value(json_object_get(env, "NCCL_TUNER_PLUGIN"));
    if (!lib) continue;
    if (!*copied) {
      snprintf(src, sizeof src, "%s", lib);
      FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
      char buf[65536];
      size_t k;
      int bad = !in || !out;
      while (!bad && (k = fread(buf, 1, sizeof buf, in)) > 0) bad = fwrite(buf, 1, k, out) != k;
      bad |= (in && ferror(in)) || (out && fclose(out));
      if (in) fclose(in);
      if (bad || chmod(dst, 0755)) {
        fprintf(stderr, "arbench tune: cannot copy the tuner plugin %s to %s: %s\n", src, dst, strerror(errno));
        return -AR_EINVAL;
      }
      *copied = 1;
    }
    json_object_set_new(env, "NCCL_TUNER_PLUGIN", json_string(dst));
    json_t *nccl = json_object_get(grp, "nccl");
    if (json_object_get(nccl, "plugin")) json_object_set_new(nccl, "plugin", json_string(dst));
  }
  return 0;
}

int ar_serving_write(const struct ar_serving_opts *so, const struct ar_grid *g, int n, json_t *runs, char **files,
                     int nfiles, const struct ar_noise *nz) {
  int ngroups;
  char path[1200];
  json_t *j = serving_json(so, g, n, runs, files, nfiles, nz, &ngroups);
  int copied = 0;
  if (j && copy_plugin(j, so->dir, &copied)) {
    json_decref(j);
    return -AR_EINVAL;
  }
  snprintf(path, sizeof path, "%s/serving.json", so->dir);
  int rc = j ? write_file(path, j, NULL, so->dir) : -AR_EINVAL;
  for (int i = 0; !rc && i < so->nengines; i++) {
    snprintf(path, sizeof path, "%s/%s.sh", so->dir, so->engines[i]);
    rc = write_file(path, j, ar_serving_engine_find(so->engines[i]), so->dir);
  }
  if (!rc) fprintf(stderr, "arbench tune: wrote serving-engine settings %s/serving.json and the .sh files%s\n", so->dir,
                   copied ? ", with libarbench-tuner.so beside them" : "");
  if (!rc && !ngroups) fprintf(stderr, "arbench tune: note: serving.json: %s\n", ar_rec_str(j, "none", ""));
  json_decref(j);
  return rc ? rc : !ngroups;
}
