/* linkbound.h — what the measured links allow an allreduce: the link load of each algorithm family and the
 * least time it needs on the links of `link` records (the table's medians); `model --against`'s link part. */
#ifndef AR_MODEL_LINKBOUND_H
#define AR_MODEL_LINKBOUND_H

#include "model/model.h"
#include <jansson.h>

struct ar_ana;

/* The links pattern an algorithm puts its data on: every flow copies copy_bytes at a time, flow_bytes in all
 * per flow, and the algorithm waits on hops flag hops in a row. */
struct ar_link_load {
  const char *pattern, *method; /* `links` pattern and method whose flows carry it */
  double copy_bytes, flow_bytes, hops;
};
/* Ring (NCCL ring, staged two-shot: 2(n-1) steps of size/n to the successor), one-shot (pull: read, push:
 * write, everyone with everyone: size per flow, 2 hops), flat two-shot (all pairs: 2 size/n per flow, 3
 * hops). 0, or -1 for a family without one (tree, islands). */
int ar_link_load_of(int family, int n, double size, struct ar_link_load *l);

/* The bound: us = hops x lat_us + flow_bytes / link_gbs, where link_gbs is the slowest flow (slow_src ->
 * slow_dst) of the pattern's uni table at the measured size nearest copy_bytes and lat_us the median pair's
 * flag latency (tables: ar_links_tables_json). 0, or -1 when the tables lack the pattern, the latency or
 * n ranks. */
struct ar_link_bound {
  struct ar_link_load load;
  size_t link_bytes;
  double link_gbs, lat_us, hops_us, data_us, us;
  int slow_src, slow_dst;
};
int ar_link_bound(json_t *tables, int family, int n, double size, struct ar_link_bound *b);

/* Rows of `model --against` for the results of a (every cell a family's link load covers), one per
 * configuration and size: measured vs the bound, busbw both, ratio, what the bound came from. Number of rows,
 * or -AR_EINVAL with one line in err (links of several hosts, no results, none covered, other host). */
int ar_link_against(struct ar_ana *a, json_t *tables, int json, char *err, size_t len);

#endif
