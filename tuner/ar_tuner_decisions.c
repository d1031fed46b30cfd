/* ar_tuner_decisions.c — reads and checks the tuner decisions file (tuner.json, docs/tuner.md), and
 * the pure parts of the plugin: which group and range apply, and what is written to the cost table. */
#include "infile.h" /* bench/infile.h: the include path tuner/meson.build gives */
#include "ar_tuner_decisions.h"
#include "ar_tuner_abi.h"
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const algo_names[AR_NCCL_NUM_ALGOS_MAX] = {"tree", "ring", "collnet_direct", "collnet_chain",
                                                              "nvls", "nvls_tree", "pat"};
static const char *const proto_names[AR_NCCL_NUM_PROTOS] = {"ll", "ll128", "simple"};

int ar_tuner_algo_index(const char *name) {
  for (int i = 0; name && i < AR_NCCL_NUM_ALGOS_MAX; i++)
    if (!strcmp(name, algo_names[i])) return i;
  return -1;
}

int ar_tuner_proto_index(const char *name) {
  for (int i = 0; name && i < AR_NCCL_NUM_PROTOS; i++)
    if (!strcmp(name, proto_names[i])) return i;
  return -1;
}

const char *ar_tuner_algo_name(int algo) { return algo >= 0 && algo < AR_NCCL_NUM_ALGOS_MAX ? algo_names[algo] : "?"; }
const char *ar_tuner_proto_name(int proto) { return proto >= 0 && proto < AR_NCCL_NUM_PROTOS ? proto_names[proto] : "?"; }

void ar_tuner_free(struct ar_tuner_decisions *d) {
  for (int i = 0; d->group && i < d->ngroups; i++) free(d->group[i].range);
  free(d->group);
  d->group = NULL;
  d->ngroups = 0;
}

/* An integer field >= min; -1 with the message otherwise. */
static int get_int(json_t *o, const char *key, long long min, long long *out, const char *path, const char *where,
                   char *err, size_t len) {
  json_t *v = json_object_get(o, key);
  if (!v) return snprintf(err, len, "arbench tuner: %s: %s.%s missing (allowed: integer >= %lld)", path, where, key, min), -1;
  if (!json_is_integer(v))
    return snprintf(err, len, "arbench tuner: %s: %s.%s is not an integer (allowed: integer >= %lld)", path, where, key,
                    min), -1;
  *out = json_integer_value(v);
  if (*out < min)
    return snprintf(err, len, "arbench tuner: %s: %s.%s = %lld%s (allowed: integer >= %lld)", path, where, key, *out,
                    *out < 0 ? " is negative" : " is too small", min), -1;
  return 0;
}

static int load_range(json_t *jr, struct ar_tuner_range *r, const struct ar_tuner_range *prev, const char *path,
                      const char *where, char *err, size_t len) {
  long long lo, hi, ch = -1; /* absent: NCCL decides */
  if (!json_is_object(jr)) return snprintf(err, len, "arbench tuner: %s: %s is not an object", path, where), -1;
  if (get_int(jr, "min_bytes", 0, &lo, path, where, err, len) || get_int(jr, "max_bytes", 0, &hi, path, where, err, len))
    return -1;
  if (hi < lo)
    return snprintf(err, len, "arbench tuner: %s: %s: max_bytes %lld < min_bytes %lld", path, where, hi, lo), -1;
  if (prev && (uint64_t)lo <= prev->hi)
    return snprintf(err, len, "arbench tuner: %s: %s: min_bytes %lld overlaps or precedes the previous range (ends at %llu;"
                    " ranges must ascend)", path, where, lo, (unsigned long long)prev->hi), -1;
  const char *a = json_string_value(json_object_get(jr, "algorithm"));
  const char *p = json_string_value(json_object_get(jr, "protocol"));
  r->algo = ar_tuner_algo_index(a);
  r->proto = ar_tuner_proto_index(p);
  if (r->algo < 0)
    return snprintf(err, len, "arbench tuner: %s: %s.algorithm '%s' unknown (allowed: tree, ring, collnet_direct, "
                    "collnet_chain, nvls, nvls_tree, pat)", path, where, a ? a : "(missing)"), -1;
  if (r->proto < 0)
    return snprintf(err, len, "arbench tuner: %s: %s.protocol '%s' unknown (allowed: ll, ll128, simple)", path, where,
                    p ? p : "(missing)"), -1;
  json_t *jc = json_object_get(jr, "channels");
  if (jc && !json_is_integer(jc))
    return snprintf(err, len, "arbench tuner: %s: %s.channels is not an integer (allowed: -1 for NCCL's choice, 1..%d)",
                    path, where, AR_TUNER_MAX_CHANNELS), -1;
  if (jc) ch = json_integer_value(jc);
  if (ch == 0 || ch < -1 || ch > AR_TUNER_MAX_CHANNELS)
    return snprintf(err, len, "arbench tuner: %s: %s.channels = %lld (allowed: -1 for NCCL's choice, 1..%d)", path,
                    where, ch, AR_TUNER_MAX_CHANNELS), -1;
  r->lo = (uint64_t)lo;
  r->hi = (uint64_t)hi;
  r->channels = ch > 0 ? (int)ch : 0;
  const char *cfg = json_string_value(json_object_get(jr, "config"));
  snprintf(r->config, sizeof r->config, "%s", cfg ? cfg : "");
  return 0;
}

static int load_group(json_t *jg, struct ar_tuner_group *g, const char *path, int gi, char *err, size_t len) {
  char where[64];
  long long nr, nn;
  snprintf(where, sizeof where, "groups[%d]", gi);
  if (!json_is_object(jg)) return snprintf(err, len, "arbench tuner: %s: %s is not an object", path, where), -1;
  const char *coll = json_string_value(json_object_get(jg, "collective"));
  if (!coll || strcmp(coll, "allreduce"))
    return snprintf(err, len, "arbench tuner: %s: %s.collective '%s' (allowed: allreduce)", path, where,
                    coll ? coll : "(missing)"), -1;
  if (get_int(jg, "nranks", 1, &nr, path, where, err, len) || get_int(jg, "nnodes", 1, &nn, path, where, err, len))
    return -1;
  if (nr > 1 << 20 || nn > nr)
    return snprintf(err, len, "arbench tuner: %s: %s: nnodes %lld / nranks %lld impossible (allowed: 1 <= nnodes <= nranks"
                    " <= 1048576)", path, where, nn, nr), -1;
  json_t *jr = json_object_get(jg, "ranges");
  size_t n = json_array_size(jr);
  if (!json_is_array(jr) || !n || n > AR_TUNER_MAX_RANGES)
    return snprintf(err, len, "arbench tuner: %s: %s.ranges must be an array of 1..%d ranges", path, where,
                    AR_TUNER_MAX_RANGES), -1;
  g->range = calloc(n, sizeof *g->range);
  if (!g->range) return snprintf(err, len, "arbench tuner: %s: out of memory", path), -1;
  g->nranks = (int)nr;
  g->nnodes = (int)nn;
  for (size_t i = 0; i < n; i++) {
    char w[96];
    snprintf(w, sizeof w, "%s.ranges[%zu]", where, i);
    if (load_range(json_array_get(jr, i), &g->range[i], i ? &g->range[i - 1] : NULL, path, w, err, len)) return -1;
    g->nranges++;
  }
  return 0;
}

static int load_json(json_t *root, const char *path, struct ar_tuner_decisions *d, char *err, size_t len) {
  if (!json_is_object(root)) return snprintf(err, len, "arbench tuner: %s: not a JSON object", path), -1;
  const char *schema = json_string_value(json_object_get(root, "schema"));
  if (!schema || strcmp(schema, AR_TUNER_SCHEMA))
    return snprintf(err, len, "arbench tuner: %s: schema '%s' is not '%s' (write the file with arbench tune -o DIR: "
                    "DIR/tuner.json)", path, schema ? schema : "(missing)", AR_TUNER_SCHEMA), -1;
  json_t *v = json_object_get(root, "version");
  if (!json_is_integer(v) || json_integer_value(v) != AR_TUNER_VERSION)
    return snprintf(err, len, "arbench tuner: %s: version %s unsupported (allowed: %d)", path,
                    json_is_integer(v) ? "other than 1" : "missing or not an integer", AR_TUNER_VERSION), -1;
  json_t *jg = json_object_get(root, "groups");
  size_t n = json_array_size(jg);
  if (!json_is_array(jg) || n > AR_TUNER_MAX_GROUPS)
    return snprintf(err, len, "arbench tuner: %s: groups must be an array of at most %d groups", path,
                    AR_TUNER_MAX_GROUPS), -1;
  d->group = calloc(n + 1, sizeof *d->group);
  if (!d->group) return snprintf(err, len, "arbench tuner: %s: out of memory", path), -1;
  for (size_t i = 0; i < n; i++) {
    if (load_group(json_array_get(jg, i), &d->group[i], path, (int)i, err, len)) {
      d->ngroups = (int)i + 1;
      return -1;
    }
    d->ngroups = (int)i + 1;
    for (size_t k = 0; k < i; k++)
      if (d->group[k].nranks == d->group[i].nranks && d->group[k].nnodes == d->group[i].nnodes)
        return snprintf(err, len, "arbench tuner: %s: groups[%zu] repeats nranks %d nnodes %d of groups[%zu]", path, i,
                        d->group[i].nranks, d->group[i].nnodes, k), -1;
  }
  return 0;
}

int ar_tuner_load(const char *path, struct ar_tuner_decisions *d, char *err, size_t len) {
  memset(d, 0, sizeof *d);
  if (!path || !*path)
    return snprintf(err, len, "arbench tuner: ARBENCH_TUNER_FILE is not set (allowed: a tuner.json written by arbench "
                    "tune -o DIR)"), -1;
  char why[512];
  json_error_t je;
  json_t *root;
  if (ar_infile_json(path, "tuning file", JSON_REJECT_DUPLICATES, &root, &je, why, sizeof why))
    return snprintf(err, len, "arbench tuner: %s", why), -1;
  if (!root)
    return snprintf(err, len, "arbench tuner: %s: not valid JSON at line %d column %d: %s", path, je.line, je.column,
                    je.text), -1;
  int rc = load_json(root, path, d, err, len);
  json_decref(root);
  if (rc) ar_tuner_free(d);
  return rc;
}

const struct ar_tuner_group *ar_tuner_match(const struct ar_tuner_decisions *d, int nranks, int nnodes, int *exact) {
  const struct ar_tuner_group *best = NULL;
  *exact = 0;
  for (int i = 0; i < d->ngroups; i++) {
    const struct ar_tuner_group *g = &d->group[i];
    if (g->nnodes != nnodes) continue;
    if (g->nranks == nranks) {
      *exact = 1;
      return g;
    }
    if (g->nranks > 2 * nranks || nranks > 2 * g->nranks) continue;
    int dist = abs(g->nranks - nranks), bd = best ? abs(best->nranks - nranks) : 0;
    if (!best || dist < bd || (dist == bd && g->nranks < best->nranks)) best = g;
  }
  return best;
}

int ar_tuner_find(const struct ar_tuner_group *g, uint64_t nbytes) {
  for (int i = 0; g && i < g->nranges; i++)
    if (nbytes >= g->range[i].lo && nbytes <= g->range[i].hi) return i;
  return -1;
}

int ar_tuner_apply(const struct ar_tuner_range *r, float *table, int numAlgo, int numProto, int *nChannels) {
  if (!table || r->algo >= numAlgo || r->proto >= numProto) return 0;
  float *e = &table[r->algo * numProto + r->proto];
  if (*e == AR_NCCL_COST_IGNORE || *e < 0) return 0;
  *e = 0.0f;
  if (ar_tuner_channels(r) > 0 && nChannels) *nChannels = r->channels;
  return 1;
}

int ar_tuner_channels(const struct ar_tuner_range *r) {
  if (r->algo == AR_NCCL_ALGO_COLLNET_DIRECT || r->algo == AR_NCCL_ALGO_COLLNET_CHAIN) return 0;
  return r->channels > 0 ? r->channels : 0;
}
