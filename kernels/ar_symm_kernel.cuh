/* ar_symm_kernel.cuh — the `symm` backend's one-shot and two-shot allreduce kernel on NCCL's device API
 * (>= 2.28): peers' buffers through LSA pointers of one symmetric window, ordering through NCCL's LSA
 * barrier, the partition and rank-order reduction of ar_core.h, the element math of ar_p2p_kernel.cuh.
 * Device code only; the launcher and host helpers are in ar_symm.cu. */
#ifndef AR_SYMM_KERNEL_CUH
#define AR_SYMM_KERNEL_CUH

#include "ar_core.h"
#include "ar_p2p.h"
#include "ar_symm.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <nccl.h>
#include <nccl_device.h>

/* The element math (ar_p2p::Tr, opf, divf, copy) of the p2p kernels, with internal linkage here: that
 * header's non-template __device__ functions have external linkage, and ar_p2p.cu defines them too. Its
 * own includes (above) are already in, so only namespace ar_p2p lands in this unnamed namespace. */
namespace {
#include "ar_p2p_kernel.cuh"
}

namespace ar_symm {

using ar_p2p::divf;
using ar_p2p::opf;

/* Rank q's bytes at offset off of the window: a load/store pointer (peer memory over NVLink or PCIe P2P;
 * q == rank is my own buffer). */
static __device__ __forceinline__ char *lsa(const ar_symm_args &a, int q, size_t off) {
  return (char *)ncclGetLsaPointer((ncclWindow_t)a.win, off, q);
}

/* Elements [begin, begin+n) of the call: every rank's input reduced in rank order 0..n-1 (fp32 for
 * fp16/bf16, int32 wrapping), avg divided once; stored to dst (local) or, push = 1, to every rank's output
 * at the same offset. Peers' lines are read through L2 only (__ldcg): they are not cached in my L1. */
template <int DT>
__device__ void reduce(const ar_symm_args &a, size_t begin, size_t n, char *dst, int push) {
  typedef ar_p2p::Tr<DT> T;
  typedef typename T::A A;
  const int div = a.op == AR_CORE_AVG ? a.n : 0;
  const size_t in0 = a.in_off + begin * T::ES, out0 = a.out_off + begin * T::ES;
  const size_t nv = a.vec ? n / T::L : 0;
  for (size_t v = threadIdx.x; v < nv; v += blockDim.x) {
    uint4 x = __ldcg((const uint4 *)lsa(a, 0, in0) + v), o;
    A acc[T::L];
#pragma unroll
    for (int l = 0; l < T::L; l++) acc[l] = T::get(x, l);
    for (int q = 1; q < a.n; q++) {
      x = __ldcg((const uint4 *)lsa(a, q, in0) + v);
#pragma unroll
      for (int l = 0; l < T::L; l++) acc[l] = opf(a.op, acc[l], T::get(x, l));
    }
#pragma unroll
    for (int l = 0; l < T::L; l++) T::put(o, l, divf(acc[l], div));
    if (!push) ((uint4 *)dst)[v] = o;
    else
      for (int q = 0; q < a.n; q++) ((uint4 *)lsa(a, q, out0))[v] = o;
  }
  for (size_t i = nv * T::L + threadIdx.x; i < n; i += blockDim.x) {
    size_t at = i * T::ES;
    A acc = T::ld1(lsa(a, 0, in0) + at);
    for (int q = 1; q < a.n; q++) acc = opf(a.op, acc, T::ld1(lsa(a, q, in0) + at));
    acc = divf(acc, div);
    if (!push) T::st1(dst + at, acc);
    else
      for (int q = 0; q < a.n; q++) T::st1(lsa(a, q, out0) + at, acc);
  }
}

/* One call. Block b works on part b of the elements (ar_part over the blocks: of the whole call for
 * one-shot, of this rank's slice ar_part(count, n, rank) for two-shot) and synchronises only with block b
 * of every peer, through LSA barrier b. Every block takes part in both barriers, even with no elements
 * (the parts differ between ranks for two-shot; a peer's block b waits for mine).
 *   barrier 1 (acq_rel): every rank has launched this call, so its input (written by earlier work on its
 *     stream) is complete; the release/acquire pair makes those writes visible to my loads.
 *   one-shot: read part b of every rank's input, result to my output (or scratch when in place: a peer
 *     may still read my input there). two-shot: read my slice's part b of every rank's input, write the
 *     result into every rank's output (push); in place this is safe: only I read that slice of inputs.
 *   barrier 2 (acq_rel): every peer's block b has finished reading my input (one-shot) / writing my output
 *     (two-shot), so when my kernel ends my buffers are mine again and my output is complete.
 * The LSA barrier spins without a bound (NCCL's code): a rank that never arrives is ended by the engine's
 * watchdog (-T, 300 s by default), which aborts the job; process exit ends the spinning kernels. */
template <int DT>
__global__ void __launch_bounds__(1024) symm_kernel(const __grid_constant__ ar_symm_args a,
                                                    const __grid_constant__ ncclDevComm dc) {
  ncclLsaBarrierSession<ncclCoopCta> bar{ncclCoopCta(), dc, ncclTeamTagLsa(), blockIdx.x};
  const size_t es = ar_p2p::Tr<DT>::ES;
  struct ar_span me = ar_symm_span(a.algo, a.count, es, a.n, a.rank, (int)gridDim.x, (int)blockIdx.x);
  size_t begin = me.begin, n = me.end - me.begin;
  bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
  int inplace = a.in_off == a.out_off;
  if (a.algo == AR_CORE_TWOSHOT) reduce<DT>(a, begin, n, NULL, 1);
  else reduce<DT>(a, begin, n, (char *)(inplace ? a.scratch : a.out) + begin * es, 0);
  bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
  if (a.algo == AR_CORE_ONESHOT && inplace) ar_p2p::copy((char *)a.out + begin * es, (const char *)a.scratch + begin * es,
                                                       n * es, a.vec);
}

} // namespace ar_symm

#endif
