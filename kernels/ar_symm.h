/* ar_symm.h — what the `symm` backend (bench/backends/symm/symm.c) hands its kernel (kernels/ar_symm.cu):
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

/* The elements block `block` of `blocks` on rank `rank` of n reduces: one-shot, part `block` of the whole
 * call (ar_part over the blocks); two-shot, part `block` of this rank's slice ar_part(count, n, rank), whose
 * result goes to every rank. Begins stay 16-byte aligned (ar_part's rule, nested). Same on host and GPU,
 * so the unit test proves the kernel's cover. */
AR_CORE_FN struct ar_span ar_symm_span(int algo, size_t count, size_t esize, int n, int rank, int blocks, int block) {
  struct ar_span all;
  all.begin = 0;
  all.end = count;
  if (algo == AR_CORE_TWOSHOT) all = ar_part(count, esize, n, rank);
  struct ar_span me = ar_part(all.end - all.begin, esize, blocks, block);
  me.begin += all.begin;
  me.end += all.begin;
  return me;
}

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
