/* ar_p2p.h — the arguments of one custom GPU allreduce call (p2p-* backends): what the host backend
 * (bench/backends/p2p/p2p.c) hands the kernel (kernels/ar_p2p.cu). Plain C; nvcc and NVRTC take it. */
#ifndef AR_P2P_H
#define AR_P2P_H

#include "ar_core.h"

#define AR_P2P_MAX_BLOCKS 64 /* flag and slot sets in a region: blocks of one call */

/* Why a block gave up; written by the kernel (to mapped host memory) only when it fails, and only the first
 * time: the failing thread claims a record whose code is AR_P2P_OK (compare-and-swap to AR_P2P_WRITING),
 * writes the other fields, then the code. Later failures of that block set (kernels queued behind a
 * timed-out one) leave it alone; the host (ar_p2p_failure) reads only complete records. */
enum ar_p2p_code { AR_P2P_OK = 0, AR_P2P_TIMEOUT = 1, AR_P2P_PEER_ABORT = 2, AR_P2P_WRITING = 3 };
struct ar_p2p_status {
  uint32_t code;   /* enum ar_p2p_code; written last */
  uint32_t peer;   /* the rank waited for */
  uint32_t aborter; /* AR_P2P_PEER_ABORT: the rank that raised its abort flag */
  uint32_t gen;    /* generation of the wait */
  uint32_t pass;   /* enum ar_p2p_pass */
  uint32_t pad[3];
};
enum ar_p2p_pass {
  AR_P2P_PASS_START = 0, AR_P2P_PASS_END = 1, AR_P2P_PASS_STAGED = 2, AR_P2P_PASS_GATHER = 3, AR_P2P_PASS_ISLANDS = 4
};

struct ar_p2p_args {
  char *region[AR_CORE_MAX_RANKS];        /* every rank's shared region (flags + slots), mapped here */
  const char *peer_in[AR_CORE_MAX_RANKS]; /* reg=1: every rank's input of this call, mapped here */
  const void *in;
  void *out;
  void *acc;                    /* staged: each block's fp32/int32 accumulator of one chunk, acc_stride apart */
  unsigned long long acc_stride;
  struct ar_p2p_status *status; /* AR_P2P_MAX_BLOCKS entries, one per block */
  struct ar_core_layout lay;
  struct ar_islands isl;        /* p2p-islands: the ranks' islands */
  unsigned long long count;     /* elements of the call */
  unsigned long long chunk;     /* elements per piece (one generation of one block) */
  unsigned long long timeout_ns;
  int rank, n, algo, dtype, op;
  int reg;                      /* 1: peers read peer_in directly (zero copy) */
  int vec;                      /* every buffer is 16-byte aligned: vector loads and stores */
  int push;                     /* one-shot push: I write my input into every peer's sub-slot of mine */
  unsigned long long push_stride; /* push: bytes between senders' sub-slots (ar_core_push_stride) */
  /* fused (bf16 rows of `hidden`): res_out = allreduce(in) + residual, out = RMSNorm(res_out) * weight */
  const void *residual, *weight;
  void *res_out;
  unsigned long long hidden;
  float eps;
};

#if !defined(__CUDACC_RTC__) /* the host launcher; NVRTC compiles device code only */
#ifdef __cplusplus
extern "C" {
#endif
/* Launch one call on stream; 0 or a cudaError_t (launch errors only: failures inside the kernel are in
 * status[]). blocks <= AR_P2P_MAX_BLOCKS, threads a multiple of 32 >= n. */
int ar_cu_p2p(const struct ar_p2p_args *a, int blocks, int threads, void *stream);
/* fused = 1: one-shot pull allreduce + residual add + RMSNorm in one kernel (every field of a); fused = 0: only
 * the residual add + RMSNorm of the allreduce result in a->in (in, out, residual, weight, res_out, count, hidden,
 * eps). Rows are split over the blocks; 0 or a cudaError_t. */
int ar_cu_fused(const struct ar_p2p_args *a, int fused, int blocks, int threads, void *stream);
#ifdef __cplusplus
}
#endif
#endif

#endif
