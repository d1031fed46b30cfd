/* ar_tuner_decisions.h — the decisions file `arbench tune` writes for the tuner plugin (tuner.json):
 * loading and checking it, matching a communicator, and applying a range to NCCL's cost table. */
#ifndef AR_TUNER_DECISIONS_H
#define AR_TUNER_DECISIONS_H

#include <stddef.h>
#include <stdint.h>

#define AR_TUNER_SCHEMA "arbench.tuner"
#define AR_TUNER_VERSION 1
#define AR_TUNER_MAX_GROUPS 256
#define AR_TUNER_MAX_RANGES 256
#define AR_TUNER_MAX_CHANNELS 64 /* NCCL's MAXCHANNELS (32 before 2.23, 64 after) */

/* One size range [lo, hi] bytes (inclusive) and the NCCL setting chosen for it. */
struct ar_tuner_range {
  uint64_t lo, hi;
  int algo, proto; /* cost-table indices (ar_tuner_abi.h) */
  int channels;    /* > 0: that many; 0: NCCL decides */
  char config[128]; /* the measured configuration it came from, for the logs */
};

/* The decisions of one (nRanks, nNodes): ranges ascending, not overlapping. */
struct ar_tuner_group {
  int nranks, nnodes, nranges;
  struct ar_tuner_range *range;
};

struct ar_tuner_decisions {
  int ngroups;
  struct ar_tuner_group *group;
};

/* Load and check path. 0, or -1 with one line in err naming the file, the field and the problem
 * (missing file, not JSON, wrong schema or version, bad or negative sizes, unknown names, ranges
 * out of order or overlapping, duplicate groups); nothing to free then. Fields not named here are
 * ignored (the file may carry more). */
int ar_tuner_load(const char *path, struct ar_tuner_decisions *d, char *err, size_t len);
void ar_tuner_free(struct ar_tuner_decisions *d);

/* The group for a communicator: the same nRanks and nNodes (*exact = 1), else the same nNodes and the
 * nearest nRanks within a factor of 2 (the smaller of two equally near; *exact = 0), else NULL. */
const struct ar_tuner_group *ar_tuner_match(const struct ar_tuner_decisions *d, int nranks, int nnodes, int *exact);
/* Index of the range holding nbytes, -1 when none (beyond the largest measured size: no opinion). */
int ar_tuner_find(const struct ar_tuner_group *g, uint64_t nbytes);
/* Prefer r's algorithm/protocol in the flat cost table (table[a * numProto + p] = 0) and set
 * *nChannels when r has a channel count: 1. When NCCL marked the entry unavailable (-1) or the table
 * has no such entry, nothing is written: 0. */
int ar_tuner_apply(const struct ar_tuner_range *r, float *table, int numAlgo, int numProto, int *nChannels);
/* The channel count the plugin sets for r (0: none, NCCL's). NCCL caps a plugin's count at the communicator's
 * for Ring, Tree, NVLS and PAT (enqueue.cc's scheduler: nMaxChannels, v2.22.3-1 .. v2.30.7-1), so it can only
 * lower it; for CollNet it takes the count as the channel range unbounded (the isCollnet branch), where a
 * count above the communicator's would address channels it never set up: a CollNet range's count is never
 * set (0). */
int ar_tuner_channels(const struct ar_tuner_range *r);

/* Names as `arbench tune` writes them (lower case): -1 when unknown. */
int ar_tuner_algo_index(const char *name);
int ar_tuner_proto_index(const char *name);
const char *ar_tuner_algo_name(int algo);
const char *ar_tuner_proto_name(int proto);

#endif
