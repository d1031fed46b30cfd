/* method.c — how a measurement was taken (graph replays, back-to-back launches timed as one interval, or each call
 * timed alone), read from its record, and what that method adds to the model's time of a call. */
#include "model/model.h"
#include "analysis/analysis.h"
#include "results.h"
#include <string.h>

static const char *const method_names[] = {"loop", "graph", "iter"};

const char *ar_mmethod_name(enum ar_mmethod m) { return m <= AR_MM_ITER ? method_names[m] : "?"; }

/* The record's own fields: "graph" (calls per captured graph; 0 plain launches) and "timing" (ar_rec_timing: "iter"
 * unless the record says "loop", as every reader of results takes it). */
enum ar_mmethod ar_model_method_of(json_t *rec) {
  if (ar_rec_num(rec, "graph", 0) > 0) return AR_MM_GRAPH;
  return strcmp(ar_rec_timing(rec), "loop") ? AR_MM_ITER : AR_MM_LOOP;
}

/* The model's parameters come from back-to-back launches (nccl-tests' loop; params.c): there the next launch runs
 * while this call executes, and a graph's replays follow each other the same way. Timed alone (timing iter), a call
 * pays its launch and the wait for it; a replay of a graph of K calls pays one, shared by its K calls. */
double ar_model_method_us(const struct ar_mparams *p, json_t *rec) {
  if (!strcmp(ar_rec_timing(rec), "loop")) return 0.0;
  double k = ar_rec_num(rec, "graph", 0);
  return p->iter_launch_us / (k > 1 ? k : 1);
}
