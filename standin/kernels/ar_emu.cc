/* ar_emu.cc — runs the custom GPU kernels' own source (kernels/ar_p2p_kernel.cuh, kernels/ar_fill.cu) on CPU
 * threads: an emulated GPU is a pool of pthreads, a launch hands each the indices of one GPU thread. */
#define AR_EMU_KERNELS_ONLY /* the .cu files below without their host launchers */
#include "ar_emu_cuda.h" /* first: the kernels find their CUDA here (and its flag hook) */

#include "ar_core.h"
#include "ar_p2p.h"
#include "ar_pattern.h"
#include "ar_emu.h"

/* The kernels themselves, with internal linkage: in a CUDA build nvcc's objects define the same names (host
 * stubs of the same source). Their own includes are in above, so only their code lands in this namespace. */
namespace {
#include "ar_p2p_kernel.cuh"
#include "ar_fill.cu"
} // namespace

#include <stdlib.h>

thread_local struct ar_emu_thread ar_emu_self;

/* The job of one launch: every worker below blocks * threads runs fn(arg) as one GPU thread. */
typedef void (*ar_emu_fn)(const void *arg);

struct ar_emu_dev {
  int index;
  uint64_t seed;
  unsigned delay_mask;
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  pthread_t *tid;
  int nworkers;
  uint64_t seq; /* launches issued */
  int quit;
  ar_emu_fn fn;
  const void *arg;
  int blocks, threads, finished;
  int bar_blocks, bar_threads; /* shape the barriers below are made for */
  pthread_barrier_t block_bar[AR_EMU_MAX_BLOCKS];
  pthread_barrier_t *warp_bar; /* bar_blocks * warps */
  uint64_t *warp_buf;          /* bar_blocks * bar_threads */
};

struct ar_emu_worker_arg {
  struct ar_emu_dev *d;
  int idx;
  uint64_t seen;
};

static void *worker(void *p) {
  struct ar_emu_worker_arg w = *(struct ar_emu_worker_arg *)p;
  free(p);
  struct ar_emu_dev *d = w.d;
  for (;;) {
    pthread_mutex_lock(&d->mu);
    while (d->seq == w.seen && !d->quit) pthread_cond_wait(&d->go, &d->mu);
    if (d->quit) {
      pthread_mutex_unlock(&d->mu);
      return NULL;
    }
    w.seen = d->seq;
    int T = d->threads, B = d->blocks, mine = w.idx < B * T;
    ar_emu_fn fn = d->fn;
    const void *arg = d->arg;
    pthread_mutex_unlock(&d->mu);
    if (!mine) continue;
    struct ar_emu_thread *t = &ar_emu_self;
    int b = w.idx / T, x = w.idx % T, warps = (T + 31) / 32;
    t->thread_idx = uint3{(unsigned)x, 0, 0};
    t->block_idx = uint3{(unsigned)b, 0, 0};
    t->block_dim = dim3{(unsigned)T, 1, 1};
    t->grid_dim = dim3{(unsigned)B, 1, 1};
    t->block_bar = &d->block_bar[b];
    t->warp_bar = &d->warp_bar[b * warps + x / 32];
    t->warp_buf = &d->warp_buf[(size_t)b * (size_t)warps * 32 + (size_t)(x / 32) * 32];
    t->slot = d->index * AR_EMU_MAX_BLOCKS + b;
    t->delay_mask = d->delay_mask;
    t->rng = d->seed ? (d->seed ^ (w.seen * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)w.idx << 32) ^ (uint64_t)d->index) | 1u
                     : 0;
    fn(arg);
    pthread_mutex_lock(&d->mu);
    if (++d->finished == B * T) pthread_cond_signal(&d->done);
    pthread_mutex_unlock(&d->mu);
  }
}

extern "C" struct ar_emu_dev *ar_emu_dev_open(int index, uint64_t seed, unsigned delay_every) {
  if (index < 0 || index >= AR_EMU_MAX_DEVS) return NULL;
  struct ar_emu_dev *d = (struct ar_emu_dev *)calloc(1, sizeof *d);
  if (!d) return NULL;
  d->index = index;
  d->seed = seed;
  d->delay_mask = delay_every > 1 ? delay_every - 1 : 0;
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->go, NULL);
  pthread_cond_init(&d->done, NULL);
  return d;
}

static void drop_barriers(struct ar_emu_dev *d) {
  int warps = (d->bar_threads + 31) / 32;
  for (int b = 0; b < d->bar_blocks; b++) {
    pthread_barrier_destroy(&d->block_bar[b]);
    for (int w = 0; w < warps; w++) pthread_barrier_destroy(&d->warp_bar[b * warps + w]);
  }
  free(d->warp_bar);
  free(d->warp_buf);
  d->warp_bar = NULL;
  d->warp_buf = NULL;
  d->bar_blocks = d->bar_threads = 0;
}

extern "C" void ar_emu_dev_close(struct ar_emu_dev *d) {
  if (!d) return;
  pthread_mutex_lock(&d->mu);
  d->quit = 1;
  pthread_cond_broadcast(&d->go);
  pthread_mutex_unlock(&d->mu);
  for (int i = 0; i < d->nworkers; i++) pthread_join(d->tid[i], NULL);
  free(d->tid);
  drop_barriers(d);
  pthread_mutex_destroy(&d->mu);
  pthread_cond_destroy(&d->go);
  pthread_cond_destroy(&d->done);
  free(d);
}

/* Barriers for blocks x threads (remade when the shape changes; no launch is running then). */
static int make_barriers(struct ar_emu_dev *d, int blocks, int threads) {
  if (d->bar_blocks == blocks && d->bar_threads == threads) return 0;
  drop_barriers(d);
  int warps = (threads + 31) / 32;
  d->warp_bar = (pthread_barrier_t *)calloc((size_t)blocks * (size_t)warps, sizeof *d->warp_bar);
  d->warp_buf = (uint64_t *)calloc((size_t)blocks * (size_t)warps * 32, sizeof *d->warp_buf);
  if (!d->warp_bar || !d->warp_buf) return -1;
  for (int b = 0; b < blocks; b++) {
    pthread_barrier_init(&d->block_bar[b], NULL, (unsigned)threads);
    for (int w = 0; w < warps; w++) {
      int lanes = threads - w * 32 < 32 ? threads - w * 32 : 32;
      pthread_barrier_init(&d->warp_bar[b * warps + w], NULL, (unsigned)lanes);
    }
  }
  d->bar_blocks = blocks;
  d->bar_threads = threads;
  return 0;
}

/* Enough workers for n GPU threads; each waits for the next launch. */
static int grow(struct ar_emu_dev *d, int n) {
  if (n <= d->nworkers) return 0;
  pthread_t *t = (pthread_t *)realloc(d->tid, sizeof *t * (size_t)n);
  if (!t) return -1;
  d->tid = t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, (size_t)512 << 10);
  while (d->nworkers < n) {
    struct ar_emu_worker_arg *w = (struct ar_emu_worker_arg *)malloc(sizeof *w);
    if (!w) break;
    w->d = d;
    w->idx = d->nworkers;
    w->seen = d->seq; /* called between launches: the mutex is free, seq is stable */
    if (pthread_create(&d->tid[d->nworkers], &attr, worker, w)) {
      free(w);
      break;
    }
    d->nworkers++;
  }
  pthread_attr_destroy(&attr);
  return d->nworkers < n ? -1 : 0;
}

static int launch(struct ar_emu_dev *d, int blocks, int threads, ar_emu_fn fn, const void *arg) {
  if (!d || blocks < 1 || blocks > AR_EMU_MAX_BLOCKS || threads < 32 || threads > 1024 || threads % 32) return -1;
  pthread_mutex_lock(&d->mu);
  int rc = make_barriers(d, blocks, threads);
  pthread_mutex_unlock(&d->mu);
  if (rc || grow(d, blocks * threads)) return -1;
  pthread_mutex_lock(&d->mu);
  d->fn = fn;
  d->arg = arg;
  d->blocks = blocks;
  d->threads = threads;
  d->finished = 0;
  d->seq++;
  pthread_cond_broadcast(&d->go);
  while (d->finished < blocks * threads) pthread_cond_wait(&d->done, &d->mu);
  pthread_mutex_unlock(&d->mu);
  return 0;
}

/* ---- the kernels: each GPU thread gets its own copy of the parameters, as on the GPU ---- */

template <int DT> static void run_p2p(const void *arg) { ar_p2p::p2p_kernel<DT>(*(const ar_p2p_args *)arg); }
template <int F> static void run_fused(const void *arg) { ar_p2p::fused_kernel<F>(*(const ar_p2p_args *)arg); }

extern "C" int ar_emu_p2p(struct ar_emu_dev *d, const struct ar_p2p_args *a, int blocks, int threads) {
  ar_emu_fn fn = a->dtype == AR_CORE_HALF    ? run_p2p<AR_CORE_HALF>
                 : a->dtype == AR_CORE_BF16  ? run_p2p<AR_CORE_BF16>
                 : a->dtype == AR_CORE_INT32 ? run_p2p<AR_CORE_INT32>
                                             : run_p2p<AR_CORE_FLOAT>;
  return launch(d, blocks, threads, fn, a);
}

extern "C" int ar_emu_fused(struct ar_emu_dev *d, const struct ar_p2p_args *a, int fused, int blocks, int threads) {
  return launch(d, blocks, threads, fused ? run_fused<1> : run_fused<0>, a);
}

struct fill_args {
  void *buf;
  size_t count;
  int dtype, op, rank, nranks;
  unsigned long long *wrong;
};
static void run_fill(const void *p) {
  const fill_args *f = (const fill_args *)p;
  ar_fill_kernel(f->buf, f->count, f->dtype, f->op, f->rank, f->nranks);
}
static void run_check(const void *p) {
  const fill_args *f = (const fill_args *)p;
  ar_check_kernel(f->buf, f->count, f->dtype, f->op, f->nranks, f->wrong);
}

/* A small grid (the CPU has few cores): up to 4 blocks of 64 threads. */
static int small_blocks(size_t count) { return count > 3 * 64 ? 4 : (int)(count / 64) + 1; }

extern "C" int ar_emu_fill(struct ar_emu_dev *d, void *buf, size_t count, int dtype, int op, int rank, int nranks) {
  if (!count) return 0;
  fill_args f = {buf, count, dtype, op, rank, nranks, NULL};
  return launch(d, small_blocks(count), 64, run_fill, &f);
}

extern "C" int ar_emu_check(struct ar_emu_dev *d, const void *buf, size_t count, int dtype, int op, int nranks,
                            unsigned long long *wrong) {
  if (!count) return 0;
  fill_args f = {(void *)buf, count, dtype, op, 0, nranks, wrong};
  return launch(d, small_blocks(count), 64, run_check, &f);
}
