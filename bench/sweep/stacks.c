/* stacks.c — the sweep's --stacks and --nccl axes, whose values name files: an arbench binary per stack
 * (stacks/NAME/ or a path) and a libnccl per NCCL install, checked before anything runs. */
#include "sweep/plan.h"
#include "ar.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int ar_sweep_add_stacks(struct ar_sweep_cfg *c, const char *list, const char *cwd, char *err, size_t len) {
  struct ar_strv items = {0};
  int rc = ar_strv_split_list(list, "--stacks", &items, err, len);
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

int ar_sweep_add_nccl(struct ar_sweep_cfg *c, const char *list, const char *cwd, char *err, size_t len) {
  struct ar_strv items = {0};
  int rc = ar_strv_split_list(list, "--nccl", &items, err, len);
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
