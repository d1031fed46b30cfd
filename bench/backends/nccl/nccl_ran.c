/* nccl_ran.c — what NCCL ran against what the variant asked, for each record: CTAs clamped, an algorithm or
 * protocol NCCL fell back from, variables the loaded NCCL does not read (docs/nccl-standin.md, results/SCHEMA.md). */
#include "backends/nccl/nccl_ran.h"
#include "ncclenv.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A variable's value as NCCL's ncclLoadParam reads it (strtoll base 0); 0 when unset, bad or <= 0 (ignored). */
static long long param(const char *s) {
  if (!s || !*s) return 0;
  errno = 0;
  long long v = strtoll(s, NULL, 0);
  return errno || v <= 0 ? 0 : v;
}

json_t *ar_nccl_ctas_json(int variant_ctas, const char *user_min, const char *user_max, int coll_channels) {
  long long mn = variant_ctas > 0 ? variant_ctas : param(user_min), mx = variant_ctas > 0 ? variant_ctas : param(user_max);
  if (!mn && !mx) return NULL;
  char asked[64], note[400];
  if (mn && mx && mn != mx) snprintf(asked, sizeof asked, "%lld..%lld", mn, mx);
  else if (mn && mx) snprintf(asked, sizeof asked, "%lld", mn);
  else snprintf(asked, sizeof asked, "%s %lld", mn ? "at least" : "at most", mn ? mn : mx);
  const char *status = "as asked";
  snprintf(note, sizeof note, "NCCL ran %d channels, as asked (%s)", coll_channels, asked);
  if (!coll_channels) {
    status = "unknown";
    snprintf(note, sizeof note, "NCCL did not say its channels (no 'coll channels' line): %s asked", asked);
  } else if ((mn && coll_channels < mn) || (mx && coll_channels > mx)) {
    status = "clamped";
    snprintf(note, sizeof note, "NCCL ran %d channels where %s were asked: it clamped the request (NCCL caps CTAs at "
             "64, MAXCHANNELS; NCCL 2.28's release notes cut Blackwell's maximum CTAs from 32 to 16)", coll_channels,
             asked);
  }
  json_t *o = json_object();
  json_object_set_new(o, "asked_min", mn ? json_integer(mn) : json_null());
  json_object_set_new(o, "asked_max", mx ? json_integer(mx) : json_null());
  json_object_set_new(o, "ran", coll_channels ? json_integer(coll_channels) : json_null());
  json_object_set_new(o, "status", json_string(status));
  json_object_set_new(o, "note", json_string(note));
  return o;
}

/* The list of value that applies to allreduce, NCCL's syntax (src/graph/tuning.cc parseList at v2.28.9-1):
 * "LIST" for every function, or "func:LIST;func:LIST" (a part without "func:" applies to all). 0 when none does. */
static int allreduce_list(const char *value, char *out, size_t len) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", value);
  int found = 0;
  for (char *save = NULL, *part = strtok_r(buf, ";", &save); part; part = strtok_r(NULL, ";", &save)) {
    char *colon = strchr(part, ':');
    if (!colon) {
      if (!found) snprintf(out, len, "%s", part), found = 1;
      continue;
    }
    *colon = '\0';
    if (!strcasecmp(part, "allreduce")) {
      snprintf(out, len, "%s", colon + 1);
      found = 2;
    }
  }
  return found;
}

/* Whether name (as NCCL prints it) is allowed by value: listed, or not listed after '^'. -1: nothing asked. */
static int allowed(const char *value, const char *name) {
  char list[256];
  if (!value || !*value || !allreduce_list(value, list, sizeof list)) return -1;
  const char *p = list;
  int invert = *p == '^';
  if (invert) p++;
  int listed = 0;
  char tok[64];
  while (*p) {
    size_t n = strcspn(p, ",");
    snprintf(tok, sizeof tok, "%.*s", (int)(n < sizeof tok - 1 ? n : sizeof tok - 1), p);
    if (!strcasecmp(tok, name)) listed = 1;
    p += n;
    if (*p) p++;
  }
  return invert ? !listed : listed;
}

json_t *ar_nccl_fallback_json(const char *asked_algo, const char *asked_proto, const char *ran_algo,
                              const char *ran_proto) {
  if (!ran_algo || !*ran_algo || !strcmp(ran_algo, "unknown")) return NULL;
  int symmetric = !strcmp(ran_algo, "SYMMETRIC");
  int a = symmetric ? (asked_algo && *asked_algo ? 0 : -1) : allowed(asked_algo, ran_algo);
  int p = symmetric ? (asked_proto && *asked_proto ? 0 : -1) : allowed(asked_proto, ran_proto);
  if (a != 0 && p != 0) return NULL;
  char note[400];
  if (symmetric)
    snprintf(note, sizeof note, "NCCL ran its symmetric kernel, not the %s%s%s%s%s asked: symmetric windows take "
             "the symmetric kernels before NCCL_ALGO/NCCL_PROTO are read", a == 0 ? "NCCL_ALGO=" : "",
             a == 0 ? asked_algo : "", a == 0 && p == 0 ? " and " : "", p == 0 ? "NCCL_PROTO=" : "",
             p == 0 ? asked_proto : "");
  else
    snprintf(note, sizeof note, "NCCL ran %s/%s, which the %s%s%s%s%s asked does not allow: NCCL fell back", ran_algo,
             ran_proto, a == 0 ? "NCCL_ALGO=" : "", a == 0 ? asked_algo : "", a == 0 && p == 0 ? " and " : "",
             p == 0 ? "NCCL_PROTO=" : "", p == 0 ? asked_proto : "");
  return json_pack("{s:s?, s:s?, s:s, s:s, s:s}", "asked_algo", asked_algo && *asked_algo ? asked_algo : NULL,
                   "asked_proto", asked_proto && *asked_proto ? asked_proto : NULL, "ran_algo", ran_algo, "ran_proto",
                   ran_proto ? ran_proto : "", "note", note);
}

json_t *ar_nccl_ignored_env_json(char *const *envp, int version) {
  json_t *a = NULL;
  char name[160], msg[1024];
  for (int i = 0; envp && envp[i]; i++) {
    const char *e = envp[i], *eq = strchr(e, '=');
    if (strncmp(e, "NCCL_", 5) || !eq) continue;
    snprintf(name, sizeof name, "%.*s", (int)(eq - e < 159 ? eq - e : 159), e);
    /* only names some release reads: the others are no release's (run's own line says so) */
    if (!ar_ncclenv_find(name) || ar_ncclenv_check(name, eq + 1, version, 1, msg, sizeof msg) != AR_NCCLENV_WARN)
      continue;
    if (!a) a = json_array();
    const char *why = strncmp(msg, "warning: ", 9) ? msg : msg + 9;
    json_array_append_new(a, json_pack("{s:s, s:s}", "name", name, "why", why));
  }
  return a;
}
