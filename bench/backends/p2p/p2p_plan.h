/* p2p_plan.h — the pure-C decisions of the custom GPU backends (p2p-*, fused): variant text, launch
 * shape per message size, the peer-access verdict, fused row shape. No CUDA here: unit-tested anywhere. */
#ifndef AR_P2P_PLAN_H
#define AR_P2P_PLAN_H

#include "ar.h"
#include "ar_p2p.h"
#include <stddef.h>

#define AR_P2P_MIN_THREADS 64
#define AR_P2P_MAX_THREADS 1024
#define AR_P2P_VEC 16           /* bytes per vector load/store */

/* One variant of a p2p-* backend; 0 in blocks/threads = the per-size default of ar_p2p_shape. */
struct ar_p2p_variant {
  int algo;    /* enum ar_core_algo: given by the backend's name */
  int push;    /* p2p-oneshot: 0 = pull (read every peer's input), 1 = push (write into every peer) */
  int reg;     /* 0 = copy the input into a pre-shared staging buffer; 1 = share the engine's buffers */
  int blocks;  /* CUDA blocks per call, 1..AR_P2P_MAX_BLOCKS */
  int threads; /* threads per block, a multiple of 32 in AR_P2P_MIN_THREADS..AR_P2P_MAX_THREADS */
};

/* Parse "mode=push,reg=1,blocks=8,threads=512" for the backend of algorithm algo. Keys: mode (p2p-oneshot
 * only: pull|push), reg (0|1), blocks, threads. 0 or -AR_EINVAL with one line naming the bad key or value
 * and what is allowed. */
int ar_p2p_variant_parse(int algo, const char *text, struct ar_p2p_variant *v, char *err, size_t len);
/* The variant as canonical text ("mode=pull,reg=0,blocks=auto,threads=auto") for records. */
void ar_p2p_variant_text(const struct ar_p2p_variant *v, char *buf, size_t len);

/* Launch shape of one call of bytes over nranks ranks on a GPU with sm_count SMs: the variant's values
 * where given, else enough 16-byte vectors per thread to hide latency, never more blocks than SMs (every
 * block of a call must be resident at once: blocks wait on peers' blocks of the same index). */
struct ar_p2p_shape {
  int blocks, threads;
};
struct ar_p2p_shape ar_p2p_shape(const struct ar_p2p_variant *v, size_t bytes, int nranks, int sm_count);

/* Staging of a p2p-* state set up for calls of at most max_bytes: chunk_bytes per block and generation (the
 * whole largest call rounded to a cache line, at most 256 KiB: the layout's `in` slot); mode=push splits that
 * slot into one sub-slot per sender, push_stride apart, each holding piece_bytes of its input (a flag line
 * first). piece_bytes: staging bytes of one sender's input per generation, the unit a block walks in. */
#define AR_P2P_STAGING_BYTES ((size_t)256 << 10)
struct ar_p2p_staging {
  size_t chunk_bytes, piece_bytes, push_stride;
};
struct ar_p2p_staging ar_p2p_staging(const struct ar_p2p_variant *v, size_t max_bytes, int nranks);

/* The launch of one call of count elements of es bytes with pieces of chunk elements (one generation of one
 * block each): the shape is ar_p2p_shape of the WHOLE message (count * es bytes), and pieces is how many
 * pieces the busiest block walks (block 0: ar_part gives it the most elements). ar_p2p_prepare (p2p-* and
 * fused) launches exactly this; describe() records it. */
struct ar_p2p_launch {
  int blocks, threads;
  size_t pieces; /* pieces per block (the busiest one) */
};
struct ar_p2p_launch ar_p2p_launch_of(const struct ar_p2p_variant *v, size_t count, size_t es, size_t chunk, int nranks,
                                      int sm_count);
/* fused: the one-shot launch given by ar_p2p_launch_of, limited to one block per row (a block takes whole
 * rows of hidden elements, tokens rows in all), pieces of chunk / hidden rows. */
struct ar_p2p_launch ar_fused_launch(struct ar_p2p_launch one, size_t tokens, int hidden, size_t chunk);

/* Peer access of every pair of ranks: access[i * n + j] = cudaDeviceCanAccessPeer from rank i's GPU to
 * rank j's, or -1 when rank i's process cannot see rank j's GPU; dev[i] identifies rank i's GPU (equal for ranks sharing one, which need no peer access),
 * busid[i] names it. 0 when every pair can, else -AR_EUNAVAIL with the first failing pair in why:
 * "no P2P between rank 0 (GPU 0000:01:00.0) and rank 3 (GPU 0000:c1:00.0)". */
int ar_p2p_access_verdict(int n, const int *dev, const char *const *busid, const int *access, char *why,
                          size_t len);

/* The failure to report from a p2p state's kernel status (nblocks records, one per block set, each the first
 * failure of that set: the kernel claims a record only while its code is 0): a timeout before a peer abort
 * (the timeout names the rank that stalled; aborts follow from it), then the earliest generation, then the
 * lowest block. Records still being written (AR_P2P_WRITING) are skipped. Returns the block, or -1 when no
 * complete failure is there. */
int ar_p2p_first_failure(const struct ar_p2p_status *st, int nblocks);
/* The one-line message of failure record st of block b: who = "p2p-twoshot:reg=0,... float size 1024". */
void ar_p2p_failure_text(const struct ar_p2p_status *st, int b, const char *who, int world_rank, double timeout_s,
                         char *msg, size_t len);

/* fused: one-shot allreduce + residual add + RMSNorm over rows of `hidden` bf16 elements. */
struct ar_fused_variant {
  int hidden;      /* elements per row (token), a multiple of 8 (one 16-byte vector) */
  double eps;      /* RMSNorm epsilon */
  int unfused;     /* 0 = the fused kernel; 1 = ncclAllReduce + norm kernel; 2 = p2p one-shot + norm */
  int blocks;      /* launch shape of the one-shot pull (fused, unfused=p2p); 0 = p2p-oneshot's default */
  int threads;
};
enum { AR_FUSED_FUSED = 0, AR_FUSED_NCCL = 1, AR_FUSED_P2P = 2 };
int ar_fused_variant_parse(const char *text, struct ar_fused_variant *v, char *err, size_t len);
/* The p2p-oneshot variant the fused kernel and unfused=p2p run on: a pull with a staging copy, shaped by
 * the fused variant's blocks/threads when given. */
int ar_fused_inner_variant(const struct ar_fused_variant *v, char *buf, size_t len);
/* Rows of a message: 0 with *tokens, or -AR_EUNAVAIL with why when bytes is not whole bf16 rows. */
int ar_fused_rows(size_t bytes, enum ar_dtype dt, int hidden, size_t *tokens, char *why, size_t len);

/* The fp64 reference of the fused operation on bf16 data (uint16_t bit patterns):
 *   sum = Σ_r x[r] (the allreduce), res' = sum + residual, out = res' / sqrt(mean(res'^2) + eps) * w
 * per row of hidden elements; results as doubles. */
void ar_fused_reference(const uint16_t *const *x, int nranks, const uint16_t *residual, const uint16_t *weight,
                        size_t tokens, int hidden, double eps, double *out, double *res_out);
/* Tolerances (relative) of the kernels' bf16 outputs against the fp64 reference, derived from bf16
 * rounding. bf16 keeps 8 significant bits, so rounding to nearest is off by at most u = 2^-9 relative.
 * - res' (residual output): the sum of the n inputs and the residual is taken in fp32 (exact for the
 *   engine's integer patterns, whose sums bf16 also holds exactly: |sum| <= 256; in general n * 2^-24
 *   relative) and rounded once to bf16: |err| <= u |res'|. Tolerance 2u = 2^-8 (twice the bound).
 * - out (normalised): computed from the stored bf16 res' (u directly, and u through the scale: the mean of
 *   squares is off by <= 2u, halved by the root), the fp32 sum of squares (each thread adds hidden/threads
 *   terms, then a tree over <= 1024 threads: <= (2^16/64 + 10) 2^-24 < 2^-13, halved), rsqrtf (2 fp32 ulp),
 *   two fp32 products (2^-23) and the final rounding to bf16 (u): |err| <= (3u + 2^-14 + 2^-21) |out| < 4u.
 *   Tolerance 4u = 2^-7.
 * A value one bf16 ulp past the bound (e.g. 1 + 2^-6 against 1) is rejected (tests/gpu/test_p2p_plan.c). */
#define AR_FUSED_TOL_RES (1.0 / 256.0)
#define AR_FUSED_TOL_OUT (1.0 / 128.0)
/* Count outputs outside the tolerances; got_* are the kernel's bf16 outputs. */
uint64_t ar_fused_compare(const uint16_t *got_out, const uint16_t *got_res, const double *ref_out,
                          const double *ref_res, size_t n);

/* The deterministic operands of the fused check, as the fused backend fills them on the device with the
 * engine's patterns (kernels/ar_pattern.h): the inputs are the sum pattern of each rank (the engine's fill),
 * the residual the sum pattern of a rank `nranks`, the weight the product pattern of a rank `nranks + 1`
 * (values -1, 1 and 2). */
#define AR_FUSED_RESIDUAL_RANK(nranks) (nranks)
#define AR_FUSED_WEIGHT_RANK(nranks) ((nranks) + 1)
/* One rank's check of a fused call of count elements (whole rows of hidden): the fp64 reference from the
 * patterns above, compared with the outputs (bf16 bits). Elements outside the tolerances, or UINT64_MAX
 * when out of memory. */
uint64_t ar_fused_check_host(const uint16_t *got_out, const uint16_t *got_res, size_t count, int hidden, double eps,
                             int nranks);

#endif
