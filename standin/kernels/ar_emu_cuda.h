/* ar_emu_cuda.h — the CUDA the custom kernels use, for the host C++ compiler: every GPU thread is a pthread of
 * an emulated block (standin/kernels/ar_emu.cc runs the grids), so kernels/ar_p2p_kernel.cuh runs unchanged on CPUs. */
#ifndef AR_EMU_CUDA_H
#define AR_EMU_CUDA_H

#if defined(__CUDACC__) || defined(__CUDA_ARCH__)
#error "standin/kernels/ar_emu_cuda.h is for the host compiler only (nvcc and NVRTC have the real CUDA)"
#endif

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* ---- qualifiers: plain host functions ---- */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __maxnreg__(n)
#define __grid_constant__
#define __restrict__ __restrict

/* ---- built-in vector types ---- */
struct uint3 {
  unsigned x, y, z;
};
struct dim3 { /* an aggregate: thread_local state holding it needs no dynamic initialisation */
  unsigned x, y, z;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};

/* ---- the emulated thread: its indices, its block's barrier, its warp's exchange ---- */
#define AR_EMU_MAX_DEVS 16    /* emulated GPUs of one process (the TSan driver: one per rank) */
#define AR_EMU_MAX_BLOCKS 64  /* blocks of one grid (AR_P2P_MAX_BLOCKS) */
#define AR_EMU_SLOTS (AR_EMU_MAX_DEVS * AR_EMU_MAX_BLOCKS)

/* The CUDA stand-in's runner (ar_emu_fiber.cc) runs the GPU threads of a wave as fibers of one host thread; these
 * switch between them. NULL in ar_emu.cc's runner, where every GPU thread is a pthread. */
struct ar_emu_fibers {
  void (*sync)(void);      /* __syncthreads of my block */
  void (*warp_sync)(void); /* the barrier of my warp (the shuffles) */
  void (*yield)(void);     /* let the other GPU threads run (flag hooks, sleeps) */
};

struct ar_emu_thread {
  uint3 thread_idx, block_idx;
  dim3 block_dim, grid_dim;
  pthread_barrier_t *block_bar; /* __syncthreads */
  pthread_barrier_t *warp_bar;  /* the shuffles of my warp */
  uint64_t *warp_buf;           /* my warp's exchange slots, one per lane */
  int slot;                     /* device * AR_EMU_MAX_BLOCKS + block: index of my block's __shared__ storage */
  uint64_t rng;                 /* seeded delays (0 = none) */
  unsigned delay_mask;          /* a delay on about 1 in delay_mask + 1 hooks */
  const struct ar_emu_fibers *fb; /* the stand-in's fibers, or NULL (pthreads) */
  unsigned shuffles;            /* fibers: shuffles done (their exchange slots alternate between two sets) */
};
extern thread_local struct ar_emu_thread ar_emu_self;

#define threadIdx (ar_emu_self.thread_idx)
#define blockIdx (ar_emu_self.block_idx)
#define blockDim (ar_emu_self.block_dim)
#define gridDim (ar_emu_self.grid_dim)

/* A seeded random pause (a yield, sometimes a short sleep) at a flag store or load, barrier or fence. */
static inline void ar_emu_delay(void) {
  struct ar_emu_thread *t = &ar_emu_self;
  if (t->fb) t->fb->yield();
  if (!t->rng) return;
  t->rng ^= t->rng << 13, t->rng ^= t->rng >> 7, t->rng ^= t->rng << 17;
  if ((t->rng >> 20 & t->delay_mask) != 0) return;
  if (t->rng >> 40 & 7) {
    sched_yield();
    return;
  }
  struct timespec ts = {0, (long)(t->rng >> 50 & 0x3fff) * 4}; /* up to 64 us */
  nanosleep(&ts, NULL);
}
#define AR_CORE_FLAG_HOOK() ar_emu_delay()

/* Per-block __shared__ storage: one static array per declaration, a row per (device, block) slot. */
#define AR_SHARED(type, name)                          \
  static type ar_emu_shared_##name[AR_EMU_SLOTS];      \
  type &name = ar_emu_shared_##name[ar_emu_self.slot]
#define AR_SHARED_ARRAY(type, name, n)                 \
  static type ar_emu_shared_##name[AR_EMU_SLOTS][n];   \
  type(&name)[n] = ar_emu_shared_##name[ar_emu_self.slot]

/* ---- synchronisation ---- */
static inline void __syncthreads(void) {
  if (ar_emu_self.fb) {
    ar_emu_self.fb->sync();
    return;
  }
  ar_emu_delay();
  pthread_barrier_wait(ar_emu_self.block_bar);
  ar_emu_delay();
}

/* The barrier of my warp (the shuffles' exchange). */
static inline void ar_emu_warp_wait(struct ar_emu_thread *t) {
  if (t->fb) t->fb->warp_sync();
  else pthread_barrier_wait(t->warp_bar);
}

/* A system fence. ThreadSanitizer does not model fences (the kernels' ordering comes from the flag hooks'
 * release/acquire, which it does); x86 gets a real mfence, other hosts a compiler barrier plus the hooks. */
static inline void __threadfence_system(void) {
  ar_emu_delay();
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("mfence" ::: "memory");
#else
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}
static inline void __threadfence(void) { __threadfence_system(); }

static inline void __nanosleep(unsigned ns) {
  if (ar_emu_self.fb) ar_emu_self.fb->yield();
  struct timespec ts = {0, (long)ns};
  nanosleep(&ts, NULL);
}

/* Warp shuffles: every lane of the warp takes part (mask all ones, as the kernels use them). */
template <class T> static inline T ar_emu_shfl(T v, unsigned src_lane, int own) {
  struct ar_emu_thread *t = &ar_emu_self;
  unsigned lane = t->thread_idx.x & 31u;
  uint64_t bits = 0, *buf = t->warp_buf;
  memcpy(&bits, &v, sizeof v);
  if (t->fb) buf += 32 * (t->shuffles++ & 1u); /* fibers: two sets in turn, so one barrier per shuffle will do */
  buf[lane] = bits;
  ar_emu_warp_wait(t);
  unsigned wsize = t->block_dim.x - (t->thread_idx.x & ~31u);
  if (wsize > 32) wsize = 32;
  T r = v;
  if (!own && src_lane < wsize) memcpy(&r, &buf[src_lane], sizeof r);
  if (!t->fb) ar_emu_warp_wait(t); /* every lane has read before the slots are reused */
  return r;
}
template <class T> static inline T __shfl_xor_sync(unsigned mask, T v, int o) {
  (void)mask;
  return ar_emu_shfl(v, (threadIdx.x & 31u) ^ (unsigned)o, 0);
}
template <class T> static inline T __shfl_down_sync(unsigned mask, T v, unsigned o) {
  (void)mask;
  unsigned src = (threadIdx.x & 31u) + o;
  return ar_emu_shfl(v, src, src >= 32u);
}

/* ---- atomics: relaxed, like CUDA's (they order nothing by themselves) ---- */
template <class T> static inline T atomicCAS(T *p, T expect, T desired) {
  __atomic_compare_exchange_n(p, &expect, desired, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expect;
}
template <class T> static inline T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
template <class T> static inline T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }

/* ---- loads through L2 only: a plain load on the host (the flags' acquire orders it) ---- */
template <class T> static inline T __ldcg(const T *p) { return *p; }

/* ---- fp32 with one rounding per operation (the build has -ffp-contract=off) ---- */
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline float __uint_as_float(unsigned u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline unsigned __float_as_uint(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  return u;
}

/* ---- half and bfloat16: storage types with round-to-nearest-even conversions ---- */
struct __half {
  unsigned short x;
};
struct __nv_bfloat16 {
  unsigned short x;
};
static inline __half __ushort_as_half(unsigned short u) { return __half{u}; }
static inline unsigned short __half_as_ushort(__half h) { return h.x; }
static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __nv_bfloat16{u}; }
static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.x; }

/* fp16 -> fp32, exact (normal, subnormal, inf, NaN). */
static inline float __half2float(__half h) {
  unsigned s = (unsigned)(h.x & 0x8000u) << 16, e = h.x >> 10 & 0x1fu, m = h.x & 0x3ffu;
  if (e == 0x1fu) return __uint_as_float(s | 0x7f800000u | m << 13);
  if (e == 0) return __uint_as_float(s) + (s ? -1.0f : 1.0f) * ldexpf((float)m, -24);
  return __uint_as_float(s | (e + 112u) << 23 | m << 13);
}
/* fp32 -> fp16, round to nearest even, overflow to inf, NaN quiet: by integer rounding of the magnitude. */
static inline __half __float2half_rn(float f) {
  unsigned u = __float_as_uint(f), a = u & 0x7fffffffu;
  unsigned short s = (unsigned short)(u >> 16 & 0x8000u);
  if (a > 0x7f800000u) return __half{(unsigned short)(s | 0x7e00u)};
  int e = (int)(a >> 23) - 127;
  if (e >= 16) return __half{(unsigned short)(s | 0x7c00u)};
  unsigned m = (a & 0x7fffffu) | (a >= 0x800000u ? 0x800000u : 0); /* 24-bit significand */
  int shift = e >= -14 ? 13 : 13 + (-14 - e);                        /* bits dropped: normal or subnormal */
  if (a < 0x800000u) shift = 32;                                     /* fp32 subnormal: far below fp16's */
  if (shift > 24) return __half{s};                                  /* below half the smallest subnormal */
  unsigned q = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
  q += rem > half || (rem == half && (q & 1u));
  /* normal: q holds the implicit bit; fold the exponent in (a carry past 10 bits bumps the exponent) */
  unsigned bits = e >= -14 ? ((unsigned)(e + 14) << 10) + q : q;
  if (bits >= 0x7c00u) bits = 0x7c00u;
  return __half{(unsigned short)(s | bits)};
}
static inline float __bfloat162float(__nv_bfloat16 b) { return __uint_as_float((unsigned)b.x << 16); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return __nv_bfloat16{(unsigned short)(u >> 16 | 0x40u)};
  unsigned lsb = u >> 16 & 1u;
  return __nv_bfloat16{(unsigned short)((u + 0x7fffu + lsb) >> 16)};
}

#endif
