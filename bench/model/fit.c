/* fit.c — `arbench model --fit RESULTS`: which algorithm family each measured result is, and a
 * least-squares fit of time = fixed + size x cost per family and rank count, written as a --calib file. */
#include "model/model.h"
#include "analysis/analysis.h"
#include "links/records.h"
#include "model/linkfit.h"
#include "ar.h"
#include "backend.h"
#include "results.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* NCCL's family from what it recorded choosing (nccl_algo, nccl_proto), else the variant's forced algo/proto,
 * else (nccl-tests imports record neither) NCCL's usual choice on PCIe: ring, LL below 64 KiB. */
static int nccl_family(json_t *rec) {
  const char *algo = ar_rec_str(rec, "nccl_algo", ""), *proto = ar_rec_str(rec, "nccl_proto", "");
  const char *var = ar_rec_str(rec, "variant", "");
  if (!*algo) algo = strstr(var, "algo=Tree") ? "Tree" : "Ring";
  if (!*proto) proto = strstr(var, "proto=LL,") || (strstr(var, "proto=LL") && !strstr(var, "proto=LL128"))
                           ? "LL" : strstr(var, "proto=Simple") ? "Simple"
                           : ar_rec_num(rec, "size", 0) < 65536 ? "LL" : "Simple";
  int tree = !strcmp(algo, "Tree"), ll = !strcmp(proto, "LL");
  if (strcmp(algo, "Ring") && !tree) return -1;
  if (!ll && strcmp(proto, "Simple")) return -1; /* LL128: not modelled on PCIe */
  return tree ? (ll ? AR_M_TREE_LL : AR_M_TREE_SIMPLE) : (ll ? AR_M_RING_LL : AR_M_RING_SIMPLE);
}

int ar_model_family_of(json_t *rec) {
  const char *b = ar_rec_str(rec, "backend", ""), *v = ar_rec_str(rec, "variant", "");
  if (!strcmp(b, "model")) return ar_malgo_parse(v);
  if (!strcmp(b, "nccl") || !strcmp(b, "nccl-tests")) return nccl_family(rec);
  if (!strcmp(b, "p2p-oneshot") || !strcmp(b, "shm-oneshot"))
    return strstr(v, "push") ? AR_M_ONESHOT_PUSH : AR_M_ONESHOT_PULL;
  if (!strcmp(b, "p2p-twoshot") || !strcmp(b, "shm-twoshot"))
    return strstr(v, "staged") ? AR_M_TWOSHOT_STAGED : AR_M_TWOSHOT_FLAT;
  if (!strcmp(b, "shm-staged")) return AR_M_TWOSHOT_STAGED;
  if (!strcmp(b, "p2p-islands") || !strcmp(b, "shm-islands")) return AR_M_ISLANDS;
  return -1;
}

struct acc {
  int ranks, n;
  double sx, sy, sxx, sxy;
  size_t lastsize;
  int distinct;
};

static void add_point(struct acc *a, double x, double y) {
  a->n++;
  a->sx += x;
  a->sy += y;
  a->sxx += x * x;
  a->sxy += x * y;
  if ((size_t)x != a->lastsize) a->distinct++;
  a->lastsize = (size_t)x;
}

/* Least squares (ar_model_lsq: a negative intercept is clamped to 0, the slope refitted through the origin). */
static void solve(const struct acc *a, double *fixed, double *slope) {
  ar_model_lsq(a->n, a->distinct, a->sx, a->sy, a->sxx, a->sxy, fixed, slope);
}

#define AR_FIT_RANKS 65

/* The model's families are GPU algorithms: only GPU backends' results calibrate them. */
static int is_gpu_backend(const char *b) {
  unsigned flags;
  int fam = ar_backend_family(b, &flags);
  return fam >= 0 && (flags & AR_BE_DEVICE); /* the registry's: nccl, nccl-tests, p2p-*, symm, fused */
}

/* Distinct backends of the result records, "a, b, c", for the refusal. */
static void backends_present(json_t *recs, char *buf, size_t len) {
  json_t *seen = json_object();
  size_t i, n = 0;
  json_t *r;
  buf[0] = 0;
  json_array_foreach(recs, i, r) {
    const char *b = ar_rec_str(r, "backend", "");
    if (strcmp(ar_rec_str(r, "type", ""), "result") || json_object_get(seen, b)) continue;
    json_object_set_new(seen, b, json_true());
    if (n < len) n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", b);
  }
  json_decref(seen);
  if (!*buf) snprintf(buf, len, "none");
}

static int collect(json_t *recs, struct acc (*acc)[AR_FIT_RANKS]) {
  size_t i;
  json_t *r;
  int used = 0;
  json_array_foreach(recs, i, r) {
    const char *type = ar_rec_str(r, "type", "");
    if (strcmp(type, "result") || !is_gpu_backend(ar_rec_str(r, "backend", ""))) continue;
    int f = ar_model_family_of(r), n = (int)ar_rec_num(r, "ranks", 0);
    double p50 = ar_rec_num(json_object_get(r, "time_us"), "p50", NAN), size = ar_rec_num(r, "size", NAN);
    if (f < 0 || n < 2 || n >= AR_FIT_RANKS || !(p50 > 0) || !(size > 0)) continue;
    acc[f][n].ranks = n;
    add_point(&acc[f][n], size, p50);
    used++;
  }
  return used;
}

static json_t *fitted(struct acc (*acc)[AR_FIT_RANKS]) {
  json_t *fam = json_object();
  for (int f = 0; f < AR_M_NALGO; f++) {
    int best = 0;
    for (int n = 2; n < AR_FIT_RANKS; n++)
      if (acc[f][n].distinct >= 2 && (!best || acc[f][n].n > acc[f][best].n)) best = n;
    if (!best) continue;
    double fx, sl;
    solve(&acc[f][best], &fx, &sl);
    json_object_set_new(fam, ar_malgo_name(f), json_pack("{s:i,s:f,s:f,s:i}", "ranks", best, "fixed_us", fx,
                        "us_per_byte", sl, "points", acc[f][best].n));
  }
  return fam;
}

/* The link parameters of the files' link records (NULL when they hold none). 0 or -AR_EINVAL. */
static int fit_links(int nfiles, char **files, json_t **links, char *err, size_t len) {
  struct ar_ana a;
  *links = NULL;
  int rc = ar_ana_load(&a, nfiles, files, err, len);
  if (!rc) rc = ar_links_check(a.notes, err, len);
  if (!rc) rc = ar_link_fit(a.notes, a.runs, links, err, len);
  ar_ana_free(&a);
  return rc < 0 ? rc : rc ? -AR_EINVAL : 0;
}

int ar_model_fit(int nfiles, char **files, const char *out, char *err, size_t len) {
  json_t *recs = NULL, *links = NULL;
  static struct acc acc[AR_M_NALGO][AR_FIT_RANKS];
  memset(acc, 0, sizeof acc);
  int rc = ar_results_load(nfiles, files, &recs, err, len);
  if (rc) return rc < 0 ? rc : -AR_EINVAL;
  int gpu = 0, nlink = 0;
  size_t i;
  json_t *r;
  json_array_foreach(recs, i, r) {
    gpu |= !strcmp(ar_rec_str(r, "type", ""), "result") && is_gpu_backend(ar_rec_str(r, "backend", ""));
    nlink += !strcmp(ar_rec_str(r, "type", ""), "link");
  }
  if (!gpu && !nlink) {
    char have[300];
    backends_present(recs, have, sizeof have);
    snprintf(err, len, "--fit: %s%s holds no GPU results (backends: %s) and no link records; the model's families are "
             "GPU algorithms: fit it from nccl, nccl-tests or p2p-* results, its links from arbench links records",
             files[0], nfiles > 1 ? " ..." : "", have);
    json_decref(recs);
    return -AR_EINVAL;
  }
  if (nlink && (rc = fit_links(nfiles, files, &links, err, len))) {
    json_decref(recs);
    return rc;
  }
  collect(recs, acc);
  json_t *fam = fitted(acc);
  json_decref(recs);
  if (!json_object_size(fam) && !links) {
    snprintf(err, len, "--fit: no algorithm family with results at two or more sizes in %s%s (families: "
             "nccl, nccl-tests, p2p-*/shm-* one-shot, two-shot, staged, islands)", files[0], nfiles > 1 ? " ..." : "");
    json_decref(fam);
    return -AR_EINVAL;
  }
  json_t *files_j = json_array();
  for (int i = 0; i < nfiles; i++) json_array_append_new(files_j, json_string(files[i]));
  json_t *root = json_pack("{s:i,s:o,s:o}", "schema", 1, "fitted_from", files_j, "families", fam);
  if (links) json_object_set(root, "links", links);
  rc = out ? json_dump_file(root, out, JSON_INDENT(2) | JSON_SORT_KEYS)
           : json_dumpf(root, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
  if (!out) putchar('\n');
  else if (!rc && links) ar_link_fit_print(stdout, links, nfiles, files);
  json_decref(root);
  json_decref(links);
  if (rc) {
    snprintf(err, len, "-o %s: cannot write", out ? out : "-");
    return -AR_ERUNTIME;
  }
  return 0;
}
