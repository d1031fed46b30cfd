/* ar_core_wait.h — bounded waits for a peer's generation flag: spin, then back off (yield, sleep on
 * the host; __nanosleep on the GPU), give up at the timeout or when a peer raised its abort flag. */
#ifndef AR_CORE_WAIT_H
#define AR_CORE_WAIT_H

#include "ar_core_types.h"
#if !defined(__CUDA_ARCH__)
#include <sched.h>
#include <time.h>
#endif

/* How a rank waits. aborts[0..naborts) are the peers' abort flags, read while backing off. */
struct ar_wait {
  uint64_t timeout_ns;
  int oversubscribed; /* more ranks than cores: yield at once instead of spinning */
  const uint32_t *const *aborts;
  int naborts;
};

enum ar_wait_status { AR_WAIT_OK = 0, AR_WAIT_TIMEOUT = 1, AR_WAIT_ABORT = 2 };

#define AR_CORE_SPIN_NS 20000ull     /* pure spinning for this long (when not oversubscribed) */
#define AR_CORE_YIELD_NS 2000000ull  /* then yielding the core for this long, then short sleeps */
#define AR_CORE_SLEEP_NS 20000L

AR_CORE_FN uint64_t ar_core_now_ns(void) {
#if defined(__CUDA_ARCH__)
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

AR_CORE_FN void ar_core_pause(void) {
#if defined(__CUDA_ARCH__)
#elif defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Give the core away for a while, longer the longer we have waited. */
AR_CORE_FN void ar_core_backoff(uint64_t waited_ns) {
#if defined(__CUDA_ARCH__)
  __nanosleep(waited_ns < AR_CORE_YIELD_NS ? 100u : 2000u);
#else
  if (waited_ns < AR_CORE_YIELD_NS) {
    sched_yield();
    return;
  }
  struct timespec nap;
  nap.tv_sec = 0;
  nap.tv_nsec = AR_CORE_SLEEP_NS;
  nanosleep(&nap, NULL);
#endif
}

/* Wait until *flag reaches gen. Returns AR_WAIT_OK, AR_WAIT_TIMEOUT, or AR_WAIT_ABORT with *aborter
 * set to the index in w->aborts of the peer that gave up. */
AR_CORE_FN int ar_wait_flag(const uint32_t *flag, uint32_t gen, const struct ar_wait *w, int *aborter) {
  if (ar_gen_reached(ar_flag_load(flag), gen)) return AR_WAIT_OK;
  uint64_t t0 = ar_core_now_ns();
  for (;;) {
    for (int k = 0; k < 64 && !w->oversubscribed; k++) {
      ar_core_pause();
      if (ar_gen_reached(ar_flag_load(flag), gen)) return AR_WAIT_OK;
    }
    uint64_t waited = ar_core_now_ns() - t0;
    if (waited > w->timeout_ns) return AR_WAIT_TIMEOUT;
    for (int i = 0; i < w->naborts; i++)
      if (w->aborts[i] && ar_flag_load(w->aborts[i])) {
        *aborter = i;
        return AR_WAIT_ABORT;
      }
    if (w->oversubscribed || waited > AR_CORE_SPIN_NS) ar_core_backoff(waited);
    if (ar_gen_reached(ar_flag_load(flag), gen)) return AR_WAIT_OK;
  }
}

#endif
