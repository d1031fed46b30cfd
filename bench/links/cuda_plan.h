/* cuda_plan.h — the deciding logic of `arbench links` on GPUs, pure so the unit tests reach it: which methods
 * a run measures, which flows a rank starts (one stream each), the bounds of every host wait, how the kernels'
 * status words and the smoke test's outcomes read, and the per-link score. No CUDA, no MPI. */
#ifndef AR_LINKS_CUDA_PLAN_H
#define AR_LINKS_CUDA_PLAN_H

#include "links/links.h"
#include <stddef.h>
#include <stdint.h>

/* ce-*: the copy engine (cudaMemcpyAsync on CUDA IPC-mapped peer memory); sm-*: the copy kernel on the SMs. */
int ar_lmethod_gpu(int m);  /* 1 for ce-read, ce-write, sm-read, sm-write */
int ar_lmethod_sm(int m);   /* 1 for sm-read, sm-write */
int ar_lmethod_pull(int m); /* 1 for the reads (the destination pulls), 0 for the writes (the source pushes) */

#define AR_LM_HOST_SET ((1u << AR_LM_READ) | (1u << AR_LM_WRITE))
#define AR_LM_CE_SET ((1u << AR_LM_CE_READ) | (1u << AR_LM_CE_WRITE))
#define AR_LM_SM_SET ((1u << AR_LM_SM_READ) | (1u << AR_LM_SM_WRITE))

/* The methods of a run. given: --method's set, explicit: --method was given; gpus: every rank has a GPU; sm: the
 * SM kernels are compiled in. Without --method: the GPU methods (ce-*, and sm-* when compiled in) on GPUs, the
 * host ones otherwise. A GPU method without a GPU on every rank, or sm-* without the kernels: -AR_EINVAL, err
 * names the method and why (nogpu, nosm: the reasons). */
int ar_links_resolve_methods(unsigned given, int explicit, int gpus, int sm, const char *nogpu, const char *nosm,
                             unsigned *out, char *err, size_t len);

/* The flows among f[0..nf) that rank starts, by index into f, in order (the k-th gets stream k); count. */
int ar_lcuda_started(int method, const struct ar_flow *f, int nf, int rank, int *idx, int max);

/* Seconds the host waits for a measurement's copies (warm-up and timed, every flow of the rank) before it gives
 * up on the GPU: AR_LCUDA_FLOOR_S plus the copies at AR_LCUDA_SLOW_GBS. */
#define AR_LCUDA_FLOOR_S 10.0
#define AR_LCUDA_SLOW_GBS 0.1
double ar_lcuda_bound_s(size_t bytes, int copies);
/* Seconds the host waits for a ping-pong kernel whose own deadline is kernel_s: that plus a margin for the
 * launch and the partner's start (AR_LCUDA_MARGIN_S). */
#define AR_LCUDA_MARGIN_S 5.0
double ar_lcuda_kernel_bound_s(double kernel_s);

/* GB/s of `copies` copies of bytes in ms milliseconds (CUDA events); NAN when ms <= 0. */
double ar_lcuda_gbs(size_t bytes, int copies, double ms);

/* The host's wait for queued GPU work. */
enum ar_lhwait { AR_HW_DONE = 0, AR_HW_TIMEOUT, AR_HW_ERROR };

/* The ping-pong kernel's status words (cuda_status.h) after the host's wait hw: the one-way latency in us
 * (the round trip halved over iters), NAN when the wait did not end, the kernel gave up or never finished;
 * why (may be NULL) says which. */
double ar_lcuda_pingpong_us(int hw, const unsigned long long *st, int warm, int iters, char *why, size_t len);

/* A smoke-test pair's verdict (enum ar_lpair of links/measure.h) from its two steps: ipc (0: the peer's memory
 * mapped), the copies' wait hw, and the words that differed. */
int ar_lcuda_smoke_verdict(int ipc_ok, int hw, uint64_t wrong);
/* The line for a bad GPU pair (ACS and the IOMMU named as the usual causes); verdict: enum ar_lpair. */
void ar_lcuda_bad_line(int verdict, int src, int dst, const char *sbus, const char *dbus, size_t bytes,
                       double timeout_s, char *buf, size_t len);

/* The per-link score: measured / the path's bottleneck link rate; NAN when either is unknown (<= 0 or NAN). */
double ar_links_score(double gbs, double link_gbs);

#endif
