/* ar_p2p.cu — the launcher of the p2p-* kernels (kernels/ar_p2p_kernel.cuh) for nvcc builds: one
 * instantiation per dtype, launched on the caller's stream. */
#include "ar_p2p_kernel.cuh"
#include <cuda_runtime.h>

extern "C" int ar_cu_p2p(const struct ar_p2p_args *a, int blocks, int threads, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  switch (a->dtype) {
  case AR_CORE_HALF: ar_p2p::p2p_kernel<AR_CORE_HALF><<<blocks, threads, 0, s>>>(*a); break;
  case AR_CORE_BF16: ar_p2p::p2p_kernel<AR_CORE_BF16><<<blocks, threads, 0, s>>>(*a); break;
  case AR_CORE_INT32: ar_p2p::p2p_kernel<AR_CORE_INT32><<<blocks, threads, 0, s>>>(*a); break;
  default: ar_p2p::p2p_kernel<AR_CORE_FLOAT><<<blocks, threads, 0, s>>>(*a); break;
  }
  return (int)cudaGetLastError();
}
