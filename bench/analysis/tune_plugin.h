/* tune_plugin.h — the decisions file for arbench's NCCL tuner plugin (DIR/tuner.json, tuner/),
 * written by `arbench tune`: per (nRanks, nNodes), the nccl setting per size range. */
#ifndef AR_TUNE_PLUGIN_H
#define AR_TUNE_PLUGIN_H

#include "analysis/analysis.h"

/* One size range and the nccl setting tune chose for it (the tuner CSV's lines, tuner.json's ranges). */
struct ar_tune_range {
  size_t lo, hi;
  char algo[32], proto[16];
  int channels; /* -1: NCCL decides (ar_tune_plugin_channels) */
  int wanted;   /* > 0: the measured count a plugin cannot get (channels is -1 then; nccl_env.sh names it) */
  int comm_channels; /* the default communicator's channels as the records show them, 0 unknown */
  int cfg;      /* grid column it came from (the first size's) */
  int sizes;    /* measured sizes in the range */
  int clear, equivalent, undecided; /* its sizes' verdicts (ar_grid_decide) */
  int runs_needed; /* the most runs per side its undecided sizes need (-1: unknown; 0: none undecided) */
  int launches;    /* as ar_range.launches */
};

/* The channel count a tuner plugin can set for a range measured with `channels` (-1 or 0: NCCL's), forced
 * (1: the configuration built its communicator with that many, ctas= or NCCL_MIN_CTAS) or NCCL's own choice,
 * on a communicator with comm_channels (NCCL's defaults; 0 unknown). NCCL caps a plugin's count at the
 * communicator's (enqueue.cc, scheduleCollTasksToPlan's nMaxChannels, v2.22.3-1 .. v2.30.7-1): a forced count
 * above it (or with it unknown) is -1, *wanted = the count, and raising the communicator (NCCL_MIN_CTAS) is
 * the only way to it. CollNet (algo collnet_*): -1 always, as NCCL takes a plugin's count there as the channel
 * range without bounding it. A count NCCL reported choosing is its own, within its communicator: kept. */
int ar_tune_plugin_channels(int channels, int forced, int comm_channels, const char *algo, int *wanted);

/* Append group g's decisions (ranges from tune's rule) and, per measured size, where a custom GPU
 * allreduce (p2p-*, symm) beats the best nccl configuration beyond the noise, to groups. */
int ar_tune_plugin_group(json_t *groups, const struct ar_grid *g, const struct ar_tune_range *r, int nr,
                         const struct ar_noise *nz);
/* Write the file: schema arbench.tuner version 1 (docs/tuner.md). 0, or -1 on a write error. */
int ar_tune_plugin_write(FILE *f, char **files, int nfiles, json_t *groups);

#endif
