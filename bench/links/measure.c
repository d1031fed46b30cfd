/* measure.c — `arbench links` on CPU ranks: read (pull) and write (push) copies between MPI shared-memory
 * windows, checked word by word; the per-pair smoke test with a timeout; the release/acquire flag ping-pong. */
#include "links/measure.h"
#include "ar_core.h"
#include "ar_core_wait.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { FL_DATA = 0, FL_ACK, FL_PING, FL_PONG, FL_N };

static uint32_t *flag(const struct ar_lctx *c, int owner, int kind, int peer) {
  return (uint32_t *)(c->base[owner] + ((size_t)kind * (size_t)c->n + (size_t)peer) * AR_CORE_LINE);
}
static size_t flags_bytes(int n) { return (size_t)FL_N * (size_t)n * AR_CORE_LINE; }
static uint32_t *send_buf(const struct ar_lctx *c, int r) { return (uint32_t *)(c->base[r] + flags_bytes(c->n)); }
static uint32_t *recv_slot(const struct ar_lctx *c, int dst, int src) {
  return (uint32_t *)(c->base[dst] + flags_bytes(c->n) + (size_t)(1 + src) * c->slot);
}

uint32_t ar_links_word(int src, uint32_t seq, size_t i) {
  return (uint32_t)i * 2654435761u ^ ((uint32_t)(src + 1) << 24) ^ seq * 0x9e3779b9u;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A barrier that also orders the plain stores of the copies before the peers' loads. */
static void sync_all(const struct ar_lctx *c) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  MPI_Barrier(c->comm);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int ar_lctx_open(struct ar_lctx *c, MPI_Comm comm, size_t max_bytes, double timeout_s, int silent,
                 const struct ar_fault *fault, char *err, size_t len) {
  memset(c, 0, sizeof *c);
  c->comm = comm;
  c->win = MPI_WIN_NULL;
  MPI_Comm_rank(comm, &c->rank);
  MPI_Comm_size(comm, &c->n);
  c->slot = ar_core_round(max_bytes ? max_bytes : 4, AR_CORE_LINE);
  c->timeout_ns = (uint64_t)(timeout_s * 1e9);
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  c->oversubscribed = ncpu > 0 && c->n > ncpu;
  c->silent = silent == c->rank;
  c->fault = fault;
  c->base = calloc((size_t)c->n, sizeof *c->base);
  c->bad = calloc((size_t)c->n * (size_t)c->n, sizeof *c->bad);
  size_t region = flags_bytes(c->n) + (size_t)(c->n + 1) * c->slot;
  char *mine = NULL;
  int rc = MPI_Win_allocate_shared((MPI_Aint)region, 1, MPI_INFO_NULL, comm, &mine, &c->win);
  int ok = rc == MPI_SUCCESS && c->base && c->bad, all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) {
    snprintf(err, len, "cannot allocate %zu bytes of MPI shared memory per rank (%d buffers of %zu bytes)", region,
             c->n + 1, c->slot);
    ar_lctx_close(c);
    return -AR_ERUNTIME;
  }
  for (int q = 0; q < c->n; q++) {
    MPI_Aint size;
    int disp;
    MPI_Win_shared_query(c->win, q, &size, &disp, &c->base[q]);
  }
  memset(mine, 0, region); /* first touch: the pages live near their owner */
  sync_all(c);
  return 0;
}

void ar_lctx_close(struct ar_lctx *c) {
  if (c->win != MPI_WIN_NULL) MPI_Win_free(&c->win);
  c->win = MPI_WIN_NULL;
  free(c->base);
  free(c->bad);
  c->base = NULL;
  c->bad = NULL;
}

static int wait_flag(const struct ar_lctx *c, const uint32_t *f, uint32_t gen) {
  struct ar_wait w = {.timeout_ns = c->timeout_ns, .oversubscribed = c->oversubscribed};
  int who;
  return ar_wait_flag(f, gen, &w, &who);
}

static void fill_send(const struct ar_lctx *c, size_t bytes) {
  uint32_t *s = send_buf(c, c->rank);
  for (size_t i = 0; i < bytes / 4; i++) s[i] = ar_links_word(c->rank, c->seq, i);
}

static void poison(const struct ar_lctx *c, int src, size_t bytes) {
  uint32_t *d = recv_slot(c, c->rank, src);
  for (size_t i = 0; i < bytes / 4; i++) d[i] = ~ar_links_word(src, c->seq, i);
}

static uint64_t check_recv(const struct ar_lctx *c, int src, size_t bytes) {
  const uint32_t *d = recv_slot(c, c->rank, src);
  uint64_t wrong = 0;
  for (size_t i = 0; i < bytes / 4; i++) wrong += d[i] != ar_links_word(src, c->seq, i);
  return wrong;
}

static void copy_flow(const struct ar_lctx *c, struct ar_flow f, size_t bytes) {
  memcpy(recv_slot(c, f.dst, f.src), send_buf(c, f.src), bytes);
}

/* The planted corruption of ARBENCH_INJECT_FAULT on what this rank received from src. */
static void plant(const struct ar_lctx *c, int src, size_t bytes) {
  size_t words = bytes / 4;
  for (int i = 0; c->fault && words && i < c->fault->n; i++) {
    if (c->fault->rank[i] != c->rank) continue;
    long long p = c->fault->pos[i];
    size_t at = p == -2 ? words / 2 : p < 0 || (unsigned long long)p >= words ? words - 1 : (size_t)p;
    recv_slot(c, c->rank, src)[at] ^= 0x1u;
  }
}

/* One ordered pair of the smoke test, as seen by this rank: its verdict (enum ar_lpair). */
static int smoke_pair(struct ar_lctx *c, int s, int d, size_t bytes, uint32_t g) {
  if (c->silent || (c->rank != s && c->rank != d)) return AR_PAIR_OK;
  if (c->rank == s) {
    fill_send(c, bytes);
    copy_flow(c, (struct ar_flow){s, d}, bytes);
    ar_flag_store(flag(c, d, FL_DATA, s), g);
    return wait_flag(c, flag(c, s, FL_ACK, d), g) == AR_WAIT_OK ? AR_PAIR_OK : AR_PAIR_TIMEOUT;
  }
  if (wait_flag(c, flag(c, d, FL_DATA, s), g) != AR_WAIT_OK) return AR_PAIR_TIMEOUT;
  plant(c, s, bytes);
  int verdict = check_recv(c, s, bytes) ? AR_PAIR_CORRUPT : AR_PAIR_OK;
  ar_flag_store(flag(c, s, FL_ACK, d), g);
  return verdict;
}

int ar_links_smoke(struct ar_lctx *c, size_t bytes) {
  int n = c->n, *mine = calloc((size_t)n * (size_t)n, sizeof *mine), nbad = 0;
  if (bytes > c->slot) bytes = c->slot;
  bytes -= bytes % 4;
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++) {
      if (s == d) continue;
      uint32_t g = ++c->gen;
      c->seq++;
      if (c->rank == d) poison(c, s, bytes);
      sync_all(c);
      int v = smoke_pair(c, s, d, bytes, g);
      if (mine) mine[s * n + d] = v;
      sync_all(c);
      ar_links_beat(c->beat);
    }
  MPI_Allreduce(mine ? mine : c->bad, c->bad, n * n, MPI_INT, MPI_MAX, c->comm);
  for (int k = 0; k < n * n; k++) nbad += c->bad[k] != AR_PAIR_OK;
  free(mine);
  return nbad;
}

/* This rank's timed loop over the flows it initiates; returns seconds (0 when it has none). */
static double timed_copies(const struct ar_lctx *c, int method, const struct ar_flow *f, int nf, size_t bytes,
                           int iters, int warmup) {
  for (int w = 0; w < warmup; w++)
    for (int k = 0; k < nf; k++)
      if (ar_links_initiator(method, f[k]) == c->rank) copy_flow(c, f[k], bytes);
  sync_all(c);
  double t0 = now_s();
  int any = 0;
  for (int it = 0; it < iters; it++)
    for (int k = 0; k < nf; k++)
      if (ar_links_initiator(method, f[k]) == c->rank) {
        copy_flow(c, f[k], bytes);
        any = 1;
      }
  return any ? now_s() - t0 : 0;
}

int ar_links_measure(struct ar_lctx *c, int method, const struct ar_flow *f, int nf, size_t bytes, int iters,
                     int warmup, int repeat, double *gbs, uint64_t *wrong) {
  double *mine = calloc((size_t)nf, sizeof *mine), *sum = calloc((size_t)nf, sizeof *sum);
  uint64_t *bad = calloc((size_t)nf, sizeof *bad), *badsum = calloc((size_t)nf, sizeof *badsum);
  int ok = mine && sum && bad && badsum, all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->comm);
  if (!all) {
    free(mine), free(sum), free(bad), free(badsum);
    return -AR_ERUNTIME;
  }
  for (int r = 0; r < repeat; r++) {
    c->seq++;
    int sends = 0;
    for (int k = 0; k < nf; k++) {
      sends |= f[k].src == c->rank;
      if (f[k].dst == c->rank) poison(c, f[k].src, bytes);
    }
    if (sends) fill_send(c, bytes);
    sync_all(c);
    double t = timed_copies(c, method, f, nf, bytes, iters, warmup);
    sync_all(c);
    for (int k = 0; k < nf; k++) {
      mine[k] = ar_links_initiator(method, f[k]) == c->rank && t > 0 ? (double)bytes * iters / t / 1e9 : 0;
      if (f[k].dst == c->rank) bad[k] += check_recv(c, f[k].src, bytes);
    }
    MPI_Reduce(mine, sum, nf, MPI_DOUBLE, MPI_SUM, 0, c->comm);
    if (c->rank == 0)
      for (int k = 0; k < nf; k++) gbs[k * repeat + r] = sum[k];
    ar_links_beat(c->beat);
  }
  MPI_Reduce(bad, badsum, nf, MPI_UINT64_T, MPI_SUM, 0, c->comm);
  if (c->rank == 0) memcpy(wrong, badsum, sizeof *wrong * (size_t)nf);
  free(mine), free(sum), free(bad), free(badsum);
  return 0;
}

/* One repeat of the ping-pong on this rank: the halved round trip in us, NAN on a timeout, 0 elsewhere. */
static double pingpong_once(struct ar_lctx *c, int s, int d, int iters, uint32_t g0) {
  int warm = iters < 10 ? iters : 10;
  double t0 = 0;
  for (int i = 0; i < warm + iters; i++) {
    uint32_t g = g0 + (uint32_t)i;
    if (i == warm) t0 = now_s();
    if (c->rank == s) {
      ar_flag_store(flag(c, d, FL_PING, s), g);
      if (wait_flag(c, flag(c, s, FL_PONG, d), g) != AR_WAIT_OK) return NAN;
    } else {
      if (wait_flag(c, flag(c, d, FL_PING, s), g) != AR_WAIT_OK) return NAN;
      ar_flag_store(flag(c, s, FL_PONG, d), g);
    }
  }
  return c->rank == s ? (now_s() - t0) / iters / 2 * 1e6 : 0;
}

int ar_links_pingpong(struct ar_lctx *c, int src, int dst, int iters, int repeat, double *us) {
  int warm = iters < 10 ? iters : 10;
  for (int r = 0; r < repeat; r++) {
    uint32_t g0 = c->gen + 1;
    c->gen += (uint32_t)(warm + iters);
    sync_all(c);
    double v = (c->rank == src || c->rank == dst) && !c->silent ? pingpong_once(c, src, dst, iters, g0) : 0;
    if (c->silent && c->rank == src) v = NAN;
    int lost = isnan(v), any;
    MPI_Allreduce(&lost, &any, 1, MPI_INT, MPI_MAX, c->comm);
    double out = 0;
    if (c->rank == src && !any) out = v;
    MPI_Reduce(&out, &us[r], 1, MPI_DOUBLE, MPI_SUM, 0, c->comm);
    if (c->rank == 0 && any) us[r] = NAN;
    ar_links_beat(c->beat);
  }
  return 0;
}
