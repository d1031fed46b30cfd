/* ar_emu_fiber.cc — the CUDA stand-in's grid runner: the GPU threads of a wave of blocks as fibers of the calling
 * thread, round robin, switching at __syncthreads, warp shuffles, flag hooks and __nanosleep (ar_emu_cuda.h). */
#include "ar_emu_cuda.h"
#include "emu/ar_emu_fiber.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define AR_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AR_FIBER_ASAN 1
#endif
#endif
#ifdef AR_FIBER_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

/* Every GPU thread of the process (pthread runner or fibers) has these indices; the stand-in links this file only. */
thread_local struct ar_emu_thread ar_emu_self;

/* ---- switching stacks: x86-64 by hand (no signal mask syscall, no sanitizer warning), else ucontext ---- */
#if defined(__x86_64__)
extern "C" void ar_emu_fiber_switch(void **save_sp, void *to_sp);
/* Saves the callee-saved registers, MXCSR and the x87 control word on the current stack, stores the stack
 * pointer in *save_sp, loads to_sp and restores the same from there. */
__asm__(".text\n"
        ".globl ar_emu_fiber_switch\n"
        ".hidden ar_emu_fiber_switch\n"
        ".type ar_emu_fiber_switch,@function\n"
        "ar_emu_fiber_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size ar_emu_fiber_switch, .-ar_emu_fiber_switch\n");
#else
#include <ucontext.h>
#endif

namespace {

enum { F_RUN = 0, F_BLOCK = 1, F_WARP = 2, F_DONE = 3 };

struct Fiber {
  void *sp; /* saved stack pointer while switched out */
#if !defined(__x86_64__)
  ucontext_t uc;
#endif
  char *stack;
  void *fake;                /* ASan's fake stack of this fiber while switched out */
  struct ar_emu_thread self; /* the GPU thread's indices and state, in ar_emu_self while it runs */
  int state;
  int block, warp; /* index of its block in the wave, of its warp in the wave */
};

struct Wait { /* a barrier of a block or a warp */
  unsigned size, arrived, done;
};

struct Grid {
  struct ar_emu_fibers ops; /* ar_emu_self.fb points here */
  int slot_base;
  char *stacks;             /* cap fiber stacks, STACK bytes apart */
  size_t cap;
  Fiber *f;
  Wait *bar, *warp;         /* per block of the wave, per warp of the wave */
  uint64_t *warp_buf;       /* 2 x 32 exchange slots per warp */
  unsigned n, live, threads, warps_per_block;
  size_t nf, nb, nw;        /* capacity of f, bar, warp */
  int cur;                  /* the fiber running, -1 = the scheduler */
  void *sched_sp;
#if !defined(__x86_64__)
  ucontext_t sched_uc;
#endif
  ar_emu_fiber_fn fn;
  void *job;
  const void *sched_bottom; /* the scheduler's stack, for ASan (learnt when the first fiber starts) */
  size_t sched_size;
  void *sched_fake;
};

#ifdef AR_FIBER_ASAN
const size_t STACK = (size_t)512 << 10; /* instrumented frames are larger */
#else
const size_t STACK = (size_t)128 << 10;
#endif
const size_t GUARD = 4096;

thread_local Grid *cur_grid; /* the grid this host thread is running */

/* The next fiber that can run after fiber `from` (round robin), -1 when none. */
int next_runnable(Grid *g, int from) {
  for (unsigned k = 1; k <= g->n; k++) {
    unsigned i = ((unsigned)from + k) % g->n;
    if (g->f[i].state == F_RUN) return (int)i;
  }
  return -1;
}

/* Leave fiber f (running) for fiber `to`, or for the scheduler when to < 0; f resumes here, unless it is ending
 * (then it is never switched to again). */
void leave(Grid *g, Fiber *f, int to, int ending) {
  f->self = ar_emu_self;
  const void *bottom = g->sched_bottom;
  size_t size = g->sched_size;
  g->cur = to;
  if (to >= 0) {
    ar_emu_self = g->f[to].self;
    bottom = g->f[to].stack, size = STACK;
  }
#ifdef AR_FIBER_ASAN
  __sanitizer_start_switch_fiber(ending ? NULL : &f->fake, bottom, size);
#else
  (void)bottom, (void)size, (void)ending;
#endif
#if defined(__x86_64__)
  ar_emu_fiber_switch(&f->sp, to >= 0 ? g->f[to].sp : g->sched_sp);
#else
  swapcontext(&f->uc, to >= 0 ? &g->f[to].uc : &g->sched_uc);
#endif
#ifdef AR_FIBER_ASAN
  __sanitizer_finish_switch_fiber(f->fake, NULL, NULL);
#endif
}

/* The running fiber stops until it can run again (it waits at a barrier), or lets the others run (yield). */
void park(Grid *g) {
  int me = g->cur, to = next_runnable(g, me);
  if (to == me) return; /* a yield with nobody else to run */
  leave(g, &g->f[me], to, 0);
}

/* The fibers of block `index` (kind F_BLOCK) or of warp `index` (F_WARP) waiting there may run again. */
void release_waiters(Grid *g, int kind, unsigned index) {
  unsigned b = kind == F_BLOCK ? index : index / g->warps_per_block;
  unsigned lo = b * g->threads + (kind == F_BLOCK ? 0 : index % g->warps_per_block * 32);
  unsigned hi = lo + (kind == F_BLOCK ? g->bar[index].size : g->warp[index].size);
  for (unsigned i = lo; i < hi; i++)
    if (g->f[i].state == kind) g->f[i].state = F_RUN;
}

/* Arrive at barrier w (of kind, index); the last to arrive (exited threads count as arrived, as on the GPU) frees
 * the others and goes on. */
void arrive(Grid *g, Wait *w, int kind, unsigned index) {
  if (++w->arrived + w->done < w->size) {
    g->f[g->cur].state = kind;
    park(g);
    return;
  }
  w->arrived = 0;
  release_waiters(g, kind, index);
}

void op_sync(void) {
  Grid *g = cur_grid;
  Fiber *f = &g->f[g->cur];
  arrive(g, &g->bar[f->block], F_BLOCK, (unsigned)f->block);
}

void op_warp_sync(void) {
  Grid *g = cur_grid;
  Fiber *f = &g->f[g->cur];
  arrive(g, &g->warp[f->warp], F_WARP, (unsigned)f->warp);
}

void op_yield(void) { park(cur_grid); }

/* A GPU thread ended: it no longer holds back its block's and warp's barriers. */
void finish(Grid *g, Fiber *f) {
  f->state = F_DONE;
  g->live--;
  Wait *w = &g->bar[f->block];
  if (++w->done < w->size && w->arrived && w->arrived + w->done == w->size) {
    w->arrived = 0;
    release_waiters(g, F_BLOCK, (unsigned)f->block);
  }
  w = &g->warp[f->warp];
  if (++w->done < w->size && w->arrived && w->arrived + w->done == w->size) {
    w->arrived = 0;
    release_waiters(g, F_WARP, (unsigned)f->warp);
  }
}

void fiber_body(void) {
  Grid *g = cur_grid;
#ifdef AR_FIBER_ASAN
  const void *from_bottom;
  size_t from_size;
  __sanitizer_finish_switch_fiber(NULL, &from_bottom, &from_size);
  if (!g->sched_bottom) g->sched_bottom = from_bottom, g->sched_size = from_size; /* the wave's first start */
#endif
  g->fn(g->job);
  Fiber *f = &g->f[g->cur];
  finish(g, f);
  leave(g, f, next_runnable(g, g->cur), 1);
  abort(); /* an ended fiber is never resumed */
}

#if defined(__x86_64__)
extern "C" void ar_emu_fiber_entry(void) { fiber_body(); }

/* A fresh stack whose first switch-in "returns" into ar_emu_fiber_entry. */
void prime(Fiber *f) {
  uintptr_t top = ((uintptr_t)f->stack + STACK) & ~(uintptr_t)15;
  uint64_t *p = (uint64_t *)(top - 16);
  p[0] = (uint64_t)(uintptr_t)ar_emu_fiber_entry; /* ret target; rsp after ret = top - 8 (as after a call) */
  for (int i = 1; i <= 6; i++) p[-i] = 0;         /* rbp rbx r12 r13 r14 r15 */
  uint32_t *csr = (uint32_t *)(p - 7);
  csr[0] = 0x1f80u;                              /* MXCSR: round to nearest, exceptions masked */
  csr[1] = 0x037fu;                              /* x87 control word */
  f->sp = p - 7;
}
#else
void prime(Fiber *f) {
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = f->stack;
  f->uc.uc_stack.ss_size = STACK;
  f->uc.uc_link = NULL;
  makecontext(&f->uc, fiber_body, 0);
}
#endif

/* The scheduler starts fiber 0; fibers switch among themselves and come back here when every one ended, or when
 * none can run (a deadlock). */
void run_wave(Grid *g) {
  g->cur = 0;
  ar_emu_self = g->f[0].self;
  g->sched_bottom = NULL;
#ifdef AR_FIBER_ASAN
  __sanitizer_start_switch_fiber(&g->sched_fake, g->f[0].stack, STACK);
#endif
#if defined(__x86_64__)
  ar_emu_fiber_switch(&g->sched_sp, g->f[0].sp);
#else
  swapcontext(&g->sched_uc, &g->f[0].uc);
#endif
#ifdef AR_FIBER_ASAN
  __sanitizer_finish_switch_fiber(g->sched_fake, NULL, NULL);
#endif
}

int reserve(Grid *g, size_t n, unsigned blocks, unsigned warps) {
  if (n > g->cap) {
    if (g->stacks) munmap(g->stacks, g->cap * STACK);
    g->stacks = (char *)mmap(NULL, n * STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (g->stacks == MAP_FAILED) {
      g->stacks = NULL;
      g->cap = 0;
      return -1;
    }
    for (size_t i = 0; i < n; i++) mprotect(g->stacks + i * STACK, GUARD, PROT_NONE); /* an overflow faults */
    g->cap = n;
  }
  if (n > g->nf) {
    free(g->f);
    g->f = (Fiber *)calloc(n, sizeof *g->f);
    g->nf = g->f ? n : 0;
  }
  if (blocks > g->nb) {
    free(g->bar);
    g->bar = (Wait *)calloc(blocks, sizeof *g->bar);
    g->nb = g->bar ? blocks : 0;
  }
  if (warps > g->nw) {
    free(g->warp), free(g->warp_buf);
    g->warp = (Wait *)calloc(warps, sizeof *g->warp);
    g->warp_buf = (uint64_t *)calloc((size_t)warps * 64, sizeof *g->warp_buf);
    g->nw = g->warp && g->warp_buf ? warps : 0;
  }
  return g->nf >= n && g->nb >= blocks && g->nw >= warps ? 0 : -1;
}

/* One wave: blocks first .. first + nb - 1 of a grid of `blocks` x `threads`. */
int wave(Grid *g, unsigned first, unsigned nb, unsigned blocks, unsigned threads, char *why, size_t len) {
  unsigned wpb = (threads + 31) / 32, n = nb * threads;
  if (reserve(g, n, nb, nb * wpb)) {
    snprintf(why, len, "out of memory for %u fiber stacks", n);
    return -1;
  }
  g->n = g->live = n;
  g->threads = threads;
  g->warps_per_block = wpb;
  for (unsigned b = 0; b < nb; b++) {
    g->bar[b] = Wait{threads, 0, 0};
    for (unsigned w = 0; w < wpb; w++) g->warp[b * wpb + w] = Wait{threads - w * 32 < 32 ? threads - w * 32 : 32, 0, 0};
  }
  for (unsigned i = 0; i < n; i++) {
    Fiber *f = &g->f[i];
    unsigned b = i / threads, x = i % threads;
    *f = Fiber();
    f->stack = g->stacks + (size_t)i * STACK;
    f->block = (int)b;
    f->warp = (int)(b * wpb + x / 32);
    f->state = F_RUN;
    struct ar_emu_thread *t = &f->self;
    t->thread_idx = uint3{x, 0, 0};
    t->block_idx = uint3{first + b, 0, 0};
    t->block_dim = dim3{threads, 1, 1};
    t->grid_dim = dim3{blocks, 1, 1};
    t->warp_buf = &g->warp_buf[(size_t)f->warp * 64];
    t->slot = g->slot_base + (int)b;
    t->fb = &g->ops;
    prime(f);
  }
  run_wave(g);
  if (!g->live) return 0;
  unsigned at = 0;
  while (at < n && g->f[at].state == F_DONE) at++;
  snprintf(why, len, "block %u of a %u x %u grid: %u of its threads wait at a %s that the others never reach "
           "(thread %u waits there)", first + g->f[at].block, blocks, threads, g->bar[g->f[at].block].arrived,
           g->f[at].state == F_BLOCK ? "__syncthreads" : "warp shuffle", at % threads);
  return -2;
}

} // namespace

extern "C" struct ar_emu_fiber_grid *ar_emu_fiber_open(int slot_base) {
  if (slot_base < 0 || slot_base + AR_EMU_MAX_BLOCKS > AR_EMU_SLOTS) return NULL;
  Grid *g = (Grid *)calloc(1, sizeof *g);
  if (!g) return NULL;
  g->ops.sync = op_sync;
  g->ops.warp_sync = op_warp_sync;
  g->ops.yield = op_yield;
  g->slot_base = slot_base;
  g->cur = -1;
  return (struct ar_emu_fiber_grid *)g;
}

extern "C" void ar_emu_fiber_close(struct ar_emu_fiber_grid *gp) {
  Grid *g = (Grid *)gp;
  if (!g) return;
  if (g->stacks) munmap(g->stacks, g->cap * STACK);
  free(g->f), free(g->bar), free(g->warp), free(g->warp_buf);
  free(g);
}

extern "C" int ar_emu_fiber_run(struct ar_emu_fiber_grid *gp, unsigned blocks, unsigned threads, unsigned resident,
                                ar_emu_fiber_fn fn, void *job, char *why, size_t len) {
  Grid *g = (Grid *)gp;
  if (resident < 1) resident = 1;
  if (resident > AR_EMU_MAX_BLOCKS) resident = AR_EMU_MAX_BLOCKS;
  Grid *outer = cur_grid;
  struct ar_emu_thread saved = ar_emu_self;
  cur_grid = g;
  g->fn = fn;
  g->job = job;
  int rc = 0;
  for (unsigned first = 0; !rc && first < blocks; first += resident)
    rc = wave(g, first, blocks - first < resident ? blocks - first : resident, blocks, threads, why, len);
  cur_grid = outer;
  ar_emu_self = saved;
  return rc;
}
