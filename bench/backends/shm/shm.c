/* shm.c — the shm-oneshot, shm-twoshot, shm-staged and shm-islands backends: kernels/ar_core.h's
 * algorithms between the ranks of one node over an MPI-3 shared-memory window (MPI_Win_allocate_shared). */
#include "backend.h"
#include "opts.h"
#include "backends/shm/algo.h"
#include "islands.h"
#include "topo.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(AR_CORE_FLOAT == AR_FLOAT && AR_CORE_HALF == AR_HALF && AR_CORE_BF16 == AR_BF16 &&
                   AR_CORE_INT32 == AR_INT32, "ar_core dtype codes follow enum ar_dtype");
_Static_assert(AR_CORE_SUM == AR_SUM && AR_CORE_PROD == AR_PROD && AR_CORE_MAX == AR_MAX &&
                   AR_CORE_MIN == AR_MIN && AR_CORE_AVG == AR_AVG, "ar_core op codes follow enum ar_op");

#define SHM_DEFAULT_CHUNK ((size_t)256 << 10) /* staging bytes per generation */
#define SHM_DEFAULT_STREAM ((size_t)16 << 10) /* stream outputs of calls this large (cold buffers) */
#define SHM_DEFAULT_TIMEOUT 300.0             /* seconds, when -T 0 turned the watchdog off */

static int shm_available(const struct ar_env *env, char *why, size_t len) {
  if (env->nnodes > 1) {
    snprintf(why, len, "ranks span %d nodes (shm-* needs every rank on one node)", env->nnodes);
    return -AR_EUNAVAIL;
  }
  if (env->local_nranks > AR_CORE_MAX_RANKS) {
    snprintf(why, len, "%d ranks on this node, at most %d supported", env->local_nranks, AR_CORE_MAX_RANKS);
    return -AR_EUNAVAIL;
  }
  return 0;
}

/* One "key=SIZE" of a variant: chunk (staging bytes per generation) or stream (calls of at least this
 * many bytes write their output with streaming stores; 0 = never). */
static int parse_key(struct shm_state *s, const char *kv, const char *variant, char *err, size_t len) {
  const char *eq = strchr(kv, '=');
  size_t klen = eq ? (size_t)(eq - kv) : strlen(kv), v = 0, lo = 0;
  size_t *dst = NULL;
  if (eq && klen == 5 && !strncmp(kv, "chunk", 5)) dst = &s->chunk_req, lo = AR_CORE_LINE;
  if (eq && klen == 6 && !strncmp(kv, "stream", 6)) dst = &s->stream_bytes;
  if (!dst) {
    snprintf(err, len, "unknown variant '%s:%s' (allowed: %s:chunk=SIZE,stream=SIZE, e.g. chunk=64K)", s->name,
             variant, s->name);
    return -AR_EINVAL;
  }
  char msg[AR_ERRLEN];
  int zero = !strcmp(eq + 1, "0");
  if ((!zero && ar_size_parse(eq + 1, &v, msg, sizeof msg)) || v < lo || v > ((size_t)1 << 30)) {
    snprintf(err, len, "bad size '%s' for %.*s in '%s:%s' (allowed: %zu to 1G bytes, e.g. 64K)", eq + 1, (int)klen,
             kv, s->name, variant, lo);
    return -AR_EINVAL;
  }
  *dst = v;
  return 0;
}

/* Variant text: "" or comma-separated keys, e.g. "chunk=64K,stream=0". */
static int parse_variant(struct shm_state *s, const char *variant, char *err, size_t len) {
  char buf[AR_NAMELEN];
  snprintf(buf, sizeof buf, "%s", variant);
  char *save = NULL;
  int seen = 0;
  for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    int rc = parse_key(s, kv, variant, err, len);
    if (rc) return rc;
    int bit = !strncmp(kv, "chunk=", 6) ? 1 : 2;
    if (seen & bit) { /* the later would silently win */
      snprintf(err, len, "%s given twice in '%s:%s' (give each key once)", bit == 1 ? "chunk" : "stream", s->name,
               variant);
      return -AR_EINVAL;
    }
    seen |= bit;
  }
  return 0;
}

/* The variant checked before anything runs (the engine's check_variant), as init parses it. */
static int shm_check(const char *variant, const char *name, char *err, size_t len) {
  struct shm_state s = {.name = name};
  return parse_variant(&s, variant, err, len);
}

/* Island of every local rank: --islands N splits them evenly, else the NUMA node of each rank's
 * binding; unknown anywhere -> one island. Collective over s->comm. */
static int build_islands(struct shm_state *s, const struct ar_env *env, char *err, size_t len) {
  int numa = env->topo ? ar_topo_numa_of_self(env->topo) : -1;
  return ar_islands_agree(s->comm, s->n, env->opts ? env->opts->islands : 0, numa, &s->isl, err, len);
}

static int shm_init(const struct ar_env *env, const char *variant, void **state, char *err, size_t len,
                    int algo, const char *name) {
  struct shm_state *s = calloc(1, sizeof *s);
  if (!s) return -AR_ERUNTIME;
  s->algo = algo;
  s->name = name;
  s->win = MPI_WIN_NULL;
  s->gen = AR_CORE_GEN0 - 1u;
  s->stream_bytes = SHM_DEFAULT_STREAM;
  int rc = parse_variant(s, variant, err, len);
  if (rc) {
    free(s);
    return rc;
  }
  MPI_Comm_dup(env->node_comm, &s->comm);
  MPI_Comm_rank(s->comm, &s->rank);
  MPI_Comm_size(s->comm, &s->n);
  rc = algo == AR_CORE_ISLANDS ? build_islands(s, env, err, len) : 0;
  if (rc) {
    MPI_Comm_free(&s->comm);
    free(s);
    return rc;
  }
  double t = env->opts ? env->opts->timeout : 0;
  /* Give up a little before the watchdog (-T) would abort, so the error names the peer. */
  s->timeout_s = t > 0 ? 0.9 * t : SHM_DEFAULT_TIMEOUT;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  s->wait.timeout_ns = (uint64_t)(s->timeout_s * 1e9);
  s->wait.oversubscribed = ncpu > 0 && s->n > ncpu;
  s->wait.aborts = s->aborts;
  s->wait.naborts = s->n;
  *state = s;
  return 0;
}

static void release_window(struct shm_state *s) {
  if (s->win != MPI_WIN_NULL) MPI_Win_free(&s->win);
  s->win = MPI_WIN_NULL;
  free(s->acc);
  s->acc = NULL;
}

static int shm_setup(void *state, size_t max_bytes, char *err, size_t len) {
  struct shm_state *s = state;
  release_window(s);
  size_t chunk = s->chunk_req ? s->chunk_req : SHM_DEFAULT_CHUNK;
  size_t need = ar_core_round(max_bytes ? max_bytes : 1, AR_CORE_LINE);
  if (!s->chunk_req && need < chunk) chunk = need;
  ar_core_layout_init(&s->lay, s->algo, chunk);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  char *mine = NULL;
  int rc = MPI_Win_allocate_shared((MPI_Aint)s->lay.region_bytes, 1, info, s->comm, &mine, &s->win);
  MPI_Info_free(&info);
  s->acc = malloc(ar_chunk_count(s->lay.chunk_bytes, 2) * 4 + AR_CORE_ALIGN);
  if (rc != MPI_SUCCESS || !s->acc) {
    snprintf(err, len, "cannot allocate %zu bytes of MPI shared memory per rank", s->lay.region_bytes);
    return -AR_ERUNTIME;
  }
  for (int q = 0; q < s->n; q++) {
    MPI_Aint size;
    int disp;
    MPI_Win_shared_query(s->win, q, &size, &disp, &s->base[q]);
    s->aborts[q] = ar_core_flag(s->base[q], AR_FLAG_ABORT);
  }
  memset(mine, 0, s->lay.region_bytes); /* first touch: the pages live near their writer */
  for (int f = 0; f < AR_CORE_NFLAGS; f++) ar_flag_store(ar_core_flag(mine, f), f == AR_FLAG_ABORT ? 0u : s->gen);
  s->broken = 0;
  MPI_Barrier(s->comm);
  return 0;
}

static int shm_supports(void *state, enum ar_dtype dt, enum ar_op op, char *why, size_t len) {
  (void)state;
  if ((unsigned)dt >= AR_NDTYPES || (unsigned)op >= AR_NOPS) {
    snprintf(why, len, "unknown dtype %d or op %d", (int)dt, (int)op);
    return -AR_EUNAVAIL;
  }
  return 0;
}

static int shm_allreduce(void *state, const void *in, void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                         void *stream) {
  (void)stream;
  struct shm_state *s = state;
  if (s->broken || s->win == MPI_WIN_NULL) return -AR_ERUNTIME;
  size_t es = ar_core_esize((int)dt), cc = ar_chunk_count(s->lay.chunk_bytes, es);
  s->stream = s->stream_bytes && count * es >= s->stream_bytes;
  int rc = 0;
  for (size_t at = 0; at < count && !rc; at += cc) {
    size_t n = count - at < cc ? count - at : cc;
    rc = shm_chunk(s, (const char *)in + at * es, (char *)out + at * es, n, (int)dt, (int)op, ++s->gen);
  }
  shm_out_fence(s);
  return rc;
}

static int shm_describe(void *state, json_t *rec) {
  struct shm_state *s = state;
  json_object_set_new(rec, "impl", json_string(ar_core_algo_name(s->algo)));
  json_object_set_new(rec, "chunk_bytes", json_integer((json_int_t)s->lay.chunk_bytes));
  json_object_set_new(rec, "stream_bytes", json_integer((json_int_t)s->stream_bytes));
  if (s->algo == AR_CORE_ISLANDS) {
    json_t *sizes = json_array();
    for (int i = 0; i < s->isl.n; i++) json_array_append_new(sizes, json_integer(s->isl.size[i]));
    json_object_set_new(rec, "island_sizes", sizes);
  }
  return 0;
}

static void shm_fini(void *state) {
  struct shm_state *s = state;
  if (!s) return;
  release_window(s);
  MPI_Comm_free(&s->comm);
  free(s);
}

#define SHM_BACKEND(SYM, NAME, ALGO, SUMMARY)                                                               \
  static int SYM##_init(const struct ar_env *env, const char *variant, void **state, char *err, size_t len) { \
    return shm_init(env, variant, state, err, len, ALGO, NAME);                                             \
  }                                                                                                         \
  static int SYM##_check(const char *variant, char *err, size_t len) {                                      \
    return shm_check(variant, NAME, err, len);                                                              \
  }                                                                                                         \
  const struct ar_backend SYM = {                                                                           \
    .name = NAME, .summary = SUMMARY, .flags = AR_BE_HOST, .family = AR_BE_FAM_HOST, .available = shm_available, .init = SYM##_init,  \
    .check_variant = SYM##_check,                                                                           \
    .setup = shm_setup, .supports = shm_supports, .allreduce = shm_allreduce, .describe = shm_describe,    \
    .fini = shm_fini,                                                                                       \
  }

SHM_BACKEND(ar_be_shm_oneshot, "shm-oneshot", AR_CORE_ONESHOT,
            "custom one-shot allreduce over MPI shared memory (every rank reduces all inputs)");
SHM_BACKEND(ar_be_shm_twoshot, "shm-twoshot", AR_CORE_TWOSHOT,
            "custom two-shot allreduce over MPI shared memory (reduce-scatter + all-gather)");
SHM_BACKEND(ar_be_shm_staged, "shm-staged", AR_CORE_STAGED,
            "custom staged two-shot over MPI shared memory (one inbound, one outbound peer per pass)");
SHM_BACKEND(ar_be_shm_islands, "shm-islands", AR_CORE_ISLANDS,
            "custom two-level allreduce over MPI shared memory (NUMA islands, one exchange across)");
