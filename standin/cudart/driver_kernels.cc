/* driver_kernels.cc — the kernels of kernels/ar_p2p.cu (the ones NVRTC builds into the embedded cubins) on the CPU, for
 * the driver API stand-in's cuLaunchKernel: the same source and launch (ar_standin_launch) as the nvcc path's. */
#include "ar_emu_cuda.h" /* the CPU execution's CUDA first (its flag hook), as cu2cc.py puts it */
#include "ar_p2p_kernel.cuh"
#include "driver.h"
#include <cuda_runtime.h>
#include <string.h>

/* kernelParams[0] points at the one ar_p2p_args, copied now, as the driver copies parameters at the launch. */
template <int D> static cudaError_t p2p(const struct ar_standin_klaunch *l) {
  return ar_standin_launch_regs(l->regs, ar_standin_kname("ar_p2p::p2p_kernel", {D}), l->grid, l->block, l->shmem,
                                l->stream, ar_p2p::p2p_kernel<D>, *(const ar_p2p_args *)l->params[0]);
}
template <int F> static cudaError_t fused(const struct ar_standin_klaunch *l) {
  return ar_standin_launch_regs(l->regs, ar_standin_kname("ar_p2p::fused_kernel", {F}), l->grid, l->block, l->shmem,
                                l->stream, ar_p2p::fused_kernel<F>, *(const ar_p2p_args *)l->params[0]);
}

#define AR_P2P_K(D) {"_ZN6ar_p2p10p2p_kernelILi" #D "EEEv11ar_p2p_args", "ar_p2p::p2p_kernel<" #D ">", \
                     sizeof(ar_p2p_args), p2p<D>}
#define AR_FUSED_K(F) {"_ZN6ar_p2p12fused_kernelILi" #F "EEEv11ar_p2p_args", "ar_p2p::fused_kernel<" #F ">", \
                       sizeof(ar_p2p_args), fused<F>}
static const struct ar_standin_cpu_kernel kernels[] = {AR_P2P_K(0), AR_P2P_K(1), AR_P2P_K(2), AR_P2P_K(3),
                                                       AR_FUSED_K(0), AR_FUSED_K(1)};

extern "C" const struct ar_standin_cpu_kernel *ar_standin_cpu_kernel(const char *mangled) {
  for (const auto &k : kernels)
    if (!strcmp(k.mangled, mangled)) return &k;
  return NULL;
}
