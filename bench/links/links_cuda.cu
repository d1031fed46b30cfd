/* links_cuda.cu — the kernels of `arbench links` on GPUs: a grid-stride vectorized copy (the SM methods, read
 * = pull from peer memory, write = push into it), the one-way flag ping-pong with ar_core.h's release/acquire
 * flags and the hold of the timed copies; every wait bounded by a globaltimer deadline that leaves a status
 * (cuda_status.h) instead of hanging. */
#include "ar_core.h"
#include "ar_core_wait.h"
#include "cuda_status.h"

/* dst[0..bytes) = src[0..bytes): 16-byte vectors (4 in flight per thread) then the 4-byte words of the tail.
 * Both pointers 16-byte aligned, bytes a multiple of 4 (the host guarantees both). */
extern "C" __global__ void ar_links_copy_kernel(void *__restrict__ dst, const void *__restrict__ src, size_t bytes) {
  uint4 *d = (uint4 *)dst;
  const uint4 *s = (const uint4 *)src;
  size_t n16 = bytes / 16, stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    uint4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
    d[i] = a;
    d[i + stride] = b;
    d[i + 2 * stride] = c;
    d[i + 3 * stride] = e;
  }
  for (; i < n16; i += stride) d[i] = s[i];
  size_t tail = (bytes - n16 * 16) / 4;
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < tail; t += stride)
    ((uint32_t *)dst)[n16 * 4 + t] = ((const uint32_t *)src)[n16 * 4 + t];
}

/* One thread. The initiator posts generation g on its own flag `mine` and waits for the peer's flag `peer` (in
 * the peer's memory, read over the link: the custom kernels' rule that a rank writes only its own flags) to reach
 * g; the responder waits first and answers. warm round trips untimed, then iters timed by the initiator. Every
 * wait has its own deadline, timeout_ns from its start: one that passes leaves AR_LKS_TIMEOUT and the round
 * trips done. The count goes to st[AR_LKS_DONE] every AR_LKS_PROGRESS round trips too, for the host to see the
 * kernel move (a long run is bounded per wait, not as a whole). */
extern "C" __global__ void ar_links_pingpong_kernel(uint32_t *mine, const uint32_t *peer, int initiator, uint32_t g0,
                                                    int warm, int iters, unsigned long long timeout_ns,
                                                    unsigned long long *st) {
  if (blockIdx.x || threadIdx.x) return;
  volatile unsigned long long *v = st;
  unsigned long long t0 = ar_core_now_ns(), state = AR_LKS_OK;
  struct ar_wait w = {timeout_ns, 0, 0, 0};
  int i = 0;
  for (; i < warm + iters; i++) {
    uint32_t g = g0 + (uint32_t)i;
    if (i == warm) t0 = ar_core_now_ns();
    if (i % AR_LKS_PROGRESS == 0) {
      v[AR_LKS_DONE] = (unsigned long long)i;
      __threadfence_system();
    }
    if (initiator) ar_flag_store(mine, g);
    int who;
    if (ar_wait_flag(peer, g, &w, &who) != AR_WAIT_OK) {
      state = AR_LKS_TIMEOUT;
      break;
    }
    if (!initiator) ar_flag_store(mine, g);
  }
  v[AR_LKS_NS] = i == warm + iters ? ar_core_now_ns() - t0 : 0;
  v[AR_LKS_DONE] = (unsigned long long)i;
  __threadfence_system();
  v[AR_LKS_STATE] = state;
  __threadfence_system();
}

/* One thread: hold the stream until the host releases *flag to generation gen (host-mapped memory, read over the
 * link), at most timeout_ns; st[AR_LKS_STATE] = AR_LKS_OK when released in time, AR_LKS_TIMEOUT when the deadline
 * passed first (what was queued behind then ran unheld); st[AR_LKS_NS] = ns held. */
extern "C" __global__ void ar_links_hold_kernel(const uint32_t *flag, uint32_t gen, unsigned long long timeout_ns,
                                                unsigned long long *st) {
  if (blockIdx.x || threadIdx.x) return;
  volatile unsigned long long *v = st;
  unsigned long long t0 = ar_core_now_ns();
  struct ar_wait w = {timeout_ns, 0, 0, 0};
  int who;
  int rc = ar_wait_flag(flag, gen, &w, &who);
  v[AR_LKS_NS] = ar_core_now_ns() - t0;
  __threadfence_system();
  v[AR_LKS_STATE] = rc == AR_WAIT_OK ? AR_LKS_OK : AR_LKS_TIMEOUT;
  __threadfence_system();
}

#if !defined(__CUDACC_RTC__) && !defined(AR_EMU_CUDA_H) /* the host launchers; NVRTC takes the kernels above */
#include <cuda_runtime.h>

/* blocks: the caller's grid (SMs x a few); 512 threads a block. 0 or a cudaError_t. */
extern "C" int ar_links_cu_copy(void *dst, const void *src, size_t bytes, int blocks, void *stream) {
  if (!bytes) return 0;
  size_t need = (bytes / 16 + 511) / 512;
  unsigned b = (unsigned)(need < 1 ? 1 : need < (size_t)blocks ? need : (size_t)blocks);
  ar_links_copy_kernel<<<b, 512, 0, (cudaStream_t)stream>>>(dst, src, bytes);
  return (int)cudaGetLastError();
}

extern "C" int ar_links_cu_hold(const uint32_t *flag, uint32_t gen, unsigned long long timeout_ns,
                                unsigned long long *st, void *stream) {
  ar_links_hold_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(flag, gen, timeout_ns, st);
  return (int)cudaGetLastError();
}

extern "C" int ar_links_cu_pingpong(uint32_t *mine, const uint32_t *peer, int initiator, uint32_t g0, int warm,
                                    int iters, unsigned long long timeout_ns, unsigned long long *st, void *stream) {
  ar_links_pingpong_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(mine, peer, initiator, g0, warm, iters, timeout_ns, st);
  return (int)cudaGetLastError();
}
#endif
