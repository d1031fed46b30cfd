/* measure_cuda.c — `arbench links` on GPUs (measure_cuda.h): CUDA IPC-shared buffers, copy-engine and SM copies
 * held and timed by CUDA events, the P2P smoke test, the flag ping-pong and the copy engine's small-copy latency.
 * Every wait of the host polls with a deadline (one that passes marks the GPU stuck); every wait of a kernel
 * ends at its own (bench/links/links_cuda.cu). */
#include "ar_config.h"
#include "ar_core.h"
#include "links/cuda_plan.h"
#include "links/measure.h"
#include "links/measure_cuda.h"
#include "cuda_status.h"
#include <ctype.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if AR_HAVE_NVCC /* bench/links/links_cuda.cu */
int ar_links_cu_copy(void *dst, const void *src, size_t bytes, int blocks, void *stream);
int ar_links_cu_pingpong(uint32_t *mine, const uint32_t *peer, int initiator, uint32_t g0, int warm, int iters,
                         unsigned long long timeout_ns, unsigned long long *st, void *stream);
int ar_links_cu_hold(const uint32_t *flag, uint32_t gen, unsigned long long timeout_ns, unsigned long long *st,
                     void *stream);
#endif

#define LINE 128
#define SLOT_ALIGN 256
enum { FL_PING = 0, FL_PONG, FL_N };

/* What a host-function hold (no hold kernel in this build) waits on, and how long. */
struct hold_arg {
  const uint32_t *flag;
  uint32_t gen;
  unsigned long long *st;
  double hold_s;
};

struct ar_lgpu {
  MPI_Comm comm;
  int rank, n, device, sm_count, silent;
  int opened;               /* ar_lgpu_open returned it (on every rank) */
  int self_stuck;           /* a wait on my GPU passed its bound: its work never ended */
  int staging_stuck;        /* that wait was a copy between my GPU and the host: the GPU, not a link */
  int *stuck_of;            /* every rank's self_stuck, as last agreed */
  const struct ar_fault *fault;
  double timeout_s;
  size_t slot;              /* bytes of a buffer */
  char *mine;               /* my region: flags, send buffer, n receive slots */
  char **peer;              /* every rank's region in my address space (peer[rank] = mine) */
  int *ipc_ok;              /* peer[q] mapped */
  int *bad;                 /* n x n verdicts */
  char (*bus)[32];          /* every rank's PCI bus id */
  cudaStream_t *st;         /* n streams (a rank starts at most n - 1 flows at once) */
  cudaEvent_t *ev0, *ev1;   /* n each */
  uint32_t *host;           /* pinned staging, slot bytes */
  unsigned long long *status, *status_dev; /* mapped host memory: (n + 1) x AR_LKS_WORDS words: the ping-pong's,
                                              * then one per stream for its hold */
  uint32_t *hold, *hold_dev; /* mapped host memory: the holds' release flag (a generation) */
  struct hold_arg *harg;     /* n: the host-function holds' arguments */
  double *ms;                /* n: a repeat's event time per stream, summed over its batches */
  uint64_t *beat;            /* links -T's heartbeat, or NULL */
  uint32_t gen, seq, hold_gen;
  double hold_s;             /* how long this try's holds wait for their release (AR_LCUDA_HOLD_S, then longer) */
  double took_s;             /* this try: the longest from queueing a hold to its release, on this host */
  size_t unheld_left;        /* ARBENCH_INJECT_UNHELD: this rank's held tries still to end unheld */
  int planted;               /* holds of the current try planted to end unheld (released only after they ended) */
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nap(void) {
  struct timespec t = {0, 20000};
  nanosleep(&t, NULL);
}

/* Poll until stream s has drained, at most bound_s: enum ar_lhwait. */
static int wait_stream(cudaStream_t s, double bound_s) {
  double end = now_s() + bound_s;
  for (;;) {
    cudaError_t e = cudaStreamQuery(s);
    if (e == cudaSuccess) return AR_HW_DONE;
    if (e != cudaErrorNotReady) {
      cudaGetLastError();
      return AR_HW_ERROR;
    }
    if (now_s() > end) return AR_HW_TIMEOUT;
    nap();
  }
}

/* wait_stream on my GPU: a wait that passes its bound marks the GPU stuck (its work stays queued). */
static int wait_mine(struct ar_lgpu *g, cudaStream_t s, double bound_s) {
  int w = wait_stream(s, bound_s);
  if (w == AR_HW_TIMEOUT) g->self_stuck = 1;
  return w;
}

/* The worst outcome of waiting for the first k streams, all within one bound. */
static int wait_streams(struct ar_lgpu *g, int k, double bound_s) {
  double end = now_s() + bound_s;
  int worst = AR_HW_DONE;
  for (int i = 0; i < k; i++) {
    double left = end - now_s();
    int w = wait_mine(g, g->st[i], left > 0 ? left : 0);
    if (w > worst) worst = w;
  }
  return worst;
}

/* Wait for a kernel on stream s that counts its progress in *count: it may run as long as the count moves, and
 * is given up (the GPU stuck) when the count stood still for bound_s (cuda_plan.h, ar_lwatch). */
static int wait_moving(struct ar_lgpu *g, cudaStream_t s, const volatile unsigned long long *count, double bound_s) {
  struct ar_lwatch w;
  ar_lcuda_watch_start(&w, now_s(), bound_s);
  for (;;) {
    int r = wait_stream(s, 0.05);
    if (r != AR_HW_TIMEOUT) return r;
    unsigned long long before = w.last;
    if (ar_lcuda_watch_expired(&w, now_s(), *count)) {
      g->self_stuck = 1;
      return AR_HW_TIMEOUT;
    }
    if (w.last != before) ar_links_beat(g->beat); /* it moves: progress for links -T */
  }
}

static int agree_max(const struct ar_lgpu *g, int v) {
  int all;
  MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MAX, g->comm);
  return all;
}

/* Every rank learns whose GPU is stuck; returns how many are. Collective. */
static int agree_stuck(struct ar_lgpu *g) {
  MPI_Allgather(&g->self_stuck, 1, MPI_INT, g->stuck_of, 1, MPI_INT, g->comm);
  int k = 0;
  for (int r = 0; r < g->n; r++) k += g->stuck_of[r] != 0;
  return k;
}

static uint32_t *flag_of(const struct ar_lgpu *g, int owner, int kind, int peer) {
  return (uint32_t *)(g->peer[owner] + ((size_t)kind * (size_t)g->n + (size_t)peer) * LINE);
}
static size_t flags_bytes(int n) { return ((size_t)FL_N * (size_t)n * LINE + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN; }
static char *send_of(const struct ar_lgpu *g, int r) { return g->peer[r] + flags_bytes(g->n); }
static char *recv_of(const struct ar_lgpu *g, int dst, int src) {
  return g->peer[dst] + flags_bytes(g->n) + (size_t)(1 + src) * g->slot;
}

int ar_lgpu_kernels(char *why, size_t len) {
#if AR_HAVE_NVCC
  (void)why, (void)len;
  return 1;
#else
  snprintf(why, len, "this stack has no nvcc (bench/links/links_cuda.cu is compiled by nvcc only; the NVRTC "
                     "stacks load the allreduce kernels alone): use ce-read, ce-write");
  return 0;
#endif
}

const int *ar_lgpu_bad(const struct ar_lgpu *g) { return g->bad; }
const char *ar_lgpu_busid(const struct ar_lgpu *g, int r) { return r >= 0 && r < g->n ? g->bus[r] : ""; }
int ar_lgpu_stuck(const struct ar_lgpu *g) {
  int k = 0;
  for (int r = 0; g && g->stuck_of && r < g->n; r++) k += g->stuck_of[r] != 0;
  return k;
}
const int *ar_lgpu_stuck_ranks(const struct ar_lgpu *g) { return g->stuck_of; }
void ar_lgpu_beat(struct ar_lgpu *g, uint64_t *beat) { g->beat = beat; }

const char *ar_lgpu_timing(void) {
#if AR_HAVE_NVCC
  return "held: every stream waits behind a spin kernel until all its events and copies are queued";
#else
  return "held: every stream waits behind a host function until all its events and copies are queued (no hold "
         "kernel in this build)";
#endif
}

static int alloc_host(struct ar_lgpu *g) {
  g->peer = calloc((size_t)g->n, sizeof *g->peer);
  g->ipc_ok = calloc((size_t)g->n, sizeof *g->ipc_ok);
  g->bad = calloc((size_t)g->n * (size_t)g->n, sizeof *g->bad);
  g->bus = calloc((size_t)g->n, sizeof *g->bus);
  g->st = calloc((size_t)g->n, sizeof *g->st);
  g->ev0 = calloc((size_t)g->n, sizeof *g->ev0);
  g->ev1 = calloc((size_t)g->n, sizeof *g->ev1);
  g->stuck_of = calloc((size_t)g->n, sizeof *g->stuck_of);
  g->harg = calloc((size_t)g->n, sizeof *g->harg);
  g->ms = calloc((size_t)g->n, sizeof *g->ms);
  return g->peer && g->ipc_ok && g->bad && g->bus && g->st && g->ev0 && g->ev1 && g->stuck_of && g->harg && g->ms;
}

/* My device's memory, streams, events, staging and status. A cudaError_t. */
static cudaError_t alloc_device(struct ar_lgpu *g, size_t region) {
  cudaError_t e = cudaDeviceGetAttribute(&g->sm_count, cudaDevAttrMultiProcessorCount, g->device);
  if (e == cudaSuccess) e = cudaMalloc((void **)&g->mine, region);
  if (e == cudaSuccess) e = cudaMemset(g->mine, 0, region);
  for (int i = 0; i < g->n && e == cudaSuccess; i++) {
    e = cudaStreamCreateWithFlags(&g->st[i], cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreate(&g->ev0[i]);
    if (e == cudaSuccess) e = cudaEventCreate(&g->ev1[i]);
  }
  if (e == cudaSuccess) e = cudaHostAlloc((void **)&g->host, g->slot, cudaHostAllocDefault);
  size_t words = (size_t)(g->n + 1) * AR_LKS_WORDS;
  if (e == cudaSuccess) e = cudaHostAlloc((void **)&g->status, words * sizeof *g->status, cudaHostAllocMapped);
  if (e == cudaSuccess) e = cudaHostGetDevicePointer((void **)&g->status_dev, g->status, 0);
  if (e == cudaSuccess) e = cudaHostAlloc((void **)&g->hold, LINE, cudaHostAllocMapped);
  if (e == cudaSuccess) e = cudaHostGetDevicePointer((void **)&g->hold_dev, g->hold, 0);
  if (e == cudaSuccess) memset(g->status, 0, words * sizeof *g->status), memset(g->hold, 0, LINE);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  return e;
}

/* Exchange IPC handles and bus ids; map every peer's region (a failure marks the peer's pairs NOIPC). */
static void share(struct ar_lgpu *g, int have) {
  cudaIpcMemHandle_t h, *all = calloc((size_t)g->n, sizeof *all);
  char bus[32] = "";
  memset(&h, 0, sizeof h);
  int ok = have && cudaIpcGetMemHandle(&h, g->mine) == cudaSuccess;
  if (have && cudaDeviceGetPCIBusId(bus, (int)sizeof bus, g->device) != cudaSuccess) *bus = 0;
  for (char *c = bus; *c; c++) *c = (char)tolower((unsigned char)*c);
  int *oks = calloc((size_t)g->n, sizeof *oks);
  if (!all || !oks) {
    fprintf(stderr, "arbench links: rank %d: out of memory sharing GPU buffers\n", g->rank);
    MPI_Abort(g->comm, AR_EXIT_FAIL);
  }
  MPI_Allgather(&h, (int)sizeof h, MPI_BYTE, all, (int)sizeof h, MPI_BYTE, g->comm);
  MPI_Allgather(bus, (int)sizeof bus, MPI_CHAR, g->bus, (int)sizeof bus, MPI_CHAR, g->comm);
  MPI_Allgather(&ok, 1, MPI_INT, oks, 1, MPI_INT, g->comm);
  for (int q = 0; q < g->n; q++) {
    if (q == g->rank) {
      g->peer[q] = g->mine;
      g->ipc_ok[q] = ok;
    } else if (ok && oks[q]) {
      void *p = NULL;
      g->ipc_ok[q] = cudaIpcOpenMemHandle(&p, all[q], cudaIpcMemLazyEnablePeerAccess) == cudaSuccess;
      g->peer[q] = g->ipc_ok[q] ? p : NULL;
      if (!g->ipc_ok[q]) cudaGetLastError();
    }
  }
  /* Every rank's view of whom it mapped: pair (s, d) needs both directions mapped (read and write methods). */
  int *seen = calloc((size_t)g->n * (size_t)g->n, sizeof *seen);
  if (!seen) MPI_Abort(g->comm, AR_EXIT_FAIL);
  MPI_Allgather(g->ipc_ok, g->n, MPI_INT, seen, g->n, MPI_INT, g->comm);
  for (int s = 0; s < g->n; s++)
    for (int d = 0; d < g->n; d++)
      if (s != d && (!seen[s * g->n + d] || !seen[d * g->n + s])) g->bad[s * g->n + d] = AR_PAIR_NOIPC;
  free(seen);
  free(oks);
  free(all);
}

int ar_lgpu_open(struct ar_lgpu **out, MPI_Comm comm, int device, size_t max_bytes, double timeout_s, int silent,
                 const struct ar_fault *fault, char *err, size_t len) {
  struct ar_lgpu *g = calloc(1, sizeof *g);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int ok = g != NULL;
  if (g) {
    g->comm = comm;
    g->rank = rank;
    MPI_Comm_size(comm, &g->n);
    g->device = device;
    g->timeout_s = timeout_s;
    g->silent = silent == rank;
    g->fault = fault;
    g->gen = 0;
    g->hold_s = AR_LCUDA_HOLD_S;
    g->unheld_left = fault && fault->unheld_rank == rank ? fault->unheld_tries : 0;
    g->slot = ((max_bytes ? max_bytes : 4) + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN;
    ok = alloc_host(g);
  }
  cudaError_t e = ok ? alloc_device(g, flags_bytes(g->n) + (size_t)(g->n + 1) * g->slot) : cudaErrorMemoryAllocation;
  char mine[200] = "";
  if (e != cudaSuccess)
    snprintf(mine, sizeof mine, "rank %d: cannot set up %zu-byte GPU buffers on CUDA device %d: %s", rank,
             g ? g->slot : max_bytes, device, cudaGetErrorString(e));
  int bad = *mine != 0, any;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any) {
    cudaGetLastError();
    /* the first failing rank's line, on every rank */
    int who = bad ? rank : g ? g->n : 1 << 30, first;
    MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm);
    MPI_Bcast(mine, sizeof mine, MPI_CHAR, first, comm);
    snprintf(err, len, "%s", mine);
    if (g && g->peer) g->peer[rank] = NULL;
    ar_lgpu_close(g);
    return -AR_ERUNTIME;
  }
  share(g, 1);
  MPI_Barrier(comm);
  g->opened = 1;
  *out = g;
  return 0;
}

void ar_lgpu_close(struct ar_lgpu *g) {
  if (!g) return;
  if (g->opened) agree_stuck(g); /* every rank takes the same branch below (a failed open: none is stuck) */
  /* A stuck GPU's work may still read or write any peer's buffers: nobody synchronizes, closes or frees (every
   * rank agrees, so none waits in the barrier below for one that skips it); the process's end reclaims them. */
  if (!ar_lgpu_stuck(g)) {
    cudaDeviceSynchronize();
    for (int q = 0; g->peer && q < g->n; q++)
      if (q != g->rank && g->peer[q]) cudaIpcCloseMemHandle(g->peer[q]);
    /* Each owner frees its region only after every peer closed its mapping of it. */
    MPI_Barrier(g->comm);
    for (int i = 0; g->st && i < g->n; i++) {
      if (g->st[i]) cudaStreamDestroy(g->st[i]);
      if (g->ev0[i]) cudaEventDestroy(g->ev0[i]);
      if (g->ev1[i]) cudaEventDestroy(g->ev1[i]);
    }
    if (g->mine) cudaFree(g->mine);
    if (g->host) cudaFreeHost(g->host);
    if (g->status) cudaFreeHost(g->status);
    if (g->hold) cudaFreeHost(g->hold);
    cudaGetLastError();
  }
  free(g->peer), free(g->ipc_ok), free(g->bad), free(g->bus), free(g->st), free(g->ev0), free(g->ev1);
  free(g->stuck_of), free(g->harg), free(g->ms);
  free(g);
}

/* ---- data: what rank src sends in sequence seq (ar_links_word), through the pinned staging ---- */

/* Copy the staging to (or from) device memory p on stream 0, bounded. enum ar_lhwait. */
static int stage(struct ar_lgpu *g, void *p, size_t bytes, int to_device) {
  cudaError_t e = to_device ? cudaMemcpyAsync(p, g->host, bytes, cudaMemcpyHostToDevice, g->st[0])
                            : cudaMemcpyAsync(g->host, p, bytes, cudaMemcpyDeviceToHost, g->st[0]);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return AR_HW_ERROR;
  }
  int w = wait_mine(g, g->st[0], ar_lcuda_bound_s(bytes, 1));
  if (w == AR_HW_TIMEOUT) g->staging_stuck = 1;
  return w;
}

static int fill(struct ar_lgpu *g, void *p, int src, size_t bytes, int poison) {
  for (size_t i = 0; i < bytes / 4; i++) {
    uint32_t w = ar_links_word(src, g->seq, i);
    g->host[i] = poison ? ~w : w;
  }
  return stage(g, p, bytes, 1);
}

/* Words of my receive slot from src that differ from src's data (after ARBENCH_INJECT_FAULT when plant). */
static uint64_t check(struct ar_lgpu *g, int src, size_t bytes, int plant, int *hw) {
  *hw = stage(g, recv_of(g, g->rank, src), bytes, 0);
  if (*hw != AR_HW_DONE) return 0;
  size_t words = bytes / 4;
  for (int i = 0; plant && g->fault && words && i < g->fault->n; i++) {
    if (g->fault->rank[i] != g->rank) continue;
    long long p = g->fault->pos[i];
    size_t at = p == -2 ? words / 2 : p < 0 || (unsigned long long)p >= words ? words - 1 : (size_t)p;
    g->host[at] ^= 0x1u;
  }
  uint64_t wrong = 0;
  for (size_t i = 0; i < words; i++) wrong += g->host[i] != ar_links_word(src, g->seq, i);
  return wrong;
}

/* One copy of a flow by its initiator on stream s. A cudaError_t. */
static int copy_flow(struct ar_lgpu *g, int method, struct ar_flow f, size_t bytes, cudaStream_t s) {
  void *dst = recv_of(g, f.dst, f.src);
  const void *src = send_of(g, f.src);
#if AR_HAVE_NVCC
  if (ar_lmethod_sm(method)) return ar_links_cu_copy(dst, src, bytes, 2 * g->sm_count, s);
#else
  (void)method; /* sm-* are refused at start-up on such a build (ar_lgpu_kernels) */
#endif
  return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s);
}

/* ARBENCH_INJECT_SILENT: a kernel on stream 0 that waits for a flag nobody sets for three timeouts, so what the
 * stream queues next finishes only after the host's bounded wait gave up: the GPU is then stuck as a GPU whose
 * copy hangs (ACS, IOMMU) is (the kernel ends by itself later, but nothing is queued on it again). */
static void stall(struct ar_lgpu *g) {
#if AR_HAVE_NVCC
  memset(g->status, 0, AR_LKS_WORDS * sizeof *g->status);
  ar_links_cu_pingpong(flag_of(g, g->rank, FL_PING, g->rank), flag_of(g, g->rank, FL_PONG, g->rank), 0, 0x40000000u,
                       0, 1, (unsigned long long)(3e9 * g->timeout_s), g->status_dev, g->st[0]);
#else
  (void)g;
#endif
}

/* ---- the smoke test ---- */

/* Pair (s, d) as this rank sees it: its verdict. */
static int smoke_pair(struct ar_lgpu *g, int s, int d, size_t bytes) {
  int me = g->rank, hw = AR_HW_DONE;
  if (me == s && fill(g, send_of(g, s), s, bytes, 0) != AR_HW_DONE) hw = AR_HW_ERROR;
  if (me == d && fill(g, recv_of(g, d, s), s, bytes, 1) != AR_HW_DONE) hw = AR_HW_ERROR;
  MPI_Barrier(g->comm);
  if (me == s && hw == AR_HW_DONE) { /* step 1: s pushes into d */
    if (g->silent) stall(g);
    hw = copy_flow(g, AR_LM_CE_WRITE, (struct ar_flow){s, d}, bytes, g->st[0]) ? AR_HW_ERROR
                                                                               : wait_mine(g, g->st[0], g->timeout_s);
  }
  int pushed = agree_max(g, me == s || me == d ? hw : AR_HW_DONE);
  uint64_t wrong = 0;
  int v = AR_PAIR_OK;
  if (pushed != AR_HW_DONE) v = AR_PAIR_TIMEOUT;
  else if (me == d) { /* check, then step 2: d pulls from s */
    wrong = check(g, s, bytes, 1, &hw);
    if (hw == AR_HW_DONE && fill(g, recv_of(g, d, s), s, bytes, 1) != AR_HW_DONE) hw = AR_HW_ERROR;
    if (hw == AR_HW_DONE) {
      if (g->silent) stall(g);
      hw = copy_flow(g, AR_LM_CE_READ, (struct ar_flow){s, d}, bytes, g->st[0]) ? AR_HW_ERROR
                                                                                : wait_mine(g, g->st[0], g->timeout_s);
    }
    if (hw == AR_HW_DONE) {
      int hw2;
      wrong += check(g, s, bytes, 1, &hw2);
      hw = hw2;
    }
    v = ar_lcuda_smoke_verdict(1, hw, wrong);
  }
  return v;
}

int ar_lgpu_smoke(struct ar_lgpu *g, size_t bytes) {
  int n = g->n, nbad = 0, *mine = calloc((size_t)n * (size_t)n, sizeof *mine);
  if (!mine) MPI_Abort(g->comm, AR_EXIT_FAIL);
  if (bytes > g->slot) bytes = g->slot;
  bytes -= bytes % 4;
  agree_stuck(g);
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++) {
      /* a pair of a stuck GPU is never started: its stream would queue behind the work that never ended */
      if (s == d || g->bad[s * n + d] != AR_PAIR_OK || g->stuck_of[s] || g->stuck_of[d]) continue;
      g->seq++;
      mine[s * n + d] = smoke_pair(g, s, d, bytes);
      /* a copy between my GPU and the host never ended: the GPU is stuck, the link untested (no ACS line) */
      if (g->staging_stuck && (g->rank == s || g->rank == d)) mine[s * n + d] = AR_PAIR_STUCK;
      agree_stuck(g); /* the same stuck set on every rank before the next pair */
      ar_links_beat(g->beat);
    }
  for (int k = 0; k < n * n; k++) mine[k] = mine[k] > g->bad[k] ? mine[k] : g->bad[k];
  MPI_Allreduce(mine, g->bad, n * n, MPI_INT, MPI_MAX, g->comm);
  ar_lcuda_stuck_pairs(g->stuck_of, n, g->bad);
  for (int k = 0; k < n * n; k++) nbad += g->bad[k] != AR_PAIR_OK;
  free(mine);
  return nbad;
}

/* ---- held timing ---- */

#if !AR_HAVE_NVCC
/* The hold without a hold kernel: a host function on the stream, napping until the release or its deadline
 * (cuda_runtime_api.h, cudaLaunchHostFunc: it blocks the work queued after it on its stream; it makes no CUDA call
 * and waits on no CUDA work, only on the host's release). */
static void CUDART_CB hold_fn(void *p) {
  struct hold_arg *a = p;
  double end = now_s() + a->hold_s;
  volatile unsigned long long *st = a->st;
  while (!ar_gen_reached(ar_flag_load(a->flag), a->gen) && now_s() < end) nap();
  st[AR_LKS_STATE] = ar_gen_reached(ar_flag_load(a->flag), a->gen) ? AR_LKS_OK : AR_LKS_TIMEOUT;
}
#endif

static unsigned long long *hold_status(const struct ar_lgpu *g, int j) { return g->status + (size_t)(1 + j) * AR_LKS_WORDS; }

/* Stream j waits for the release of generation gen before what is queued next, at most hold_s. A cudaError_t. */
static int hold(struct ar_lgpu *g, int j, uint32_t gen, double hold_s) {
  memset(hold_status(g, j), 0, AR_LKS_WORDS * sizeof *g->status);
#if AR_HAVE_NVCC
  return ar_links_cu_hold(g->hold_dev, gen, (unsigned long long)(hold_s * 1e9),
                          g->status_dev + (size_t)(1 + j) * AR_LKS_WORDS, g->st[j]);
#else
  g->harg[j] = (struct hold_arg){g->hold, gen, hold_status(g, j), hold_s};
  return (int)cudaLaunchHostFunc(g->st[j], hold_fn, &g->harg[j]);
#endif
}

/* The hold of a try that is about to queue k holds: g->hold_s, or 0 for a try ARBENCH_INJECT_UNHELD plants (its
 * holds give up at once, and release() waits until they did: the try ends unheld, as under a host slower than
 * the hold). */
static double try_hold_s(struct ar_lgpu *g, int k) {
  g->planted = 0;
  if (k <= 0 || !g->unheld_left) return g->hold_s;
  g->unheld_left--;
  g->planted = k;
  return 0;
}

/* Release the holds of generation g->hold_gen (planted ones only after they gave up, bounded). */
static void release(struct ar_lgpu *g) {
  double end = now_s() + AR_LCUDA_FLOOR_S;
  for (int j = 0; j < g->planted; j++)
    while (!((volatile unsigned long long *)hold_status(g, j))[AR_LKS_STATE] && now_s() < end) nap();
  g->planted = 0;
  ar_flag_store(g->hold, g->hold_gen);
}

/* The holds of the first k streams ended by their release (not their deadline), read after the streams drained. */
static int held(const struct ar_lgpu *g, int k) {
  for (int j = 0; j < k; j++)
    if (((volatile unsigned long long *)hold_status(g, j))[AR_LKS_STATE] != AR_LKS_OK) return 0;
  return 1;
}

/* ---- bandwidth ---- */

/* Queue `copies` copies of each started flow, stream k for flow idx[k]; timed: held, between the two events of
 * its stream. A cudaError_t. */
static int queue(struct ar_lgpu *g, int method, const struct ar_flow *f, const int *idx, int k, size_t bytes,
                 int copies, int timed) {
  int e = 0;
  double hs = timed ? try_hold_s(g, k) : 0;
  if (timed) g->hold_gen++;
  for (int j = 0; j < k && !e; j++) {
    if (timed) e = hold(g, j, g->hold_gen, hs);
    if (timed && !e) e = (int)cudaEventRecord(g->ev0[j], g->st[j]);
    for (int c = 0; c < copies && !e; c++) e = copy_flow(g, method, f[idx[j]], bytes, g->st[j]);
    if (timed && !e) e = (int)cudaEventRecord(g->ev1[j], g->st[j]);
  }
  return e;
}

/* Sources get their data, destinations the poison. enum ar_lhwait. */
static int fill_flows(struct ar_lgpu *g, const struct ar_flow *f, int nf, size_t bytes) {
  int sends = 0, hw = AR_HW_DONE;
  for (int i = 0; i < nf; i++) sends |= f[i].src == g->rank;
  if (sends) hw = fill(g, send_of(g, g->rank), g->rank, bytes, 0);
  for (int i = 0; i < nf && hw == AR_HW_DONE; i++)
    if (f[i].dst == g->rank) hw = fill(g, recv_of(g, g->rank, f[i].src), f[i].src, bytes, 1);
  return hw;
}

/* Add each stream's event time of the batch just waited for; an unheld batch (its hold's deadline passed before
 * the release: its copies ran while the host still queued them or waited for the other ranks) is no measurement:
 * AR_HW_UNHELD, measured again (ar_lgpu_measure). enum ar_lhwait. */
static int time_batch(struct ar_lgpu *g, int k) {
  if (!held(g, k)) return AR_HW_UNHELD;
  for (int j = 0; j < k; j++) {
    float ms = 0;
    if (cudaEventElapsedTime(&ms, g->ev0[j], g->ev1[j]) != cudaSuccess) return AR_HW_ERROR;
    g->ms[j] += ms;
  }
  return AR_HW_DONE;
}

/* One repeat on this rank, the steps of ar_lcuda_repeat_step in their order: mine[k] = GB/s of the flows it starts
 * (0 elsewhere), bad[k] += words wrong of the flows it receives. enum ar_lhwait, the same on every rank. */
static int measure_once(struct ar_lgpu *g, int method, const struct ar_flow *f, int nf, const int *idx, int k,
                        size_t bytes, int iters, int warmup, int nbatch, double *mine, uint64_t *bad) {
  int hw = AR_HW_DONE, b, step;
  double queued = 0; /* when this batch's first hold was queued */
  g->seq++;
  g->took_s = 0;
  for (int j = 0; j < k; j++) g->ms[j] = 0;
  for (int i = 0; (step = ar_lcuda_repeat_step(i, warmup > 0, nbatch, &b)) != AR_LS_END; i++) {
    int copies = b < 0 ? warmup : ar_lcuda_batch_copies(iters, nbatch, b);
    switch (step) {
    case AR_LS_FILL: hw = fill_flows(g, f, nf, bytes); break;
    case AR_LS_AGREE:
      if ((hw = agree_max(g, hw)) != AR_HW_DONE) return hw; /* every rank leaves at the same step */
      break;
    case AR_LS_WARM:
      if (queue(g, method, f, idx, k, bytes, warmup, 0)) hw = AR_HW_ERROR;
      break;
    case AR_LS_HOLD:
      queued = now_s();
      if (hw == AR_HW_DONE && queue(g, method, f, idx, k, bytes, copies, 1)) hw = AR_HW_ERROR;
      break;
    case AR_LS_BARRIER: MPI_Barrier(g->comm); break; /* every GPU is held: release them together */
    case AR_LS_RELEASE:                             /* always: a hold queued before an error must end */
      release(g);
      if (now_s() - queued > g->took_s) g->took_s = now_s() - queued;
      break;
    case AR_LS_WAIT:
      if (hw == AR_HW_DONE) hw = wait_streams(g, k, ar_lcuda_bound_s(bytes, copies * k) + (b < 0 ? 0 : AR_LCUDA_HOLD_S));
      break;
    case AR_LS_TIME:
      if (hw == AR_HW_DONE) hw = time_batch(g, k);
      break;
    case AR_LS_CHECK: /* every initiator's copies ended (the agreement after the waits): the data is all there */
      for (int q = 0; q < nf && hw == AR_HW_DONE; q++)
        if (f[q].dst == g->rank) {
          int h;
          bad[q] += check(g, f[q].src, bytes, 0, &h);
          if (h != AR_HW_DONE) hw = h;
        }
      break;
    }
  }
  for (int j = 0; j < k; j++) mine[idx[j]] = ar_lcuda_gbs(bytes, iters, g->ms[j]);
  return hw;
}

/* "rank 3 (0000:3b:00.0)" or "ranks 1, 3": whose GPU is stuck, as the ranks agreed (collective). */
static int stuck_names(struct ar_lgpu *g, char *buf, size_t len) {
  int k = agree_stuck(g);
  char who[160];
  ar_lcuda_names(g->stuck_of, g->n, who, sizeof who);
  int r = 0;
  while (k == 1 && !g->stuck_of[r]) r++;
  if (k == 1) snprintf(buf, len, "%s (%s)", who, *g->bus[r] ? g->bus[r] : "?");
  else snprintf(buf, len, "%s", who);
  return k;
}

/* The line of a measurement that failed; a timeout names the GPU whose work passed its bound. Collective. */
static void fail_line(struct ar_lgpu *g, int hw, const char *what, size_t bytes, char *err, size_t len) {
  char who[200];
  int k = stuck_names(g, who, sizeof who);
  if (hw == AR_HW_TIMEOUT && k)
    snprintf(err, len, "a %s copy of %zu bytes did not end within its bound (10 s + the copies at 0.1 GB/s) on the "
             "GPU of %s: stopping the probe; nothing more is queued on it", what, bytes, who);
  else
    snprintf(err, len, "a %s copy of %zu bytes failed on a GPU: stopping the probe", what, bytes);
}

/* One repeat, tried again while it ends unheld (AR_LCUDA_HOLD_TRIES in all, each next hold longer: cuda_plan.h);
 * a retry's line on rank 0. enum ar_lhwait, the same on every rank; *tries, *took_s: the tries made and the
 * hosts' longest queue-to-release of the last (every rank). */
static int measure_held(struct ar_lgpu *g, int method, const struct ar_flow *f, int nf, const int *idx, int k,
                        size_t bytes, int iters, int warmup, int nbatch, double *mine, uint64_t *bad, const char *what,
                        int *tries, double *took_s) {
  g->hold_s = AR_LCUDA_HOLD_S;
  for (*tries = 1;; ++*tries) {
    int hw = measure_once(g, method, f, nf, idx, k, bytes, iters, warmup, nbatch, mine, bad);
    if (hw != AR_HW_UNHELD) return hw;
    MPI_Allreduce(&g->took_s, took_s, 1, MPI_DOUBLE, MPI_MAX, g->comm);
    if (!ar_lcuda_hold_retry(*tries)) return hw;
    double next = ar_lcuda_hold_next_s(g->hold_s, *took_s);
    if (g->rank == 0) {
      char line[AR_ERRLEN];
      ar_lcuda_retry_line(what, *tries, g->hold_s, *took_s, next, line, sizeof line);
      fprintf(stderr, "arbench links: %s\n", line);
    }
    g->hold_s = next;
    ar_links_beat(g->beat); /* a try ended: the next one is watched as the first was */
  }
}

int ar_lgpu_measure(struct ar_lgpu *g, int method, const struct ar_flow *f, int nf, size_t bytes, int iters,
                    int warmup, int repeat, const char *what, double *gbs, uint64_t *wrong, char *err, size_t len) {
  double *mine = calloc((size_t)nf, sizeof *mine), *sum = calloc((size_t)nf, sizeof *sum);
  uint64_t *bad = calloc((size_t)nf, sizeof *bad), *badsum = calloc((size_t)nf, sizeof *badsum);
  int *idx = calloc((size_t)nf, sizeof *idx);
  int ok = mine && sum && bad && badsum && idx, all, rc = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, g->comm);
  if (!all) {
    snprintf(err, len, "out of memory");
    rc = -AR_ERUNTIME;
  }
  int k = all ? ar_lcuda_started(method, f, nf, g->rank, idx, g->n) : 0, nbatch = 1;
  if (all) {
    int mineb = ar_lcuda_batches(iters, k);
    MPI_Allreduce(&mineb, &nbatch, 1, MPI_INT, MPI_MAX, g->comm); /* every rank holds and releases as often */
  }
  for (int r = 0; r < repeat && !rc; r++) {
    for (int i = 0; i < nf; i++) mine[i] = 0;
    int tries;
    double took = 0;
    int hw = measure_held(g, method, f, nf, idx, k, bytes, iters, warmup, nbatch, mine, bad, what, &tries, &took);
    if (hw == AR_HW_UNHELD) { /* not a GPU fault: this measurement is not made, the probe goes on */
      ar_lcuda_unheld_line(what, tries, g->hold_s, took, err, len);
      rc = AR_LGPU_UNHELD;
      break;
    }
    if (hw != AR_HW_DONE) {
      fail_line(g, hw, ar_lmethod_name(method), bytes, err, len);
      rc = hw == AR_HW_TIMEOUT ? -AR_ETIMEOUT : -AR_ERUNTIME;
      break;
    }
    MPI_Reduce(mine, sum, nf, MPI_DOUBLE, MPI_SUM, 0, g->comm);
    if (g->rank == 0)
      for (int i = 0; i < nf; i++) gbs[i * repeat + r] = sum[i];
    ar_links_beat(g->beat);
  }
  if (!rc) {
    MPI_Reduce(bad, badsum, nf, MPI_UINT64_T, MPI_SUM, 0, g->comm);
    if (g->rank == 0) memcpy(wrong, badsum, sizeof *wrong * (size_t)nf);
  }
  free(mine), free(sum), free(bad), free(badsum), free(idx);
  return rc;
}

/* ---- latency ---- */

/* The ping-pong's outcome on this rank after its wait hw: the line and value (initiator), NAN on a failure. */
static double pingpong_value(struct ar_lgpu *g, int src, int dst, int hw, int warm, int iters, char *line, size_t len) {
  int me = g->rank;
  double v = me == src ? ar_lcuda_pingpong_us(hw, g->status, warm, iters, line, len) : 0;
  if (me == dst && hw != AR_HW_DONE) v = NAN;
  if (me == dst && hw == AR_HW_DONE && g->status[AR_LKS_STATE] != AR_LKS_OK) v = NAN;
  return v;
}

int ar_lgpu_pingpong(struct ar_lgpu *g, int src, int dst, int iters, int repeat, double *us, char *why, size_t len) {
  int warm = iters < 10 ? iters : 10, me = g->rank, rc = 0;
  for (int r = 0; r < repeat; r++) {
    uint32_t g0 = g->gen + 1;
    g->gen += (uint32_t)(warm + iters);
    memset(g->status, 0, AR_LKS_WORDS * sizeof *g->status);
    int hw = AR_HW_DONE;
    MPI_Barrier(g->comm);
#if AR_HAVE_NVCC
    if (me == src || me == dst) {
      int init = me == src, peer = init ? dst : src;
      uint32_t *mine = flag_of(g, me, init ? FL_PING : FL_PONG, peer);
      const uint32_t *theirs = flag_of(g, peer, init ? FL_PONG : FL_PING, me);
      /* each flag wait has its own deadline; the host gives up only when the count stood still for one */
      hw = ar_links_cu_pingpong(mine, theirs, init, g0, warm, iters, (unsigned long long)(g->timeout_s * 1e9),
                                g->status_dev, g->st[0])
               ? AR_HW_ERROR
               : wait_moving(g, g->st[0], &g->status[AR_LKS_DONE], ar_lcuda_kernel_bound_s(g->timeout_s));
    }
#else
    (void)g0, (void)flag_of, (void)wait_moving;
    hw = AR_HW_ERROR;
#endif
    char line[200] = "";
    double v = pingpong_value(g, src, dst, hw, warm, iters, line, sizeof line);
    int lost = isnan(v), any;
    MPI_Allreduce(&lost, &any, 1, MPI_INT, MPI_MAX, g->comm);
    double out = me == src && !any ? v : 0;
    MPI_Reduce(&out, &us[r], 1, MPI_DOUBLE, MPI_SUM, 0, g->comm);
    /* why: the initiator's reading, at rank 0 */
    if (src != 0) {
      if (me == src) MPI_Send(line, sizeof line, MPI_CHAR, 0, 71, g->comm);
      if (me == 0) MPI_Recv(line, sizeof line, MPI_CHAR, src, 71, g->comm, MPI_STATUS_IGNORE);
    }
    if (me == 0 && any) {
      us[r] = NAN;
      snprintf(why, len, "%s", *line && strcmp(line, "ok") ? line : "the responder's flag wait gave up");
    }
    ar_links_beat(g->beat);
    char who[200];
    /* a GPU found stuck before (its pairs skipped) does not stop a ping-pong of two others */
    if (stuck_names(g, who, sizeof who) && (g->stuck_of[src] || g->stuck_of[dst])) {
      snprintf(why, len, "the ping-pong kernel on the GPU of %s stood still past its bound (%g s): stopping the "
               "probe; nothing more is queued on it", who, ar_lcuda_kernel_bound_s(g->timeout_s));
      rc = -AR_ETIMEOUT;
      break;
    }
  }
  return rc;
}

/* The small copies' tries that ended unheld, on this rank: tried again, the longest queue-to-release, the last
 * hold of a copy that ended unheld, and its tries. */
struct unheld {
  int again, tries;
  double took_s, hold_s;
};

/* One copy alone, held: the hold, the start event, the copy, the stop event; released at once. Tried again while
 * its hold ends before the release (the host took longer to queue three operations than the hold waits: a loaded
 * host), AR_LCUDA_HOLD_TRIES in all, each next hold longer. Its time in us (GPU-side: the host's submission is not
 * in it), NAN when it failed or stayed unheld. enum ar_lhwait in *hw. */
static double one_copy_us(struct ar_lgpu *g, struct ar_flow f, size_t bytes, int *hw, struct unheld *u) {
  g->hold_s = AR_LCUDA_HOLD_S;
  for (int tries = 1;; tries++) {
    double queued = now_s(), hs = try_hold_s(g, 1);
    g->hold_gen++;
    int e = hold(g, 0, g->hold_gen, hs);
    if (!e) e = (int)cudaEventRecord(g->ev0[0], g->st[0]);
    if (!e) e = copy_flow(g, AR_LM_CE_WRITE, f, bytes, g->st[0]);
    if (!e) e = (int)cudaEventRecord(g->ev1[0], g->st[0]);
    release(g); /* always: a hold queued before an error must end */
    double took = now_s() - queued;
    *hw = e ? AR_HW_ERROR : wait_mine(g, g->st[0], ar_lcuda_bound_s(bytes, 1) + AR_LCUDA_HOLD_S);
    float ms = 0;
    if (*hw == AR_HW_DONE && !held(g, 1)) *hw = AR_HW_UNHELD;
    if (*hw == AR_HW_DONE && cudaEventElapsedTime(&ms, g->ev0[0], g->ev1[0]) != cudaSuccess) *hw = AR_HW_ERROR;
    if (*hw != AR_HW_UNHELD) return *hw == AR_HW_DONE ? (double)ms * 1e3 : NAN;
    if (took > u->took_s) u->took_s = took;
    u->hold_s = g->hold_s;
    u->tries = tries;
    if (!ar_lcuda_hold_retry(tries)) return NAN;
    u->again++;
    g->hold_s = ar_lcuda_hold_next_s(g->hold_s, took);
  }
}

/* Rank 0: the line of the small copies of `what` measured again in a repeat (agreed: every rank). */
static void unheld_again(struct ar_lgpu *g, const char *what, const struct unheld *u) {
  int again = 0;
  double took = 0;
  MPI_Allreduce(&u->again, &again, 1, MPI_INT, MPI_SUM, g->comm);
  MPI_Allreduce(&u->took_s, &took, 1, MPI_DOUBLE, MPI_MAX, g->comm);
  if (again && g->rank == 0)
    fprintf(stderr, "arbench links: %s: %d held cop%s ended unheld (the host took up to %.3g s to queue one and "
            "release it, longer than its hold: a loaded host) and %s measured again with a longer hold\n", what, again,
            again == 1 ? "y" : "ies", took, again == 1 ? "was" : "were");
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int ar_lgpu_ce_latency(struct ar_lgpu *g, int method, int src, int dst, size_t bytes, int iters, int repeat,
                       double *us, char *err, size_t len) {
  struct ar_flow f = {src, dst};
  int me = g->rank, init = ar_links_initiator(method, f) == me, rc = 0;
  double *t = calloc((size_t)(iters > 0 ? iters : 1), sizeof *t);
  if (bytes > g->slot) bytes = g->slot;
  char what[160];
  snprintf(what, sizeof what, "small %s copies %d->%d (%zu bytes)", ar_lmethod_name(method), src, dst, bytes);
  for (int r = 0; r < repeat; r++) {
    int hw = t ? AR_HW_DONE : AR_HW_ERROR;
    double v = 0;
    struct unheld u = {0, 0, 0, 0};
    MPI_Barrier(g->comm);
    for (int i = 0; init && i < iters && hw == AR_HW_DONE; i++) {
      t[i] = one_copy_us(g, f, bytes, &hw, &u);
      ar_links_beat(g->beat);
    }
    if (init && hw == AR_HW_DONE && iters > 0) { /* the median copy of this repeat */
      qsort(t, (size_t)iters, sizeof *t, cmp_double);
      v = iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2;
    }
    unheld_again(g, what, &u);
    if ((hw = agree_max(g, hw)) == AR_HW_UNHELD) { /* not a GPU fault: not measured, the probe goes on */
      double last[2] = {u.hold_s, u.took_s}, most[2];
      MPI_Allreduce(last, most, 2, MPI_DOUBLE, MPI_MAX, g->comm);
      ar_lcuda_unheld_line(what, AR_LCUDA_HOLD_TRIES, most[0], most[1], err, len);
      rc = AR_LGPU_UNHELD;
      break;
    }
    if (hw != AR_HW_DONE) {
      fail_line(g, hw, "small copy-engine", bytes, err, len);
      rc = hw == AR_HW_TIMEOUT ? -AR_ETIMEOUT : -AR_ERUNTIME;
      break;
    }
    double out = init ? v : 0;
    MPI_Reduce(&out, &us[r], 1, MPI_DOUBLE, MPI_SUM, 0, g->comm);
  }
  free(t);
  return rc;
}

/* ---- in one process: doctor's smoke test ---- */

int ar_lgpu_smoke_local(int a, int b, size_t bytes, double timeout_s, char *why, size_t len) {
  void *pa = NULL, *pb = NULL;
  uint32_t *h = NULL;
  cudaStream_t s = NULL;
  bytes -= bytes % 4;
  size_t words = bytes / 4;
  int v = AR_PAIR_OK, hw = AR_HW_DONE;
  uint64_t wrong = 0;
  cudaError_t e = cudaSetDevice(a);
  if (e == cudaSuccess) e = cudaMalloc(&pa, 2 * bytes);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaSetDevice(b);
  if (e == cudaSuccess) e = cudaMalloc(&pb, bytes);
  if (e == cudaSuccess) e = cudaHostAlloc((void **)&h, bytes, cudaHostAllocDefault);
  if (e != cudaSuccess) {
    snprintf(why, len, "cannot set up the test buffers: %s", cudaGetErrorString(e));
    v = AR_PAIR_NOIPC;
  }
  /* Peer access on both ways, so the copies take the P2P path (without it cudaMemcpyPeer stages through host
   * memory, which ACS and the IOMMU do not break). */
  int ab = 0, ba = 0;
  if (v == AR_PAIR_OK) cudaDeviceCanAccessPeer(&ab, a, b), cudaDeviceCanAccessPeer(&ba, b, a);
  if (v == AR_PAIR_OK && !(ab && ba)) {
    snprintf(why, len, "no P2P access between them (cudaDeviceCanAccessPeer: %d, %d)", ab, ba);
    v = AR_PAIR_NOIPC;
  }
  for (int k = 0; v == AR_PAIR_OK && k < 2; k++) {
    cudaError_t pe = cudaSetDevice(k ? b : a);
    if (pe == cudaSuccess) pe = cudaDeviceEnablePeerAccess(k ? a : b, 0);
    if (pe == cudaErrorPeerAccessAlreadyEnabled) pe = cudaSuccess, cudaGetLastError();
    if (pe != cudaSuccess) {
      snprintf(why, len, "cannot enable peer access: %s", cudaGetErrorString(pe));
      v = AR_PAIR_NOIPC;
    }
  }
  for (size_t i = 0; v == AR_PAIR_OK && i < words; i++) h[i] = ar_links_word(a, 1, i);
  /* a -> b (pushed by a's stream), then b -> a's second half, each within the timeout */
  if (v == AR_PAIR_OK) e = cudaSetDevice(a);
  if (v == AR_PAIR_OK && e == cudaSuccess) e = cudaMemcpyAsync(pa, h, bytes, cudaMemcpyHostToDevice, s);
  if (v == AR_PAIR_OK && e == cudaSuccess) e = cudaMemsetAsync((char *)pa + bytes, 0xff, bytes, s);
  if (v == AR_PAIR_OK && e == cudaSuccess) hw = wait_stream(s, ar_lcuda_bound_s(bytes, 2));
  if (v == AR_PAIR_OK && e == cudaSuccess && hw == AR_HW_DONE) e = cudaMemcpyPeerAsync(pb, b, pa, a, bytes, s);
  if (v == AR_PAIR_OK && e == cudaSuccess && hw == AR_HW_DONE) hw = wait_stream(s, timeout_s);
  if (v == AR_PAIR_OK && e == cudaSuccess && hw == AR_HW_DONE)
    e = cudaMemcpyPeerAsync((char *)pa + bytes, a, pb, b, bytes, s);
  if (v == AR_PAIR_OK && e == cudaSuccess && hw == AR_HW_DONE) hw = wait_stream(s, timeout_s);
  if (v == AR_PAIR_OK && e == cudaSuccess && hw == AR_HW_DONE)
    e = cudaMemcpyAsync(h, (char *)pa + bytes, bytes, cudaMemcpyDeviceToHost, s);
  if (v == AR_PAIR_OK && e == cudaSuccess && hw == AR_HW_DONE) hw = wait_stream(s, ar_lcuda_bound_s(bytes, 1));
  if (v == AR_PAIR_OK && e != cudaSuccess) hw = AR_HW_ERROR;
  for (size_t i = 0; v == AR_PAIR_OK && hw == AR_HW_DONE && i < words; i++) wrong += h[i] != ar_links_word(a, 1, i);
  if (v == AR_PAIR_OK) {
    v = ar_lcuda_smoke_verdict(1, hw, wrong);
    if (hw == AR_HW_ERROR) snprintf(why, len, "a copy failed: %s", cudaGetErrorString(e ? e : cudaGetLastError()));
    else if (hw == AR_HW_TIMEOUT) snprintf(why, len, "a %zu-byte copy did not finish within %g s", bytes, timeout_s);
    else if (wrong) snprintf(why, len, "%llu of %zu words came back wrong", (unsigned long long)wrong, words);
    else snprintf(why, len, "%zu bytes there and back, checked", bytes);
  }
  cudaGetLastError();
  if (hw != AR_HW_TIMEOUT) { /* a copy that never ended: leave its buffers to the process's end */
    if (s) cudaStreamDestroy(s);
    if (pa) cudaFree(pa);
    if (pb) cudaFree(pb);
    if (h) cudaFreeHost(h);
    cudaGetLastError();
  }
  return v;
}
