/* nccl_collconfig.c — the nccl backend's per-collective config (NCCL >= 2.31): a variant's algo=/proto= as one
 * ncclCollConfig_t.algSelection, and ncclAllReduceConfig found at run time (nccl_collconfig.h). */
#include "backends/nccl/nccl_collconfig.h"
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

void ar_nccl_collconfig_init(struct ar_nccl_coll_config *c, const char *selection) {
  memset(c, 0, sizeof *c);
  c->size = sizeof *c;
  c->magic = 0xcafebeefu;
  c->version = AR_NCCL_COLLCONFIG_MIN_VERSION;
  c->ext = NULL;
  c->minCTAs = c->maxCTAs = c->nvlsCTAs = c->cgaClusterSize = INT_MIN;
  c->algSelection = selection;
  c->forceAlgSelection = 1;
  c->CTAPolicy = INT_MIN;
  c->userProfilerTag = 0;
}

/* The variant's spellings (nccl_parse.c) and the registry's (algorithm_registry.cc; the same names are in the
 * 2.31.2 wheel's libnccl.so.2). */
static const char *const algo_names[][2] = {{"Tree", "TREE"},   {"Ring", "RING"},         {"CollNetDirect", "COLLNET_DIRECT"},
                                            {"CollNetChain", "COLLNET_CHAIN"}, {"NVLS", "NVLS"}, {"NVLSTree", "NVLSTREE"},
                                            {"PAT", "PAT"}};
static const char *const proto_names[][2] = {{"LL", "LL"}, {"LL128", "LL128"}, {"Simple", "SIMPLE"}};
static const char *const registry[] = {"TREE_LL", "TREE_LL128", "TREE_SIMPLE", "RING_LL", "RING_LL128", "RING_SIMPLE",
                                       "COLLNET_DIRECT_SIMPLE", "COLLNET_CHAIN_SIMPLE", "NVLS_SIMPLE", "NVLSTREE_SIMPLE",
                                       "PAT_SIMPLE"};
#define NREG (sizeof registry / sizeof registry[0])

static int listed(const char *list, const char *name) {
  if (!*list) return 1;
  size_t n = strlen(name);
  for (const char *p = list; *p;) {
    size_t k = strcspn(p, ",");
    if (k == n && !strncmp(p, name, n)) return 1;
    p += k + (p[k] == ',');
  }
  return 0;
}

static int in_registry(const char *name) {
  for (size_t i = 0; i < NREG; i++)
    if (!strcmp(registry[i], name)) return 1;
  return 0;
}

/* name, then "+^OTHER" for every registry name it is a proper prefix of (NCCL matches a tag as a prefix). */
static int append_exact(const char *name, char *out, size_t len) {
  size_t k = strlen(out), n = strlen(name);
  int w = snprintf(out + k, len - k, "%s%s", k ? "," : "", name);
  if (w < 0 || (size_t)w >= len - k) return -1;
  for (size_t i = 0; i < NREG; i++) {
    if (strlen(registry[i]) <= n || strncmp(registry[i], name, n)) continue;
    k = strlen(out);
    w = snprintf(out + k, len - k, "+^%s", registry[i]);
    if (w < 0 || (size_t)w >= len - k) return -1;
  }
  return 0;
}

int ar_nccl_collconfig_selection(const char *algo, const char *proto, char *out, size_t len) {
  char first[48] = "", name[48];
  if (!len) return -1;
  *out = 0;
  if (!*algo && !*proto) return -1;
  for (size_t a = 0; a < sizeof algo_names / sizeof algo_names[0]; a++) {
    if (!listed(algo, algo_names[a][0])) continue;
    for (size_t p = 0; p < sizeof proto_names / sizeof proto_names[0]; p++) {
      if (!listed(proto, proto_names[p][0])) continue;
      snprintf(name, sizeof name, "%s_%s", algo_names[a][1], proto_names[p][1]);
      if (!*first) snprintf(first, sizeof first, "%s", name);
      if (in_registry(name) && append_exact(name, out, len)) return -1;
    }
  }
  if (!*out && *first) return append_exact(first, out, len);
  return *out ? 0 : -1;
}

ar_nccl_allreduce_config_fn ar_nccl_collconfig_lookup(int version) {
  if (version < AR_NCCL_COLLCONFIG_MIN_VERSION) return NULL;
  void *sym = dlsym(RTLD_DEFAULT, "ncclAllReduceConfig");
  ar_nccl_allreduce_config_fn fn = NULL;
  memcpy(&fn, &sym, sizeof fn);
  return fn;
}
