/* sweep_args.c — parse `arbench sweep` options into a sweep configuration: axes, exclusions,
 * launcher, run options (validated with the run parser) and the --help text. */
#include "backend.h"
#include "opts.h"
#include "sweep/plan.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_POINT_TIMEOUT 3600.0

void ar_sweep_usage(FILE *f) {
  fprintf(f,
    "usage: arbench sweep --np LIST [--env NAME=V1,V2,...]... [options] -J FILE.jsonl -- [run options]\n"
    "  Runs `arbench run` once per point of the cartesian product of the axes, minus exclusions,\n"
    "  appending every record (each tagged with its \"point\") to one JSON Lines file.\n"
    "  --np LIST             rank counts, e.g. 2,4,8 (required; point key \"np\")\n"
    "  --env NAME=V1,V2,...  an environment-variable axis (repeatable; any variable)\n"
    "                        NCCL_ALGO, NCCL_PROTO and the pseudo-variable NCCL_CTAS (min = max CTAs)\n"
    "                        are re-read per communicator: when the launch runs the nccl backend they\n"
    "                        become in-process variants (nccl:algo=..,proto=..,ctas=..) of ONE launch;\n"
    "                        without --backend they imply --backend nccl. Other axes: one launch per value.\n"
    "  --nccl PREFIX[,PREFIX...]  an NCCL axis (point key \"nccl\"): the same point once per NCCL\n"
    "                        install, its PREFIX/lib/libnccl.so.2 (or lib64, or libnccl.so*) preloaded\n"
    "                        (LD_PRELOAD and LD_LIBRARY_PATH, passed with -x); the run record's stack\n"
    "                        says the version loaded. No rebuild: NCCL is a shared library\n"
    "  --stacks LIST         a stack axis (point key \"stack\", the last axis): each launch runs that\n"
    "                        stack's own arbench. An item is NAME (the build directory build-NAME beside\n"
    "                        this arbench's, as scripts/stack.sh NAME makes it), NAME=PATH or a PATH\n"
    "                        (an arbench binary or its build directory; NAME = directory without build-).\n"
    "                        Stacks alternate point by point (a b c a b c ..., repeats too), so drift\n"
    "                        of the machine is spread over all stacks, not read as a difference\n"
    "  --backend LIST        backends of every launch (same syntax as arbench run; or give it after --)\n"
    "  --exclude NAME=V[,NAME=V...]  drop the points where every NAME has value V (repeatable;\n"
    "                        NAME is np, an --env name, nccl or stack, V one of its values)\n"
    "  --launcher CMD        launcher command line (default: mpirun); the sweep appends -np N,\n"
    "                        then -x NAME=V per env axis (see --forward-env), then the arbench run\n"
    "                        command. Add --oversubscribe here (or set OMPI_MCA_rmaps_base_oversubscribe=1)\n"
    "                        for more ranks than cores; as root the sweep sets OMPI_ALLOW_RUN_AS_ROOT=1\n"
    "                        and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 unless they are set\n"
    "  --forward-env MODE    how axis variables reach the ranks: x (Open MPI -x NAME=V), none (the\n"
    "                        launcher forwards its environment: MPICH, srun), auto (default: x when the\n"
    "                        launcher program is mpirun, mpiexec or orterun, else none). The launcher's\n"
    "                        own environment always holds the axis values.\n"
    "  --point-timeout SECS  kill a launch running longer than SECS (default %g, 0 = no limit)\n"
    "  --resume              skip the points FILE already has a `point` record for (any status)\n"
    "  --retry-failed        with --resume, rerun points whose status is not done (implies --resume)\n"
    "  --dry-run             print the launches (one per line, shell-quoted) and run nothing\n"
    "  --repeat N            launch every point N times, fresh processes, in N rounds over all points\n"
    "                        (interleaved: an axis that selects a stack alternates between them), so\n"
    "                        compare/tune/table resample runs and see run-to-run drift (default 1;\n"
    "                        each point record says its \"repeat\", 0-based; --resume counts them)\n"
    "  -v, --verbose         pass the launches' stdout and stderr through\n"
    "  -J, --json FILE       results file (required), appended\n"
    "Records the sweep adds: `sweep` (axes, counts), one `point` per finished launch (status done,\n"
    "failed, timeout or crashed; run_ids of its runs) and an `error` per failed launch (status,\n"
    "exit_status or signal, stderr_tail). A record carrying a \"point\" is from a complete launch only\n"
    "if a `point` record with status \"done\" lists its run_id; Ctrl-C (SIGINT/SIGTERM) kills the\n"
    "running launch, removes its partial records, and exits 130.\n"
    "Exit status: 0 every point done, 1 some point failed, 2 bad input, 130 interrupted.\n"
    "Example: arbench sweep --np 2,4 --env OMPI_MCA_coll_tuned_use_dynamic_rules=1 \\\n"
    "           --env OMPI_MCA_coll_tuned_allreduce_algorithm=1,2,3,4,5,6 -J s.jsonl -- --backend mpi -e 1M\n",
    DEFAULT_POINT_TIMEOUT);
}

int ar_strv_push(struct ar_strv *s, const char *str) {
  if (s->n + 2 > s->cap) {
    int cap = s->cap ? 2 * s->cap : 8;
    char **v = realloc(s->v, sizeof *v * (size_t)cap);
    if (!v) return -AR_ERUNTIME;
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n] = strdup(str);
  if (!s->v[s->n]) return -AR_ERUNTIME;
  s->v[++s->n] = NULL;
  return 0;
}

void ar_strv_free(struct ar_strv *s) {
  for (int i = 0; i < s->n; i++) free(s->v[i]);
  free(s->v);
  memset(s, 0, sizeof *s);
}

void ar_sweep_cfg_free(struct ar_sweep_cfg *c) {
  for (int i = 0; i < c->naxes; i++) {
    free(c->axes[i].name);
    ar_strv_free(&c->axes[i].values);
    ar_strv_free(&c->axes[i].paths);
  }
  ar_strv_free(&c->excludes);
  ar_strv_free(&c->launcher);
  ar_strv_free(&c->run_args);
  ar_strv_free(&c->backends);
  ar_strv_free(&c->command);
  free(c->json);
  free(c->exe);
  memset(c, 0, sizeof *c);
}

int ar_split_words(const char *s, struct ar_strv *out, char *err, size_t len) {
  size_t cap = strlen(s) + 1;
  char *word = malloc(cap);
  if (!word) return -AR_ERUNTIME;
  size_t n = 0;
  int inword = 0, rc = 0;
  for (const char *p = s;; p++) {
    char c = *p;
    if (!c || isspace((unsigned char)c)) {
      if (inword) {
        word[n] = 0;
        if ((rc = ar_strv_push(out, word))) break;
      }
      inword = 0;
      n = 0;
      if (!c) break;
      continue;
    }
    inword = 1;
    if (c == '\\' && p[1]) {
      word[n++] = *++p;
    } else if (c == '\'' || c == '"') {
      const char *q = p + 1;
      for (; *q && *q != c; q++) {
        if (c == '"' && *q == '\\' && (q[1] == '"' || q[1] == '\\')) q++;
        word[n++] = *q;
      }
      if (!*q) {
        snprintf(err, len, "unterminated %c quote in launcher '%s'", c, s);
        rc = -AR_EINVAL;
        break;
      }
      p = q;
    } else {
      word[n++] = c;
    }
  }
  free(word);
  return rc;
}

void ar_shell_quote(FILE *f, const char *s) {
  int plain = *s != 0;
  for (const char *p = s; *p && plain; p++)
    plain = isalnum((unsigned char)*p) || strchr("_@%+=:,./-", *p);
  if (plain) {
    fputs(s, f);
    return;
  }
  fputc('\'', f);
  for (const char *p = s; *p; p++) {
    if (*p == '\'') fputs("'\\''", f);
    else fputc(*p, f);
  }
  fputc('\'', f);
}

/* Split "a,b,c" into values; empty items and repeats are errors. */
static int split_values(const char *list, const char *what, struct ar_strv *out, char *err, size_t len) {
  if (!*list) {
    snprintf(err, len, "empty value list for %s (expected V1,V2,...)", what);
    return -AR_EINVAL;
  }
  const char *p = list;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    if (!n) {
      snprintf(err, len, "empty value in '%s' for %s (expected V1,V2,...)", list, what);
      return -AR_EINVAL;
    }
    char *v = strndup(p, n);
    if (!v) return -AR_ERUNTIME;
    for (int i = 0; i < out->n; i++)
      if (!strcmp(out->v[i], v)) {
        snprintf(err, len, "value '%s' repeated in '%s' for %s", v, list, what);
        free(v);
        return -AR_EINVAL;
      }
    int rc = ar_strv_push(out, v);
    free(v);
    if (rc) return rc;
    if (!comma) return 0;
    p = comma + 1;
  }
}

static int parse_np(struct ar_sweep_cfg *c, const char *list, char *err, size_t len) {
  struct ar_axis *a = &c->axes[0];
  if (a->values.n) {
    snprintf(err, len, "give --np once (with a list, e.g. --np 2,4,8)");
    return -AR_EINVAL;
  }
  int rc = split_values(list, "--np", &a->values, err, len);
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
  return a->name ? split_values(eq + 1, what, &a->values, err, len) : -AR_ERUNTIME;
}

/* ---- --stacks and --nccl: launch axes whose values name files ---- */

static int is_exec_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static char *join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s%s%s", a, *a && a[strlen(a) - 1] != '/' ? "/" : "", b);
  return s;
}

/* The directory holding the build directories: the parent of this arbench's directory. */
static char *stacks_root(const char *exe) {
  char *root = strdup(exe);
  for (int k = 0; root && k < 2; k++) {
    char *slash = strrchr(root, '/');
    if (!slash) break;
    *slash = 0;
  }
  return root;
}

/* "cu128, cu130": the build-NAME/arbench binaries under root, for the unknown-stack message. */
static void known_stacks(const char *root, char *buf, size_t len) {
  size_t k = 0;
  buf[0] = 0;
  DIR *d = root ? opendir(root) : NULL;
  struct dirent *e;
  while (d && (e = readdir(d)) && k < len) {
    if (strncmp(e->d_name, "build-", 6) || !e->d_name[6]) continue;
    char rel[300];
    snprintf(rel, sizeof rel, "%s/arbench", e->d_name);
    char *path = join(root, rel);
    if (path && is_exec_file(path)) k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", e->d_name + 6);
    free(path);
  }
  if (d) closedir(d);
  if (!buf[0]) snprintf(buf, len, "none");
}

static int valid_stack_name(const char *s, size_t n) {
  if (!n) return 0;
  for (size_t i = 0; i < n; i++)
    if (!(isalnum((unsigned char)s[i]) || strchr("._-", s[i]))) return 0;
  return 1;
}

/* PATH: an arbench binary, or a directory holding one; made absolute. NULL when neither. */
static char *stack_binary(const char *path, const char *cwd) {
  char *abs = path[0] == '/' ? strdup(path) : join(cwd, path);
  if (!abs || is_exec_file(abs)) return abs;
  char *inner = join(abs, "arbench");
  free(abs);
  if (inner && is_exec_file(inner)) return inner;
  free(inner);
  return NULL;
}

/* One --stacks item: NAME, NAME=PATH or PATH -> its name and binary. */
static int resolve_stack(const char *item, const char *exe, const char *cwd, char **name, char **bin, char *err,
                         size_t len) {
  const char *eq = strchr(item, '='), *path = eq ? eq + 1 : strchr(item, '/') ? item : NULL;
  *name = *bin = NULL;
  if (path) {
    if (eq) *name = strndup(item, (size_t)(eq - item));
    else { /* a path: the build directory's name without "build-" */
      char *b = stack_binary(path, cwd);
      char *dir = b ? strdup(b) : NULL, *slash = dir ? strrchr(dir, '/') : NULL;
      if (slash) *slash = 0;
      const char *base = dir && strrchr(dir, '/') ? strrchr(dir, '/') + 1 : "";
      *name = strdup(!strncmp(base, "build-", 6) && base[6] ? base + 6 : base);
      free(b);
      free(dir);
    }
    if (!*name) return -AR_ERUNTIME;
    *bin = stack_binary(path, cwd);
    if (!*bin) {
      snprintf(err, len, "bad --stacks item '%s': '%s' is not an arbench binary or a build directory holding one", item, path);
      return -AR_EINVAL;
    }
  } else {
    char *root = stacks_root(exe), rel[300];
    snprintf(rel, sizeof rel, "build-%s/arbench", item);
    *name = strdup(item);
    *bin = root && valid_stack_name(item, strlen(item)) ? join(root, rel) : NULL;
    if (!*bin || !is_exec_file(*bin)) {
      char known[512];
      known_stacks(root, known, sizeof known);
      snprintf(err, len, "unknown stack '%s' (known: %s; a stack NAME is build-NAME/arbench in %s, or give NAME=PATH)",
               item, known, root ? root : "?");
      free(root);
      return -AR_EINVAL;
    }
    free(root);
  }
  if (!valid_stack_name(*name, strlen(*name))) {
    snprintf(err, len, "bad stack name '%s' in --stacks item '%s' (expected letters, digits, '.', '_' and '-')", *name,
             item);
    return -AR_EINVAL;
  }
  return 0;
}

/* The library file of an NCCL prefix: PREFIX/lib or lib64, libnccl.so.2 first, else a libnccl.so*. */
static char *nccl_library(const char *prefix) {
  static const char *const dirs[] = {"lib", "lib64"};
  for (int d = 0; d < 2; d++) {
    char *dir = join(prefix, dirs[d]), *two = dir ? join(dir, "libnccl.so.2") : NULL;
    if (two && access(two, R_OK) == 0) return free(dir), two;
    free(two);
    DIR *dd = dir ? opendir(dir) : NULL;
    struct dirent *e;
    char *found = NULL;
    while (dd && !found && (e = readdir(dd)))
      if (!strncmp(e->d_name, "libnccl.so", 10)) found = join(dir, e->d_name);
    if (dd) closedir(dd);
    free(dir);
    if (found) return found;
  }
  return NULL;
}

static struct ar_axis *new_axis(struct ar_sweep_cfg *c, const char *name, enum ar_axis_kind kind, char *err,
                                size_t len) {
  for (int i = 1; i < c->naxes; i++)
    if (!strcmp(c->axes[i].name, name)) {
      snprintf(err, len, "--env %s clashes with the %s axis of --%s (rename the variable)", name, name,
               kind == AR_AXIS_STACK ? "stacks" : "nccl");
      return NULL;
    }
  if (c->naxes == AR_SWEEP_MAX_AXES) {
    snprintf(err, len, "more than %d axes", AR_SWEEP_MAX_AXES);
    return NULL;
  }
  struct ar_axis *a = &c->axes[c->naxes++];
  a->kind = kind;
  a->name = strdup(name);
  return a;
}

static int add_stacks(struct ar_sweep_cfg *c, const char *list, const char *cwd, char *err, size_t len) {
  struct ar_strv items = {0};
  int rc = split_values(list, "--stacks", &items, err, len);
  struct ar_axis *a = rc ? NULL : new_axis(c, "stack", AR_AXIS_STACK, err, len);
  if (!rc && !a) rc = -AR_EINVAL;
  for (int i = 0; !rc && i < items.n; i++) {
    char *name, *bin;
    rc = resolve_stack(items.v[i], c->exe, cwd, &name, &bin, err, len);
    for (int k = 0; !rc && k < a->values.n; k++)
      if (!strcmp(a->values.v[k], name)) {
        snprintf(err, len, "stack name '%s' given twice in --stacks %s", name, list);
        rc = -AR_EINVAL;
      }
    if (!rc) rc = ar_strv_push(&a->values, name) || ar_strv_push(&a->paths, bin) ? -AR_ERUNTIME : 0;
    free(name);
    free(bin);
  }
  ar_strv_free(&items);
  return rc;
}

static int add_nccl(struct ar_sweep_cfg *c, const char *list, const char *cwd, char *err, size_t len) {
  struct ar_strv items = {0};
  int rc = split_values(list, "--nccl", &items, err, len);
  struct ar_axis *a = rc ? NULL : new_axis(c, "nccl", AR_AXIS_NCCL_LIB, err, len);
  if (!rc && !a) rc = -AR_EINVAL;
  for (int i = 0; !rc && i < items.n; i++) {
    const char *p = items.v[i];
    char *abs = p[0] == '/' ? strdup(p) : join(cwd, p);
    size_t n = abs ? strlen(abs) : 0;
    while (n > 1 && abs[n - 1] == '/') abs[--n] = 0;
    char *lib = abs ? nccl_library(abs) : NULL;
    if (!abs) rc = -AR_ERUNTIME;
    else if (!lib) {
      snprintf(err, len, "bad --nccl prefix '%s': no %s/lib/libnccl.so* (expected an NCCL install prefix, e.g. .../site-packages/nvidia/nccl)",
               p, abs);
      rc = -AR_EINVAL;
    } else if (strchr(abs, ',') || strchr(abs, ':')) {
      snprintf(err, len, "bad --nccl prefix '%s': ',' and ':' cannot appear in it", p);
      rc = -AR_EINVAL;
    }
    for (int k = 0; !rc && k < a->values.n; k++)
      if (!strcmp(a->values.v[k], abs)) {
        snprintf(err, len, "NCCL prefix '%s' given twice in --nccl %s", abs, list);
        rc = -AR_EINVAL;
      }
    if (!rc) rc = ar_strv_push(&a->values, abs) || ar_strv_push(&a->paths, lib) ? -AR_ERUNTIME : 0;
    free(abs);
    free(lib);
  }
  ar_strv_free(&items);
  return rc;
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

static int is_nccl(const char *spec) { return !strncmp(spec, "nccl", 4) && (!spec[4] || spec[4] == ':'); }

/* NCCL_ALGO / NCCL_PROTO / NCCL_CTAS become in-process variant keys when a launch runs nccl. */
static int classify_axes(struct ar_sweep_cfg *c, char *err, size_t len) {
  static const char *const names[][2] = {{"NCCL_ALGO", "algo"}, {"NCCL_PROTO", "proto"}, {"NCCL_CTAS", "ctas"}};
  int has_nccl = 0, any = 0;
  for (int i = 0; i < c->backends.n; i++) has_nccl |= is_nccl(c->backends.v[i]);
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
       O_STACKS, O_NCCL };

static const struct option sweep_opts[] = {
  {"np", required_argument, 0, O_NP},
  {"env", required_argument, 0, O_ENV},
  {"backend", required_argument, 0, O_BACKEND},
  {"exclude", required_argument, 0, O_EXCLUDE},
  {"launcher", required_argument, 0, O_LAUNCHER},
  {"forward-env", required_argument, 0, O_FORWARD},
  {"point-timeout", required_argument, 0, O_TIMEOUT},
  {"resume", no_argument, 0, O_RESUME},
  {"retry-failed", no_argument, 0, O_RETRY},
  {"dry-run", no_argument, 0, O_DRY},
  {"repeat", required_argument, 0, O_REPEAT},
  {"stacks", required_argument, 0, O_STACKS},
  {"nccl", required_argument, 0, O_NCCL},
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
    case O_LAUNCHER: *launcher = optarg; break;
    case O_FORWARD: rc = parse_forward(optarg, &c->forward, err, len); break;
    case O_TIMEOUT: rc = parse_seconds(optarg, &c->point_timeout, err, len); break;
    case O_RESUME: c->resume = true; break;
    case O_RETRY: c->resume = c->retry_failed = true; break;
    case O_DRY: c->dry_run = true; break;
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
  c->point_timeout = DEFAULT_POINT_TIMEOUT;
  c->repeat = 1;
  c->exe = strdup(exe);
  c->axes[0].name = strdup("np");
  int rc = c->exe && c->axes[0].name ? 0 : -AR_ERUNTIME;
  for (int i = 0; !rc && i < argc; i++) rc = ar_strv_push(&c->command, argv[i]);
  const char *backend = NULL, *launcher = "mpirun";
  struct late_axes late = {0};
  if (!rc) rc = parse_options(c, argc, argv, cwd, &backend, &launcher, &late, err, len);
  if (!rc && late.nccl) rc = add_nccl(c, late.nccl, cwd, err, len);
  if (!rc && late.stacks) rc = add_stacks(c, late.stacks, cwd, err, len);
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
  free(o);
  return rc ? rc : classify_axes(c, err, len);
}
