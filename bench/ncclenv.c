/* ncclenv.c — check an NCCL_* name against the releases that read it (ncclenv_names.c): a near miss of a real
 * name is refused naming it, another unknown name or one the chosen NCCL does not read is one warning. */
#include "ncclenv.h"
#include "ar.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SUGGEST 3

static int by_name(const void *k, const void *e) {
  return strcmp((const char *)k, ((const struct ar_ncclenv_name *)e)->name);
}

const struct ar_ncclenv_name *ar_ncclenv_find(const char *name) {
  return bsearch(name, ar_ncclenv_names, (size_t)ar_ncclenv_nnames, sizeof ar_ncclenv_names[0], by_name);
}

void ar_ncclenv_version_str(int code, char *out, size_t len) {
  snprintf(out, len, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
}

/* Optimal string alignment distance (insertions, deletions, substitutions, adjacent swaps), capped at cap+1. */
static int distance(const char *a, const char *b, int cap) {
  size_t n = strlen(a), m = strlen(b);
  if ((n > m ? n - m : m - n) > (size_t)cap || n > 63 || m > 63) return cap + 1;
  int d[64][64];
  for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      int c = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + c;
      if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v) v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[n][m];
}

struct found {
  const char *v[MAX_SUGGEST];
  int n;
};

static void add(struct found *f, const char *name) {
  const struct ar_ncclenv_name *e = ar_ncclenv_find(name);
  if (!e || f->n == MAX_SUGGEST) return;
  for (int i = 0; i < f->n; i++)
    if (f->v[i] == e->name) return;
  f->v[f->n++] = e->name;
}

/* Words users write for the ones NCCL reads (whole '_'-separated words of the name after NCCL_). */
static const char *const confused[][2] = {
  {"PROTOCOL", "PROTO"},   {"PROTOCOLS", "PROTO"},   {"PROTOS", "PROTO"},     {"ALGORITHM", "ALGO"},
  {"ALGORITHMS", "ALGO"},  {"ALGOS", "ALGO"},        {"DISABLED", "DISABLE"}, {"ENABLED", "ENABLE"},
  {"DISABLE", "ENABLE"},   {"ENABLE", "DISABLE"},    {"CHANNELS", "NCHANNELS"}, {"NCHANNEL", "NCHANNELS"},
  {"THREADS", "NTHREADS"}, {"BUFFER_SIZE", "BUFFSIZE"}, {"BUF_SIZE", "BUFFSIZE"}, {"BUFSIZE", "BUFFSIZE"},
  {"INTERFACE", "IFNAME"}, {"INTERFACES", "IFNAME"}, {"IFACE", "IFNAME"},     {"IF", "IFNAME"},
  {"LVL", "LEVEL"},        {"THRESH", "THRESHOLD"},  {"CHUNK_SIZE", "CHUNKSIZE"}, {"CHUNKSIZE", "CHUNK_SIZE"},
  {"HCAS", "HCA"},         {"GID", "GID_INDEX"},       {"SUBSYSTEM", "SUBSYS"}, {"SUBSYSTEMS", "SUBSYS"},
};

static void try_missing(const char *rest, struct found *f);

/* "_A_B_C_" form of name's words after NCCL_, for whole-word replacement. */
static void try_confused(const char *rest, struct found *f) {
  char w[160], cand[400];
  snprintf(w, sizeof w, "_%s_", rest);
  for (size_t k = 0; k < sizeof confused / sizeof confused[0]; k++) {
    char from[48];
    snprintf(from, sizeof from, "_%s_", confused[k][0]);
    for (const char *p = strstr(w, from); p; p = strstr(p + 1, from)) {
      int pre = (int)(p - w), fl = (int)strlen(from);
      snprintf(cand, sizeof cand, "NCCL%.*s_%s_%s", pre, w, confused[k][1], p + fl);
      cand[strlen(cand) - 1] = '\0'; /* the trailing '_' of the "_A_B_C_" form */
      add(f, cand);
      try_missing(cand + 5, f); /* NCCL_CHANNELS -> NCCL_NCHANNELS -> NCCL_MIN_NCHANNELS */
    }
  }
}

/* A word left out: MIN_, MAX_ or NET_ before any word (NCCL_NCHANNELS -> NCCL_MIN_NCHANNELS). */
static void try_missing(const char *rest, struct found *f) {
  static const char *const words[] = {"MIN", "MAX", "NET"};
  char cand[400];
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    for (const char *p = rest; p; p = strchr(p, '_') ? strchr(p, '_') + 1 : NULL) {
      snprintf(cand, sizeof cand, "NCCL_%.*s%s_%.200s", (int)(p - rest), rest, words[k], p);
      add(f, cand);
    }
}

/* One letter off (two for names of 8 letters or more after NCCL_): NCCL_P2P_DISABEL, NCCL_SOCKET_IFNAM. */
static void try_letters(const char *rest, struct found *f) {
  size_t n = strlen(rest);
  if (n < 3) return;
  int cap = n >= 8 ? 2 : 1;
  for (int d = 1; d <= cap; d++)
    for (int i = 0; i < ar_ncclenv_nnames; i++)
      if (distance(rest, ar_ncclenv_names[i].name + 5, d) == d) add(f, ar_ncclenv_names[i].name);
}

int ar_ncclenv_suggest(const char *name, char *out, size_t len) {
  struct found f = {0};
  *out = '\0';
  if (strncmp(name, "NCCL_", 5) || strlen(name) > 120 || ar_ncclenv_find(name)) return 0;
  try_confused(name + 5, &f);
  try_missing(name + 5, &f);
  try_letters(name + 5, &f);
  size_t used = 0;
  for (int i = 0; i < f.n && used < len; i++) {
    int w = snprintf(out + used, len - used, "%s%s", i ? " or " : "", f.v[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
  return f.n;
}

/* The release after code among those read (where a name last read by code was gone), 0 if none. */
static int next_version(int code) {
  for (int i = 0; i + 1 < ar_ncclenv_nversions; i++)
    if (ar_ncclenv_versions[i] == code) return ar_ncclenv_versions[i + 1];
  return 0;
}

/* Where NCCL is installed, as module systems and build tools name it (NCCL's own contrib/nccl_ubx/setup.py
 * reads NCCL_HOME, NCCL_INCLUDE_DIR and NCCL_LIBRARY_DIR at v2.30.7-1): no setting of the library, no warning. */
static int install_name(const char *name) {
  static const char *const names[] = {"NCCL_HOME", "NCCL_ROOT", "NCCL_DIR", "NCCL_PATH", "NCCL_PREFIX",
                                      "NCCL_INCLUDE", "NCCL_INCLUDE_DIR", "NCCL_LIB", "NCCL_LIB_DIR",
                                      "NCCL_LIBRARY", "NCCL_LIBRARY_DIR", "NCCL_LIBRARIES", "NCCL_VERSION"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(name, names[i])) return 1;
  return 0;
}

int ar_ncclenv_check(const char *name, const char *value, int version, int allow, char *msg, size_t len) {
  *msg = '\0';
  if (strncmp(name, "NCCL_", 5) || install_name(name)) return AR_NCCLENV_OK;
  char what[300], oldest[16], newest[16], at[16], sug[400];
  if (value) snprintf(what, sizeof what, "%.150s=%.100s", name, value);
  else snprintf(what, sizeof what, "%.150s", name);
  int top = ar_ncclenv_versions[ar_ncclenv_nversions - 1];
  ar_ncclenv_version_str(ar_ncclenv_versions[0], oldest, sizeof oldest);
  ar_ncclenv_version_str(top, newest, sizeof newest);
  const struct ar_ncclenv_name *e = ar_ncclenv_find(name);
  if (!e) {
    if (ar_ncclenv_suggest(name, sug, sizeof sug)) {
      if (!allow) {
        snprintf(msg, len, "%s: no NCCL release reads %s (%s to %s read): did you mean %s? (--allow-unknown-env "
                 "passes it as it is)", what, name, oldest, newest, sug);
        return AR_NCCLENV_REFUSE;
      }
      snprintf(msg, len, "warning: %s: no NCCL release reads %s (a near miss of %s); passed as it is "
               "(--allow-unknown-env)", what, name, sug);
      return AR_NCCLENV_WARN;
    }
    snprintf(msg, len, "warning: %s: no NCCL release from %s to %s reads %s: NCCL ignores it (a plugin's or a "
             "site's own variable is passed as it is)", what, oldest, newest, name);
    return AR_NCCLENV_WARN;
  }
  if (version < 0) return AR_NCCLENV_OK; /* names only: the version is checked once it is known */
  int v = version ? version : top;
  ar_ncclenv_version_str(v, at, sizeof at);
  char first[16], last[16], gone[16];
  ar_ncclenv_version_str(e->first, first, sizeof first);
  ar_ncclenv_version_str(e->last, last, sizeof last);
  ar_ncclenv_version_str(next_version(e->last), gone, sizeof gone);
  const char *known = version ? "" : " (the newest release read: which NCCL runs is not known here)";
  if (e->last < top && v > e->last) {
    snprintf(msg, len, "warning: %s: NCCL %s%s does not read %s: removed in %s (last read by %s), it does nothing",
             what, at, known, name, gone, last);
    return AR_NCCLENV_WARN;
  }
  if (v < e->first) {
    snprintf(msg, len, "warning: %s: NCCL %s does not read %s (first read by %s), it does nothing", what, at, name,
             first);
    return AR_NCCLENV_WARN;
  }
  return AR_NCCLENV_OK;
}

/* One NAME=VALUE entry checked: its verdict, the line in msg. */
static int check_entry(const char *entry, int version, int allow, char *msg, size_t len) {
  const char *eq = strchr(entry, '=');
  char name[160];
  *msg = '\0';
  if (strncmp(entry, "NCCL_", 5)) return AR_NCCLENV_OK;
  snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - entry) : (int)strlen(entry), entry);
  return ar_ncclenv_check(name, eq ? eq + 1 : NULL, version, allow, msg, len);
}

int ar_ncclenv_check_env(char *const *envp, int version, int allow, void (*warn)(void *ctx, const char *line),
                         void *ctx, char *err, size_t len) {
  char msg[1024];
  for (int i = 0; envp && envp[i]; i++)
    if (check_entry(envp[i], version, allow, msg, sizeof msg) == AR_NCCLENV_REFUSE) {
      snprintf(err, len, "%s", msg);
      return -AR_EINVAL;
    }
  for (int i = 0; envp && envp[i]; i++)
    if (check_entry(envp[i], version, allow, msg, sizeof msg) == AR_NCCLENV_WARN && warn) warn(ctx, msg);
  return 0;
}

int ar_ncclenv_version_code(const char *s) {
  int x, y, z;
  char extra;
  if (!s || sscanf(s, "%d.%d.%d%c", &x, &y, &z, &extra) != 3 || x < 2 || y < 0 || y > 99 || z < 0 || z > 99) return 0;
  return x * 10000 + y * 100 + z;
}

void ar_ncclenv_warn_version(char *const *envp, int version, void (*warn)(void *ctx, const char *line), void *ctx) {
  char msg[1024], name[160];
  for (int i = 0; envp && envp[i]; i++) {
    const char *eq = strchr(envp[i], '=');
    if (strncmp(envp[i], "NCCL_", 5) || !eq) continue;
    snprintf(name, sizeof name, "%.*s", (int)(eq - envp[i]), envp[i]);
    if (ar_ncclenv_find(name) && ar_ncclenv_check(name, eq + 1, version, 0, msg, sizeof msg) == AR_NCCLENV_WARN)
      warn(ctx, msg);
  }
}
