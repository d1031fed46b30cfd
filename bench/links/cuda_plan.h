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

/* The host's wait for queued GPU work, worst last (the ranks agree on the largest): done; done, but a hold ended
 * before its release (the copies ran unheld: measured again, never a number); the bound passed; an error. */
enum ar_lhwait { AR_HW_DONE = 0, AR_HW_UNHELD, AR_HW_TIMEOUT, AR_HW_ERROR };

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

/* ---- a GPU whose work never ended ---- */

/* Any host wait on a GPU that passes its bound marks that GPU stuck: the work stays queued on it, and so would
 * everything queued after it. The ranks agree on stuck[0..n) (1: rank r's GPU); every pair of the n x n
 * verdicts bad[] that is still OK and touches a stuck GPU becomes AR_PAIR_STUCK (never tested: nothing more is
 * queued on a stuck GPU, and nothing synchronizes it). Returns how many pairs it marked. */
int ar_lcuda_stuck_pairs(const int *stuck, int n, int *bad);
/* The stuck rank a stuck pair (s, d) is counted under: s or d, the lower when both are stuck. */
int ar_lcuda_stuck_owner(const int *stuck, int s, int d);
/* "rank 3", "ranks 1, 3": the ranks whose flag is set, into buf; returns how many. */
int ar_lcuda_names(const int *flags, int n, char *buf, size_t len);
/* The one line for stuck rank r: its GPU (bus id), what passed its bound, and the npairs pairs skipped. */
void ar_lcuda_stuck_line(int r, const char *bus, int npairs, double smoke_timeout_s, char *buf, size_t len);

/* ---- held timing (nvbandwidth's way): every stream of a rank waits behind a hold until everything is queued
 * (the hold, the start event, the copies, the stop event), then the host releases every hold at once, after a
 * barrier with the other ranks, so the events time the copies alone and every GPU starts together ---- */

/* Operations (a hold, two events, the copies) a rank queues behind its holds at once: the launch queue must take
 * them all while the streams stand still, or the host would block queueing behind its own hold. */
#define AR_LCUDA_HELD_OPS 256
/* Seconds a hold waits for its release before it gives up: the copies then run unheld, as the host queues them.
 * It bounds the host's side alone (queueing every stream, then the barrier with the other ranks): a loaded host
 * may take longer, which says nothing of the GPU, so a try that ended unheld is measured again, up to
 * AR_LCUDA_HOLD_TRIES tries in all, each next hold ar_lcuda_hold_next_s; a measurement still unheld then is not
 * made (its own line and record), never a GPU error. */
#define AR_LCUDA_HOLD_S 10.0
#define AR_LCUDA_HOLD_TRIES 3
#define AR_LCUDA_HOLD_MAX_S 600.0
/* The next try's hold after one that ended unheld: twice the longer of the last hold (last_s) and what the hosts
 * took from queueing the hold to releasing it in that try (took_s: the ranks' largest), at most
 * AR_LCUDA_HOLD_MAX_S. The hold only waits for the release, so a long one costs nothing when the release comes. */
double ar_lcuda_hold_next_s(double last_s, double took_s);
/* What to do after try `tries` (1-based) of a measurement ended unheld: 1 measure again, 0 give up (it is not made). */
int ar_lcuda_hold_retry(int tries);
/* The line of a measurement tried `tries` times, each ending unheld: what (e.g. "ce-write pairs 0->1, 65536 bytes"),
 * the last hold (s) and the longest the hosts took to queue and release it (s). */
void ar_lcuda_unheld_line(const char *what, int tries, double hold_s, double took_s, char *buf, size_t len);
/* The line of a try that ended unheld and is measured again with a hold of next_s. */
void ar_lcuda_retry_line(const char *what, int tries, double hold_s, double took_s, double next_s, char *buf,
                         size_t len);
/* Held batches a rank with k streams needs for iters copies per stream (1 when k is 0); the ranks take the
 * largest (MPI_MAX), then batch b of nbatch holds ar_lcuda_batch_copies(iters, nbatch, b) copies per stream. */
int ar_lcuda_batches(int iters, int k);
int ar_lcuda_batch_copies(int iters, int nbatch, int b);

/* The steps of one measurement repeat, in order (measure_cuda.c executes them): fill the buffers; agree
 * (an allreduce of the outcome: a barrier too); the warm-up copies and their wait (warmup > 0); per batch
 * queue the held copies, barrier, release, wait, agree, read the events; then, only after every initiator's
 * wait and an agreement, each destination checks what it received, and a last agreement. */
enum ar_lstep { AR_LS_FILL = 0, AR_LS_AGREE, AR_LS_WARM, AR_LS_HOLD, AR_LS_BARRIER, AR_LS_RELEASE, AR_LS_WAIT,
                AR_LS_TIME, AR_LS_CHECK, AR_LS_END };
/* Step i of a repeat with warm-up copies (warm != 0) and nbatch held batches; *batch = the batch of a step
 * inside one (else -1). AR_LS_END past the last step. */
int ar_lcuda_repeat_step(int i, int warm, int nbatch, int *batch);

/* ---- the ping-pong kernel's bound: per wait, and the host watches its progress ---- */

/* The kernel gives every flag wait its own deadline (--smoke-timeout) and writes the round trips done to the
 * status every AR_LKS_PROGRESS round trips (cuda_status.h): a long healthy run (--lat-iters 1e6, or two ranks
 * time-sliced on one GPU) is never cut, and the host gives up only when the count stood still for its bound. */
struct ar_lwatch {
  double since, bound_s;     /* when the count last moved; seconds it may stand still */
  unsigned long long last;   /* the count then */
};
void ar_lcuda_watch_start(struct ar_lwatch *w, double now, double bound_s);
/* 1 when the count has not moved for the bound (now - since > bound_s), 0 while it moves or within it. */
int ar_lcuda_watch_expired(struct ar_lwatch *w, double now, unsigned long long count);

#endif
