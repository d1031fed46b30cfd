/* tune_plugin.h — the decisions file for arbench's NCCL tuner plugin (DIR/tuner.json, tuner/),
 * written by `arbench tune`: per (nRanks, nNodes), the nccl setting per size range. */
#ifndef AR_TUNE_PLUGIN_H
#define AR_TUNE_PLUGIN_H

#include "analysis/analysis.h"

/* One size range and the nccl setting tune chose for it (the tuner CSV's lines, tuner.json's ranges). */
struct ar_tune_range {
  size_t lo, hi;
  char algo[32], proto[16];
  int channels; /* -1: NCCL decides */
  int cfg;      /* grid column it came from (the first size's) */
  int sizes;    /* measured sizes in the range */
  int clear, equivalent, undecided; /* its sizes' verdicts (ar_grid_decide) */
  int runs_needed; /* the most runs per side its undecided sizes need (-1: unknown; 0: none undecided) */
};

/* Append group g's decisions (ranges from tune's rule) and, per measured size, where a custom GPU
 * allreduce (p2p-*, symm) beats the best nccl configuration beyond the noise, to groups. */
int ar_tune_plugin_group(json_t *groups, const struct ar_grid *g, const struct ar_tune_range *r, int nr,
                         const struct ar_noise *nz);
/* Write the file: schema arbench.tuner version 1 (docs/tuner.md). 0, or -1 on a write error. */
int ar_tune_plugin_write(FILE *f, char **files, int nfiles, json_t *groups);

#endif
