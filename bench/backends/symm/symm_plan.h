/* symm_plan.h — the pure-C decisions of the `symm` backend (arbench's allreduce on NCCL's device API):
 * variant text, launch shape, and the version gate (headers at build time x library at run time). */
#ifndef AR_SYMM_PLAN_H
#define AR_SYMM_PLAN_H

#include <stddef.h>

#define AR_SYMM_MAX_BLOCKS 32 /* LSA barriers requested from ncclDevCommCreate: one per block */
#define AR_SYMM_MIN_THREADS 64
#define AR_SYMM_MAX_THREADS 1024
/* NCCL_VERSION_CODE of the first NCCL with the device API (ncclDevCommCreate, LSA barriers). */
#define AR_SYMM_NCCL_MIN 22800

/* One variant; 0 in blocks/threads = the per-size default of ar_symm_shape. */
struct ar_symm_variant {
  int algo;    /* enum ar_core_algo: AR_CORE_ONESHOT (default) or AR_CORE_TWOSHOT */
  int blocks;  /* 1..AR_SYMM_MAX_BLOCKS */
  int threads; /* a multiple of 32 in AR_SYMM_MIN_THREADS..AR_SYMM_MAX_THREADS */
};

/* Parse "algo=twoshot,blocks=8,threads=512". 0, or -AR_EINVAL with one line naming the bad key or
 * value and what is allowed. */
int ar_symm_variant_parse(const char *text, struct ar_symm_variant *v, char *err, size_t len);
/* Canonical text for records: "algo=oneshot,blocks=auto,threads=auto". */
void ar_symm_variant_text(const struct ar_symm_variant *v, char *buf, size_t len);

/* Launch shape of a call of bytes over nranks ranks on GPUs with at least sm_count SMs: the variant's
 * values where given, else 512 threads and one block per 64 KiB each rank reduces (all of it for
 * one-shot, its 1/n slice for two-shot), 1..AR_SYMM_MAX_BLOCKS and never more than sm_count (a block
 * waits in the LSA barrier for the blocks of the same index on its peers: all must be resident). */
struct ar_symm_shape {
  int blocks, threads;
};
struct ar_symm_shape ar_symm_shape(const struct ar_symm_variant *v, size_t bytes, int nranks, int sm_count);

/* Can `symm` run? cuda / nvcc: this build has them; header_code: NCCL_VERSION_CODE of the nccl.h it was
 * built with (0 = none); loaded_code: ncclGetVersion of the library in this process (0 = not asked,
 * only the build is judged). The headers decide whether the kernel was compiled at all; the library
 * can still be older than the headers (LD_LIBRARY_PATH, a wheel), and then the device API is missing. */
enum { AR_SYMM_READY = 0, AR_SYMM_NOT_COMPILED = 1, AR_SYMM_UNAVAILABLE = 2 };
int ar_symm_gate(int cuda, int nvcc, int header_code, int loaded_code, char *why, size_t len);

#endif
