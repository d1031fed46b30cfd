/* args.c — parse `arbench sweep` options into a sweep configuration: axes, exclusions, launcher and run
 * options (validated with the run parser). Help text: help.c; vectors: strv.c; --stacks/--nccl: stacks.c. */
#include "backend.h"
#include "ncclenv.h"
#include "opts.h"
#include "sweep/plan.h"
#include <ctype.h>
#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


void ar_sweep_cfg_free(struct ar_sweep_cfg *c) {
  for (int i = 0; i < c->naxes; i++) {
    free(c->axes[i].name);
    ar_strv_free(&c->axes[i].values);
    ar_strv_free(&c->axes[i].paths);
  }
  ar_strv_free(&c->excludes);
  ar_strv_free(&c->applies);
  json_decref(c->apply);
  ar_strv_free(&c->launcher);
  ar_strv_free(&c->run_args);
  ar_strv_free(&c->backends);
  ar_strv_free(&c->command);
  ar_strv_free(&c->warnings);
  free(c->json);
  free(c->exe);
  memset(c, 0, sizeof *c);
}

static int parse_np(struct ar_sweep_cfg *c, const char *list, char *err, size_t len) {
  struct ar_axis *a = &c->axes[0];
  if (a->values.n) {
    snprintf(err, len, "give --np once (with a list, e.g. --np 2,4,8)");
    return -AR_EINVAL;
  }
  int rc = ar_strv_split_list(list, "--np", &a->values, err, len);
  for (int i = 0; !rc && i < a->values.n; i++) {
    const char *v = a->values.v[i];
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (!isdigit((unsigned char)*v) || errno || *end || n < 1 || n > 1000000) {
      snprintf(err, len, "bad rank count '%s' in --np %s (expected integers from 1 to 1000000, e.g. 2,4,8)", v, list);
      rc = -AR_EINVAL;
    } else if (v[0] == '0') {
      snprintf(err, len, "bad rank count '%s' in --np %s (no leading zeros)", v, list);
      rc = -AR_EINVAL;
    }
  }
  return rc;
}

static int valid_name(const char *s, size_t n) {
  if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
  for (size_t i = 1; i < n; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
  return 1;
}

static int parse_env(struct ar_sweep_cfg *c, const char *spec, char *err, size_t len) {
  const char *eq = strchr(spec, '=');
  if (!eq) {
    snprintf(err, len, "bad --env '%s' (expected NAME=V1,V2,...)", spec);
    return -AR_EINVAL;
  }
  size_t n = (size_t)(eq - spec);
  if (!valid_name(spec, n)) {
    snprintf(err, len, "bad variable name '%.*s' in --env %s (expected letters, digits and _)", (int)n, spec, spec);
    return -AR_EINVAL;
  }
  if (n == 2 && !strncmp(spec, "np", 2)) {
    snprintf(err, len, "--env np=... is not allowed: np is the rank-count axis (use --np)");
    return -AR_EINVAL;
  }
  for (int i = 1; i < c->naxes; i++)
    if (strlen(c->axes[i].name) == n && !strncmp(c->axes[i].name, spec, n)) {
      snprintf(err, len, "--env %.*s given twice (give all its values in one list)", (int)n, spec);
      return -AR_EINVAL;
    }
  if (c->naxes == AR_SWEEP_MAX_AXES) {
    snprintf(err, len, "more than %d --env axes", AR_SWEEP_MAX_AXES - 1);
    return -AR_EINVAL;
  }
  struct ar_axis *a = &c->axes[c->naxes++];
  a->kind = AR_AXIS_ENV;
  a->name = strndup(spec, n);
  char what[300];
  snprintf(what, sizeof what, "--env %s", a->name);
  return a->name ? ar_strv_split_list(eq + 1, what, &a->values, err, len) : -AR_ERUNTIME;
}

static int parse_seconds(const char *s, double *out, char *err, size_t len) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= 0 && v <= 1e7)) {
    snprintf(err, len, "bad value '%s' for --point-timeout (expected seconds from 0 to 10000000, 0 = no limit)", s);
    return -AR_EINVAL;
  }
  *out = v;
  return 0;
}

static int parse_forward(const char *s, enum ar_forward *out, char *err, size_t len) {
  if (!strcmp(s, "auto")) *out = AR_FORWARD_AUTO;
  else if (!strcmp(s, "x")) *out = AR_FORWARD_X;
  else if (!strcmp(s, "none")) *out = AR_FORWARD_NONE;
  else {
    snprintf(err, len, "bad value '%s' for --forward-env (expected auto, x or none)", s);
    return -AR_EINVAL;
  }
  return 0;
}

/* Parse run options with the run parser: {"run", args...}. */
static int run_parse(struct ar_opts *o, const struct ar_strv *args, char *err, size_t len) {
  char **v = calloc((size_t)args->n + 2, sizeof *v);
  if (!v) return -AR_ERUNTIME;
  v[0] = "run";
  for (int i = 0; i < args->n; i++) v[i + 1] = args->v[i]; /* getopt may permute v, not args */
  ar_opts_defaults(o);
  char e[AR_ERRLEN] = "";
  int rc = ar_opts_parse(o, args->n + 1, v, e, sizeof e);
  free(v);
  if (rc == 1) snprintf(err, len, "--help is not a run option of a sweep (see arbench run --help)");
  else if (rc) snprintf(err, len, "run options: %s", e);
  return rc ? -AR_EINVAL : 0;
}

static int push_backends(struct ar_sweep_cfg *c, const struct ar_opts *o, char *err, size_t len) {
  for (int i = 0; i < o->nbackends; i++) {
    const struct ar_backend *be;
    const char *variant;
    if (ar_backend_resolve(o->backends[i], &be, &variant, err, len)) return -AR_EINVAL;
    if (ar_strv_push(&c->backends, o->backends[i])) return -AR_ERUNTIME;
  }
  return 0;
}

/* Check the run options, move their --backend into c->backends, forbid -J and --point there. */
static int take_run_options(struct ar_sweep_cfg *c, int argc, char **argv, const char *sweep_backend,
                            struct ar_opts *o, char *err, size_t len) {
  struct ar_strv all = {0};
  int rc = 0;
  for (int i = 0; i < argc && !rc; i++) rc = ar_strv_push(&all, argv[i]);
  if (!rc) rc = run_parse(o, &all, err, len);
  if (!rc && *o->json) {
    snprintf(err, len, "-J belongs to the sweep (before --), not to the run options");
    rc = -AR_EINVAL;
  }
  if (!rc && *o->point) {
    snprintf(err, len, "--point is set by the sweep for each point; remove it from the run options");
    rc = -AR_EINVAL;
  }
  if (!rc && o->nbackends && sweep_backend) {
    snprintf(err, len, "give --backend once, before -- or after it, not both");
    rc = -AR_EINVAL;
  }
  if (!rc) rc = push_backends(c, o, err, len);
  for (int i = 0; !rc && i < all.n; i++) {
    if (!strcmp(all.v[i], "--backend")) i++;
    else if (strncmp(all.v[i], "--backend=", 10)) rc = ar_strv_push(&c->run_args, all.v[i]);
  }
  ar_strv_free(&all);
  if (!rc && (rc = run_parse(o, &c->run_args, err, len)) == 0 && o->nbackends) {
    snprintf(err, len, "run options: write --backend in full (not abbreviated)");
    rc = -AR_EINVAL;
  }
  if (!rc && sweep_backend) {
    struct ar_strv one = {0};
    rc = ar_strv_push(&one, "--backend") || ar_strv_push(&one, sweep_backend) ? -AR_ERUNTIME : 0;
    if (!rc && run_parse(o, &one, err, len)) {
      snprintf(err, len, "bad --backend '%s' (expected e.g. mpi,shm-oneshot or 'nccl:algo=Ring;nccl')", sweep_backend);
      rc = -AR_EINVAL;
    }
    if (!rc) rc = push_backends(c, o, err, len);
    ar_strv_free(&one);
  }
  return rc;
}


/* NCCL_ALGO / NCCL_PROTO / NCCL_CTAS become in-process variant keys when a launch runs nccl. */
static int classify_axes(struct ar_sweep_cfg *c, char *err, size_t len) {
  static const char *const names[][2] = {{"NCCL_ALGO", "algo"}, {"NCCL_PROTO", "proto"}, {"NCCL_CTAS", "ctas"}};
  int has_nccl = 0, any = 0;
  for (int i = 0; i < c->backends.n; i++) has_nccl |= ar_spec_is_nccl(c->backends.v[i]);
  for (int i = 1; i < c->naxes; i++) {
    struct ar_axis *a = &c->axes[i];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
      if (strcmp(a->name, names[k][0])) continue;
      if (!has_nccl && c->backends.n && k < 2) break; /* no nccl in this launch: a plain env axis */
      if (!has_nccl && c->backends.n) {
        snprintf(err, len, "NCCL_CTAS is a pseudo-axis for nccl variants, but --backend has no nccl");
        return -AR_EINVAL;
      }
      a->kind = AR_AXIS_NCCL;
      a->key = names[k][1];
      any = 1;
    }
    for (int v = 0; a->kind == AR_AXIS_NCCL && v < a->values.n; v++) {
      const char *s = a->values.v[v];
      if (strpbrk(s, ";:=")) {
        snprintf(err, len, "bad value '%s' for %s (';', ':' and '=' cannot appear in a variant)", s, a->name);
        return -AR_EINVAL;
      }
      char *end;
      long n = strtol(s, &end, 10);
      if (!strcmp(a->key, "ctas") && (*end || n < 1 || n > 64 || !isdigit((unsigned char)*s))) {
        snprintf(err, len, "bad value '%s' for NCCL_CTAS (expected integers from 1 to 64)", s);
        return -AR_EINVAL;
      }
    }
  }
  if (any && !c->backends.n && ar_strv_push(&c->backends, "nccl")) return -AR_ERUNTIME;
  return 0;
}

static void keep_warning(void *ctx, const char *line) {
  struct ar_sweep_cfg *c = ctx;
  if (!c->warn_oom) c->warn_oom = ar_strv_push(&c->warnings, line) != 0;
}

/* NCCL_VERSION_CODE of the libnccl at path (its ncclGetVersion; the encoding before 2.9, X*1000+Y*100+Z,
 * converted), 0 when it cannot be loaded or asked. */
static int lib_version(const char *path) {
  void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  if (!h) return 0;
  int (*get)(int *) = (int (*)(int *))dlsym(h, "ncclGetVersion");
  int v = 0;
  if (!get || get(&v) || v < 0) v = 0;
  dlclose(h);
  return v > 0 && v < 10000 ? v / 1000 * 10000 + v % 1000 / 100 * 100 + v % 100 : v;
}

struct install {
  struct ar_sweep_cfg *c;
  const char *prefix;
};

static void keep_install_warning(void *ctx, const char *line) {
  const struct install *x = ctx;
  char l[1400];
  snprintf(l, sizeof l, "%s (--nccl %.300s)", line, x->prefix);
  keep_warning(x->c, l);
}

/* specs (NAME=VALUE) checked: names against every release (a near miss refused), then the names each --nccl
 * install does not read at its version (one warning per install), or without --nccl, the newest release read. */
static int check_specs(struct ar_sweep_cfg *c, char *const *specs, char *err, size_t len) {
  const struct ar_axis *libs = NULL;
  for (int k = 1; k < c->naxes; k++)
    if (c->axes[k].kind == AR_AXIS_NCCL_LIB) libs = &c->axes[k];
  int rc = ar_ncclenv_check_env(specs, libs ? -1 : 0, c->allow_unknown_env, keep_warning, c, err, len);
  for (int i = 0; !rc && libs && i < libs->values.n; i++) {
    struct install x = {c, libs->values.v[i]};
    ar_ncclenv_warn_version(specs, lib_version(libs->paths.v[i]), keep_install_warning, &x);
  }
  if (!rc && c->warn_oom) rc = -AR_ERUNTIME;
  return rc;
}

/* The --env axes' NCCL_* names against what NCCL's releases read (ncclenv.h), NAME=V1,V2 as given: a near miss
 * of a real name is an error naming it (unless --allow-unknown-env), other unknown or removed names one warning
 * each in c->warnings. NCCL_CTAS is the sweep's own pseudo-axis (min = max CTAs of the nccl backend). */
static int check_env_names(struct ar_sweep_cfg *c, char *err, size_t len) {
  struct ar_strv specs = {0};
  int rc = 0;
  for (int i = 1; i < c->naxes && !rc; i++) {
    const struct ar_axis *a = &c->axes[i];
    if (a->kind != AR_AXIS_ENV || !strcmp(a->name, "NCCL_CTAS")) continue;
    char spec[1024];
    size_t k = (size_t)snprintf(spec, sizeof spec, "%s=", a->name);
    for (int v = 0; v < a->values.n && k < sizeof spec; v++)
      k += (size_t)snprintf(spec + k, sizeof spec - k, "%s%s", v ? "," : "", a->values.v[v]);
    rc = ar_strv_push(&specs, spec) ? -AR_ERUNTIME : 0;
  }
  if (!rc) rc = check_specs(c, specs.v, err, len);
  ar_strv_free(&specs);
  return rc;
}

int ar_sweep_env_check(struct ar_sweep_cfg *c, char *const *envp, char *err, size_t len) {
  struct ar_strv own = {0};
  int rc = 0;
  for (int i = 0; envp && envp[i] && !rc; i++) {
    const char *e = envp[i], *eq = strchr(e, '=');
    if (strncmp(e, "NCCL_", 5) || !eq) continue;
    int axis = 0;
    for (int k = 1; k < c->naxes && !axis; k++)
      axis = strlen(c->axes[k].name) == (size_t)(eq - e) && !strncmp(c->axes[k].name, e, (size_t)(eq - e));
    if (!axis) rc = ar_strv_push(&own, e) ? -AR_ERUNTIME : 0;
  }
  if (!rc) rc = check_specs(c, own.v, err, len);
  ar_strv_free(&own);
  return rc;
}

static int set_json(struct ar_sweep_cfg *c, const char *path, const char *cwd, char *err, size_t len) {
  if (!*path) {
    snprintf(err, len, "empty -J file name");
    return -AR_EINVAL;
  }
  if (!strcmp(path, "-")) {
    snprintf(err, len, "-J - is not allowed for a sweep (it needs a file to append to and resume from)");
    return -AR_EINVAL;
  }
  free(c->json);
  size_t n = strlen(cwd) + strlen(path) + 2;
  c->json = malloc(n);
  if (!c->json) return -AR_ERUNTIME;
  if (path[0] == '/') snprintf(c->json, n, "%s", path);
  else snprintf(c->json, n, "%s/%s", cwd, path);
  return 0;
}

enum { O_NP = 1000, O_ENV, O_BACKEND, O_EXCLUDE, O_LAUNCHER, O_FORWARD, O_TIMEOUT, O_RESUME, O_RETRY, O_DRY, O_REPEAT,
       O_STACKS, O_NCCL, O_APPLIES, O_ALLOW_ENV };

static const struct option sweep_opts[] = {
  {"np", required_argument, 0, O_NP},
  {"env", required_argument, 0, O_ENV},
  {"backend", required_argument, 0, O_BACKEND},
  {"exclude", required_argument, 0, O_EXCLUDE},
  {"applies", required_argument, 0, O_APPLIES},
  {"launcher", required_argument, 0, O_LAUNCHER},
  {"forward-env", required_argument, 0, O_FORWARD},
  {"point-timeout", required_argument, 0, O_TIMEOUT},
  {"resume", no_argument, 0, O_RESUME},
  {"retry-failed", no_argument, 0, O_RETRY},
  {"dry-run", no_argument, 0, O_DRY},
  {"repeat", required_argument, 0, O_REPEAT},
  {"stacks", required_argument, 0, O_STACKS},
  {"nccl", required_argument, 0, O_NCCL},
  {"allow-unknown-env", no_argument, 0, O_ALLOW_ENV},
  {"verbose", no_argument, 0, 'v'},
  {"json", required_argument, 0, 'J'},
  {"help", no_argument, 0, 'h'},
  {0, 0, 0, 0},
};

/* --repeat N: 1 to 1000 fresh launches of every point. */
static int parse_repeat(const char *s, int *out, char *err, size_t len) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end || v < 1 || v > 1000) {
    snprintf(err, len, "bad value '%s' for --repeat (expected an integer from 1 to 1000)", s);
    return -AR_EINVAL;
  }
  *out = (int)v;
  return 0;
}

/* --stacks and --nccl given once each; their axes come after every --env axis. */
struct late_axes {
  const char *stacks, *nccl;
};

static int once(const char **slot, const char *val, const char *what, char *err, size_t len) {
  if (*slot) {
    snprintf(err, len, "give %s once (with a list, e.g. %s a,b,c)", what, what);
    return -AR_EINVAL;
  }
  *slot = val;
  return 0;
}

static int parse_options(struct ar_sweep_cfg *c, int argc, char **argv, const char *cwd,
                         const char **backend, const char **launcher, struct late_axes *late, char *err, size_t len) {
  int ch, rc = 0;
  opterr = 0;
  optind = 0; /* glibc: 0 also forgets a half-read "-xyz" cluster of an earlier parse (fuzz_opts) */
  while (!rc && (ch = getopt_long(argc, argv, "+:vJ:h", sweep_opts, NULL)) != -1) {
    switch (ch) {
    case O_NP: rc = parse_np(c, optarg, err, len); break;
    case O_ENV: rc = parse_env(c, optarg, err, len); break;
    case O_BACKEND:
      if (*backend) snprintf(err, len, "give --backend once (separate backends with ',' or ';')");
      rc = *backend ? -AR_EINVAL : 0;
      *backend = optarg;
      break;
    case O_EXCLUDE: rc = ar_strv_push(&c->excludes, optarg); break;
    case O_APPLIES: rc = ar_strv_push(&c->applies, optarg); break;
    case O_LAUNCHER: *launcher = optarg; break;
    case O_FORWARD: rc = parse_forward(optarg, &c->forward, err, len); break;
    case O_TIMEOUT: rc = parse_seconds(optarg, &c->point_timeout, err, len); break;
    case O_RESUME: c->resume = true; break;
    case O_RETRY: c->resume = c->retry_failed = true; break;
    case O_DRY: c->dry_run = true; break;
    case O_ALLOW_ENV: c->allow_unknown_env = true; break;
    case O_REPEAT: rc = parse_repeat(optarg, &c->repeat, err, len); break;
    case O_STACKS: rc = once(&late->stacks, optarg, "--stacks", err, len); break;
    case O_NCCL: rc = once(&late->nccl, optarg, "--nccl", err, len); break;
    case 'v': c->verbose = true; break;
    case 'J': rc = set_json(c, optarg, cwd, err, len); break;
    case 'h': return 1;
    case ':': snprintf(err, len, "option '%s' needs a value", argv[optind - 1]); return -AR_EINVAL;
    default:
      snprintf(err, len, "unknown sweep option '%s' (run options go after --; see arbench sweep --help)",
               argv[optind - 1]);
      return -AR_EINVAL;
    }
  }
  if (!rc && optind < argc && strcmp(argv[optind - 1], "--")) {
    snprintf(err, len, "unexpected argument '%s' (run options go after --; see arbench sweep --help)", argv[optind]);
    rc = -AR_EINVAL;
  }
  return rc;
}

int ar_sweep_parse(struct ar_sweep_cfg *c, int argc, char **argv, const char *exe, const char *cwd,
                   char *err, size_t len) {
  memset(c, 0, sizeof *c);
  c->naxes = 1;
  c->axes[0].kind = AR_AXIS_NP;
  c->point_timeout = AR_SWEEP_POINT_TIMEOUT;
  c->repeat = 1;
  c->exe = strdup(exe);
  c->axes[0].name = strdup("np");
  int rc = c->exe && c->axes[0].name ? 0 : -AR_ERUNTIME;
  for (int i = 0; !rc && i < argc; i++) rc = ar_strv_push(&c->command, argv[i]);
  const char *backend = NULL, *launcher = "mpirun";
  struct late_axes late = {0};
  if (!rc) rc = parse_options(c, argc, argv, cwd, &backend, &launcher, &late, err, len);
  if (!rc && late.nccl) rc = ar_sweep_add_nccl(c, late.nccl, cwd, err, len);
  if (!rc && late.stacks) rc = ar_sweep_add_stacks(c, late.stacks, cwd, err, len);
  if (rc) return rc;
  if (!c->axes[0].values.n) {
    snprintf(err, len, "missing --np LIST (rank counts, e.g. --np 2,4,8)");
    return -AR_EINVAL;
  }
  if (!c->json) {
    snprintf(err, len, "missing -J FILE.jsonl (the results file every point appends to)");
    return -AR_EINVAL;
  }
  if ((rc = ar_split_words(launcher, &c->launcher, err, len))) return rc;
  if (!c->launcher.n) {
    snprintf(err, len, "empty --launcher (expected a command, e.g. \"mpirun --bind-to none\")");
    return -AR_EINVAL;
  }
  struct ar_opts *o = malloc(sizeof *o);
  if (!o) return -AR_ERUNTIME;
  rc = take_run_options(c, argc - optind, argv + optind, backend, o, err, len);
  if (!rc && o->allow_unknown_env) c->allow_unknown_env = true; /* given as a run option, after -- */
  free(o);
  /* Checks of the axes' variables, in this order: first their spelling (a misspelled NCCL_ variable is
   * named as such, before anything else reads the axes), then whether an axis applies to any chosen
   * backend (a misspelled name would otherwise read as an axis that applies to nothing). */
  if (!rc) rc = check_env_names(c, err, len);
  if (!rc) rc = classify_axes(c, err, len);
  if (!rc) rc = ar_sweep_applies(c, &c->apply, err, len);
  if (!rc) rc = ar_sweep_applies_check(c, c->apply, err, len);
  return rc;
}
