/* nccl_priv.h — the state of one nccl backend variant, shared by nccl.c (the ops) and
 * nccl_watch.c (deadline waits and the watchdog thread that aborts a hung communicator). */
#ifndef AR_NCCL_PRIV_H
#define AR_NCCL_PRIV_H

#include "backend.h"
#include "backends/nccl/guard.h"
#include "backends/nccl/nccl_collconfig.h"
#include "backends/nccl/nccl_parse.h"
#include "device/device.h"
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <pthread.h>

#define AR_NCCL_MAX_REG 8
#define AR_NCCL_NSAVED 9

struct ar_nccl {
  const struct ar_env *env;
  char variant[256];
  struct ar_nccl_variant v;
  int version; /* loaded NCCL */
  /* algo=/proto= per call (NCCL >= 2.31: ncclAllReduceConfig), else NULL: NCCL_ALGO/NCCL_PROTO at init */
  ar_nccl_allreduce_config_fn percall;
  struct ar_nccl_coll_config cfg;
  char selection[256]; /* cfg.algSelection */
  ncclComm_t comm;
  double timeout; /* -T seconds, 0 = none */
  /* NCCL's own lines for this variant */
  char logpath[512];
  int keep_log, logging;
  int env_set; /* the INIT plan was applied: RESTORE at state_free (nccl_env.c) */
  char *saved[AR_NCCL_NSAVED]; /* the user's values of the variables a variant changes (nccl.c) */
  char userlog[520];            /* NCCL's lines outside the probe, appended to the user's NCCL_DEBUG_FILE */
  struct ar_nccl_log *log;
  struct ar_nccl_call *calls; /* the probe's calls in order: keys NCCL's lines by (bytes, dtype) */
  int ncalls;
  size_t max_bytes;           /* from setup: the probe runs in alloc, on the engine's own buffers */
  char warning[512];
  /* registrations (reg=1: ncclCommRegister, symm=1: ncclCommWindowRegister) */
  int nreg;
  struct { unsigned long long base; size_t size; void *handle; } reg[AR_NCCL_MAX_REG];
  int failed_once;
  /* watchdog: every main-thread call on comm runs under guard (ar_guard_enter) and re-checks
   * aborted there; the watchdog looks under the same lock and aborts outside it (guard.h). */
  struct ar_guard guard;
  pthread_t thread;
  int started, stop;
  cudaStream_t stream; /* the stream collectives run on (watched) */
  cudaEvent_t marker;  /* recorded at the stream's tail; overdue = hung */
  struct ar_deadline dl; /* per collective: restarted whenever a queued collective finishes */
  const volatile uint64_t *progress; /* the device loop's finished collectives, NULL outside it */
  int per;                           /* collectives per launched unit (K in a graph) */
  int quiet; /* a graph is being captured on the stream */
  size_t last_bytes;
  int last_dtype;
  size_t hang_bytes; /* ARBENCH_NCCL_HANG_BYTES: block the stream once at this size (watchdog test) */
  int hung, probing;
};

double ar_nccl_now(void);
/* Poll the communicator until it leaves ncclInProgress; abort it after timeout seconds (0 = never). */
int ar_nccl_wait_comm(struct ar_nccl *s, const char *what, char *err, size_t len);
/* Wait for a stream with the same deadline (one probe collective). */
int ar_nccl_wait_stream(struct ar_nccl *s, cudaStream_t stream, char *err, size_t len);
/* Start/stop the watchdog thread (only when -T is set). */
int ar_nccl_watch_start(struct ar_nccl *s, char *err, size_t len);
void ar_nccl_watch_stop(struct ar_nccl *s);
/* Abort the communicator once, with a message naming backend, variant, size and rank. */
void ar_nccl_abort(struct ar_nccl *s, const char *why);

#endif
