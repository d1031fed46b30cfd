/* test_tuner_plugin.c — dlopens the built libarbench-tuner.so the way NCCL does and drives every
 * exported ABI version (v2..v7) with a fake logger and fake cost tables laid out as NCCL lays them. */
#include "ar_tuner_abi.h"
#include <dlfcn.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                            \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

/* ---- fake NCCL logger: keeps every line with its level and subsystem flags ---- */
static char lines[64][1024];
static int levels[64], nlines;
static unsigned long flagsof[64];
static void fake_log(int level, unsigned long flags, const char *file, int line, const char *fmt, ...) {
  (void)file, (void)line;
  if (nlines >= 64) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lines[nlines], sizeof lines[0], fmt, ap);
  va_end(ap);
  flagsof[nlines] = flags;
  levels[nlines++] = level;
}

/* NCCL's filter (debug.cc, ncclDebugLog): a line prints when its level is at most NCCL_DEBUG's and its flags meet
 * the subsystem mask. The masks without NCCL_DEBUG_SUBSYS, read at each tag: INIT|ENV (v2.22.3-1), INIT|BOOTSTRAP|ENV
 * (v2.26.6-1, v2.28.9-1, v2.30.7-1); NCCL_DEBUG_SUBSYS=TUNING is the TUNING bit alone. */
static const struct { const char *tag; unsigned long mask; } default_masks[] = {
  {"2.22 default", 0x1UL | 0x80UL}, {"2.26..2.30 default", 0x1UL | 0x1000UL | 0x80UL}};
static int nccl_prints(int i, int debug_level, unsigned long mask) {
  return levels[i] <= debug_level && (flagsof[i] & mask) != 0;
}
/* Every kept line NCCL would print at debug_level under each default mask, and under TUNING alone. */
static int printed_everywhere(int i, int debug_level) {
  int ok = nccl_prints(i, debug_level, AR_NCCL_TUNING);
  for (size_t m = 0; m < sizeof default_masks / sizeof default_masks[0]; m++)
    ok &= nccl_prints(i, debug_level, default_masks[m].mask);
  return ok;
}
static int count_lines(const char *needle) {
  int n = 0;
  for (int i = 0; i < nlines; i++) n += strstr(lines[i], needle) != NULL;
  return n;
}
static void dump_lines(void) {
  for (int i = 0; i < nlines; i++) fprintf(stderr, "  log[%d] level %d: %s\n", i, levels[i], lines[i]);
}

static char dir[256];
static void write_file(const char *name, const char *text, char *path, size_t len) {
  snprintf(path, len, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0) {
    perror(path);
    exit(99);
  }
  fclose(f);
}

static const char *GOOD =
  "{\"schema\": \"arbench.tuner\", \"version\": 1, \"generated_by\": \"test\", \"extra\": {\"ignored\": true},\n"
  " \"groups\": [\n"
  "  {\"collective\": \"allreduce\", \"nranks\": 8, \"nnodes\": 1, \"dtype\": \"bfloat16\", \"ranges\": [\n"
  "    {\"min_bytes\": 0, \"max_bytes\": 65536, \"algorithm\": \"ring\", \"protocol\": \"ll\", \"channels\": -1,"
  "     \"config\": \"nccl:algo=ring,proto=ll\"},\n"
  "    {\"min_bytes\": 65537, \"max_bytes\": 1048576, \"algorithm\": \"ring\", \"protocol\": \"ll128\", \"channels\": 8},\n"
  "    {\"min_bytes\": 1048577, \"max_bytes\": 268435456, \"algorithm\": \"tree\", \"protocol\": \"simple\","
  "     \"channels\": 16}]},\n"
  "  {\"collective\": \"allreduce\", \"nranks\": 4, \"nnodes\": 1, \"ranges\": [\n"
  "    {\"min_bytes\": 0, \"max_bytes\": 1024, \"algorithm\": \"tree\", \"protocol\": \"ll\", \"channels\": -1},\n"
  "    {\"min_bytes\": 1025, \"max_bytes\": 4194304, \"algorithm\": \"ring\", \"protocol\": \"simple\", \"channels\": 4}]},\n"
  "  {\"collective\": \"allreduce\", \"nranks\": 16, \"nnodes\": 2, \"ranges\": [\n"
  "    {\"min_bytes\": 0, \"max_bytes\": 1048576, \"algorithm\": \"pat\", \"protocol\": \"simple\", \"channels\": -1}]}\n"
  " ]}\n";

/* v7's constants as tuner_v7.h lays them out (github NVIDIA/nccl 2449986f): 7x3 base latencies, 3x7x3 hardware
 * latencies, then five tables of 5 compute capabilities x 3 tuning scales, all double: 159 doubles. */
_Static_assert(sizeof(ar_nccl_tuner_constants_v7_t) == (21 + 63 + 5 * 5 * 3) * sizeof(double), "v7 constants size");
_Static_assert(offsetof(ar_nccl_tuner_constants_v7_t, perChMaxNVLSTreeBws) == (21 + 63 + 4 * 15) * sizeof(double),
               "v7 constants: the last table after four 5x3 tables");
_Static_assert(sizeof(ar_nccl_tuner_constants_v5_t) == (21 + 63 + 5 * 4 * 3) * sizeof(double), "v5 constants size");
_Static_assert(offsetof(ar_nccl_tuner_v7_t, getChunkSize) == 4 * sizeof(void *), "v7: name, init, getCollInfo, "
               "finalize, getChunkSize");

/* ---- one view over the six versions ---- */
struct api {
  int v;
  void *sym;
};

static int api_init(const struct api *a, size_t nranks, size_t nnodes, void **ctx) {
  ar_nccl_nvl_domain_v5_t nvl = {1, (int)nranks, (int)nranks};
  static ar_nccl_tuner_constants_v5_t k;
  static ar_nccl_tuner_constants_v7_t k7;
  switch (a->v) {
  case 2: return ((ar_nccl_tuner_v2_t *)a->sym)->init(nranks, nnodes, fake_log, ctx);
  case 3: return ((ar_nccl_tuner_v3_t *)a->sym)->init(nranks, nnodes, fake_log, ctx);
  case 4: return ((ar_nccl_tuner_v4_t *)a->sym)->init(nranks, nnodes, fake_log, ctx);
  case 5: return ((ar_nccl_tuner_v5_t *)a->sym)->init(ctx, 0x1234u, nranks, nnodes, fake_log, &nvl, &k);
  case 6: return ((ar_nccl_tuner_v6_t *)a->sym)->init(ctx, 0x1234u, nranks, nnodes, fake_log, &nvl, &k);
  default: return ((ar_nccl_tuner_v7_t *)a->sym)->init(ctx, 0x1234u, nranks, nnodes, fake_log, &nvl, &k7);
  }
}

static int api_coll(const struct api *a, void *ctx, int coll, size_t nbytes, float *table, int nalgo, int *nch) {
  switch (a->v) {
  case 3: return ((ar_nccl_tuner_v3_t *)a->sym)->getCollInfo(ctx, coll, nbytes, 1, (float **)table, nalgo, 3, nch);
  case 4: return ((ar_nccl_tuner_v4_t *)a->sym)->getCollInfo(ctx, coll, nbytes, 1, (float **)table, nalgo, 3, 0, nch);
  case 5: return ((ar_nccl_tuner_v5_t *)a->sym)->getCollInfo(ctx, coll, nbytes, 1, (float **)table, nalgo, 3, 0, nch);
  case 6: return ((ar_nccl_tuner_v6_t *)a->sym)->getCollInfo(ctx, coll, nbytes, 1, (float **)table, nalgo, 3, 1, nch);
  default: return ((ar_nccl_tuner_v7_t *)a->sym)->getCollInfo(ctx, coll, nbytes, 1, (float **)table, nalgo, 3, 1, nch);
  }
}

static int api_fini(const struct api *a, void *ctx) {
  switch (a->v) {
  case 2: return ((ar_nccl_tuner_v2_t *)a->sym)->destroy(ctx);
  case 3: return ((ar_nccl_tuner_v3_t *)a->sym)->destroy(ctx);
  case 4: return ((ar_nccl_tuner_v4_t *)a->sym)->destroy(ctx);
  case 5: return ((ar_nccl_tuner_v5_t *)a->sym)->finalize(ctx);
  case 6: return ((ar_nccl_tuner_v6_t *)a->sym)->finalize(ctx);
  default: return ((ar_nccl_tuner_v7_t *)a->sym)->finalize(ctx);
  }
}

/* A table as NCCL fills it: every entry a distinct positive time, CollNet/NVLS unavailable; the
 * entries past nalgo x 3 (outside NCCL's array) hold a sentinel no write may touch. */
static void fill(float *t, int nalgo) {
  for (int i = nalgo * 3; i < 21; i++) t[i] = 99.0f;
  for (int a = 0; a < nalgo; a++)
    for (int p = 0; p < 3; p++)
      t[a * 3 + p] = (a >= AR_NCCL_ALGO_COLLNET_DIRECT && a <= AR_NCCL_ALGO_NVLS_TREE) ? -1.0f : 10.0f + (float)(a * 3 + p);
}
/* Index of the only 0 entry, -2 when none, -3 when another entry changed, -4 when one past the table. */
static int zeroed(const float *t, int nalgo) {
  float ref[21];
  fill(ref, nalgo);
  int z = -2;
  for (int i = nalgo * 3; i < 21; i++)
    if (t[i] != 99.0f) return -4;
  for (int i = 0; i < nalgo * 3; i++) {
    if (t[i] == 0.0f && ref[i] > 0) z = z == -2 ? i : -3;
    else if (t[i] != ref[i]) return -3;
  }
  return z;
}

/* The choice made for nbytes: zeroed index (a * 3 + p) and channels. */
static void choice(const struct api *a, void *ctx, size_t nbytes, int nalgo, int *idx, int *nch) {
  float t[21];
  fill(t, nalgo);
  *nch = 0;
  int rc = api_coll(a, ctx, AR_NCCL_FUNC_ALLREDUCE, nbytes, t, nalgo, nch);
  CHECK(rc == 0, "v%d getCollInfo(%zu) returned %d", a->v, nbytes, rc);
  *idx = zeroed(t, nalgo);
}

#define IDX(a, p) ((a) * 3 + (p))

/* v7 init gets NCCL's constants (5 compute-capability rows) and the NVL domains: the plugin reads and writes
 * neither, and its context works as v6's. */
static void test_v7_constants(const ar_nccl_tuner_v7_t *v7) {
  ar_nccl_tuner_constants_v7_t k, ref;
  ar_nccl_nvl_domain_v5_t nvl = {1, 8, 8}, nvl_ref = nvl;
  memset(&k, 0xA5, sizeof k);
  k.perChMaxNVLSTreeBws[4][2] = 123.5; /* the last double of the 5th row: outside v5's struct */
  ref = k;
  void *ctx = NULL;
  CHECK(v7->init(&ctx, 0x77u, 8, 1, fake_log, &nvl, &k) == 0 && ctx, "v7 init");
  CHECK(!memcmp(&k, &ref, sizeof k) && !memcmp(&nvl, &nvl_ref, sizeof nvl), "v7 init changed NCCL's constants");
  float t[21];
  int nch = 0;
  fill(t, 7);
  CHECK(v7->getCollInfo(ctx, AR_NCCL_FUNC_ALLREDUCE, 4096, 1, (float **)t, 7, 3, 0, &nch) == 0 &&
        zeroed(t, 7) == IDX(AR_NCCL_ALGO_RING, AR_NCCL_PROTO_LL) && nch == 0, "v7 getCollInfo at 4096 B: ring/ll");
  CHECK(v7->finalize(ctx) == 0, "v7 finalize");
}

static void test_table_version(const struct api *a, int nalgo) {
  void *ctx = NULL;
  int idx, nch;
  nlines = 0;
  CHECK(api_init(a, 8, 1, &ctx) == 0 && ctx, "v%d init on a good file", a->v);
  CHECK(count_lines("8 ranks on 1 node") == 1 && levels[0] == AR_NCCL_LOG_INFO, "v%d init log", a->v);
  struct { size_t n; int idx, nch; } want[] = {
    {0, IDX(AR_NCCL_ALGO_RING, AR_NCCL_PROTO_LL), 0},
    {4096, IDX(AR_NCCL_ALGO_RING, AR_NCCL_PROTO_LL), 0},
    {65536, IDX(AR_NCCL_ALGO_RING, AR_NCCL_PROTO_LL), 0},      /* last byte of the first range */
    {65537, IDX(AR_NCCL_ALGO_RING, AR_NCCL_PROTO_LL128), 8},   /* first byte of the second */
    {1048576, IDX(AR_NCCL_ALGO_RING, AR_NCCL_PROTO_LL128), 8},
    {1048577, IDX(AR_NCCL_ALGO_TREE, AR_NCCL_PROTO_SIMPLE), 16},
    {268435456, IDX(AR_NCCL_ALGO_TREE, AR_NCCL_PROTO_SIMPLE), 16},
    {268435457, -2, 0},                                         /* beyond the largest measured: no opinion */
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    choice(a, ctx, want[i].n, nalgo, &idx, &nch);
    CHECK(idx == want[i].idx && nch == want[i].nch, "v%d (%d algos) %zu B: entry %d channels %d, want %d and %d", a->v,
          nalgo, want[i].n, idx, nch, want[i].idx, want[i].nch);
  }
  CHECK(count_lines("allreduce 0..65536 B on 8 ranks: ring/ll, NCCL's channel count (measured nccl:algo=ring,proto=ll)")
        == 1, "v%d: the first range logged once", a->v);
  CHECK(count_lines("allreduce 65537..1048576 B on 8 ranks: ring/ll128, 8 channels") == 1, "v%d: second range once", a->v);
  for (int i = 0; i < nlines; i++) /* INFO under INIT|TUNING: NCCL_DEBUG=INFO prints them by default, WARN does not */
    CHECK(levels[i] == AR_NCCL_LOG_INFO && printed_everywhere(i, AR_NCCL_LOG_INFO) &&
          !nccl_prints(i, AR_NCCL_LOG_WARN, AR_NCCL_ALL), "v%d: '%s' (flags %#lx) not an INFO line NCCL prints", a->v,
          lines[i], flagsof[i]);
  /* another collective: no opinion */
  float t[21];
  fill(t, nalgo);
  nch = 0;
  CHECK(api_coll(a, ctx, 2 /* allgather */, 4096, t, nalgo, &nch) == 0 && zeroed(t, nalgo) == -2 && nch == 0,
        "v%d allgather left alone", a->v);
  /* an entry NCCL marked unavailable: nothing written, one line */
  for (int k = 0; k < 2; k++) {
    fill(t, nalgo);
    t[IDX(AR_NCCL_ALGO_RING, AR_NCCL_PROTO_LL128)] = -1.0f;
    nch = 0;
    CHECK(api_coll(a, ctx, AR_NCCL_FUNC_ALLREDUCE, 100000, t, nalgo, &nch) == 0, "v%d coll", a->v);
    float ref[21];
    fill(ref, nalgo);
    ref[IDX(AR_NCCL_ALGO_RING, AR_NCCL_PROTO_LL128)] = -1.0f;
    CHECK(!memcmp(t, ref, sizeof(float) * (size_t)nalgo * 3) && nch == 0, "v%d unavailable entry: table changed", a->v);
  }
  CHECK(count_lines("ring/ll128 is unavailable") == 1, "v%d: unavailable logged once", a->v);
  CHECK(api_fini(a, ctx) == 0, "v%d finalize", a->v);

  /* nearest nRanks (7 -> 8, logged), 3 -> 4, none within 2x (32), exact multi-node group */
  nlines = 0;
  CHECK(api_init(a, 7, 1, &ctx) == 0, "v%d init 7", a->v);
  CHECK(count_lines("using those of the nearest, 8 ranks") == 1, "v%d nearest logged", a->v);
  choice(a, ctx, 65537, nalgo, &idx, &nch);
  CHECK(idx == IDX(AR_NCCL_ALGO_RING, AR_NCCL_PROTO_LL128) && nch == 8, "v%d nearest 7->8: %d %d", a->v, idx, nch);
  api_fini(a, ctx);
  CHECK(api_init(a, 3, 1, &ctx) == 0, "v%d init 3", a->v);
  choice(a, ctx, 2048, nalgo, &idx, &nch);
  CHECK(idx == IDX(AR_NCCL_ALGO_RING, AR_NCCL_PROTO_SIMPLE) && nch == 4, "v%d nearest 3->4: %d %d", a->v, idx, nch);
  api_fini(a, ctx);
  nlines = 0;
  CHECK(api_init(a, 32, 1, &ctx) == 0 && ctx, "v%d init 32", a->v);
  CHECK(count_lines("has no decisions for 32 ranks") == 1, "v%d no-group logged", a->v);
  choice(a, ctx, 4096, nalgo, &idx, &nch);
  CHECK(idx == -2 && nch == 0, "v%d 32 ranks: no opinion, got %d %d", a->v, idx, nch);
  api_fini(a, ctx);
  /* PAT: not in a 2.22 table (6 algorithms): left alone; in a 7-algorithm table: chosen */
  CHECK(api_init(a, 16, 2, &ctx) == 0, "v%d init 16x2", a->v);
  choice(a, ctx, 4096, nalgo, &idx, &nch);
  CHECK(idx == (nalgo > AR_NCCL_ALGO_PAT ? IDX(AR_NCCL_ALGO_PAT, AR_NCCL_PROTO_SIMPLE) : -2),
        "v%d pat with %d algorithms: %d", a->v, nalgo, idx);
  api_fini(a, ctx);
}

static void test_v2(const struct api *a) {
  void *ctx = NULL;
  ar_nccl_tuner_v2_t *t = a->sym;
  CHECK(t->init(8, 1, fake_log, &ctx) == 0 && ctx, "v2 init");
  int al = -1, pr = -1, nch = 0;
  CHECK(t->getCollInfo(ctx, AR_NCCL_FUNC_ALLREDUCE, 70000, 0, 0, 1, &al, &pr, &nch) == 0, "v2 coll");
  CHECK(al == AR_NCCL_ALGO_RING && pr == AR_NCCL_PROTO_LL128 && nch == 8, "v2 70000 B: %d %d %d", al, pr, nch);
  t->destroy(ctx);
  CHECK(t->init(16, 2, fake_log, &ctx) == 0, "v2 init 16x2");
  al = pr = -1, nch = 0;
  t->getCollInfo(ctx, AR_NCCL_FUNC_ALLREDUCE, 4096, 0, 0, 1, &al, &pr, &nch);
  CHECK(al == -1 && pr == -1 && nch == 0, "v2 has no PAT: left alone, got %d %d", al, pr);
  t->destroy(ctx);
}

/* A CollNet range's channel count is never set: NCCL takes a plugin's count there as the channel range without
 * bounding it at the communicator's (enqueue.cc's isCollnet branch, v2.22.3-1 .. v2.30.7-1); the algorithm is. */
static void test_collnet(const struct api *a) {
  char path[512];
  write_file("collnet.json", "{\"schema\": \"arbench.tuner\", \"version\": 1, \"groups\": [{\"collective\": \"allreduce\","
             " \"nranks\": 16, \"nnodes\": 2, \"ranges\": [{\"min_bytes\": 0, \"max_bytes\": 65536, \"algorithm\":"
             " \"collnet_direct\", \"protocol\": \"simple\", \"channels\": 32}, {\"min_bytes\": 65537, \"max_bytes\":"
             " 1048576, \"algorithm\": \"ring\", \"protocol\": \"simple\", \"channels\": 32}]}]}", path, sizeof path);
  setenv("ARBENCH_TUNER_FILE", path, 1);
  void *ctx = NULL;
  nlines = 0;
  CHECK(api_init(a, 16, 2, &ctx) == 0 && ctx, "v%d collnet init", a->v);
  if (a->v == 2) {
    int al = -1, pr = -1, nch = 0;
    ((ar_nccl_tuner_v2_t *)a->sym)->getCollInfo(ctx, AR_NCCL_FUNC_ALLREDUCE, 4096, 1, 0, 1, &al, &pr, &nch);
    CHECK(al == AR_NCCL_ALGO_COLLNET_DIRECT && pr == AR_NCCL_PROTO_SIMPLE && nch == 0, "v2 collnet: %d %d %d", al, pr, nch);
  } else {
    float t[21];
    for (int i = 0; i < 21; i++) t[i] = 10.0f + (float)i; /* CollNet available */
    int nch = 0;
    api_coll(a, ctx, AR_NCCL_FUNC_ALLREDUCE, 4096, t, 7, &nch);
    CHECK(t[IDX(AR_NCCL_ALGO_COLLNET_DIRECT, AR_NCCL_PROTO_SIMPLE)] == 0.0f && nch == 0, "v%d collnet: entry %g, "
          "channels %d (want 0: never set)", a->v, (double)t[IDX(AR_NCCL_ALGO_COLLNET_DIRECT, AR_NCCL_PROTO_SIMPLE)], nch);
    for (int i = 0; i < 21; i++) t[i] = 10.0f + (float)i;
    api_coll(a, ctx, AR_NCCL_FUNC_ALLREDUCE, 65537, t, 7, &nch);
    CHECK(nch == 32, "v%d ring range: channels %d, want 32 (NCCL caps it, the plugin asks)", a->v, nch);
  }
  CHECK(count_lines("collnet_direct/simple, NCCL's channel count (a CollNet range's 32 is not set") == 1,
        "v%d collnet: the log says the count is not set", a->v);
  if (a->v != 2) CHECK(count_lines("ring/simple, 32 channels at most (NCCL caps it at the communicator's)") == 1,
                       "v%d: the log says NCCL caps the count", a->v);
  api_fini(a, ctx);
}

/* Bad files: init succeeds with exactly one WARN line naming the file and the problem, and no
 * opinion after; ARBENCH_TUNER_STRICT=1 makes init fail. */
static void test_bad(const struct api *a, const char *name, const char *text, const char *problem) {
  char path[512];
  if (text) write_file(name, text, path, sizeof path);
  else snprintf(path, sizeof path, "%s/%s", dir, name);
  if (*name) setenv("ARBENCH_TUNER_FILE", path, 1);
  else unsetenv("ARBENCH_TUNER_FILE");
  void *ctx = NULL;
  nlines = 0;
  int rc = api_init(a, 8, 1, &ctx);
  CHECK(rc == 0 && ctx, "v%d %s: init returned %d", a->v, name, rc);
  CHECK(nlines == 1 && levels[0] == AR_NCCL_LOG_WARN && strstr(lines[0], *name ? path : "ARBENCH_TUNER_FILE") &&
        strstr(lines[0], problem), "v%d %s: want one WARN line naming the file and '%s'", a->v, name, problem);
  if (nlines != 1) dump_lines();
  /* NCCL_DEBUG=WARN, no NCCL_DEBUG_SUBSYS: the line prints under every tag's default mask (and under TUNING) */
  CHECK(nlines == 1 && printed_everywhere(0, AR_NCCL_LOG_WARN), "v%d %s: the WARN (flags %#lx) is dropped by NCCL's "
        "default subsystem mask", a->v, name, nlines ? flagsof[0] : 0UL);
  CHECK(nlines == 1 && !nccl_prints(0, AR_NCCL_LOG_NONE, AR_NCCL_ALL), "v%d %s: printed with NCCL_DEBUG unset", a->v, name);
  if (a->v > 2) {
    int idx, nch;
    choice(a, ctx, 4096, 7, &idx, &nch);
    CHECK(idx == -2 && nch == 0, "v%d %s: table changed after a failed load", a->v, name);
  }
  api_fini(a, ctx);
  setenv("ARBENCH_TUNER_STRICT", "1", 1);
  ctx = (void *)1;
  nlines = 0;
  rc = api_init(a, 8, 1, &ctx);
  CHECK(rc == arNcclInvalidUsage && ctx == NULL && nlines == 1, "v%d %s strict: rc %d, %d lines", a->v, name, rc, nlines);
  unsetenv("ARBENCH_TUNER_STRICT");
}

/* LIB --choose FILE NRANKS NNODES BYTES...: what the v5 plugin picks per size, one line each
 * ("BYTES algo/proto channels", or "BYTES -"), for tests that feed it a file tune wrote. */
static int choose_mode(void *h, int argc, char **argv) {
  struct api a = {5, dlsym(h, "ncclTunerPlugin_v5")};
  void *ctx = NULL;
  if (argc < 7 || !a.sym) return fprintf(stderr, "usage: test_tuner_plugin LIB --choose FILE NRANKS NNODES BYTES...\n"), 2;
  setenv("ARBENCH_TUNER_FILE", argv[3], 1);
  if (api_init(&a, strtoul(argv[4], NULL, 10), strtoul(argv[5], NULL, 10), &ctx)) return 1;
  for (int i = 0; i < nlines; i++) fprintf(stderr, "%s\n", lines[i]);
  for (int i = 6; i < argc; i++) {
    int idx, nch;
    choice(&a, ctx, strtoull(argv[i], NULL, 10), 7, &idx, &nch);
    if (idx < 0) printf("%s -\n", argv[i]);
    else printf("%s %s/%s %d\n", argv[i], (const char *[]){"tree", "ring", "collnet_direct", "collnet_chain", "nvls",
                "nvls_tree", "pat"}[idx / 3], (const char *[]){"ll", "ll128", "simple"}[idx % 3], nch);
  }
  api_fini(&a, ctx);
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  const char *lib = argc > 1 ? argv[1] : getenv("ARBENCH_TUNER_LIB");
  if (!lib) return fprintf(stderr, "usage: test_tuner_plugin LIB\n"), 2;
  snprintf(dir, sizeof dir, "%s", "/tmp/ar-tuner-XXXXXX");
  if (!mkdtemp(dir)) return perror("mkdtemp"), 99;
  void *h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL); /* as NCCL opens it */
  if (!h) return fprintf(stderr, "FAIL: dlopen %s: %s\n", lib, dlerror()), 1;
  if (argc > 2 && !strcmp(argv[2], "--choose")) return choose_mode(h, argc, argv);
  char good[512];
  write_file("good.json", GOOD, good, sizeof good);
  struct api apis[6];
  for (int v = 2; v <= 7; v++) {
    char sym[32];
    snprintf(sym, sizeof sym, "ncclTunerPlugin_v%d", v);
    apis[v - 2].v = v;
    apis[v - 2].sym = dlsym(h, sym);
    CHECK(apis[v - 2].sym != NULL, "%s not exported", sym);
    if (!apis[v - 2].sym) return 1;
    CHECK(!strcmp(*(const char **)apis[v - 2].sym, "arbench"), "%s name", sym);
  }
  setenv("ARBENCH_TUNER_FILE", good, 1);
  unsetenv("ARBENCH_TUNER_STRICT");
  test_v2(&apis[0]);
  test_table_version(&apis[1], 6); /* v3 as NCCL 2.22 calls it: float[6][3] */
  test_table_version(&apis[1], 7);
  test_table_version(&apis[2], 7);
  test_table_version(&apis[3], 7);
  test_table_version(&apis[4], 7);
  test_table_version(&apis[5], 7);
  size_t chunk = 131072;
  ar_nccl_tuner_v6_t *v6 = apis[4].sym;
  CHECK(v6->getChunkSize && v6->getChunkSize(NULL, 4, 1 << 20, 1, 2, 8, &chunk) == 0 && chunk == 131072,
        "v6 getChunkSize leaves NCCL's chunk size");
  ar_nccl_tuner_v7_t *v7 = apis[5].sym;
  chunk = 131072;
  CHECK(v7->getChunkSize && v7->getChunkSize(NULL, 4, 1 << 20, 1, 2, 8, &chunk) == 0 && chunk == 131072,
        "v7 getChunkSize leaves NCCL's chunk size");
  test_v7_constants(v7);

  for (int i = 0; i < 6; i++) test_collnet(&apis[i]);
  setenv("ARBENCH_TUNER_FILE", good, 1);
  for (int i = 0; i < 6; i++) {
    const struct api *a = &apis[i];
    test_bad(a, "missing.json", NULL, "cannot open tuning file");
    test_bad(a, "", NULL, "ARBENCH_TUNER_FILE is not set");
    test_bad(a, "torn.json", "{\"schema\": \"arbench.tuner\", \"version\": 1, \"groups\": [{\"collective\": \"allre",
             "not valid JSON at line 1");
    test_bad(a, "schema.json", "{\"schema\": \"nccl-tuner\", \"version\": 1, \"groups\": []}", "schema 'nccl-tuner'");
    test_bad(a, "version.json", "{\"schema\": \"arbench.tuner\", \"version\": 2, \"groups\": []}", "version");
    test_bad(a, "negative.json",
             "{\"schema\": \"arbench.tuner\", \"version\": 1, \"groups\": [{\"collective\": \"allreduce\", \"nranks\": 8,"
             " \"nnodes\": 1, \"ranges\": [{\"min_bytes\": -4, \"max_bytes\": 10, \"algorithm\": \"ring\", \"protocol\":"
             " \"ll\"}]}]}", "groups[0].ranges[0].min_bytes = -4 is negative");
    test_bad(a, "overlap.json",
             "{\"schema\": \"arbench.tuner\", \"version\": 1, \"groups\": [{\"collective\": \"allreduce\", \"nranks\": 8,"
             " \"nnodes\": 1, \"ranges\": [{\"min_bytes\": 0, \"max_bytes\": 10, \"algorithm\": \"ring\", \"protocol\":"
             " \"ll\"}, {\"min_bytes\": 10, \"max_bytes\": 20, \"algorithm\": \"ring\", \"protocol\": \"ll\"}]}]}",
             "groups[0].ranges[1]: min_bytes 10 overlaps");
    test_bad(a, "algo.json",
             "{\"schema\": \"arbench.tuner\", \"version\": 1, \"groups\": [{\"collective\": \"allreduce\", \"nranks\": 8,"
             " \"nnodes\": 1, \"ranges\": [{\"min_bytes\": 0, \"max_bytes\": 10, \"algorithm\": \"Ring\", \"protocol\":"
             " \"ll\"}]}]}", "algorithm 'Ring' unknown");
    test_bad(a, "channels.json",
             "{\"schema\": \"arbench.tuner\", \"version\": 1, \"groups\": [{\"collective\": \"allreduce\", \"nranks\": 8,"
             " \"nnodes\": 1, \"ranges\": [{\"min_bytes\": 0, \"max_bytes\": 10, \"algorithm\": \"ring\", \"protocol\":"
             " \"ll\", \"channels\": 0}]}]}", "channels = 0");
    setenv("ARBENCH_TUNER_FILE", good, 1);
  }
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) fprintf(stderr, "note: could not remove %s\n", dir);
  dlclose(h);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("ok: libarbench-tuner.so, ABI v2..v7, good and 9 bad decisions files\n");
  return failures ? 1 : 0;
}
