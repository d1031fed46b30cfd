/* measure_cuda.h — `arbench links` on GPUs, one rank per GPU: buffers shared through CUDA IPC, copy-engine and
 * SM copies (read = pull, write = push) timed by CUDA events, the P2P smoke test, the flag ping-pong of
 * kernels/ar_core.h and the copy engine's small-copy latency; every host wait bounded. measure_cuda.c with
 * CUDA, measure_nocuda.c without (every call refuses). */
#ifndef AR_LINKS_MEASURE_CUDA_H
#define AR_LINKS_MEASURE_CUDA_H

#include "run/fault.h"
#include "links/links.h"
#include <mpi.h>
#include <stdint.h>

struct ar_lgpu; /* opaque */

/* 1 when the SM copy and ping-pong kernels are in this build; else 0 and why. */
int ar_lgpu_kernels(char *why, size_t len);

/* Collective over comm (one node, every rank with a current CUDA device `device`): a region of flags, a send
 * buffer and n receive slots of max_bytes each, mapped into every peer through CUDA IPC. A peer whose memory
 * cannot be mapped makes its pairs AR_PAIR_NOIPC. timeout_s bounds every smoke-test transfer and flag wait;
 * silent (the world rank of ARBENCH_INJECT_SILENT, -1 none): that rank's smoke-test copies queue behind a
 * kernel that outlasts the timeout; fault (ARBENCH_INJECT_FAULT): corrupt what that rank receives in the smoke
 * test. 0, or -AR_ERUNTIME with one line in err (on every rank). */
int ar_lgpu_open(struct ar_lgpu **g, MPI_Comm comm, int device, size_t max_bytes, double timeout_s, int silent,
                 const struct ar_fault *fault, char *err, size_t len);
/* Collective. While any GPU is stuck (work that never ended) nothing is synchronized, closed or freed on any
 * rank: the stuck work may still touch every peer's buffers; the process's end reclaims them. */
void ar_lgpu_close(struct ar_lgpu *g);
/* n x n verdicts (enum ar_lpair) of the ordered pairs, after the smoke test (NOIPC ones from the start). */
const int *ar_lgpu_bad(const struct ar_lgpu *g);
/* The PCI bus id of rank r's GPU ("0000:3b:00.0", "" unknown). */
const char *ar_lgpu_busid(const struct ar_lgpu *g, int r);
/* How many GPUs have work that did not end within its bound (stuck), as the ranks last agreed; which ones (n
 * flags, one per rank). Nothing more is queued on a stuck GPU, nothing waits for it, its pairs are skipped
 * (AR_PAIR_STUCK), and ar_lgpu_close leaves every rank's buffers to the process's end. */
int ar_lgpu_stuck(const struct ar_lgpu *g);
const int *ar_lgpu_stuck_ranks(const struct ar_lgpu *g);
/* How the bandwidth records' copies were timed (held behind a spin kernel, or a host function). */
const char *ar_lgpu_timing(void);
/* links -T's heartbeat: bumped after each smoke-test pair, repeat, held copy and ping-pong progress (NULL: none). */
void ar_lgpu_beat(struct ar_lgpu *g, uint64_t *beat);

/* The smoke test: for every ordered pair, the source pushes bytes into the destination with the copy engine
 * and the destination pulls them back, each within the timeout, both checked word by word. A wait that passes
 * its bound marks that GPU stuck (the ranks agree after each pair): its later pairs are not started but marked
 * AR_PAIR_STUCK. Fills the verdicts on every rank; returns the number of bad pairs. Collective. */
int ar_lgpu_smoke(struct ar_lgpu *g, size_t bytes);

/* A held measurement still unheld after AR_LCUDA_HOLD_TRIES tries (cuda_plan.h): not made, err says why; the
 * probe goes on (a loaded host, not a GPU fault). */
#define AR_LGPU_UNHELD 1

/* As ar_links_measure (links/measure.h) for a GPU method: each initiator starts its flows on a stream each,
 * warmup copies, then iters copies between two CUDA events per stream, held until all are queued and released
 * on every rank together (in batches of AR_LCUDA_HELD_OPS, their times summed), repeat times; a destination checks
 * only after every initiator's copies ended. A repeat whose hold ended before its release is measured again with a
 * longer hold (one line each on rank 0 naming `what`). On rank 0 gbs[k * repeat + r] and wrong[k]. Collective; 0,
 * AR_LGPU_UNHELD, -AR_ETIMEOUT (a GPU's copies did not end within ar_lcuda_bound_s: the probe must stop; err names
 * the rank), or -AR_ERUNTIME, with one line in err. */
int ar_lgpu_measure(struct ar_lgpu *g, int method, const struct ar_flow *f, int nf, size_t bytes, int iters,
                    int warmup, int repeat, const char *what, double *gbs, uint64_t *wrong, char *err, size_t len);

/* One-way flag latency src -> dst (ping-pong kernels on both GPUs, the round trip halved): us[r] on rank 0, NAN
 * when a flag did not arrive before the timeout (why on rank 0). Collective; 0 or -AR_ETIMEOUT as above. */
int ar_lgpu_pingpong(struct ar_lgpu *g, int src, int dst, int iters, int repeat, double *us, char *why, size_t len);

/* The copy engine's small-copy latency of method ce-read or ce-write for the flow src -> dst: iters copies of
 * bytes, each alone between two events behind a hold (GPU-side time: the host's submission is not in it; a copy
 * whose hold ended before its release is measured again, as in ar_lgpu_measure); us[r] on rank 0 = the median
 * copy of repeat r. Collective; 0, AR_LGPU_UNHELD or < 0 as ar_lgpu_measure, one line in err. */
int ar_lgpu_ce_latency(struct ar_lgpu *g, int method, int src, int dst, size_t bytes, int iters, int repeat,
                       double *us, char *err, size_t len);

/* In one process (doctor): devices a and b copy bytes to each other with cudaMemcpyPeerAsync, each within
 * timeout_s, checked. The verdict (enum ar_lpair); why gets what went wrong. */
int ar_lgpu_smoke_local(int a, int b, size_t bytes, double timeout_s, char *why, size_t len);

#endif
