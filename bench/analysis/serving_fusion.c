/* serving_fusion.c — a group's allreduce+RMSNorm part: where arbench's fused kernel beat its unfused baselines
 * (one decision among the fused columns), and whether the engine has a fusion to turn on there. */
#include "analysis/serving_priv.h"
#include "ar.h"
#include "results.h"
#include <stdlib.h>
#include <string.h>

/* The engines enable FlashInfer's fusion on compute capability 9.0 and 10.x only (serving_rules.c). */
static int fusion_arch(const char *cc) { return !strcmp(cc, "9.0") || !strncmp(cc, "10.", 3); }

/* The last size of the first run of sizes, from the smallest, where the fused kernel is the pick; 0: none. */
static size_t fused_max(const struct ar_grid *g, const struct ar_decisions *d) {
  size_t max = 0;
  for (int s = 0; s < g->nsize; s++) {
    int c = d->at[s].pick;
    if (d->at[s].verdict == AR_V_INVALID) break; /* every kernel measured there computed wrong */
    if (c < 0) continue;
    if (ar_spath_of(g->cfgrec[c]) != AR_SP_FUSION) break;
    max = g->size[s];
  }
  return max;
}

static json_t *labels(const struct ar_grid *g, const char *mask, int path) {
  json_t *out = json_array();
  for (int c = 0; c < g->ncfg; c++)
    if (mask[c] && ar_spath_of(g->cfgrec[c]) == path) json_array_append_new(out, json_string(g->cfg[c]));
  return out;
}

void ar_serving_fusion(struct ar_sgroup *sg) {
  const struct ar_grid *g = sg->g;
  char *mask = calloc((size_t)g->ncfg + 1, 1);
  int fused = -1, base = 0;
  for (int c = 0; mask && c < g->ncfg; c++) {
    int p = ar_spath_of(g->cfgrec[c]);
    mask[c] = (char)(sg->cols[c] && (p == AR_SP_FUSION || p == AR_SP_FUSION_BASE));
    if (mask[c] && p == AR_SP_FUSION && fused < 0) fused = c;
    base |= mask[c] && p == AR_SP_FUSION_BASE;
  }
  struct ar_decisions d;
  if (!mask || fused < 0 || !base || ar_grid_decide(g, mask, sg->nz, &d)) {
    free(mask);
    return;
  }
  size_t max = fused_max(g, &d);
  ar_decisions_free(&d);
  long long hidden = (long long)ar_rec_num(json_object_get(g->cfgrec[fused], "fused"), "hidden", 0);
  enum ar_dtype dt;
  json_t *tokens = hidden > 0 && !ar_dtype_parse(g->dtype, &dt)
                       ? json_integer((json_int_t)(max / ((size_t)hidden * ar_dtype_size(dt))))
                       : json_null();
  sg->fusion = json_pack("{s:o, s:o, s:I, s:I, s:o, s:s}", "configs", labels(g, mask, AR_SP_FUSION), "baselines",
                         labels(g, mask, AR_SP_FUSION_BASE), "fused_max_bytes", (json_int_t)max, "hidden",
                         (json_int_t)hidden, "fused_max_tokens", tokens, "engine_path", sg->e->fusion_how);
  free(mask);
  if (!max) return;
  json_t *m = json_pack("{s:I, s:I, s:O}", "fused_max_bytes", (json_int_t)max, "hidden", (json_int_t)hidden,
                        "fused_max_tokens", json_object_get(sg->fusion, "fused_max_tokens"));
  if (!fusion_arch(sg->cc)) {
    char why[700];
    snprintf(why, sizeof why, "%s; these GPUs: compute capability %s", sg->e->fusion_why, *sg->cc ? sg->cc : "unknown");
    json_array_append_new(sg->patch, json_pack("{s:s, s:s, s:o}", "what", "allreduce+RMSNorm fusion", "why", why,
                                               "measured", m));
    return;
  }
  json_object_set_new(sg->fusion, "option", json_pack("{s:s, s:s, s:o, s:b}", "how", sg->e->fusion_how, "note",
                                                      "FlashInfer's kernel, not arbench's fused: an option to try "
                                                      "where arbench's fused kernel won, not a measured setting",
                                                      "measured_here", m, "measured", 0));
}
