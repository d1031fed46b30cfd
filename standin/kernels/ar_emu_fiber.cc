/* ar_emu_fiber.cc — the CUDA stand-in's grid runner: the GPU threads of a wave of blocks as fibers of the calling
 * thread, round robin, switching at __syncthreads, warp shuffles, flag hooks and __nanosleep (ar_emu_cuda.h). */
#include "ar_emu_cuda.h"
#include "ar_emu_fiber.h"

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
#include <sanitizer/asan_interface.h>
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

enum { T_RUN = 0, T_BLOCK = 1, T_WARP = 2, T_DONE = 3 };

/* A GPU thread of the wave. Threads start in index order, each on a fiber: one that ends without ever waiting
 * hands its fiber to the next thread (a kernel without barriers runs on one stack, no switch at all); one that
 * waits keeps its fiber until it ends. */
struct Thread {
  struct ar_emu_thread self; /* its indices and state, in ar_emu_self while it runs */
  int state;
  int block, warp; /* index of its block in the wave, of its warp in the wave */
  int fiber;       /* the fiber it runs on, -1 before it started */
};

struct Fiber {
  void *sp; /* saved stack pointer while switched out */
#if !defined(__x86_64__)
  ucontext_t uc;
#endif
  char *stack;
  void *fake;  /* ASan's fake stack of this fiber while switched out */
  int thread;  /* the thread on it, -1 when free */
};

struct Wait { /* a barrier of a block or a warp */
  unsigned size, arrived, done;
};

struct Grid {
  struct ar_emu_fibers ops; /* ar_emu_self.fb points here */
  int slot_base;
  char *stacks;             /* cap fiber stacks, STACK bytes apart */
  size_t cap;
  Thread *t;
  Fiber *f;
  int *free_f, nfree;       /* fibers to take (a stack of indices) */
  Wait *bar, *warp;         /* per block of the wave, per warp of the wave */
  uint64_t *warp_buf;       /* 2 x 32 exchange slots per warp */
  unsigned n, started, live, threads, warps_per_block;
  size_t nt, nb, nw;        /* capacity of t (and f, free_f), bar, warp */
  size_t used;              /* fibers [0, used) of the stacks have run */
  int cur;                  /* the thread running */
  void *sched_sp;
#if !defined(__x86_64__)
  ucontext_t sched_uc;
#endif
  ar_emu_fiber_fn fn;
  void *job;
  const volatile int *stop; /* set: the kernel is ended at its threads' next switch (ar_emu_fiber_stop_on) */
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

/* The next thread to run after thread `from`, round robin over the wave (a thread not started yet counts as able
 * to run: then it is the next one to start, g->started): its index, or -1 when none can run. */
int next_thread(Grid *g, int from) {
  for (unsigned k = 1; k <= g->n; k++) {
    unsigned i = ((unsigned)from + k) % g->n;
    if (i >= g->started) return (int)g->started;
    if (g->t[i].state == T_RUN) return (int)i;
  }
  return -1;
}

void fiber_main(void);

#if defined(__x86_64__)
extern "C" void ar_emu_fiber_entry(void) { fiber_main(); }

/* A fiber freed by fiber_main left the frames of fiber_main and leave on its stack, never returned from: their
 * redzones are still poisoned. They lie near the top (the kernel's own frames returned before). */
void unpoison_top(Fiber *f) {
#ifdef AR_FIBER_ASAN
  __asan_unpoison_memory_region(f->stack + STACK - ((size_t)64 << 10), (size_t)64 << 10);
#else
  (void)f;
#endif
}

/* A fresh stack whose first switch-in "returns" into ar_emu_fiber_entry. */
void prime(Fiber *f) {
  unpoison_top(f);
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
  unpoison_top(f);
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = f->stack;
  f->uc.uc_stack.ss_size = STACK;
  f->uc.uc_link = NULL;
  makecontext(&f->uc, fiber_main, 0);
}
#endif

/* Thread `to` is to run: started, it resumes on its fiber; not started, it starts on a free fiber. */
Fiber *fiber_for(Grid *g, int to) {
  Thread *t = &g->t[to];
  if (t->fiber >= 0) return &g->f[t->fiber];
  int fi = g->free_f[--g->nfree]; /* never empty: a wave has as many fibers as threads */
  Fiber *f = &g->f[fi];
  f->thread = to;
  t->fiber = fi;
  g->started++;
  if ((size_t)fi >= g->used) g->used = (size_t)fi + 1;
  prime(f);
  return f;
}

/* Leave fiber `from` (of the running thread, or being freed) for thread `to`, or for the scheduler when to < 0;
 * from resumes here, unless it was freed (then it is primed afresh before it is used again). */
void leave(Grid *g, Fiber *from, int to, int freed) {
  Fiber *dest = to >= 0 ? fiber_for(g, to) : NULL;
  const void *bottom = dest ? dest->stack : g->sched_bottom;
  size_t size = dest ? STACK : g->sched_size;
  if (to >= 0) {
    g->cur = to;
    ar_emu_self = g->t[to].self;
  }
#ifdef AR_FIBER_ASAN
  __sanitizer_start_switch_fiber(freed ? NULL : &from->fake, bottom, size);
#else
  (void)bottom, (void)size, (void)freed;
#endif
#if defined(__x86_64__)
  ar_emu_fiber_switch(&from->sp, dest ? dest->sp : g->sched_sp);
#else
  swapcontext(&from->uc, dest ? &dest->uc : &g->sched_uc);
#endif
#ifdef AR_FIBER_ASAN
  __sanitizer_finish_switch_fiber(from->fake, NULL, NULL);
#endif
}

/* The running thread stops until it can run again (it waits at a barrier), or lets the others run (yield). */
void park(Grid *g) {
  int me = g->cur, to = g->stop && *g->stop ? -1 : next_thread(g, me);
  if (to == me) return; /* a yield with nobody else to run */
  Thread *t = &g->t[me];
  t->self = ar_emu_self;
  leave(g, &g->f[t->fiber], to, 0);
}

/* The threads of block `index` (kind T_BLOCK) or of warp `index` (T_WARP) waiting there may run again. */
void release_waiters(Grid *g, int kind, unsigned index) {
  unsigned b = kind == T_BLOCK ? index : index / g->warps_per_block;
  unsigned lo = b * g->threads + (kind == T_BLOCK ? 0 : index % g->warps_per_block * 32);
  unsigned hi = lo + (kind == T_BLOCK ? g->bar[index].size : g->warp[index].size);
  for (unsigned i = lo; i < hi && i < g->started; i++)
    if (g->t[i].state == kind) g->t[i].state = T_RUN;
}

/* Arrive at barrier w (of kind, index); the last to arrive (exited threads count as arrived, as on the GPU) frees
 * the others and goes on. */
void arrive(Grid *g, Wait *w, int kind, unsigned index) {
  if (++w->arrived + w->done < w->size) {
    g->t[g->cur].state = kind;
    park(g);
    return;
  }
  w->arrived = 0;
  release_waiters(g, kind, index);
}

void op_sync(void) {
  Grid *g = cur_grid;
  Thread *t = &g->t[g->cur];
  arrive(g, &g->bar[t->block], T_BLOCK, (unsigned)t->block);
}

void op_warp_sync(void) {
  Grid *g = cur_grid;
  Thread *t = &g->t[g->cur];
  arrive(g, &g->warp[t->warp], T_WARP, (unsigned)t->warp);
}

void op_yield(void) { park(cur_grid); }

/* A GPU thread ended: it no longer holds back its block's and warp's barriers. */
void finish(Grid *g, Thread *t) {
  t->state = T_DONE;
  g->live--;
  Wait *w = &g->bar[t->block];
  if (++w->done < w->size && w->arrived && w->arrived + w->done == w->size) {
    w->arrived = 0;
    release_waiters(g, T_BLOCK, (unsigned)t->block);
  }
  w = &g->warp[t->warp];
  if (++w->done < w->size && w->arrived && w->arrived + w->done == w->size) {
    w->arrived = 0;
    release_waiters(g, T_WARP, (unsigned)t->warp);
  }
}

/* A fiber runs threads: the one it started with, then, while the next one due has not started, that one too. */
void fiber_main(void) {
  Grid *g = cur_grid;
#ifdef AR_FIBER_ASAN
  const void *from_bottom;
  size_t from_size;
  __sanitizer_finish_switch_fiber(NULL, &from_bottom, &from_size);
  if (!g->sched_bottom) g->sched_bottom = from_bottom, g->sched_size = from_size; /* the wave's first start */
#endif
  int fi = g->t[g->cur].fiber;
  for (;;) {
    g->fn(g->job);
    Thread *t = &g->t[g->cur];
    finish(g, t);
    int to = g->stop && *g->stop ? -1 : next_thread(g, g->cur);
    if (to >= 0 && (unsigned)to == g->started) { /* not started: it takes this fiber over */
      g->started++;
      t->fiber = -1;
      g->t[to].fiber = fi;
      g->f[fi].thread = to;
      g->cur = to;
      ar_emu_self = g->t[to].self;
      continue;
    }
    t->fiber = -1;
    g->f[fi].thread = -1;
    g->free_f[g->nfree++] = fi;
    leave(g, &g->f[fi], to, 1);
    abort(); /* a freed fiber is primed afresh before it runs again */
  }
}

/* The scheduler starts thread 0; threads switch among themselves and come back here when every one ended, or when
 * none can run (a deadlock). */
void run_wave(Grid *g) {
  Fiber *f = fiber_for(g, 0);
  g->cur = 0;
  ar_emu_self = g->t[0].self;
  g->sched_bottom = NULL;
#ifdef AR_FIBER_ASAN
  __sanitizer_start_switch_fiber(&g->sched_fake, f->stack, STACK);
#endif
#if defined(__x86_64__)
  ar_emu_fiber_switch(&g->sched_sp, f->sp);
#else
  swapcontext(&g->sched_uc, &f->uc);
#endif
#ifdef AR_FIBER_ASAN
  __sanitizer_finish_switch_fiber(g->sched_fake, NULL, NULL);
#endif
}

/* Unmap the fiber stacks. Under ASan their shadow is cleared first: a frame left on a freed fiber stays poisoned,
 * and memory mapped there later (a cudaMalloc) would read as a stack redzone. */
void drop_stacks(Grid *g) {
  if (!g->stacks) return;
#ifdef AR_FIBER_ASAN
  for (size_t i = 0; i < g->used; i++) unpoison_top(&g->f[i]); /* only the tops ever hold a stale frame */
#endif
  munmap(g->stacks, g->cap * STACK);
  g->stacks = NULL;
  g->cap = 0;
  g->used = 0;
}

int reserve(Grid *g, size_t n, unsigned blocks, unsigned warps) {
  if (n > g->cap) {
    drop_stacks(g);
    g->stacks = (char *)mmap(NULL, n * STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (g->stacks == MAP_FAILED) {
      g->stacks = NULL;
      g->cap = 0;
      return -1;
    }
    for (size_t i = 0; i < n; i++) mprotect(g->stacks + i * STACK, GUARD, PROT_NONE); /* an overflow faults */
    g->cap = n;
  }
  if (n > g->nt) {
    free(g->t), free(g->f), free(g->free_f);
    g->t = (Thread *)calloc(n, sizeof *g->t);
    g->f = (Fiber *)calloc(n, sizeof *g->f);
    g->free_f = (int *)calloc(n, sizeof *g->free_f);
    g->nt = g->t && g->f && g->free_f ? n : 0;
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
  return g->nt >= n && g->nb >= blocks && g->nw >= warps ? 0 : -1;
}

/* One wave: blocks first .. first + nb - 1 of a grid of `blocks` x `threads`. */
int wave(Grid *g, unsigned first, unsigned nb, unsigned blocks, unsigned threads, char *why, size_t len) {
  unsigned wpb = (threads + 31) / 32, n = nb * threads;
  if (reserve(g, n, nb, nb * wpb)) {
    snprintf(why, len, "out of memory for %u fiber stacks", n);
    return -1;
  }
  g->n = g->live = n;
  g->started = 0;
  g->threads = threads;
  g->warps_per_block = wpb;
  for (unsigned b = 0; b < nb; b++) {
    g->bar[b] = Wait{threads, 0, 0};
    for (unsigned w = 0; w < wpb; w++) g->warp[b * wpb + w] = Wait{threads - w * 32 < 32 ? threads - w * 32 : 32, 0, 0};
  }
  g->nfree = 0;
  for (unsigned i = n; i-- > 0;) { /* fiber 0 on top: the first taken */
    g->f[i] = Fiber();
    g->f[i].stack = g->stacks + (size_t)i * STACK;
    g->f[i].thread = -1;
    g->free_f[g->nfree++] = (int)i;
  }
  for (unsigned i = 0; i < n; i++) {
    Thread *t = &g->t[i];
    unsigned b = i / threads, x = i % threads;
    *t = Thread();
    t->block = (int)b;
    t->warp = (int)(b * wpb + x / 32);
    t->state = T_RUN;
    t->fiber = -1;
    struct ar_emu_thread *e = &t->self;
    e->thread_idx = uint3{x, 0, 0};
    e->block_idx = uint3{first + b, 0, 0};
    e->block_dim = dim3{threads, 1, 1};
    e->grid_dim = dim3{blocks, 1, 1};
    e->warp_buf = &g->warp_buf[(size_t)t->warp * 64];
    e->slot = g->slot_base + (int)b;
    e->fb = &g->ops;
  }
  run_wave(g);
  if (g->stop && *g->stop) {
    snprintf(why, len, "stopped in block %u of a %u x %u grid", first + g->t[g->cur].block, blocks, threads);
    return -3;
  }
  if (!g->live) return 0;
  unsigned at = 0;
  while (at < n && g->t[at].state == T_DONE) at++;
  snprintf(why, len, "block %u of a %u x %u grid: %u of its threads wait at a %s that the others never reach "
           "(thread %u waits there)", first + g->t[at].block, blocks, threads, g->bar[g->t[at].block].arrived,
           g->t[at].state == T_BLOCK ? "__syncthreads" : "warp shuffle", at % threads);
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
  drop_stacks(g);
  free(g->t), free(g->f), free(g->free_f), free(g->bar), free(g->warp), free(g->warp_buf);
  free(g);
}

extern "C" void ar_emu_fiber_stop_on(struct ar_emu_fiber_grid *gp, const volatile int *stop) { ((Grid *)gp)->stop = stop; }

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
