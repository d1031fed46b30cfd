/* tune_plugin.c — `arbench tune -o DIR`'s DIR/tuner.json: the decisions libarbench-tuner.so reads
 * (tuner/ar_tuner_decisions.c checks the same schema), and where a custom allreduce beats NCCL. */
#include "analysis/tune_plugin.h"
#include "ar_tuner_decisions.h"
#include "backend.h"
#include "results.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The custom GPU allreduces a serving engine can route to instead of NCCL (as thresholds.json): by the
 * backend's family in the registry, not its name. */
static int is_custom_col(const struct ar_grid *g, int c) {
  unsigned flags;
  int fam = ar_backend_family(ar_rec_str(g->cfgrec[c], "backend", ""), &flags);
  return fam == AR_BE_FAM_P2P || fam == AR_BE_FAM_SYMM;
}

/* Fastest nccl column at size s that may be chosen (not unsafe, not a prediction), -1 when none. */
static int best_nccl_col(const struct ar_grid *g, int s) {
  int best = -1;
  for (int c = 0; c < g->ncfg; c++) {
    double v = ar_grid_is_nccl(g, c) && ar_grid_cell_eligible(g, s, c) ? ar_grid_p50(g, s, c) : NAN;
    if (!isnan(v) && (best < 0 || v < ar_grid_p50(g, s, best))) best = c;
  }
  return best;
}

/* Sizes where the pick among nccl and custom columns (the one decider) is a custom one, with its verdict. */
static json_t *custom_json(const struct ar_grid *g, const struct ar_noise *nz) {
  json_t *out = json_array();
  char *use = calloc((size_t)g->ncfg + 1, 1);
  struct ar_decisions d;
  int any_custom = 0;
  for (int c = 0; use && c < g->ncfg; c++) {
    use[c] = (char)(ar_grid_is_nccl(g, c) || is_custom_col(g, c));
    any_custom |= is_custom_col(g, c);
  }
  if (out && use && any_custom && !ar_grid_decide(g, use, nz, &d)) {
    for (int s = 0; s < g->nsize; s++) {
      int c = d.at[s].pick, n = best_nccl_col(g, s);
      if (c < 0 || n < 0 || !is_custom_col(g, c)) continue;
      json_array_append_new(out, json_pack("{s:I, s:s, s:s, s:f, s:f, s:f, s:s}", "bytes", (json_int_t)g->size[s],
                                           "custom", g->cfg[c], "best_nccl", g->cfg[n], "custom_p50_us",
                                           ar_grid_p50(g, s, c), "nccl_p50_us", ar_grid_p50(g, s, n), "speedup",
                                           ar_grid_p50(g, s, n) / ar_grid_p50(g, s, c), "verdict",
                                           ar_verdict_name(d.at[s].verdict)));
    }
    ar_decisions_free(&d);
  }
  free(use);
  return out;
}

int ar_tune_plugin_channels(int channels, int forced, int comm_channels, const char *algo, int *wanted) {
  *wanted = 0;
  if (channels <= 0) return -1;
  if (!strncmp(algo, "collnet", 7)) return -1; /* NCCL does not bound it there: never set */
  if (!forced || (comm_channels > 0 && channels <= comm_channels)) return channels;
  *wanted = channels;
  return -1;
}

int ar_tune_plugin_group(json_t *groups, const struct ar_grid *g, const struct ar_tune_range *r, int nr,
                         const struct ar_noise *nz) {
  json_t *ranges = json_array();
  for (int i = 0; ranges && i < nr; i++) {
    /* only names the plugin knows (tune spells them as ar_tuner_decisions.c reads them) */
    if (ar_tuner_algo_index(r[i].algo) < 0 || ar_tuner_proto_index(r[i].proto) < 0) continue;
    struct ar_range vr = {.clear = r[i].clear, .equivalent = r[i].equivalent, .undecided = r[i].undecided};
    json_t *j = json_pack("{s:I, s:I, s:s, s:s, s:i, s:s, s:i, s:s, s:i, s:i, s:i, s:o}", "min_bytes",
                          (json_int_t)r[i].lo, "max_bytes", (json_int_t)r[i].hi, "algorithm", r[i].algo, "protocol",
                          r[i].proto, "channels", r[i].channels, "config", g->cfg[r[i].cfg], "sizes", r[i].sizes,
                          "verdict", ar_range_verdict(&vr), "clear", r[i].clear, "equivalent", r[i].equivalent,
                          "undecided", r[i].undecided, "runs_needed",
                          r[i].runs_needed < 0 ? json_null() : json_integer(r[i].runs_needed));
    if (j && r[i].wanted > 0) { /* measured with more channels than a plugin can get: said, not claimed */
      json_object_set_new(j, "channels_measured", json_integer(r[i].wanted));
      json_object_set_new(j, "comm_channels", r[i].comm_channels > 0 ? json_integer(r[i].comm_channels) : json_null());
      json_object_set_new(j, "channels_note", json_string("NCCL caps a tuner plugin's channel count at the "
                          "communicator's: the measured count needs NCCL_MIN_CTAS (nccl_env.sh)"));
    }
    json_array_append_new(ranges, j);
  }
  json_t *j = json_pack("{s:s, s:i, s:i, s:s, s:s, s:o, s:o}", "collective", "allreduce", "nranks", g->ranks,
                        "nnodes", g->nodes > 0 ? g->nodes : 1, "dtype", g->dtype, "placement", g->placement,
                        "ranges", ranges ? ranges : json_array(), "custom_beats_nccl", custom_json(g, nz));
  if (!j) return -1;
  if (!json_array_size(ranges)) {
    json_decref(j); /* nothing for the plugin: a group without ranges would be refused */
    return 0;
  }
  return json_array_append_new(groups, j);
}

int ar_tune_plugin_write(FILE *f, char **files, int nfiles, json_t *groups) {
  json_t *jf = json_array();
  for (int i = 0; i < nfiles; i++) json_array_append_new(jf, json_string(files[i]));
  json_t *j = json_pack("{s:s, s:i, s:s, s:o, s:s, s:O}", "schema", AR_TUNER_SCHEMA, "version", AR_TUNER_VERSION,
                        "generated_by", "arbench tune", "files", jf, "rule",
                        "ranges: per group, the nccl setting of tune's pick per measured size (arbench table's rule among "
                        "the nccl configurations: the fastest p50 unless another is shown equivalent within the margin), "
                        "merged while the pick and its setting stay the same, with the sizes' verdicts (undecided: the "
                        "data cannot tell the pick from another; runs_needed: the runs per side that would decide); "
                        "the first range starts at 0, each next one byte after the previous, the last ends at the "
                        "largest measured size (beyond it the plugin has no opinion). custom_beats_nccl: sizes where a "
                        "custom allreduce (p2p-*, symm) is the pick against every nccl configuration by the same rule "
                        "(NCCL's plugin cannot route there; set the serving engine's custom-allreduce threshold), "
                        "speedup = best nccl p50 / custom p50.",
                        "groups", groups);
  if (!j) return -1;
  int rc = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
  fputc('\n', f);
  json_decref(j);
  return rc ? -1 : 0;
}
