/* ar_p2p_kernel.cuh — the custom allreduce kernels of the p2p-* backends: one-shot pull, two-shot, staged
 * two-shot and islands over peer memory (CUDA IPC), one-shot push, and the fused allreduce + RMSNorm, each block running kernels/ar_core.h's protocol on its
 * own part of the call with its own flag and slot set. Generations live in the flags (graph replays need
 * no host), waits are bounded by %globaltimer, fp16/bf16 accumulate in fp32, the reduction order is fixed.
 * Device code only, so nvcc (ar_p2p.cu) and NVRTC (tests/gpu/nvrtc_compile.c) both take it. */
#ifndef AR_P2P_KERNEL_CUH
#define AR_P2P_KERNEL_CUH

#include "ar_core.h"
#include "ar_p2p.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

/* Per-block shared storage: __shared__ here; the CPU execution (standin/kernels/ar_emu_cuda.h) defines these
 * first, as per-block storage of its emulated blocks. */
#ifndef AR_SHARED
#define AR_SHARED(type, name) __shared__ type name
#define AR_SHARED_ARRAY(type, name, n) __shared__ type name[n]
#endif

namespace ar_p2p {

/* ---- element types: 16-byte vectors of L lanes, accumulated in A (fp32, or int32 for int32) ---- */

template <int DT> struct Tr;
template <> struct Tr<AR_CORE_FLOAT> {
  typedef float A;
  enum { L = 4, ES = 4 };
  static __device__ __forceinline__ A get(const uint4 &v, int i) { return __uint_as_float((&v.x)[i]); }
  static __device__ __forceinline__ void put(uint4 &v, int i, A a) { (&v.x)[i] = __float_as_uint(a); }
  static __device__ __forceinline__ A ld1(const char *p) { return __uint_as_float(__ldcg((const unsigned *)p)); }
  static __device__ __forceinline__ void st1(char *p, A a) { *(float *)p = a; }
};
template <> struct Tr<AR_CORE_INT32> {
  typedef int A;
  enum { L = 4, ES = 4 };
  static __device__ __forceinline__ A get(const uint4 &v, int i) { return (int)(&v.x)[i]; }
  static __device__ __forceinline__ void put(uint4 &v, int i, A a) { (&v.x)[i] = (unsigned)a; }
  static __device__ __forceinline__ A ld1(const char *p) { return (int)__ldcg((const unsigned *)p); }
  static __device__ __forceinline__ void st1(char *p, A a) { *(int *)p = a; }
};
template <> struct Tr<AR_CORE_HALF> {
  typedef float A;
  enum { L = 8, ES = 2 };
  static __device__ __forceinline__ A get(const uint4 &v, int i) {
    return __half2float(__ushort_as_half(((const unsigned short *)&v)[i]));
  }
  static __device__ __forceinline__ void put(uint4 &v, int i, A a) {
    ((unsigned short *)&v)[i] = __half_as_ushort(__float2half_rn(a));
  }
  static __device__ __forceinline__ A ld1(const char *p) {
    return __half2float(__ushort_as_half(__ldcg((const unsigned short *)p)));
  }
  static __device__ __forceinline__ void st1(char *p, A a) { *(unsigned short *)p = __half_as_ushort(__float2half_rn(a)); }
};
template <> struct Tr<AR_CORE_BF16> {
  typedef float A;
  enum { L = 8, ES = 2 };
  static __device__ __forceinline__ A get(const uint4 &v, int i) {
    return __bfloat162float(__ushort_as_bfloat16(((const unsigned short *)&v)[i]));
  }
  static __device__ __forceinline__ void put(uint4 &v, int i, A a) {
    ((unsigned short *)&v)[i] = __bfloat16_as_ushort(__float2bfloat16_rn(a));
  }
  static __device__ __forceinline__ A ld1(const char *p) {
    return __bfloat162float(__ushort_as_bfloat16(__ldcg((const unsigned short *)p)));
  }
  static __device__ __forceinline__ void st1(char *p, A a) {
    *(unsigned short *)p = __bfloat16_as_ushort(__float2bfloat16_rn(a));
  }
};

/* a OP b, rounded once per step (no contraction): the host's ar_reduce gives the same bits. Integer
 * sums and products wrap like two's complement hardware. */
static __device__ __forceinline__ float opf(int op, float a, float b) {
  switch (op) {
  case AR_CORE_PROD: return __fmul_rn(a, b);
  case AR_CORE_MAX: return b > a ? b : a;
  case AR_CORE_MIN: return b < a ? b : a;
  default: return __fadd_rn(a, b);
  }
}
static __device__ __forceinline__ int opf(int op, int a, int b) {
  switch (op) {
  case AR_CORE_PROD: return (int)((unsigned)a * (unsigned)b);
  case AR_CORE_MAX: return b > a ? b : a;
  case AR_CORE_MIN: return b < a ? b : a;
  default: return (int)((unsigned)a + (unsigned)b);
  }
}
static __device__ __forceinline__ float divf(float a, int d) { return d > 1 ? __fdiv_rn(a, (float)d) : a; }
static __device__ __forceinline__ int divf(int a, int d) { return d > 1 ? a / d : a; }

/* dst[i] (and dst2[i] unless NULL) = src[0][i] OP ... OP src[ns-1][i] for i < n, in that order, divided
 * by div (avg) once; every thread of the block takes part. Sources may be peers' memory (L2 loads, no L1:
 * a peer rewrites its slots between generations). */
template <int DT>
__device__ void reduce(const char *const *src, int ns, char *dst, char *dst2, size_t n, int op, int div, int vec) {
  typedef Tr<DT> T;
  typedef typename T::A A;
  size_t nv = vec ? n / T::L : 0, done = nv * T::L;
  for (size_t v = threadIdx.x; v < nv; v += blockDim.x) {
    uint4 x = __ldcg((const uint4 *)src[0] + v), o;
    A acc[T::L];
#pragma unroll
    for (int l = 0; l < T::L; l++) acc[l] = T::get(x, l);
    for (int s = 1; s < ns; s++) {
      x = __ldcg((const uint4 *)src[s] + v);
#pragma unroll
      for (int l = 0; l < T::L; l++) acc[l] = opf(op, acc[l], T::get(x, l));
    }
#pragma unroll
    for (int l = 0; l < T::L; l++) T::put(o, l, divf(acc[l], div));
    ((uint4 *)dst)[v] = o;
    if (dst2) ((uint4 *)dst2)[v] = o;
  }
  for (size_t i = done + threadIdx.x; i < n; i += blockDim.x) {
    size_t at = i * T::ES;
    A acc = T::ld1(src[0] + at);
    for (int s = 1; s < ns; s++) acc = opf(op, acc, T::ld1(src[s] + at));
    T::st1(dst + at, divf(acc, div));
    if (dst2) T::st1(dst2 + at, divf(acc, div));
  }
}

/* staged: acc (fp32 or int32, 4 bytes per element) OP= src; first = 1 loads instead. */
template <int DT>
__device__ void accumulate(float *acc, const char *src, size_t n, int op, int first) {
  typedef Tr<DT> T;
  typedef typename T::A A;
  A *a = (A *)acc;
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    A x = T::ld1(src + i * T::ES);
    a[i] = first ? x : opf(op, a[i], x);
  }
}
template <int DT>
__device__ void acc_store(const float *acc, char *dst, char *dst2, size_t n, int div) {
  typedef Tr<DT> T;
  typedef typename T::A A;
  const A *a = (const A *)acc;
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    T::st1(dst + i * T::ES, divf(a[i], div));
    if (dst2) T::st1(dst2 + i * T::ES, divf(a[i], div));
  }
}

/* Block-cooperative copy of bytes (16-byte aligned when vec). */
__device__ void copy(char *dst, const char *src, size_t bytes, int vec) {
  size_t nv = vec ? bytes / 16 : 0;
  for (size_t v = threadIdx.x; v < nv; v += blockDim.x) ((uint4 *)dst)[v] = __ldcg((const uint4 *)src + v);
  for (size_t i = nv * 16 + threadIdx.x; i < bytes; i += blockDim.x) dst[i] = __ldcg(src + i);
}

/* ---- one block's protocol ---- */

struct Blk {
  const ar_p2p_args *a;
  int set;       /* this block's flag set */
  uint32_t g;    /* generation of the chunk in progress */
  size_t es;
};

/* Make this block's writes visible to peers, then post flag `which` of generation g (thread 0). */
__device__ void post(const Blk &b, int which) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    ar_flag_store(ar_core_flag_of_set(b.a->region[b.a->rank], b.set, which), b.g);
  }
}

/* Rank q's slot `off` of this block's slot set, for the generation in progress. */
__device__ __forceinline__ char *slot(const Blk &b, int q, const size_t off[2]) {
  return b.a->region[q] + off[b.g & 1u] + (size_t)b.set * b.a->lay.set_stride;
}

/* One-shot push: sender `from`'s sub-slot in rank q's `in` slot (its flag line, then the data). */
__device__ __forceinline__ char *push_sub(const Blk &b, int q, int from) {
  return slot(b, q, b.a->lay.in_off) + (size_t)from * b.a->push_stride;
}

/* The flag a wait of `which` reads for peer: its flag `which`, or (INBOX) the flag line of its sub-slot in my
 * own `in` slot, which the peer wrote (push: I poll local memory). */
enum { INBOX = -1 };
__device__ __forceinline__ const uint32_t *flag_of(const Blk &b, int which, int peer) {
  if (which == INBOX) return (const uint32_t *)push_sub(b, b.a->rank, peer);
  return ar_core_flag_of_set(b.a->region[peer], b.set, which);
}

/* Wait until flag `which` of each rank in peers[0..np) reached g: thread t waits for peers[t], all in
 * parallel. Returns 1 when every wait succeeded; on failure the first failing thread records why (and
 * raises this rank's abort flag on a timeout) and every thread returns 0. */
__device__ int wait_peers(const Blk &b, int which, const int *peers, int np, int pass) {
  AR_SHARED(int, failed);
  AR_SHARED_ARRAY(const uint32_t *, aborts, AR_CORE_MAX_RANKS);
  const ar_p2p_args *a = b.a;
  /* Cleared only when set (garbage at kernel start): the previous wait's threads may still be reading
   * `failed` (p2p-staged waits back to back, with no barrier between), and a store would race with them. */
  if (threadIdx.x == 0 && failed) failed = 0;
  for (int q = threadIdx.x; q < a->n; q += blockDim.x) aborts[q] = ar_core_flag_of_set(a->region[q], b.set, AR_FLAG_ABORT);
  __syncthreads();
  if ((int)threadIdx.x < np) {
    struct ar_wait w;
    w.timeout_ns = a->timeout_ns;
    w.oversubscribed = 0;
    w.aborts = aborts;
    w.naborts = a->n;
    int who = -1, peer = peers[threadIdx.x];
    int rc = ar_wait_flag(flag_of(b, which, peer), b.g, &w, &who);
    if (rc != AR_WAIT_OK && atomicCAS(&failed, 0, 1) == 0) {
      struct ar_p2p_status *st = &a->status[b.set];
      if (rc == AR_WAIT_TIMEOUT) ar_flag_store(ar_core_flag_of_set(a->region[a->rank], b.set, AR_FLAG_ABORT), 1u);
      /* Only the set's first failure is written (claimed while its code is 0): a kernel queued behind a timed-out
       * one must not turn TIMEOUT into PEER_ABORT by self. Every writer is a thread of this GPU, so a device
       * atomic suffices on this mapped host memory (CUDA C++ Programming Guide, Mapped Memory: such atomics
       * are atomic for the device, not for the host, which only reads the code after the fields). */
      if (atomicCAS(&st->code, (unsigned)AR_P2P_OK, (unsigned)AR_P2P_WRITING) == (unsigned)AR_P2P_OK) {
        st->peer = (uint32_t)peer;
        st->aborter = (uint32_t)who;
        st->gen = b.g;
        st->pass = (uint32_t)pass;
        __threadfence_system();
        ar_flag_store(&st->code, rc == AR_WAIT_TIMEOUT ? AR_P2P_TIMEOUT : AR_P2P_PEER_ABORT);
      }
    }
  }
  __syncthreads();
  return !failed;
}

/* Every peer but me, nearest following rank first (the host's order). */
__device__ int all_peers(const ar_p2p_args *a, int *peers) {
  int np = 0;
  for (int k = 1; k < a->n; k++) peers[np++] = (a->rank + k) % a->n;
  return np;
}

/* Where rank q's input of this piece (element `at` of the call) is read from: my own input, a peer's input
 * (reg=1) or a peer's staging slot (reg=0, which holds the piece from its start). */
__device__ __forceinline__ const char *input_of(const Blk &b, int q, size_t at) {
  const ar_p2p_args *a = b.a;
  if (q == a->rank) return (const char *)a->in + at * b.es;
  if (a->reg) return a->peer_in[q] + at * b.es;
  return slot(b, q, a->lay.in_off);
}

__device__ __forceinline__ char *out_at(const Blk &b, size_t at) { return (char *)b.a->out + at * b.es; }

/* One-shot pull on the n elements at `at`. reg=0: my input goes to my slot first (the slot's parity keeps
 * peers' reads of g-2 safe: I saw their START of g-1). reg=1: peers read my input itself, so I wait for
 * their END before I return (or, in place, before I overwrite it). */
template <int DT>
__device__ int oneshot(Blk &b, size_t at, size_t n) {
  const ar_p2p_args *a = b.a;
  int peers[AR_CORE_MAX_RANKS], np = all_peers(a, peers);
  if (!a->reg) copy(slot(b, a->rank, a->lay.in_off), (const char *)a->in + at * b.es, n * b.es, a->vec);
  post(b, AR_FLAG_START);
  if (!wait_peers(b, AR_FLAG_START, peers, np, AR_P2P_PASS_START)) return 0;
  const char *src[AR_CORE_MAX_RANKS];
  for (int q = 0; q < a->n; q++) src[q] = input_of(b, q, at);
  int inplace = a->reg && a->out == a->in;
  char *tmp = slot(b, a->rank, a->lay.in_off); /* reg=1 in place: the result waits here */
  reduce<DT>(src, a->n, inplace ? tmp : out_at(b, at), NULL, n, a->op, a->op == AR_CORE_AVG ? a->n : 0, a->vec);
  if (!a->reg) return 1;
  post(b, AR_FLAG_END);
  if (!wait_peers(b, AR_FLAG_END, peers, np, AR_P2P_PASS_END)) return 0;
  if (inplace) copy(out_at(b, at), tmp, n * b.es, a->vec);
  return 1;
}

/* One-shot push on the n elements at `at`: my input goes into my sub-slot of every peer's `in` slot, then
 * the sub-slots' flag lines get g (after a system fence: the data lands first); I reduce from my own memory
 * once every peer's line in my slot reached g, in rank order like the pull. Reusing a parity is safe as in
 * the pull: peer q wrote its line of g-1 in my slot only after it had reduced g-2 from its slot. */
template <int DT>
__device__ int oneshot_push(Blk &b, size_t at, size_t n) {
  const ar_p2p_args *a = b.a;
  int peers[AR_CORE_MAX_RANKS], np = all_peers(a, peers);
  const char *in = (const char *)a->in + at * b.es;
  for (int k = 0; k < np; k++) copy(push_sub(b, peers[k], a->rank) + AR_CORE_LINE, in, n * b.es, a->vec);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    for (int k = 0; k < np; k++) ar_flag_store((uint32_t *)push_sub(b, peers[k], a->rank), b.g);
  }
  post(b, AR_FLAG_START); /* my own START: where the next launch continues the generations */
  if (!wait_peers(b, INBOX, peers, np, AR_P2P_PASS_START)) return 0;
  const char *src[AR_CORE_MAX_RANKS];
  for (int q = 0; q < a->n; q++) src[q] = q == a->rank ? in : push_sub(b, a->rank, q) + AR_CORE_LINE;
  reduce<DT>(src, a->n, out_at(b, at), NULL, n, a->op, a->op == AR_CORE_AVG ? a->n : 0, a->vec);
  return 1;
}

/* All-gather of the two-shot family: every peer's reduced slice from its `res` slot. */
__device__ int gather(Blk &b, size_t at, size_t n, int staged) {
  const ar_p2p_args *a = b.a;
  int peers[AR_CORE_MAX_RANKS], np = 0;
  for (int k = 1; k < a->n; k++) peers[np++] = staged ? ar_staged_from(a->n, a->rank, k - 1) : (a->rank + k) % a->n;
  if (!wait_peers(b, AR_FLAG_END, peers, np, AR_P2P_PASS_GATHER)) return 0;
  for (int k = 0; k < np; k++) {
    struct ar_span sl = ar_part(n, b.es, a->n, peers[k]);
    copy(out_at(b, at + sl.begin), slot(b, peers[k], a->lay.res_off) + sl.begin * b.es, (sl.end - sl.begin) * b.es,
         a->vec);
  }
  return 1;
}

/* reg=0: copy my input except my own slice (which only I read) into my `in` slot. */
__device__ void copy_in(Blk &b, size_t at, size_t n, struct ar_span me) {
  const ar_p2p_args *a = b.a;
  char *dst = slot(b, a->rank, a->lay.in_off);
  const char *in = (const char *)a->in + at * b.es;
  copy(dst, in, me.begin * b.es, a->vec);
  copy(dst + me.end * b.es, in + me.end * b.es, (n - me.end) * b.es, a->vec);
}

/* Two-shot: reduce-scatter (I reduce my slice from every rank, in rank order), then all-gather. */
template <int DT>
__device__ int twoshot(Blk &b, size_t at, size_t n) {
  const ar_p2p_args *a = b.a;
  struct ar_span me = ar_part(n, b.es, a->n, a->rank);
  if (!a->reg) copy_in(b, at, n, me);
  post(b, AR_FLAG_START);
  int peers[AR_CORE_MAX_RANKS], np = all_peers(a, peers);
  if (!wait_peers(b, AR_FLAG_START, peers, np, AR_P2P_PASS_START)) return 0;
  const char *src[AR_CORE_MAX_RANKS];
  for (int q = 0; q < a->n; q++) src[q] = input_of(b, q, at) + me.begin * b.es;
  reduce<DT>(src, a->n, out_at(b, at + me.begin), slot(b, a->rank, a->lay.res_off) + me.begin * b.es,
             me.end - me.begin, a->op, a->op == AR_CORE_AVG ? a->n : 0, a->vec);
  post(b, AR_FLAG_END);
  return gather(b, at, n, 0);
}

/* Staged two-shot: in pass p I read only from (r-1-p) mod n, accumulating in that fixed order (my own
 * slice, then r-1, r-2, ...) in this block's fp32/int32 accumulator, then all-gather in the same rotation. */
template <int DT>
__device__ int staged(Blk &b, size_t at, size_t n) {
  const ar_p2p_args *a = b.a;
  struct ar_span me = ar_part(n, b.es, a->n, a->rank);
  size_t len = me.end - me.begin;
  if (!a->reg) copy_in(b, at, n, me);
  post(b, AR_FLAG_START);
  float *acc = (float *)((char *)a->acc + (size_t)b.set * a->acc_stride); /* 4 bytes per element */
  accumulate<DT>(acc, input_of(b, a->rank, at) + me.begin * b.es, len, a->op, 1);
  for (int p = 0; p < a->n - 1; p++) {
    int q = ar_staged_from(a->n, a->rank, p);
    if (!wait_peers(b, AR_FLAG_START, &q, 1, AR_P2P_PASS_STAGED)) return 0;
    accumulate<DT>(acc, input_of(b, q, at) + me.begin * b.es, len, a->op, 0);
  }
  acc_store<DT>(acc, out_at(b, at + me.begin), slot(b, a->rank, a->lay.res_off) + me.begin * b.es, len,
                a->op == AR_CORE_AVG ? a->n : 0);
  post(b, AR_FLAG_END);
  return gather(b, at, n, 1);
}

/* Islands (two-level): reduce my island slice inside my island (step A, into my `part` slot), across
 * islands from the rank of each island that owns those elements (B, into out and my `res` slot), then
 * gather my island's slices (C). Partials stay undivided; avg divides once, in step B. */
template <int DT>
__device__ int islands(Blk &b, size_t at, size_t n) {
  const ar_p2p_args *a = b.a;
  const struct ar_islands *is = &a->isl;
  size_t end;
  int mine = is->of[a->rank], m = is->size[mine];
  struct ar_span me = ar_island_slice(is, n, b.es, a->rank);
  if (!a->reg) copy_in(b, at, n, me);
  post(b, AR_FLAG_START);
  int peers[AR_CORE_MAX_RANKS], np = 0;
  for (int k = 0; k < m; k++)
    if (ar_island_rank(is, mine, k) != a->rank) peers[np++] = ar_island_rank(is, mine, k);
  if (!wait_peers(b, AR_FLAG_START, peers, np, AR_P2P_PASS_START)) return 0;
  const char *src[AR_CORE_MAX_RANKS];
  for (int k = 0; k < m; k++) src[k] = input_of(b, ar_island_rank(is, mine, k), at) + me.begin * b.es;
  reduce<DT>(src, m, slot(b, a->rank, a->lay.part_off) + me.begin * b.es, NULL, me.end - me.begin,
             a->op == AR_CORE_AVG ? AR_CORE_SUM : a->op, 0, a->vec);
  post(b, AR_FLAG_MID);
  np = 0; /* the ranks of other islands whose island slices overlap mine */
  for (size_t e0 = me.begin; e0 < me.end; e0 = end) {
    end = me.end;
    for (int i = 0; i < is->n; i++) {
      size_t e;
      int q = ar_island_owner(is, n, b.es, i, e0, &e);
      if (e < end) end = e;
      int seen = i == mine;
      for (int k = 0; k < np && !seen; k++) seen = peers[k] == q;
      if (!seen) peers[np++] = q;
    }
  }
  if (!wait_peers(b, AR_FLAG_MID, peers, np, AR_P2P_PASS_ISLANDS)) return 0;
  for (size_t e0 = me.begin; e0 < me.end; e0 = end) {
    end = me.end;
    for (int i = 0; i < is->n; i++) {
      size_t e;
      int q = ar_island_owner(is, n, b.es, i, e0, &e);
      if (e < end) end = e;
      src[i] = slot(b, q, a->lay.part_off) + e0 * b.es;
    }
    reduce<DT>(src, is->n, out_at(b, at + e0), slot(b, a->rank, a->lay.res_off) + e0 * b.es, end - e0, a->op,
               a->op == AR_CORE_AVG ? a->n : 0, a->vec);
  }
  post(b, AR_FLAG_END);
  np = 0;
  for (int k = 1; k < m; k++) peers[np++] = ar_island_rank(is, mine, (is->pos[a->rank] + k) % m);
  if (!wait_peers(b, AR_FLAG_END, peers, np, AR_P2P_PASS_GATHER)) return 0;
  for (int k = 0; k < np; k++) {
    struct ar_span sl = ar_island_slice(is, n, b.es, peers[k]);
    copy(out_at(b, at + sl.begin), slot(b, peers[k], a->lay.res_off) + sl.begin * b.es, (sl.end - sl.begin) * b.es,
         a->vec);
  }
  return 1;
}

/* Block b takes its part of the call (ar_part over the blocks) and walks it in pieces of at most one
 * chunk, each piece one generation of its own flag and slot set. Blocks with no elements return at once
 * (the same on every rank: the shape depends only on the call). At most 64 registers, so a block of 1024
 * threads (threads=1024) always fits an SM's register file. */
template <int DT>
__global__ void __maxnreg__(64) p2p_kernel(const __grid_constant__ ar_p2p_args a) {
  AR_SHARED(uint32_t, gen0);
  Blk b;
  b.a = &a;
  b.set = blockIdx.x;
  b.es = Tr<DT>::ES;
  struct ar_span mine = ar_part(a.count, b.es, (int)gridDim.x, b.set);
  if (mine.begin == mine.end) return;
  /* My START flag of this set holds the last generation this block posted: continue from there. */
  if (threadIdx.x == 0) gen0 = *(volatile uint32_t *)ar_core_flag_of_set(a.region[a.rank], b.set, AR_FLAG_START);
  __syncthreads();
  b.g = gen0;
  for (size_t at = mine.begin; at < mine.end; at += a.chunk) {
    size_t n = mine.end - at < a.chunk ? mine.end - at : a.chunk;
    b.g++;
    int ok;
    switch (a.algo) {
    case AR_CORE_ONESHOT: ok = a.push ? oneshot_push<DT>(b, at, n) : oneshot<DT>(b, at, n); break;
    case AR_CORE_TWOSHOT: ok = twoshot<DT>(b, at, n); break;
    case AR_CORE_STAGED: ok = staged<DT>(b, at, n); break;
    default: ok = islands<DT>(b, at, n); break;
    }
    if (!ok) return;
  }
}

/* ---- fused: allreduce + residual add + RMSNorm over rows of `hidden` bf16 (16-byte vectors) ---- */

/* Sum over the block's threads; every thread gets it. */
__device__ float block_sum(float v) {
  AR_SHARED_ARRAY(float, part, 32);
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads(); /* part[] of the previous row is read */
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  v = 0.0f;
  for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++) v += part[w];
  return v;
}

/* One row: res_out = src[0] + ... + src[ns-1] + residual (fp32, rank order, rounded once to bf16), then
 * out = res_out * rsqrt(mean(res_out^2) + eps) * weight from the stored bf16 res_out, which each thread
 * reads back for the very vectors it wrote (so out may alias src[0]: in place). */
__device__ void norm_row(const ar_p2p_args *a, const char *const *src, int ns, size_t row) {
  typedef Tr<AR_CORE_BF16> T;
  size_t nv = a->hidden / T::L, at = row * a->hidden;
  const uint4 *res = (const uint4 *)a->residual + at / T::L, *w = (const uint4 *)a->weight;
  uint4 *ro = (uint4 *)a->res_out + at / T::L, *out = (uint4 *)a->out + at / T::L;
  float ss = 0.0f;
  for (size_t v = threadIdx.x; v < nv; v += blockDim.x) {
    float acc[T::L];
    uint4 x = __ldcg((const uint4 *)src[0] + v), o;
#pragma unroll
    for (int l = 0; l < T::L; l++) acc[l] = T::get(x, l);
    for (int s = 1; s < ns; s++) {
      x = __ldcg((const uint4 *)src[s] + v);
#pragma unroll
      for (int l = 0; l < T::L; l++) acc[l] = __fadd_rn(acc[l], T::get(x, l));
    }
    x = res[v];
#pragma unroll
    for (int l = 0; l < T::L; l++) {
      T::put(o, l, __fadd_rn(acc[l], T::get(x, l)));
      float y = T::get(o, l);
      ss = __fmaf_rn(y, y, ss);
    }
    ro[v] = o;
  }
  float scale = rsqrtf(block_sum(ss) / (float)a->hidden + a->eps);
  for (size_t v = threadIdx.x; v < nv; v += blockDim.x) {
    uint4 x = ro[v], g = w[v], o;
#pragma unroll
    for (int l = 0; l < T::L; l++) T::put(o, l, __fmul_rn(__fmul_rn(T::get(x, l), scale), T::get(g, l)));
    out[v] = o;
  }
}

/* FUSED = 1: block b takes its rows (ar_part over the blocks, a row a 16-byte unit) in pieces of whole rows
 * of at most one chunk, each piece one generation of the one-shot pull (reg=0: my rows go to my slot, peers
 * read them there) with the norm applied row by row as the sums come. FUSED = 0: the norm alone, of the
 * allreduce result in a.in. */
template <int FUSED>
__global__ void __maxnreg__(64) fused_kernel(const __grid_constant__ ar_p2p_args a) {
  size_t tokens = a.count / a.hidden;
  struct ar_span rows = ar_part(tokens, AR_CORE_ALIGN, (int)gridDim.x, blockIdx.x);
  if (rows.begin == rows.end) return;
  if (!FUSED) {
    const char *src = (const char *)a.in;
    const char *sp[1];
    for (size_t r = rows.begin; r < rows.end; r++) {
      sp[0] = src + r * a.hidden * 2;
      norm_row(&a, sp, 1, r);
    }
    return;
  }
  AR_SHARED(uint32_t, gen0);
  Blk b;
  b.a = &a;
  b.set = blockIdx.x;
  b.es = 2;
  size_t per = a.chunk / a.hidden; /* rows per piece, >= 1 (the host checks) */
  if (threadIdx.x == 0) gen0 = *(volatile uint32_t *)ar_core_flag_of_set(a.region[a.rank], b.set, AR_FLAG_START);
  __syncthreads();
  b.g = gen0;
  int peers[AR_CORE_MAX_RANKS], np = all_peers(&a, peers);
  for (size_t r0 = rows.begin; r0 < rows.end; r0 += per) {
    size_t nr = rows.end - r0 < per ? rows.end - r0 : per, at = r0 * a.hidden;
    b.g++;
    char *mine = slot(b, a.rank, a.lay.in_off);
    copy(mine, (const char *)a.in + at * 2, nr * a.hidden * 2, 1);
    post(b, AR_FLAG_START);
    if (!wait_peers(b, AR_FLAG_START, peers, np, AR_P2P_PASS_START)) return;
    const char *src[AR_CORE_MAX_RANKS];
    for (size_t r = 0; r < nr; r++) {
      for (int q = 0; q < a.n; q++)
        src[q] = (q == a.rank ? (const char *)a.in + at * 2 : slot(b, q, a.lay.in_off)) + r * a.hidden * 2;
      norm_row(&a, src, a.n, r0 + r);
    }
  }
}

} // namespace ar_p2p

#endif
