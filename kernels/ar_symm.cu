/* ar_symm.cu — the `symm` backend's launcher (kernels/ar_symm_kernel.cuh, one instantiation per dtype)
 * and the host helpers that need nccl_device.h (only a CUDA C++ compiler takes it). Compiled only when the
 * NCCL headers are >= 2.28 (meson). */
#include "ar_symm_kernel.cuh"
#include <cuda_runtime.h>
#include <stdlib.h>

/* Both go by value as kernel parameters (4 KiB on every architecture this builds for). */
static_assert(sizeof(ar_symm_args) + sizeof(ncclDevComm) <= 4096, "symm kernel parameters exceed 4 KiB");

extern "C" int ar_cu_symm(const struct ar_symm_args *a, const void *dev, int blocks, int threads, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  const ncclDevComm &dc = *(const ncclDevComm *)dev;
  switch (a->dtype) {
  case AR_CORE_HALF: ar_symm::symm_kernel<AR_CORE_HALF><<<blocks, threads, 0, s>>>(*a, dc); break;
  case AR_CORE_BF16: ar_symm::symm_kernel<AR_CORE_BF16><<<blocks, threads, 0, s>>>(*a, dc); break;
  case AR_CORE_INT32: ar_symm::symm_kernel<AR_CORE_INT32><<<blocks, threads, 0, s>>>(*a, dc); break;
  default: ar_symm::symm_kernel<AR_CORE_FLOAT><<<blocks, threads, 0, s>>>(*a, dc); break;
  }
  return (int)cudaGetLastError();
}

/* Collective over comm (NCCL allgathers the barriers' memory): every rank calls it, in the same order
 * relative to its other collective NCCL calls (window registrations). The requirements are zeroed (no
 * initializer macro in 2.28) and ask only for LSA barriers; no GIN, no multimem. */
extern "C" int ar_cu_symm_devcomm_create(void *comm, int nbarriers, void **dev, int *lsa_rank, int *lsa_size) {
  ncclDevComm *d = (ncclDevComm *)calloc(1, sizeof *d); /* plain data: no C++ runtime needed */
  if (!d) return (int)ncclSystemError;
  ncclDevCommRequirements reqs;
  memset(&reqs, 0, sizeof reqs);
  reqs.lsaBarrierCount = nbarriers;
  ncclResult_t rc = ncclDevCommCreate((ncclComm_t)comm, &reqs, d);
  if (rc != ncclSuccess) {
    free(d);
    *dev = NULL;
    return (int)rc;
  }
  *lsa_rank = d->lsaRank;
  *lsa_size = d->lsaSize;
  *dev = d;
  return 0;
}

/* Local (deregisters the barriers' resource window). Only after every kernel using dev has finished on
 * every rank: peers' last barrier arrivals write into my barrier memory (symm.c barriers first). */
extern "C" int ar_cu_symm_devcomm_destroy(void *comm, void *dev) {
  if (!dev) return 0;
  ncclResult_t rc = ncclDevCommDestroy((ncclComm_t)comm, (const ncclDevComm *)dev);
  free(dev);
  return (int)rc;
}
