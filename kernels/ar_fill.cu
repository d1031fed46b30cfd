/* ar_fill.cu — device-side fill and bit-exact check of the test pattern (kernels/ar_pattern.h) for
 * fp32/fp16/bf16/int32, behind C launchers used by the device platform (bench/device/platform_cuda.c). */
#include "ar_pattern.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

/* Bits of the exact integer v in dtype (0 float, 1 half, 2 bf16, 3 int32). */
static __device__ __forceinline__ uint32_t ar_bits(int dtype, long v) {
  switch (dtype) {
  case 1: return __half_as_ushort(__float2half_rn((float)v));
  case 2: return __bfloat16_as_ushort(__float2bfloat16_rn((float)v));
  case 3: return (uint32_t)(int32_t)v;
  default: return __float_as_uint((float)v);
  }
}

static __device__ __forceinline__ void ar_store(void *buf, int dtype, size_t i, uint32_t bits) {
  if (dtype == 1 || dtype == 2) ((uint16_t *)buf)[i] = (uint16_t)bits;
  else ((uint32_t *)buf)[i] = bits;
}

static __device__ __forceinline__ uint32_t ar_load(const void *buf, int dtype, size_t i) {
  if (dtype == 1 || dtype == 2) return ((const uint16_t *)buf)[i];
  return ((const uint32_t *)buf)[i];
}

/* rank < 0: the poison value. */
__global__ void ar_fill_kernel(void *buf, size_t count, int dtype, int op, int rank, int nranks) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    uint32_t bits = rank < 0 ? ar_pat_poison(dtype) : ar_bits(dtype, ar_pat_value(dtype, op, rank, nranks, i));
    ar_store(buf, dtype, i, bits);
  }
}

__global__ void ar_check_kernel(const void *buf, size_t count, int dtype, int op, int nranks,
                                unsigned long long *wrong) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  unsigned long long bad = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
    bad += ar_load(buf, dtype, i) != ar_bits(dtype, ar_pat_expect(dtype, op, nranks, i));
  for (int o = 16; o > 0; o /= 2) bad += __shfl_down_sync(0xffffffffu, bad, o);
  if ((threadIdx.x & 31) == 0 && bad) atomicAdd(wrong, bad);
}

#if !defined(__CUDACC_RTC__) && !defined(AR_EMU_KERNELS_ONLY) /* the host launchers; NVRTC and the CPU
                                                                  execution (standin/kernels/) take the kernels only */
#include <cuda_runtime.h>

static unsigned ar_blocks(size_t count) {
  size_t b = (count + 255) / 256;
  return (unsigned)(b < 1 ? 1 : b > 4096 ? 4096 : b);
}

extern "C" int ar_cu_fill(void *buf, size_t count, int dtype, int op, int rank, int nranks, void *stream) {
  if (!count) return 0;
  ar_fill_kernel<<<ar_blocks(count), 256, 0, (cudaStream_t)stream>>>(buf, count, dtype, op, rank, nranks);
  return (int)cudaGetLastError();
}

extern "C" int ar_cu_check(const void *buf, size_t count, int dtype, int op, int nranks, unsigned long long *wrong,
                           void *stream) {
  if (!count) return 0;
  ar_check_kernel<<<ar_blocks(count), 256, 0, (cudaStream_t)stream>>>(buf, count, dtype, op, nranks, wrong);
  return (int)cudaGetLastError();
}

extern "C" int ar_cu_image(void) {
  cudaFuncAttributes a;
  return (int)cudaFuncGetAttributes(&a, ar_fill_kernel);
}
#endif
