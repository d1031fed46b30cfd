/* applies.c — which --env axes apply to which backends: rules by variable prefix (Open MPI's collective and
 * transport components: the MPI library's allreduce; NCCL_*: NCCL and the kernels on NCCL's device API; CUDA_*:
 * the GPU backends; any other variable: every backend), overridden by --applies NAME=LIST. The sweep record's
 * "applies" holds the axes that do not apply to every backend; table, tune and compare pool the runs of the
 * others over such an axis (bench/analysis/analysis.c). */
#include "backend.h"
#include "sweep/plan.h"
#include <stdlib.h>
#include <string.h>

static int mpi_library(const struct ar_backend *be) {
  return be->family == AR_BE_FAM_HOST && (be->flags & AR_BE_BASELINE);
}
static int on_nccl(const struct ar_backend *be) { return be->family == AR_BE_FAM_NCCL || be->family == AR_BE_FAM_SYMM; }
static int on_gpu(const struct ar_backend *be) { return (be->flags & AR_BE_DEVICE) != 0; }

static const struct rule {
  const char *prefix;
  int (*applies)(const struct ar_backend *be);
  const char *why;
} rules[] = {
  {"OMPI_MCA_coll_", mpi_library, "Open MPI's collective components: only the MPI library's allreduce calls them"},
  {"OMPI_MCA_btl_", mpi_library, "Open MPI's transports: only the MPI library's allreduce moves data through them"},
  {"OMPI_MCA_pml_", mpi_library, "Open MPI's transports: only the MPI library's allreduce moves data through them"},
  {"NCCL_", on_nccl, "NCCL's settings: read by NCCL's allreduce and the kernels on NCCL's device API only"},
  {"CUDA_", on_gpu, "CUDA's settings: the GPU backends only"},
};

/* The backends (names, every one of the registry) a rule or the user's list gives; NULL: every backend. */
static json_t *rule_backends(const char *name, const char **why) {
  int n;
  const struct ar_backend *const *all = ar_backends(&n);
  for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
    if (strncmp(name, rules[r].prefix, strlen(rules[r].prefix))) continue;
    json_t *list = json_array();
    for (int i = 0; i < n; i++)
      if (rules[r].applies(all[i])) json_array_append_new(list, json_string(all[i]->name));
    *why = rules[r].why;
    return list;
  }
  return NULL;
}

/* --applies NAME=LIST: NAME an --env axis, LIST backend names or "all". */
static int user_rule(const struct ar_sweep_cfg *c, const char *text, json_t *out, char *err, size_t len) {
  const char *eq = strchr(text, '=');
  int ax = -1;
  for (int i = 1; eq && i < c->naxes && ax < 0; i++)
    if (c->axes[i].kind == AR_AXIS_ENV && strlen(c->axes[i].name) == (size_t)(eq - text) &&
        !strncmp(c->axes[i].name, text, (size_t)(eq - text)))
      ax = i;
  if (!eq || ax < 0) {
    snprintf(err, len, "bad --applies '%s' (expected NAME=BACKEND[,BACKEND...] or NAME=all, NAME an --env axis "
             "launched per value)", text);
    return -AR_EINVAL;
  }
  const char *name = c->axes[ax].name;
  if (!strcmp(eq + 1, "all")) return json_object_del(out, name), 0;
  struct ar_strv v = {0};
  char what[300];
  snprintf(what, sizeof what, "--applies %s", name);
  int rc = ar_strv_split_list(eq + 1, what, &v, err, len);
  json_t *list = json_array();
  for (int i = 0; !rc && i < v.n; i++) {
    const struct ar_backend *be;
    const char *variant;
    char e[AR_ERRLEN];
    if (ar_backend_resolve(v.v[i], &be, &variant, e, sizeof e)) {
      snprintf(err, len, "bad --applies %s: %s", text, e);
      rc = -AR_EINVAL;
    } else if (*variant) {
      snprintf(err, len, "bad --applies %s: '%s' has a variant (expected backend names)", text, v.v[i]);
      rc = -AR_EINVAL;
    } else json_array_append_new(list, json_string(be->name));
  }
  ar_strv_free(&v);
  if (!rc) json_object_set_new(out, name, json_pack("{s:o, s:s}", "backends", list, "by", "given by --applies"));
  else json_decref(list);
  return rc;
}

int ar_sweep_applies(const struct ar_sweep_cfg *c, json_t **out, char *err, size_t len) {
  *out = json_object();
  for (int i = 1; i < c->naxes; i++) {
    if (c->axes[i].kind != AR_AXIS_ENV) continue;
    const char *why = NULL;
    json_t *list = rule_backends(c->axes[i].name, &why);
    if (list) json_object_set_new(*out, c->axes[i].name, json_pack("{s:o, s:s}", "backends", list, "by", why));
  }
  for (int i = 0; i < c->applies.n; i++)
    if (user_rule(c, c->applies.v[i], *out, err, len)) {
      json_decref(*out);
      *out = NULL;
      return -AR_EINVAL;
    }
  return 0;
}

/* Is backend spec (a name, maybe with a variant) in the list? */
static int listed(json_t *list, const char *spec) {
  size_t i, n = strcspn(spec, ":");
  json_t *v;
  json_array_foreach(list, i, v) if (strlen(json_string_value(v)) == n && !strncmp(json_string_value(v), spec, n)) return 1;
  return 0;
}

void ar_sweep_applies_say(const struct ar_sweep_cfg *c, json_t *applies, FILE *f) {
  const char *name;
  json_t *a;
  json_object_foreach(applies, name, a) {
    json_t *list = json_object_get(a, "backends");
    int pooled = !c->backends.n; /* the run's default backends: any may be outside the list */
    for (int b = 0; b < c->backends.n; b++) pooled |= !listed(list, c->backends.v[b]);
    if (!pooled) continue;
    char names[400] = "";
    size_t k = 0, i;
    json_t *v;
    json_array_foreach(list, i, v) if (k < sizeof names) k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", i ? ", " : "", json_string_value(v));
    fprintf(f, "arbench sweep: %s applies to %s only (%s); table, tune and compare pool the other backends' runs "
            "over its values (--applies %s=LIST says otherwise)\n", name, k ? names : "no backend of this build",
            json_string_value(json_object_get(a, "by")), name);
  }
}

/* An --env axis that applies to none of the chosen backends measures nothing it names: an error before
 * anything runs, naming the axis and the backends it applies to, unless --applies gave its list. The run's
 * default backends (no --backend) are not checked: which they are depends on the node. 0 or -AR_EINVAL. */
int ar_sweep_applies_check(const struct ar_sweep_cfg *c, json_t *applies, char *err, size_t len) {
  const char *name;
  json_t *a;
  if (!c->backends.n) return 0;
  json_object_foreach(applies, name, a) {
    if (!strcmp(json_string_value(json_object_get(a, "by")), "given by --applies")) continue;
    json_t *list = json_object_get(a, "backends");
    int any = 0;
    for (int b = 0; b < c->backends.n && !any; b++) any = listed(list, c->backends.v[b]);
    if (any) continue;
    char names[400] = "", chosen[400] = "";
    size_t k = 0, m = 0, i;
    json_t *v;
    json_array_foreach(list, i, v) if (k < sizeof names) k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", i ? ", " : "", json_string_value(v));
    for (int b = 0; b < c->backends.n && m < sizeof chosen; b++)
      m += (size_t)snprintf(chosen + m, sizeof chosen - m, "%s%s", b ? ", " : "", c->backends.v[b]);
    snprintf(err, len, "--env %s applies to none of the chosen backends (%s): it applies to %s only (%s); add one of "
             "them, drop the axis, or say which it applies to with --applies %s=LIST", name, chosen,
             k ? names : "no backend of this build", json_string_value(json_object_get(a, "by")), name);
    return -AR_EINVAL;
  }
  return 0;
}
