/* ar_symm.h — what the `symm` backend (bench/backends/gpu/symm.c) hands its kernel (kernels/ar_symm.cu):
 * offsets into one NCCL symmetric window, and the host helpers that need NCCL's device-API headers. */
#ifndef AR_SYMM_H
#define AR_SYMM_H

#include "ar_core.h"

struct ar_symm_args {
  void *win;                  /* ncclWindow_t of the engine's buffer pool (every rank's, same offsets) */
  unsigned long long in_off;  /* byte offsets of this call's input and output in the window */
  unsigned long long out_off;
  void *out;                  /* local output (= window base + out_off) */
  void *scratch;              /* one-shot in place: the result waits here until every peer has read */
  unsigned long long count;   /* elements of the call */
  int rank, n, algo, dtype, op;
  int vec;                    /* offsets and scratch are 16-byte aligned: vector loads and stores */
};

#if !defined(__CUDACC_RTC__)
#ifdef __cplusplus
extern "C" {
#endif
/* ncclDevCommCreate on comm (an ncclComm_t; collective over it) with one LSA barrier per block; *dev
 * receives a heap copy of the ncclDevComm, lsa_rank/lsa_size its LSA team. Returns the ncclResult_t. */
int ar_cu_symm_devcomm_create(void *comm, int nbarriers, void **dev, int *lsa_rank, int *lsa_size);
/* ncclDevCommDestroy, then frees the copy; returns the ncclResult_t. */
int ar_cu_symm_devcomm_destroy(void *comm, void *dev);
/* Launch one call on stream: 0 or a cudaError_t (launch errors only). blocks <= the barriers of dev. */
int ar_cu_symm(const struct ar_symm_args *a, const void *dev, int blocks, int threads, void *stream);
#ifdef __cplusplus
}
#endif
#endif

#endif
