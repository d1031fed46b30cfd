/* tuner.c — the NCCL stand-in's tuner-plugin loader, as NCCL 2.28.9 loads one (src/plugin/tuner.cc,
 * plugin_open.cc, tuner/tuner_v2..v5.cc): NCCL_TUNER_PLUGIN as a path or name, symbols v5 .. v2 (v6 first from 2.30.3). */
#include "standin_nccl.h"
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The plugin interfaces, written from NCCL's src/include/plugin/tuner/tuner_v{2,3,4,5}.h at v2.28.9-1 (arbench's
 * own declarations in tuner/ are deliberately not used: the stand-in checks them). */
typedef void (*logger_t)(int level, unsigned long flags, const char *file, int line, const char *fmt, ...);
typedef struct {
  int nNvlDomains, minRanksPerNvlDomain, maxRanksPerNvlDomain;
} nvl_domain_v5_t;
typedef struct {
  double baseLatencies[7][3];
  double hwLatencies[3][7][3];
  double llMaxBws[4][3];
  double perChMaxRingLL128Bws[4][3];
  double perChMaxTreeLL128Bws[4][3];
  double perChMaxTreeBws[4][3];
  double perChMaxNVLSTreeBws[4][3];
} constants_v5_t;
typedef struct {
  const char *name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, logger_t log, void **ctx);
  ncclResult_t (*getCollInfo)(void *ctx, int coll, size_t nBytes, int collNetSupport, int nvlsSupport, int numPipeOps,
                              int *algorithm, int *protocol, int *nChannels);
  ncclResult_t (*destroy)(void *ctx);
} tuner_v2_t;
typedef struct {
  const char *name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, logger_t log, void **ctx);
  ncclResult_t (*getCollInfo)(void *ctx, int coll, size_t nBytes, int numPipeOps, float **table, int numAlgo,
                              int numProto, int *nChannels);
  ncclResult_t (*destroy)(void *ctx);
} tuner_v3_t;
typedef struct {
  const char *name;
  ncclResult_t (*init)(size_t nRanks, size_t nNodes, logger_t log, void **ctx);
  ncclResult_t (*getCollInfo)(void *ctx, int coll, size_t nBytes, int numPipeOps, float **table, int numAlgo,
                              int numProto, int regBuff, int *nChannels);
  ncclResult_t (*destroy)(void *ctx);
} tuner_v4_t;
typedef struct {
  const char *name;
  ncclResult_t (*init)(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes, logger_t log, nvl_domain_v5_t *nvl,
                       constants_v5_t *constants);
  ncclResult_t (*getCollInfo)(void *ctx, int coll, size_t nBytes, int numPipeOps, float **table, int numAlgo,
                              int numProto, int regBuff, int *nChannels);
  ncclResult_t (*finalize)(void *ctx);
} tuner_v5_t;

struct sn_tuner {
  int version; /* 6, 5, 4, 3 or 2: the symbol found */
  const void *sym;
  const char *name;
};

/* One plugin per process, as NCCL keeps it: a failed load is remembered for the life of the process; a loaded
 * one is shared and closed when its last communicator goes. */
enum { LOAD_FAILED = -1, LOAD_READY = 0, LOAD_SUCCESS = 1 };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int status = LOAD_READY, refs;
static void *lib;
static struct sn_tuner plugin;

static void *try_open(const char *name, int *enoent, char *why, size_t len) {
  *enoent = 0;
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(why, len, "%s", dlerror());
    *enoent = strstr(why, name) && strstr(why, "No such file or directory");
  }
  return h;
}

/* NCCL_TUNER_PLUGIN as given (path or library name), else libnccl-tuner.so; a bare NAME (no '/', not
 * lib*.so) is also tried as libnccl-tuner-NAME.so. Names not found are listed in one line. */
static void *open_lib(const char *given, char *path, size_t plen) {
  char name[256], missing[PATH_MAX] = "", why[256];
  int enoent;
  snprintf(name, sizeof name, "%s", given && *given ? given : "libnccl-tuner.so");
  void *h = try_open(name, &enoent, why, sizeof why);
  if (!h && enoent) snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s", name);
  else if (!h) SN_INFO(SN_INIT | SN_TUNING, "TUNER/Plugin: %s: %s", name, why);
  size_t gl = given ? strlen(given) : 0;
  int bare = gl && !strchr(given, '/') && (strncmp(given, "lib", 3) || gl < 3 || strcmp(given + gl - 3, ".so"));
  if (!h && bare) {
    snprintf(name, sizeof name, "libnccl-tuner-%s.so", given);
    h = try_open(name, &enoent, why, sizeof why);
    if (!h && enoent) snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s", name);
    else if (!h) SN_INFO(SN_INIT | SN_TUNING, "TUNER/Plugin: %s: %s", name, why);
  }
  if (!h) {
    if (*missing) SN_INFO(SN_INIT | SN_TUNING, "TUNER/Plugin: Could not find:%s", missing);
    return NULL;
  }
  struct link_map *lm = NULL;
  snprintf(path, plen, "%s", dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm ? lm->l_name : name);
  return h;
}

/* The symbols each release's loader looks up, newest first (src/plugin/tuner.cc at its tag): v5..v2 up to 2.30.2
 * (v2.28.9-1 :72-80, v2.29.7-1 the same), v6 first from 2.30.3 (v2.30.3-1 :74-85). A v6 is driven through its v5
 * prefix (init, getCollInfo, finalize: tuner_v6.h at v2.30.3-1); its getChunkSize is not called here. */
static const struct {
  enum sn_rule since; /* SN_RULE_COUNT: every modelled release */
  const char *names[6];
} lookup[] = {
    {SN_TUNER_V6, {"ncclTunerPlugin_v6", "ncclTunerPlugin_v5", "ncclTunerPlugin_v4", "ncclTunerPlugin_v3",
                   "ncclTunerPlugin_v2"}},
    {SN_RULE_COUNT, {"ncclTunerPlugin_v5", "ncclTunerPlugin_v4", "ncclTunerPlugin_v3", "ncclTunerPlugin_v2"}},
};

/* The newest interface the library exports that this release looks up. */
static int find_symbol(void *h) {
  size_t row = 0;
  while (lookup[row].since != SN_RULE_COUNT && !sn_since(lookup[row].since)) row++;
  for (int i = 0; lookup[row].names[i]; i++) {
    const char *name = lookup[row].names[i];
    const void *sym = dlsym(h, name);
    if (!sym) continue;
    plugin.version = name[strlen(name) - 1] - '0';
    plugin.sym = sym;
    plugin.name = *(const char *const *)sym; /* every version starts with its name */
    SN_INFO(SN_INIT | SN_TUNING, "TUNER/Plugin: Using %s (v%d)", plugin.name, plugin.version);
    return 0;
  }
  return -1;
}

struct sn_tuner *sn_tuner_load(void) {
  if (__atomic_load_n(&status, __ATOMIC_ACQUIRE) == LOAD_FAILED) return NULL;
  pthread_mutex_lock(&lock);
  struct sn_tuner *t = NULL;
  if (status == LOAD_SUCCESS) {
    refs++;
    t = &plugin;
  } else if (status == LOAD_READY) {
    const char *given = sn_getenv("NCCL_TUNER_PLUGIN");
    char path[PATH_MAX] = "";
    if (given) SN_INFO(SN_ENV | SN_TUNING, "NCCL_TUNER_PLUGIN set by environment to %s", given);
    lib = given && !strcasecmp(given, "none") ? NULL : open_lib(given, path, sizeof path);
    /* NCCL would try the net plugin's library next: the stand-in has none. */
    if (lib && find_symbol(lib)) {
      SN_INFO(SN_INIT | SN_TUNING, "External tuner plugin %s is unsupported", path);
      dlclose(lib);
      lib = NULL;
    }
    if (lib) {
      SN_INFO(SN_INIT | SN_TUNING, "Successfully loaded external tuner plugin %s", path);
      refs = 1;
      t = &plugin;
    }
    __atomic_store_n(&status, lib ? LOAD_SUCCESS : LOAD_FAILED, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  return t;
}

void sn_tuner_unload(struct sn_tuner *t) {
  if (!t) return;
  pthread_mutex_lock(&lock);
  if (--refs == 0) {
    SN_INFO(SN_INIT | SN_TUNING, "TUNER/Plugin: Closing tuner: '%s'", plugin.name);
    dlclose(lib);
    lib = NULL;
    status = LOAD_READY;
  }
  pthread_mutex_unlock(&lock);
}

/* The constants NCCL 2.28 hands to a v5 init (the plugin may change them; the stand-in's model ignores them). */
static constants_v5_t constants;

ncclResult_t sn_tuner_init(struct sn_tuner *t, void **ctx, uint64_t comm_id, size_t nranks, size_t nnodes) {
  /* init.cc: one domain per node, min/max ranks per node (one node here: all ranks) */
  nvl_domain_v5_t nvl = {(int)nnodes, (int)(nranks / nnodes), (int)(nranks / nnodes)};
  *ctx = NULL;
  switch (t->version) {
  case 6:
  case 5: return ((const tuner_v5_t *)t->sym)->init(ctx, comm_id, nranks, nnodes, sn_log, &nvl, &constants);
  case 4: return ((const tuner_v4_t *)t->sym)->init(nranks, nnodes, sn_log, ctx);
  case 3: return ((const tuner_v3_t *)t->sym)->init(nranks, nnodes, sn_log, ctx);
  default: return ((const tuner_v2_t *)t->sym)->init(nranks, nnodes, sn_log, ctx);
  }
}

/* v2 is told whether NVLS / CollNet exist (from the table) and returns a choice that NCCL writes as cost 0. */
static ncclResult_t coll_v2(const tuner_v2_t *p, void *ctx, int func, size_t bytes, float *table, int *nch) {
  int algo = -1, proto = -1;
  int nvls = table[SN_ALGO_NVLS * SN_NUM_PROTOS + SN_PROTO_SIMPLE] != SN_COST_IGNORE ||
             table[SN_ALGO_NVLS_TREE * SN_NUM_PROTOS + SN_PROTO_SIMPLE] != SN_COST_IGNORE;
  int collnet = table[SN_ALGO_COLLNET_CHAIN * SN_NUM_PROTOS + SN_PROTO_SIMPLE] != SN_COST_IGNORE;
  ncclResult_t rc = p->getCollInfo(ctx, func, bytes, collnet, nvls, 1, &algo, &proto, nch);
  if (rc != ncclSuccess) return rc;
  if (algo >= 0 && algo < SN_NUM_ALGOS && proto >= 0 && proto < SN_NUM_PROTOS &&
      table[algo * SN_NUM_PROTOS + proto] != SN_COST_IGNORE)
    table[algo * SN_NUM_PROTOS + proto] = 0.0f;
  return ncclSuccess;
}

/* NCCL passes its local float[7][3] cast to float**: the plugin must index it flat. */
ncclResult_t sn_tuner_coll(struct sn_tuner *t, void *ctx, int func, size_t bytes, float *table, int reg, int *nch) {
  float **tp = (float **)(void *)table;
  switch (t->version) {
  case 6:
  case 5: return ((const tuner_v5_t *)t->sym)->getCollInfo(ctx, func, bytes, 1, tp, SN_NUM_ALGOS, SN_NUM_PROTOS, reg, nch);
  case 4: return ((const tuner_v4_t *)t->sym)->getCollInfo(ctx, func, bytes, 1, tp, SN_NUM_ALGOS, SN_NUM_PROTOS, reg, nch);
  case 3: return ((const tuner_v3_t *)t->sym)->getCollInfo(ctx, func, bytes, 1, tp, SN_NUM_ALGOS, SN_NUM_PROTOS, nch);
  default: return coll_v2((const tuner_v2_t *)t->sym, ctx, func, bytes, table, nch);
  }
}

ncclResult_t sn_tuner_finalize(struct sn_tuner *t, void *ctx) {
  if (t->version >= 5) return ((const tuner_v5_t *)t->sym)->finalize(ctx);
  return ((const tuner_v4_t *)t->sym)->destroy(ctx); /* v2..v4 share the layout up to destroy */
}
