/* driver.h — the CUDA driver API stand-in's CPU kernels (standin/cudart/driver_kernels.cc, built where the NVRTC path
 * runs: -Dcuda-emu-nvcc=false): each kernel of kernels/ar_p2p.cu by its mangled name, run by the runtime's launch. */
#ifndef AR_STANDIN_DRIVER_H
#define AR_STANDIN_DRIVER_H

#include "cuda_runtime_api.h"
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One cuLaunchKernel, as the CPU kernel's launcher takes it: params as cuLaunchKernel's kernelParams (an array of
 * pointers, one per parameter); regs the image's registers per thread (-1: registers.tsv's). */
struct ar_standin_klaunch {
  unsigned grid, block;
  size_t shmem;
  cudaStream_t stream;
  void **params;
  int regs;
};

struct ar_standin_cpu_kernel {
  const char *mangled;  /* the symbol NVRTC gives the instance (Itanium ABI, as the host compiler mangles it) */
  const char *name;     /* as ptxas names it: the key of registers.tsv */
  size_t param_bytes;   /* its one parameter's size in the host compiler's layout */
  cudaError_t (*launch)(const struct ar_standin_klaunch *l);
};

/* The CPU kernel of a mangled name, NULL if none (weak: absent where no CPU kernels for the driver are built). */
const struct ar_standin_cpu_kernel *ar_standin_cpu_kernel(const char *mangled) __attribute__((weak));

#ifdef __cplusplus
}
#endif
#endif
