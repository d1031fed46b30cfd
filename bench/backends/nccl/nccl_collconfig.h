/* nccl_collconfig.h — NCCL's per-collective config (ncclCollConfig_t, NCCL >= 2.31): arbench's own declaration of
 * its layout, the algSelection text of a variant's algo=/proto=, and ncclAllReduceConfig looked up at run time. */
#ifndef AR_NCCL_COLLCONFIG_H
#define AR_NCCL_COLLCONFIG_H

#include <stddef.h>
#include <stdint.h>

/* ncclCollConfig_v23100, as include/nccl.h:178-201 of the nvidia-nccl-cu13 2.31.2 wheel declares it (versioned,
 * append-only: 2.32.6's ncclCollConfig_v23200 appends launchCompletionEvent; NCCL copies min(size, its own)
 * bytes). Declared here because the headers arbench builds against (2.28.9 in CUDA 13.0) have no such type. */
struct ar_nccl_coll_config {
  size_t size;
  unsigned int magic;   /* NCCL_API_MAGIC 0xcafebeef */
  unsigned int version; /* NCCL_VERSION_CODE of the caller's header: 23100 */
  void *ext;            /* ncclConfigExt_t list: none */
  int minCTAs, maxCTAs, nvlsCTAs, cgaClusterSize; /* NCCL_CONFIG_UNDEF_INT: NCCL's */
  const char *algSelection; /* registry names (RING_LL, ...): ',' or, '+' and, '^' not, prefix match */
  int forceAlgSelection;    /* 1: a selection NCCL cannot honour is an error */
  int CTAPolicy;            /* NCCL_CONFIG_UNDEF_INT: the communicator's */
  uint64_t userProfilerTag;
};

#define AR_NCCL_COLLCONFIG_MIN_VERSION 23100 /* 2.31.0: ncclAllReduceConfig and ncclCollConfig_t appear */

/* NCCL_COLLCONFIG_INITIALIZER's values (nccl.h:205-218 of the 2.31.2 wheel) with algSelection set; force 1. */
void ar_nccl_collconfig_init(struct ar_nccl_coll_config *c, const char *selection);

/* The algSelection that allows exactly the variant's algorithm x protocol pairs (lists as ar_nccl_variant holds them,
 * "Ring,Tree" / "LL,Simple"; empty = every one): the registry names of NCCL's src/config/algorithm_registry.cc, each
 * made exact against the names it prefixes ("RING_LL+^RING_LL128"), joined by ','. Pairs with no registry name (no
 * such kernel) are left out; when none is left, the first pair's name, which NCCL refuses with its own error.
 * 0, or -1 when nothing is forced or out is too small. */
int ar_nccl_collconfig_selection(const char *algo, const char *proto, char *out, size_t len);

/* ncclAllReduceConfig's signature with the opaque types as arbench's call passes them. */
typedef int (*ar_nccl_allreduce_config_fn)(const void *send, void *recv, size_t count, int dtype, int op, void *comm,
                                           void *stream, const struct ar_nccl_coll_config *config);
/* The loaded NCCL's ncclAllReduceConfig when its version (ncclGetVersion) is >= 2.31.0 and the symbol is there
 * (dlsym: an older libnccl has none, and this binary still runs on it); NULL otherwise. */
ar_nccl_allreduce_config_fn ar_nccl_collconfig_lookup(int version);

#endif
