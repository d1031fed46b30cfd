/* plan.c — expand a sweep configuration into launches: cartesian product of the axes minus
 * --exclude rules, in-process nccl axes folded into backend variants, each launch's argv and env. */
#include "opts.h"
#include "sweep/plan.h"
#include <stdlib.h>
#include <string.h>

struct rule { /* a point is excluded when axes[axis[k]] has value index value[k] for every k */
  int n;
  int axis[AR_SWEEP_MAX_AXES], value[AR_SWEEP_MAX_AXES];
};

static int find_axis(const struct ar_sweep_cfg *c, const char *name, size_t n) {
  for (int i = 0; i < c->naxes; i++)
    if (strlen(c->axes[i].name) == n && !strncmp(c->axes[i].name, name, n)) return i;
  return -1;
}

static void list_values(const struct ar_axis *a, char *buf, size_t len) {
  size_t k = 0;
  buf[0] = 0;
  for (int v = 0; v < a->values.n && k < len; v++)
    k += (size_t)snprintf(buf + k, len - k, "%s%s", v ? "," : "", a->values.v[v]);
}

static int parse_condition(const struct ar_sweep_cfg *c, const char *text, const char *cond, size_t n,
                           struct rule *r, char *err, size_t len) {
  const char *eq = memchr(cond, '=', n);
  if (!eq || eq == cond) {
    snprintf(err, len, "bad --exclude '%s': '%.*s' is not NAME=VALUE", text, (int)n, cond);
    return -AR_EINVAL;
  }
  int ax = find_axis(c, cond, (size_t)(eq - cond));
  if (ax < 0) {
    snprintf(err, len, "bad --exclude '%s': '%.*s' is not an axis (np or an --env name)", text,
             (int)(eq - cond), cond);
    return -AR_EINVAL;
  }
  for (int k = 0; k < r->n; k++)
    if (r->axis[k] == ax) {
      snprintf(err, len, "bad --exclude '%s': %s appears twice (use one --exclude per value)", text, c->axes[ax].name);
      return -AR_EINVAL;
    }
  size_t vn = n - (size_t)(eq + 1 - cond);
  const struct ar_axis *a = &c->axes[ax];
  for (int v = 0; v < a->values.n; v++)
    if (strlen(a->values.v[v]) == vn && !strncmp(a->values.v[v], eq + 1, vn)) {
      r->axis[r->n] = ax;
      r->value[r->n++] = v;
      return 0;
    }
  char vals[512];
  list_values(a, vals, sizeof vals);
  snprintf(err, len, "bad --exclude '%s': '%.*s' is not a value of %s (values: %s)", text, (int)vn, eq + 1,
           a->name, vals);
  return -AR_EINVAL;
}

static int parse_rule(const struct ar_sweep_cfg *c, const char *text, struct rule *r, char *err, size_t len) {
  memset(r, 0, sizeof *r);
  if (!*text) {
    snprintf(err, len, "empty --exclude (expected NAME=V[,NAME=V...])");
    return -AR_EINVAL;
  }
  for (const char *p = text;;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    int rc = parse_condition(c, text, p, n, r, err, len);
    if (rc) return rc;
    if (!comma) return 0;
    p = comma + 1;
  }
}

static int excluded(const struct rule *rules, int nrules, const int *idx) {
  for (int i = 0; i < nrules; i++) {
    int all = 1;
    for (int k = 0; k < rules[i].n && all; k++) all = idx[rules[i].axis[k]] == rules[i].value[k];
    if (all) return 1;
  }
  return 0;
}

/* Advance the odometer over the axes of one class (in-process or not), last axis fastest.
 * Returns 0 when it wrapped around. */
static int next_index(const struct ar_sweep_cfg *c, int *idx, int inproc) {
  for (int i = c->naxes - 1; i >= 0; i--) {
    if ((c->axes[i].kind == AR_AXIS_NCCL) != inproc) continue;
    if (++idx[i] < c->axes[i].values.n) return 1;
    idx[i] = 0;
  }
  return 0;
}

static int forward_x(const struct ar_sweep_cfg *c) {
  if (c->forward != AR_FORWARD_AUTO) return c->forward == AR_FORWARD_X;
  const char *prog = strrchr(c->launcher.v[0], '/');
  prog = prog ? prog + 1 : c->launcher.v[0];
  return !strcmp(prog, "mpirun") || !strcmp(prog, "mpiexec") || !strcmp(prog, "orterun");
}

/* The launcher's rank-count flag: Slurm's srun takes -n (--ntasks), the MPI launchers -np. */
static const char *np_flag(const struct ar_sweep_cfg *c) {
  const char *prog = strrchr(c->launcher.v[0], '/');
  return !strcmp(prog ? prog + 1 : c->launcher.v[0], "srun") ? "-n" : "-np";
}

/* A growable text buffer. */
struct text {
  char *s;
  size_t n, cap;
};

static int text_add(struct text *t, const char *s) {
  size_t k = strlen(s);
  if (t->n + k + 1 > t->cap) {
    size_t cap = (t->n + k + 1) * 2;
    char *ns = realloc(t->s, cap);
    if (!ns) return -AR_ERUNTIME;
    t->s = ns;
    t->cap = cap;
  }
  memcpy(t->s + t->n, s, k + 1);
  t->n += k;
  return 0;
}

int ar_spec_is_nccl(const char *spec) { return !strncmp(spec, "nccl", 4) && (!spec[4] || spec[4] == ':'); }

/* The base nccl variants must not already set a key an axis sweeps. */
static int check_variant_keys(const struct ar_sweep_cfg *c, char *err, size_t len) {
  for (int b = 0; b < c->backends.n; b++) {
    const char *spec = c->backends.v[b];
    if (!ar_spec_is_nccl(spec) || !spec[4]) continue;
    for (int i = 1; i < c->naxes; i++) {
      if (c->axes[i].kind != AR_AXIS_NCCL) continue;
      char key[32];
      snprintf(key, sizeof key, "%s=", c->axes[i].key);
      for (const char *p = spec + 5; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, key, strlen(key))) {
          snprintf(err, len, "--env %s sweeps %s, which backend '%s' already sets", c->axes[i].name, key, spec);
          return -AR_EINVAL;
        }
    }
  }
  return 0;
}

/* One nccl spec with the in-process axis values at idx appended. */
static int add_variant(struct text *t, const struct ar_sweep_cfg *c, const char *base, const int *idx) {
  int rc = text_add(t, base);
  int first = !strchr(base, ':');
  for (int i = 1; !rc && i < c->naxes; i++) {
    if (c->axes[i].kind != AR_AXIS_NCCL) continue;
    rc = text_add(t, first ? ":" : ",") || text_add(t, c->axes[i].key) || text_add(t, "=") ||
         text_add(t, c->axes[i].values.v[idx[i]]);
    first = 0;
  }
  return rc ? -AR_ERUNTIME : 0;
}

static int has_inproc(const struct ar_sweep_cfg *c) {
  for (int i = 0; i < c->naxes; i++)
    if (c->axes[i].kind == AR_AXIS_NCCL) return 1;
  return 0;
}

/* The --backend value (NULL: none given) of the launch whose launch-axis indices are in idx, and
 * how many full points it covers (0: all excluded). In-process axes multiply the nccl specs. */
static int backend_spec(const struct ar_sweep_cfg *c, const struct rule *rules, int nrules, const int *idx,
                        char **out, int *nvariants) {
  int sub[AR_SWEEP_MAX_AXES], inproc = has_inproc(c), rc = 0;
  memcpy(sub, idx, sizeof sub);
  *out = NULL;
  *nvariants = inproc ? 0 : !excluded(rules, nrules, idx);
  if (inproc) /* count the surviving variants first: they are the same for every nccl spec */
    do *nvariants += !excluded(rules, nrules, sub);
    while (next_index(c, sub, 1));
  if (!*nvariants || !c->backends.n) return 0;
  struct text t = {0};
  for (int b = 0; b < c->backends.n && !rc; b++) {
    if (!inproc || !ar_spec_is_nccl(c->backends.v[b])) {
      rc = (t.n && text_add(&t, ";")) || text_add(&t, c->backends.v[b]) ? -AR_ERUNTIME : 0;
      continue;
    }
    do {
      if (excluded(rules, nrules, sub)) continue;
      rc = t.n && text_add(&t, ";") ? -AR_ERUNTIME : add_variant(&t, c, c->backends.v[b], sub);
    } while (!rc && next_index(c, sub, 1));
  }
  if (rc) free(t.s);
  else *out = t.s;
  return rc;
}

static int push_all(struct ar_strv *dst, const struct ar_strv *src) {
  for (int i = 0; i < src->n; i++)
    if (ar_strv_push(dst, src->v[i])) return -AR_ERUNTIME;
  return 0;
}

/* Is entry (NAME=V) a variable the launch sets itself: an --env axis or one of its assignments? */
static int is_axis_var(const struct ar_sweep_cfg *c, const struct ar_launch *l, const char *entry) {
  const char *eq = strchr(entry, '=');
  size_t n = eq ? (size_t)(eq - entry) : strlen(entry);
  int ax = find_axis(c, entry, n);
  if (ax > 0 && c->axes[ax].kind == AR_AXIS_ENV) return 1;
  for (int i = 0; i < l->assign.n; i++)
    if (!strncmp(l->assign.v[i], entry, n) && l->assign.v[i][n] == '=') return 1;
  return 0;
}

static const char *env_value(char **envp, const char *name) {
  size_t n = strlen(name);
  for (char **e = envp; *e; e++)
    if (!strncmp(*e, name, n) && (*e)[n] == '=') return *e + n + 1;
  return NULL;
}

static int assign(struct ar_launch *l, const char *name, const char *v, const char *rest) {
  size_t n = strlen(name) + strlen(v) + (rest ? strlen(rest) + 1 : 0) + 2;
  char *kv = malloc(n);
  if (!kv) return -AR_ERUNTIME;
  snprintf(kv, n, "%s=%s%s%s", name, v, rest ? ":" : "", rest ? rest : "");
  int rc = ar_strv_push(&l->assign, kv);
  free(kv);
  return rc;
}

/* An --nccl value: its library preloaded and its directory searched first, in every rank. */
static int assign_nccl(struct ar_launch *l, const char *lib, char **envp) {
  char *dir = strdup(lib), *slash = dir ? strrchr(dir, '/') : NULL;
  if (!slash) return free(dir), -AR_ERUNTIME;
  *slash = 0;
  const char *pre = env_value(envp, "LD_PRELOAD"), *path = env_value(envp, "LD_LIBRARY_PATH");
  int rc = assign(l, "LD_PRELOAD", lib, pre && *pre ? pre : NULL) ||
           assign(l, "LD_LIBRARY_PATH", dir, path && *path ? path : NULL) ? -AR_ERUNTIME : 0;
  free(dir);
  return rc;
}

static int build_env(const struct ar_sweep_cfg *c, struct ar_launch *l, char **envp, bool root) {
  int rc = 0;
  int have_root = 0, have_confirm = 0;
  for (char **e = envp; *e && !rc; e++) {
    have_root |= !strncmp(*e, "OMPI_ALLOW_RUN_AS_ROOT=", 23);
    have_confirm |= !strncmp(*e, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=", 31);
    if (!is_axis_var(c, l, *e)) rc = ar_strv_push(&l->env, *e);
  }
  if (!rc) rc = push_all(&l->env, &l->assign);
  if (!rc && root && !have_root) rc = ar_strv_push(&l->preset, "OMPI_ALLOW_RUN_AS_ROOT=1");
  if (!rc && root && !have_confirm) rc = ar_strv_push(&l->preset, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
  return rc ? rc : push_all(&l->env, &l->preset);
}

/* Point object, label and NAME=V assignments of the launch axes at idx. */
static int describe_point(const struct ar_sweep_cfg *c, struct ar_launch *l, const int *idx, char **envp) {
  struct text label = {0};
  int rc = 0;
  l->point = json_object();
  for (int i = 0; i < c->naxes && !rc; i++) {
    const struct ar_axis *a = &c->axes[i];
    if (a->kind == AR_AXIS_NCCL) continue;
    const char *v = a->values.v[idx[i]];
    if (a->kind == AR_AXIS_NP) json_object_set_new(l->point, a->name, json_integer(atoi(v)));
    else json_object_set_new(l->point, a->name, json_string(v));
    rc = (label.n && text_add(&label, " ")) || text_add(&label, a->name) || text_add(&label, "=") ||
         text_add(&label, v) ? -AR_ERUNTIME : 0;
    if (!rc && a->kind == AR_AXIS_ENV) {
      size_t n = strlen(a->name) + strlen(v) + 2;
      char *kv = malloc(n);
      snprintf(kv, n, "%s=%s", a->name, v);
      rc = ar_strv_push(&l->assign, kv);
      free(kv);
    }
    if (!rc && a->kind == AR_AXIS_NCCL_LIB) rc = assign_nccl(l, a->paths.v[idx[i]], envp);
  }
  l->label = label.s;
  return rc;
}

/* The arbench binary of a launch: its stack's (--stacks), else the sweep's own. */
static const char *launch_exe(const struct ar_sweep_cfg *c, const int *idx) {
  for (int i = 0; i < c->naxes; i++)
    if (c->axes[i].kind == AR_AXIS_STACK) return c->axes[i].paths.v[idx[i]];
  return c->exe;
}

static int build_argv(const struct ar_sweep_cfg *c, struct ar_launch *l, const int *idx, char *err, size_t len) {
  struct ar_strv run = {0};
  int rc = push_all(&run, &c->run_args);
  if (!rc && l->backend) rc = ar_strv_push(&run, "--backend") || ar_strv_push(&run, l->backend);
  l->args = json_array();
  for (int i = 0; i < run.n; i++) json_array_append_new(l->args, json_string(run.v[i]));
  char *point = json_dumps(l->point, JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (!rc) rc = push_all(&l->argv, &c->launcher);
  if (!rc) rc = ar_strv_push(&l->argv, np_flag(c)) || ar_strv_push(&l->argv, c->axes[0].values.v[idx[0]]);
  for (int i = 0; !rc && forward_x(c) && i < l->assign.n; i++)
    rc = ar_strv_push(&l->argv, "-x") || ar_strv_push(&l->argv, l->assign.v[i]);
  if (!rc) rc = ar_strv_push(&l->argv, launch_exe(c, idx)) || ar_strv_push(&l->argv, "run") || push_all(&l->argv, &run);
  if (!rc) rc = ar_strv_push(&l->argv, "--point") || ar_strv_push(&l->argv, point) ||
                ar_strv_push(&l->argv, "-J") || ar_strv_push(&l->argv, c->json);
  if (!rc) { /* the run parser has the last word on the run options of this launch */
    rc = ar_strv_push(&run, "--point") || ar_strv_push(&run, point) ? -AR_ERUNTIME : 0;
    char **v = calloc((size_t)run.n + 2, sizeof *v);
    struct ar_opts *o = malloc(sizeof *o);
    char e[AR_ERRLEN] = "";
    if (!v || !o) rc = -AR_ERUNTIME;
    for (int i = 0; !rc && i < run.n; i++) v[i + 1] = run.v[i];
    if (!rc) {
      v[0] = "run";
      ar_opts_defaults(o);
      if (ar_opts_parse(o, run.n + 1, v, e, sizeof e)) {
        snprintf(err, len, "point %.200s%s: run options: %s", point, strlen(point) > 200 ? "..." : "", e);
        rc = -AR_EINVAL;
      }
    }
    free(v);
    free(o);
  }
  free(point);
  ar_strv_free(&run);
  return rc;
}

static int add_launch(struct ar_plan *p, const struct ar_sweep_cfg *c, const int *idx, char *spec, int nvariants,
                      char **envp, bool root, char *err, size_t len) {
  struct ar_launch *nl = realloc(p->l, sizeof *nl * (size_t)(p->n + 1));
  if (!nl) return -AR_ERUNTIME;
  p->l = nl;
  struct ar_launch *l = &p->l[p->n++];
  memset(l, 0, sizeof *l);
  l->backend = spec;
  l->nvariants = nvariants;
  p->npoints += nvariants;
  int rc = describe_point(c, l, idx, envp);
  if (!rc) rc = build_env(c, l, envp, root);
  return rc ? rc : build_argv(c, l, idx, err, len);
}

static int count_points(const struct ar_sweep_cfg *c, char *err, size_t len) {
  double total = 1;
  for (int i = 0; i < c->naxes; i++) total *= c->axes[i].values.n;
  if (total > AR_SWEEP_MAX_POINTS) {
    snprintf(err, len, "the axes make %.0f points, more than the %d allowed", total, AR_SWEEP_MAX_POINTS);
    return -AR_EINVAL;
  }
  return 0;
}

int ar_sweep_plan(const struct ar_sweep_cfg *c, char **envp, bool root, struct ar_plan *p, char *err, size_t len) {
  memset(p, 0, sizeof *p);
  int rc = count_points(c, err, len);
  if (!rc) rc = check_variant_keys(c, err, len);
  struct rule *rules = calloc((size_t)c->excludes.n + 1, sizeof *rules);
  if (!rules) rc = -AR_ERUNTIME;
  for (int i = 0; !rc && i < c->excludes.n; i++) rc = parse_rule(c, c->excludes.v[i], &rules[i], err, len);
  int idx[AR_SWEEP_MAX_AXES] = {0};
  do {
    if (rc) break;
    char *spec = NULL;
    int nvariants = 0;
    rc = backend_spec(c, rules, c->excludes.n, idx, &spec, &nvariants);
    if (!rc && nvariants) rc = add_launch(p, c, idx, spec, nvariants, envp, root, err, len);
    else free(spec);
  } while (!rc && next_index(c, idx, 0));
  free(rules);
  if (!rc && !p->n) {
    snprintf(err, len, "--exclude removes every point of the sweep");
    rc = -AR_EINVAL;
  }
  if (rc) ar_plan_free(p);
  return rc;
}

void ar_plan_free(struct ar_plan *p) {
  for (int i = 0; i < p->n; i++) {
    struct ar_launch *l = &p->l[i];
    json_decref(l->point);
    json_decref(l->args);
    free(l->label);
    free(l->backend);
    ar_strv_free(&l->argv);
    ar_strv_free(&l->env);
    ar_strv_free(&l->assign);
    ar_strv_free(&l->preset);
  }
  free(p->l);
  memset(p, 0, sizeof *p);
}

static void print_assign(FILE *f, const struct ar_strv *a) {
  for (int i = 0; i < a->n; i++) {
    const char *eq = strchr(a->v[i], '=');
    fprintf(f, "%.*s=", (int)(eq - a->v[i]), a->v[i]);
    if (eq[1]) ar_shell_quote(f, eq + 1);
    else fputs("''", f);
    fputc(' ', f);
  }
}

void ar_launch_print(FILE *f, const struct ar_launch *l) {
  print_assign(f, &l->preset);
  print_assign(f, &l->assign);
  for (int i = 0; i < l->argv.n; i++) {
    if (i) fputc(' ', f);
    ar_shell_quote(f, l->argv.v[i]);
  }
}

int ar_round_launch(int j, int n) {
  int i = j % n, odd = 0;
  for (unsigned round = (unsigned)(j / n); round; round &= round - 1) odd ^= 1; /* parity of its 1 bits */
  return odd ? n - 1 - i : i;
}
