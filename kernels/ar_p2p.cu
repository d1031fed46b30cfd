/* ar_p2p.cu — the launchers of the p2p-* kernels (kernels/ar_p2p_kernel.cuh) for nvcc builds: one
 * instantiation per dtype, and the fused kernel and its norm-only form. NVRTC (device code only) gets the instances. */
#include "ar_p2p_kernel.cuh"

#if defined(__CUDACC_RTC__)
template __global__ void ar_p2p::p2p_kernel<AR_CORE_FLOAT>(const __grid_constant__ ar_p2p_args);
template __global__ void ar_p2p::p2p_kernel<AR_CORE_HALF>(const __grid_constant__ ar_p2p_args);
template __global__ void ar_p2p::p2p_kernel<AR_CORE_BF16>(const __grid_constant__ ar_p2p_args);
template __global__ void ar_p2p::p2p_kernel<AR_CORE_INT32>(const __grid_constant__ ar_p2p_args);
template __global__ void ar_p2p::fused_kernel<0>(const __grid_constant__ ar_p2p_args);
template __global__ void ar_p2p::fused_kernel<1>(const __grid_constant__ ar_p2p_args);
#else
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

extern "C" int ar_cu_fused(const struct ar_p2p_args *a, int fused, int blocks, int threads, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (fused) ar_p2p::fused_kernel<1><<<blocks, threads, 0, s>>>(*a);
  else ar_p2p::fused_kernel<0><<<blocks, threads, 0, s>>>(*a);
  return (int)cudaGetLastError();
}
#endif
