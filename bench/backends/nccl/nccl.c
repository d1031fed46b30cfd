/* nccl.c — the `nccl` backend: ncclAllReduce on a communicator per variant (algo/proto per call through
 * ncclCollConfig_t on NCCL >= 2.31, else NCCL_ALGO/NCCL_PROTO at init; CTAs through ncclConfig_t), with NCCL's own
 * lines captured per variant. */
#include "run/fault.h"
#include "ar_config.h"
#include "device/gpu.h"
#include "device/device.h"
#include "backends/nccl/nccl_priv.h"
#include "backends/nccl/nccl_env.h"
#include "backends/nccl/nccl_ran.h"
#include "opts.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern const struct ar_backend ar_be_nccl;

/* The variables a variant changes, and when (nccl_env.c: never added or removed while a communicator
 * lives). NCCL caches NCCL_MIN_CTAS/NCCL_MAX_CTAS at the first init of the process and lets them
 * override ncclConfig_t: they are cleared, and the user's values go into the config (ar_nccl_ctas). */
_Static_assert(AR_NCCL_NSAVED == AR_NENV_COUNT, "one saved value per planned variable");

/* Device and sharing were decided by ar_gpu_select from the PCI bus ids of every local rank's GPU. */
static int nccl_available(const struct ar_env *env, char *why, size_t len) {
  int count = ar_gpu_count(why, len);
  if (!count) return -AR_EUNAVAIL;
  if (env->device < 0) {
    snprintf(why, len, "rank %d has no GPU: %d ranks on this node, %d GPU%s visible to it (use --devices or --shared-gpu)",
             env->rank, env->local_nranks, count, count == 1 ? "" : "s");
    return -AR_EUNAVAIL;
  }
  if (env->device_shared) {
    snprintf(why, len, "several ranks share one GPU (same PCI bus id); NCCL refuses duplicate GPUs");
    return -AR_EUNAVAIL;
  }
  return 0;
}

/* NCCL re-reads NCCL_DEBUG* only after ncclResetDebugInit (not in every header: look it up). */
static void debug_reset(void) {
  void (*reset)(void);
  void *sym = dlsym(RTLD_DEFAULT, "ncclResetDebugInit");
  memcpy(&reset, &sym, sizeof reset);
  if (reset) reset();
}

static void env_save(struct ar_nccl *s) {
  ar_nccl_conf_load();
  for (int i = 0; i < AR_NCCL_NSAVED; i++) {
    const char *v = getenv(ar_nccl_env_name((enum ar_nccl_env_var)i));
    s->saved[i] = v ? strdup(v) : NULL;
  }
}

/* Apply the plan of phase p (nccl_env.c decides; this only sets). */
static void env_apply(struct ar_nccl *s, enum ar_nccl_env_phase p) {
  struct ar_nccl_env_in in = {.algo = s->v.algo, .proto = s->v.proto, .percall = s->percall != NULL, .tuner = s->v.tuner,
                              .tuner_lib = s->v.tuner_lib, .logpath = s->logpath, .userlog = s->userlog,
                              .version = s->version};
  for (int i = 0; i < AR_NCCL_NSAVED; i++) in.saved[i] = s->saved[i];
  struct ar_nccl_env_set set[AR_NENV_COUNT];
  int n = ar_nccl_env_plan(p, &in, set);
  for (int i = 0; i < n; i++) {
    if (set[i].value) setenv(set[i].name, set[i].value, 1);
    else unsetenv(set[i].name);
  }
}

static void log_path(struct ar_nccl *s) {
  const char *dir = getenv("ARBENCH_NCCL_LOGDIR");
  s->keep_log = dir && *dir;
  if (!s->keep_log) dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  snprintf(s->logpath, sizeof s->logpath, "%s/arbench-nccl-%s-%d-r%d-%lld.log", dir, host, (int)getpid(),
           s->env->rank, (long long)(ar_nccl_now() * 1e6));
}

/* How algo=/proto= are forced: per call through ncclCollConfig_t where the loaded NCCL has ncclAllReduceConfig
 * (>= 2.31: no variable, nothing read at init), else NCCL_ALGO/NCCL_PROTO around this variant's communicator init. */
static void forcing_plan(struct ar_nccl *s) {
  if (!*s->v.algo && !*s->v.proto) return;
  ar_nccl_allreduce_config_fn fn = ar_nccl_collconfig_lookup(s->version);
  if (!fn || ar_nccl_collconfig_selection(s->v.algo, s->v.proto, s->selection, sizeof s->selection)) return;
  ar_nccl_collconfig_init(&s->cfg, s->selection);
  s->percall = fn;
}

/* Before comm init (no communicator of this process alive): force the variant's algorithm/protocol and
 * tuner, and send NCCL's INFO lines to a file. */
static void logging_begin(struct ar_nccl *s) {
  env_save(s);
  log_path(s);
  snprintf(s->userlog, sizeof s->userlog, "%s.user", s->logpath);
  env_apply(s, AR_NENV_INIT);
  s->env_set = 1;
  debug_reset();
  s->logging = 1;
}

static void copy_file(const char *from, FILE *out) {
  FILE *in = fopen(from, "r");
  char buf[8192];
  size_t n;
  while (in && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
  if (in) fclose(in);
}

/* Append the file from to the user's NCCL_DEBUG_FILE (expanded as NCCL does), never truncating it;
 * to stdout, where NCCL writes without one. */
static void append_user_log(struct ar_nccl *s, const char *from) {
  if (!s->saved[AR_NENV_FILE]) {
    copy_file(from, stdout);
    fflush(stdout);
    return;
  }
  char host[64] = "", path[1024];
  gethostname(host, sizeof host - 1);
  host[strcspn(host, ".")] = 0; /* NCCL's %h is the host name up to the first dot */
  ar_nccl_debug_path(s->saved[AR_NENV_FILE], host, (int)getpid(), path, sizeof path);
  FILE *out = fopen(path, "a");
  if (!out) return;
  copy_file(from, out);
  fclose(out);
}

/* After the probe collectives, the communicator alive: NCCL's lines off for the timed calls (or back to
 * what the user asked for, into userlog) by new values of present variables only, then parse what NCCL
 * said. NCCL opens NCCL_DEBUG_FILE with "w" at every debug re-init, so the user's file itself is never
 * named: userlog is appended to it at fini. */
static void logging_end(struct ar_nccl *s) {
  if (!s->logging) return;
  env_apply(s, AR_NENV_QUIET);
  debug_reset();
  s->logging = 0;
  ar_nccl_log_file(s->log, s->logpath);
  ar_nccl_log_key(s->log, s->calls, s->ncalls);
  if (s->saved[AR_NENV_FILE] && s->saved[AR_NENV_DEBUG]) append_user_log(s, s->logpath); /* the user asked for lines */
  if (!s->keep_log) unlink(s->logpath);
}

/* Once the communicator is destroyed or aborted (its threads joined): the user's environment back. */
static void state_free(struct ar_nccl *s) {
  if (s->env_set) {
    env_apply(s, AR_NENV_RESTORE);
    debug_reset();
  }
  if (*s->userlog && access(s->userlog, F_OK) == 0) {
    append_user_log(s, s->userlog);
    unlink(s->userlog);
  }
  for (int i = 0; i < AR_NCCL_NSAVED; i++) free(s->saved[i]);
  ar_guard_destroy(&s->guard);
  free(s->calls);
  free(s->log);
  free(s);
}

/* Unique id from rank 0 (with its status), then the non-blocking communicator of this variant. */
static int comm_create(struct ar_nccl *s, char *err, size_t len) {
  const struct ar_env *env = s->env;
  struct { int rc; ncclUniqueId id; } u;
  memset(&u, 0, sizeof u);
  if (env->rank == 0) u.rc = (int)ncclGetUniqueId(&u.id);
  MPI_Bcast(&u, (int)sizeof u, MPI_BYTE, 0, env->comm);
  if (u.rc != ncclSuccess) {
    snprintf(err, len, "nccl: ncclGetUniqueId failed on rank 0: %s", ncclGetErrorString((ncclResult_t)u.rc));
    return -AR_ERUNTIME;
  }
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  /* Blocking: a non-blocking communicator makes every collective of 2+ ranks return ncclInProgress
   * from a helper thread, which would put a host wait inside each timed call. The watchdog thread's
   * ncclCommAbort works on a blocking communicator as well. */
  config.blocking = 1;
  int mn, mx;
  ar_nccl_ctas(s->v.ctas, s->saved[AR_NENV_MINCTAS], s->saved[AR_NENV_MAXCTAS], &mn, &mx);
  if (mn) config.minCTAs = mn;
  if (mx) config.maxCTAs = mx;
  ncclResult_t rc = ncclCommInitRankConfig(&s->comm, env->nranks, u.id, env->rank, &config);
  if (rc != ncclSuccess && rc != ncclInProgress) {
    snprintf(err, len, "nccl: ncclCommInitRankConfig failed: %s", ncclGetErrorString(rc));
    s->comm = NULL;
    return -AR_ERUNTIME;
  }
  return ar_nccl_wait_comm(s, "ncclCommInitRankConfig", err, len);
}

/* Parse a variant against the loaded NCCL and the headers this binary was built with. */
static int parse_variant(const char *variant, struct ar_nccl_variant *v, char *err, size_t len) {
  int version = 0;
  ncclGetVersion(&version);
  int rc = ar_nccl_variant_parse(variant, version, v, err, len);
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 27, 0)
  if (!rc && v->symm) {
    snprintf(err, len, "nccl variant symm=1: this binary was built against NCCL %d.%d.%d headers (2.27 needed)",
             NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
    rc = -AR_EINVAL;
  }
#endif
  return rc;
}

static int nccl_check_variant(const char *variant, char *err, size_t len) {
  struct ar_nccl_variant v;
  return parse_variant(variant, &v, err, len);
}

static int nccl_init(const struct ar_env *env, const char *variant, void **state, char *err, size_t len) {
  struct ar_nccl_variant v;
  int rc = parse_variant(variant, &v, err, len);
  if (rc) return rc;
  struct ar_nccl *s = calloc(1, sizeof *s);
  if (s) s->log = calloc(1, sizeof *s->log);
  if (!s || !s->log) {
    free(s);
    snprintf(err, len, "out of memory");
    return -AR_ERUNTIME;
  }
  s->env = env;
  s->v = v;
  ncclGetVersion(&s->version);
  s->timeout = env->opts ? env->opts->timeout : 0;
  snprintf(s->variant, sizeof s->variant, "%s", variant);
  s->hang_bytes = env->fault ? env->fault->nccl_hang_bytes : 0; /* ARBENCH_NCCL_HANG_BYTES, parsed by fault.c */
  ar_nccl_log_init(s->log);
  ar_guard_init(&s->guard);
  forcing_plan(s);
  logging_begin(s);
  rc = comm_create(s, err, len); /* the forced variables stay until state_free: 2.28+ re-reads ALGO/PROTO */
  if (!rc) rc = ar_nccl_watch_start(s, err, len);
  if (rc) {
    logging_end(s);
    if (s->comm && !ar_guard_aborted(&s->guard)) ncclCommAbort(s->comm);
    ar_nccl_watch_stop(s);
    state_free(s);
    return rc;
  }
  *state = s;
  return 0;
}

/* NCCL up to 2.23 declares ncclBfloat16 only after cuda_bf16.h, which this C file does not include; the
 * library itself has it, as 9, in every version (2.24 dropped the header's guard). */
#if defined(__CUDA_BF16_TYPES_EXIST__) || NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
#define AR_NCCL_BF16 ncclBfloat16
#else
#define AR_NCCL_BF16 ((ncclDataType_t)9)
#endif

static ncclDataType_t nccl_type(enum ar_dtype dt) {
  switch (dt) {
  case AR_HALF: return ncclFloat16;
  case AR_BF16: return AR_NCCL_BF16;
  case AR_INT32: return ncclInt32;
  default: return ncclFloat32;
  }
}

static ncclRedOp_t nccl_op(enum ar_op op) {
  switch (op) {
  case AR_PROD: return ncclProd;
  case AR_MAX: return ncclMax;
  case AR_MIN: return ncclMin;
  case AR_AVG: return ncclAvg;
  default: return ncclSum;
  }
}

/* Test hook: a host function that holds the stream until the watchdog aborts the communicator. */
static void CUDART_CB hold_stream(void *arg) {
  struct ar_nccl *s = arg;
  struct timespec t = {0, 1000000L};
  while (!ar_guard_aborted(&s->guard)) nanosleep(&t, NULL);
}

/* The variant's allreduce: through its per-collective config when it forces one that way, else plain. */
static ncclResult_t allreduce_call(struct ar_nccl *s, const void *in, void *out, size_t count, enum ar_dtype dt,
                                   enum ar_op op, cudaStream_t stream) {
  if (!s->percall) return ncclAllReduce(in, out, count, nccl_type(dt), nccl_op(op), s->comm, stream);
  return (ncclResult_t)s->percall(in, out, count, (int)nccl_type(dt), (int)nccl_op(op), s->comm, stream, &s->cfg);
}

/* NCCL's answer to a forced algorithm/protocol the machine cannot run: ncclInvalidUsage when NCCL_ALGO/NCCL_PROTO
 * narrowed it (src/enqueue.cc, "no algorithm/protocol available"); ncclInvalidArgument for a per-call selection
 * (2.31: "algSelection: no algorithm in the selected set is available", force on). */
static int forced_unavailable(const struct ar_nccl *s, ncclResult_t rc) {
  if (!*s->v.algo && !*s->v.proto) return 0;
  return s->percall ? rc == ncclInvalidArgument : rc == ncclInvalidUsage;
}

/* One ncclAllReduce under the guard (never on a communicator the watchdog aborted): NCCL forbids
 * using one communicator from two threads, and the watchdog's abort frees it. ncclAllReduce only
 * enqueues, so the lock is held briefly; were NCCL's host side ever to block on a hung GPU inside it,
 * the host watchdog ends the process after -T. A forced algorithm/protocol the hardware cannot run
 * (algo=NVLS on PCIe: NCCL answers ncclInvalidUsage) is -AR_EUNAVAIL with NCCL's reason: a skip. */
static int call(struct ar_nccl *s, const void *in, void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                cudaStream_t stream, char *err, size_t len) {
  if (ar_guard_enter(&s->guard, err, len)) return -AR_ETIMEOUT;
  __atomic_store_n(&s->last_bytes, count * ar_dtype_size(dt), __ATOMIC_RELAXED);
  __atomic_store_n(&s->last_dtype, (int)dt, __ATOMIC_RELAXED);
  __atomic_store_n(&s->stream, stream, __ATOMIC_RELEASE);
  if (s->hang_bytes && !s->probing && s->hang_bytes == count * ar_dtype_size(dt) && !s->hung++)
    cudaLaunchHostFunc(stream, hold_stream, s);
  ncclResult_t rc = allreduce_call(s, in, out, count, dt, op, stream);
  int unavail = forced_unavailable(s, rc);
  if (rc != ncclSuccess && rc != ncclInProgress)
    snprintf(err, len, "nccl%s%s: %s of %zu bytes (%s) %s: %s (%s)", *s->variant ? ":" : "", s->variant,
             s->percall ? "ncclAllReduceConfig" : "ncclAllReduce", count * ar_dtype_size(dt), ar_dtype_name(dt),
             unavail ? "cannot run the forced algorithm/protocol here" : "failed", ncclGetErrorString(rc),
             ncclGetLastError(s->comm));
  ar_guard_leave(&s->guard);
  if (rc == ncclInProgress) return ar_nccl_wait_comm(s, "ncclAllReduce", err, len);
  if (rc == ncclSuccess) return 0;
  return unavail ? -AR_EUNAVAIL : -AR_ERUNTIME;
}

/* The engine's sizes and dtypes, once each with NCCL's INFO lines on, on the engine's own buffers
 * (allocated and registered as the timed loop uses them): what NCCL chooses per (size, dtype). */
static int probe(struct ar_nccl *s, void *pool, size_t pool_bytes, char *err, size_t len) {
  const struct ar_opts *o = s->env->opts;
  cudaStream_t st = NULL;
  int nd = o ? o->ndtypes : 0, ns = o ? o->nsizes : 0;
  s->calls = calloc((size_t)(nd * ns + 1), sizeof *s->calls);
  if (!s->calls || cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess) {
    snprintf(err, len, "nccl: probe stream: %s", s->calls ? cudaGetErrorString(cudaGetLastError()) : "out of memory");
    return -AR_ERUNTIME;
  }
  /* Out-of-place when the run measures it: the second half of the pool holds max_bytes (engine). */
  char *in = pool, *out = o && (o->placement & AR_PLACE_OUT) ? (char *)pool + pool_bytes / 2 : pool;
  int rc = 0;
  s->probing = 1;
  for (int d = 0; !rc && d < nd; d++)
    for (int i = 0; !rc && i < ns; i++) {
      size_t es = ar_dtype_size(o->dtypes[d]);
      size_t count = o->by_count ? o->sizes[i] : o->sizes[i] / es;
      if (!count || count * es > s->max_bytes || count * es > pool_bytes / 2) continue;
      rc = call(s, in, out, count, o->dtypes[d], o->op, st, err, len); /* pool registered by alloc */
      if (!rc) s->calls[s->ncalls++] = (struct ar_nccl_call){count * es, (int)o->dtypes[d]};
      if (!rc) rc = ar_nccl_wait_stream(s, st, err, len); /* -T per collective, not for all probes */
    }
  if (rc) cudaStreamSynchronize(st);
  s->probing = 0;
  pthread_mutex_lock(&s->guard.lock); /* the watchdog must not touch the stream once it is destroyed */
  __atomic_store_n(&s->stream, NULL, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&s->guard.lock);
  cudaStreamDestroy(st);
  return rc;
}

/* What the tuner plugin did on this communicator, said once on rank 0 when it is not what the variant asked
 * (tuner= without the plugin running, a file it could not load, a plugin the variant did not ask for): the
 * records say it too (nccl_tuner.note and warning), but a table of nccl:tuner= rows that ran NCCL's own tuning
 * must not pass unnoticed. */
static void check_tuner(struct ar_nccl *s) {
  json_t *tj = ar_nccl_tuner_json(&s->log->tuner, s->v.tuner, s->v.tuner_lib, s->saved[AR_NENV_TUNER]);
  const char *note = json_string_value(json_object_get(tj, "note"));
  if (note && !*s->warning) {
    snprintf(s->warning, sizeof s->warning, "nccl%s%s: %s", *s->variant ? ":" : "", s->variant, note);
    if (s->env->rank == 0) fprintf(stderr, "arbench: warning: %s\n", s->warning);
  }
  json_decref(tj);
}

static void check_forced(struct ar_nccl *s) {
  const struct ar_env *env = s->env;
  if (!strstr(s->v.proto, "LL128") || !ar_nccl_ll128_unsafe(s->log, env->nranks)) return;
  snprintf(s->warning, sizeof s->warning,
           "nccl:%s forces LL128 on a path without NVLink (NCCL path type %s): LL128 can corrupt data on PCIe; "
           "results are checked", s->variant, *s->log->path_intra ? s->log->path_intra : "unknown");
  if (env->rank == 0) fprintf(stderr, "arbench: warning: %s\n", s->warning);
}

/* Only remembers the size: the probe needs the buffers of nccl_alloc (registered, ncclMemAlloc'd). */
static int nccl_setup(void *state, size_t max_bytes, char *err, size_t len) {
  struct ar_nccl *s = state;
  (void)err;
  (void)len;
  s->max_bytes = max_bytes;
  return 0;
}

static int nccl_supports(void *state, enum ar_dtype dt, enum ar_op op, char *why, size_t len) {
  struct ar_nccl *s = state;
  int n = s->env->nranks;
  if (op == AR_AVG && dt != AR_INT32 && (n & (n - 1))) {
    snprintf(why, len, "ncclAvg on %s pre-multiplies by 1/%d, inexact for %d ranks: no bit-exact check possible",
             ar_dtype_name(dt), n, n);
    return -AR_EUNAVAIL;
  }
  return 0;
}

/* reg=1 / symm=1: register [base, base + size) (under the guard: ncclCommWindowRegister is collective, every rank
 * reaches it, the engine agrees before alloc; a peer that never does is ended by the host watchdog (-T)). */
static int register_range(struct ar_nccl *s, unsigned long long base, size_t size, char *err, size_t len) {
  void *handle = NULL;
  ncclResult_t rc;
  if (s->nreg >= AR_NCCL_MAX_REG) {
    snprintf(err, len, "nccl: more than %d registered buffers", AR_NCCL_MAX_REG);
    return -AR_ERUNTIME;
  }
  if (ar_guard_enter(&s->guard, err, len)) return -AR_ETIMEOUT;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  if (s->v.symm) rc = ncclCommWindowRegister(s->comm, (void *)(uintptr_t)base, size, (ncclWindow_t *)&handle,
                                             NCCL_WIN_COLL_SYMMETRIC);
  else
#endif
    rc = ncclCommRegister(s->comm, (void *)(uintptr_t)base, size, &handle);
  ar_guard_leave(&s->guard);
  if (rc == ncclInProgress) rc = ar_nccl_wait_comm(s, "buffer registration", err, len) ? ncclInternalError : ncclSuccess;
  if (rc != ncclSuccess) {
    snprintf(err, len, "nccl: registering %zu bytes at %p failed: %s (%s)", size, (void *)(uintptr_t)base,
             ncclGetErrorString(rc), s->v.symm ? "symmetric windows need ncclMemAlloc buffers" : "ncclCommRegister");
    return -AR_ERUNTIME;
  }
  s->reg[s->nreg].base = base;
  s->reg[s->nreg].size = size;
  s->reg[s->nreg++].handle = handle;
  return 0;
}

/* A buffer of a call outside every registration (not the engine's, e.g. a wrapping backend's): the whole
 * allocation that holds p, found through the driver API. */
static int ensure_registered(struct ar_nccl *s, const void *p, char *err, size_t len) {
  unsigned long long addr = (unsigned long long)(uintptr_t)p, base = 0;
  for (int i = 0; i < s->nreg; i++)
    if (addr >= s->reg[i].base && addr < s->reg[i].base + s->reg[i].size) return 0;
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  int (*range)(unsigned long long *, size_t *, unsigned long long) = NULL;
  void *sym = cuda ? dlsym(cuda, "cuMemGetAddressRange_v2") : NULL;
  memcpy(&range, &sym, sizeof range);
  size_t size = 0;
  if (!range || range(&base, &size, addr)) {
    snprintf(err, len, "nccl: cannot find the allocation of buffer %p to register it", p);
    return -AR_ERUNTIME;
  }
  return register_range(s, base, size, err, len);
}

static void deregister(struct ar_nccl *s) {
  char err[AR_ERRLEN];
  if (ar_guard_enter(&s->guard, err, sizeof err)) { /* aborted: the communicator is gone */
    s->nreg = 0;
    return;
  }
  for (int i = 0; i < s->nreg; i++) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    if (s->v.symm) {
      ncclCommWindowDeregister(s->comm, (ncclWindow_t)s->reg[i].handle);
      continue;
    }
#endif
    ncclCommDeregister(s->comm, s->reg[i].handle);
  }
  s->nreg = 0;
  ar_guard_leave(&s->guard);
}

static int nccl_allreduce(void *state, const void *in, void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                          void *stream) {
  struct ar_nccl *s = state;
  char err[AR_ERRLEN] = "";
  int rc = 0;
  if (s->v.reg || s->v.symm) rc = ensure_registered(s, in, err, sizeof err);
  if (!rc && (s->v.reg || s->v.symm) && out != in) rc = ensure_registered(s, out, err, sizeof err);
  if (!rc) rc = call(s, in, out, count, dt, op, (cudaStream_t)stream, err, sizeof err);
  if (rc && rc != -AR_ETIMEOUT && !s->failed_once++) /* the engine has no message slot here: say it once */
    fprintf(stderr, "arbench: rank %d: %s\n", s->env->rank, err);
  return rc;
}

/* The device loop's hooks (backend.h). fused:unfused=nccl runs this backend inside and forwards them. */
static int nccl_aborted(void *state, char *err, size_t len) {
  struct ar_nccl *s = state;
  if (!s || !ar_guard_aborted(&s->guard)) return 0; /* the timed loop asks every launch: no lock when not */
  return ar_guard_message(&s->guard, err, len);
}

static int nccl_health(void *state, char *err, size_t len) {
  struct ar_nccl *s = state;
  if (!s) return 0;
  pthread_mutex_lock(&s->guard.lock); /* the loop drained the stream: stop watching it until the next call */
  __atomic_store_n(&s->stream, NULL, __ATOMIC_RELEASE);
  s->progress = NULL;
  s->per = 0;
  pthread_mutex_unlock(&s->guard.lock);
  return ar_guard_message(&s->guard, err, len);
}

static void nccl_quiet(void *state, int quiet) {
  struct ar_nccl *s = state;
  if (!s) return;
  pthread_mutex_lock(&s->guard.lock);
  s->quiet = quiet;
  pthread_mutex_unlock(&s->guard.lock);
}

static void nccl_progress(void *state, const volatile uint64_t *progress, int per) {
  struct ar_nccl *s = state;
  if (!s) return;
  pthread_mutex_lock(&s->guard.lock);
  s->progress = progress;
  s->per = per;
  s->dl.armed = 0; /* the next look re-arms with the loop's limit */
  pthread_mutex_unlock(&s->guard.lock);
}

/* Which way algo=/proto= reached NCCL: "collconfig" (ncclAllReduceConfig, with the selection passed) or "env"
 * (NCCL_ALGO/NCCL_PROTO at init); null when the variant forces neither. */
static void describe_forcing(const struct ar_nccl *s, json_t *forced) {
  if (!*s->v.algo && !*s->v.proto) {
    json_object_set_new(forced, "via", json_null());
    return;
  }
  json_object_set_new(forced, "via", json_string(s->percall ? "collconfig" : "env"));
  if (s->percall) json_object_set_new(forced, "selection", json_string(s->selection));
}

extern char **environ;

/* symm=1: whether NCCL's symmetric kernel ran. 2.28.x runs them on any node whose pairs all have CUDA P2P; from
 * 2.29.2 only when every pair is NVLink-connected (src/sym_kernels.cc ncclSymkAvailable), silently otherwise. */
static json_t *symmetric_json(const struct ar_nccl *s, const struct ar_nccl_tuned *t) {
  char note[300];
  if (!t) snprintf(note, sizeof note, "unknown (no tuning line for this call)");
  else if (t->symmetric) snprintf(note, sizeof note, "NCCL's symmetric kernel ran");
  else if (s->version >= NCCL_VERSION(2, 29, 2) && strcmp(s->log->path_intra, "NVL"))
    snprintf(note, sizeof note, "NCCL ran its regular kernels: NCCL >= 2.29.2 runs symmetric kernels only when every "
             "GPU pair is NVLink-connected (path %s here)", *s->log->path_intra ? s->log->path_intra : "unknown");
  else snprintf(note, sizeof note, "NCCL ran its regular kernels (no symmetric kernel for this call: a sum of a "
                "floating type in symmetric windows on every rank, or NCCL without symmetric memory)");
  return json_pack("{s:b, s:s}", "ran", t && t->symmetric, "note", note);
}

/* What NCCL ran against what was asked (nccl_ran.c): CTAs it clamped, an algorithm or protocol it fell back from
 * (asked by the variant, else by the user's own NCCL_ALGO/NCCL_PROTO), variables the loaded NCCL does not read. */
static void describe_ran(const struct ar_nccl *s, const struct ar_nccl_tuned *t, json_t *n) {
  json_t *c = ar_nccl_ctas_json(s->v.ctas, s->saved[AR_NENV_MINCTAS], s->saved[AR_NENV_MAXCTAS], s->log->coll_channels);
  if (c) json_object_set_new(n, "ctas", c);
  const char *algo = *s->v.algo ? s->v.algo : s->saved[AR_NENV_ALGO];
  const char *proto = *s->v.proto ? s->v.proto : s->saved[AR_NENV_PROTO];
  json_t *f = t ? ar_nccl_fallback_json(algo, proto, t->algo, t->proto) : NULL;
  if (f) json_object_set_new(n, "fallback", f);
  json_t *e = ar_nccl_ignored_env_json(environ, s->version);
  if (e) json_object_set_new(n, "ignored_env", e);
}

static int nccl_describe(void *state, json_t *rec) {
  struct ar_nccl *s = state;
  const struct ar_nccl_log *log = s->log;
  json_int_t bytes = json_integer_value(json_object_get(rec, "size"));
  enum ar_dtype dt = AR_FLOAT;
  const char *dname = json_string_value(json_object_get(rec, "dtype"));
  const struct ar_nccl_tuned *t = dname && !ar_dtype_parse(dname, &dt) ? ar_nccl_log_find(log, (uint64_t)bytes, (int)dt) : NULL;
  char ver[32];
  ar_nccl_code_str(s->version, ver, sizeof ver);
  json_t *n = json_pack("{s:s, s:s, s:s, s:i, s:s}", "version", ver, "transport", ar_nccl_transport_name(log->transports),
                        "transport_detail", log->transport, "coll_channels", log->coll_channels, "path", log->path_intra);
  if (t) {
    json_object_set_new(n, "algo", json_string(t->algo));
    json_object_set_new(n, "proto", json_string(t->proto));
    json_object_set_new(n, "channels", json_integer(t->channels));
    if (t->symmetric) json_object_set_new(n, "kernel", json_string(t->kernel));
  } else {
    json_object_set_new(n, "algo", json_string(s->env->nranks == 1 ? "none (1 rank: local copy)" : "unknown"));
  }
  json_object_set_new(n, "forced", json_pack("{s:o, s:o, s:i, s:b, s:b}", "algo", *s->v.algo ? json_string(s->v.algo) : json_null(),
                                             "proto", *s->v.proto ? json_string(s->v.proto) : json_null(), "ctas", s->v.ctas,
                                             "reg", s->v.reg, "symm", s->v.symm));
  describe_forcing(s, json_object_get(n, "forced"));
  if (s->v.symm) json_object_set_new(n, "symmetric", symmetric_json(s, t));
  describe_ran(s, t, n);
  json_object_set_new(n, "nccl_warnings", json_integer(log->warnings));
  if (log->warnings) json_object_set_new(n, "first_warning", json_string(log->first_warning));
  json_object_set_new(rec, "nccl", n);
  /* Flat copies of what NCCL chose, the fields table/tune read (results/SCHEMA.md). */
  if (t) {
    json_object_set_new(rec, "nccl_algo", json_string(t->algo));
    json_object_set_new(rec, "nccl_proto", json_string(t->proto));
    json_object_set_new(rec, "nccl_channels", json_integer(t->channels));
  }
  json_object_set_new(rec, "nccl_transport", json_string(ar_nccl_transport_name(log->transports)));
  json_t *tj = ar_nccl_tuner_json(&log->tuner, s->v.tuner, s->v.tuner_lib, s->saved[AR_NENV_TUNER]);
  if (tj) json_object_set_new(rec, "nccl_tuner", tj);
  if (*s->warning) json_object_set_new(rec, "warning", json_string(s->warning));
  return 0;
}

/* The engine's buffers: ncclMemAlloc'd and registered up front for reg=1/symm=1 (so no timed call
 * pays for registration, and symmetric windows get the memory they require), cudaMalloc otherwise;
 * then the probe on them, so NCCL's recorded choices are those of the buffers that are timed. */
static int nccl_alloc(void *state, size_t bytes, void **p, char *err, size_t len) {
  struct ar_nccl *s = state;
  int rc = 0;
  if (!s->v.reg && !s->v.symm) {
    if (cudaMalloc(p, bytes) != cudaSuccess) {
      snprintf(err, len, "nccl: cudaMalloc of %zu bytes failed", bytes);
      *p = NULL;
      rc = -AR_ERUNTIME;
    }
  } else {
    ncclResult_t nrc = ncclMemAlloc(p, bytes);
    if (nrc != ncclSuccess) {
      snprintf(err, len, "nccl: ncclMemAlloc of %zu bytes failed: %s", bytes, ncclGetErrorString(nrc));
      *p = NULL;
      rc = -AR_ERUNTIME;
    }
    if (!rc) rc = register_range(s, (unsigned long long)(uintptr_t)*p, bytes, err, len); /* ours: its extent known */
  }
  if (!rc) rc = probe(s, *p, bytes, err, len);
  logging_end(s);
  check_forced(s);
  check_tuner(s);
  return rc;
}

static void nccl_release(void *state, void *p) {
  struct ar_nccl *s = state;
  if (!s->v.reg && !s->v.symm) {
    cudaFree(p);
    return;
  }
  if (s->comm) deregister(s); /* nothing when aborted */
  ncclMemFree(p);
}

static void nccl_fini(void *state) {
  struct ar_nccl *s = state;
  if (!s) return;
  char err[AR_ERRLEN];
  /* The watchdog is stopped first: from here only this thread touches the communicator. */
  ar_nccl_watch_stop(s); /* joins the thread, and with it an abort in progress */
  logging_end(s);
  if (s->comm && !ar_guard_aborted(&s->guard)) {
    deregister(s);
    ncclResult_t rc = ncclCommFinalize(s->comm);
    int wrc = rc == ncclSuccess || rc == ncclInProgress ? ar_nccl_wait_comm(s, "ncclCommFinalize", err, sizeof err) : 0;
    if (wrc == -AR_ETIMEOUT) { /* wait_comm aborted it already */
    } else if (wrc || (rc != ncclSuccess && rc != ncclInProgress)) {
      ncclCommAbort(s->comm);
    } else {
      ncclCommDestroy(s->comm);
    }
  }
  state_free(s);
}

const struct ar_backend ar_be_nccl = {
  .name = "nccl",
  .summary = "ncclAllReduce (variants algo=, proto=, ctas=, reg=, symm=, tuner=FILE)",
  .flags = AR_BE_DEVICE | AR_BE_GRAPH | AR_BE_BASELINE,
  .family = AR_BE_FAM_NCCL,
  .check_variant = nccl_check_variant,
  .available = nccl_available,
  .init = nccl_init,
  .setup = nccl_setup,
  .supports = nccl_supports,
  .allreduce = nccl_allreduce,
  .describe = nccl_describe,
  .fini = nccl_fini,
  .alloc = nccl_alloc,
  .release = nccl_release,
  .health = nccl_health,
  .aborted = nccl_aborted,
  .quiet = nccl_quiet,
  .progress = nccl_progress,
};
