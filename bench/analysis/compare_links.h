/* compare_links.h — `arbench compare A B` on link records: per (method, direction, pattern, flow, size) the
 * ratio B/A of the medians, with compare's noise rule (bootstrap over runs and repeats, Holm over the family). */
#ifndef AR_COMPARE_LINKS_H
#define AR_COMPARE_LINKS_H

#include "analysis/analysis.h"
#include <jansson.h>

/* The links part of a comparison of sides a and b: {"matches": [...], "only_a", "only_b", "family",
 * "correction", "resamples", "summary"}; alpha: the family-wise error this family gets. NULL with one line
 * in err when a side mixes hosts or stacks (a side is one box on one stack). */
json_t *ar_links_compare(const struct ar_ana *a, const struct ar_ana *b, int resamples, unsigned long long seed,
                         double alpha, char *err, size_t len);
/* Its text: a markdown table and the summary per (method, direction, pattern). */
void ar_links_compare_print(json_t *r);

#endif
