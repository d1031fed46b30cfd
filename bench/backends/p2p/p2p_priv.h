/* p2p_priv.h — what the fused backend (fused.c) borrows from the p2p-* backends (p2p.c): one p2p-oneshot
 * state (regions over CUDA IPC, flags, kernel status) whose prepared call arguments it launches itself. */
#ifndef AR_P2P_PRIV_H
#define AR_P2P_PRIV_H

#include "backend.h"
#include "backends/p2p/p2p_plan.h"

extern const struct ar_backend ar_be_p2p_oneshot;

/* The ops of a p2p-* backend be (p2p.c), callable with another backend's name in messages. */
int ar_p2p_available(const struct ar_env *env, char *why, size_t len);
/* be names the backend in messages (fused opens a one-shot state under its own); algo: AR_CORE_*. */
int ar_p2p_open(const struct ar_env *env, const char *variant, void **state, char *err, size_t len,
                const struct ar_backend *be, int algo);
int ar_p2p_setup(void *state, size_t max_bytes, char *err, size_t len);
int ar_p2p_alloc(void *state, size_t bytes, void **p, char *err, size_t len);
void ar_p2p_release(void *state, void *p);
int ar_p2p_describe(void *state, json_t *rec);
void ar_p2p_fini(void *state);
/* NVRTC stacks (rtc.c, AR_HAVE_RTC): 0 if this build has a kernel image device dev can run, else
 * -AR_EUNAVAIL with why ("no cubin for sm_XY in this build ..."); loads nothing. */
int ar_rtc_ready(int dev, char *why, size_t len);
/* Load the kernels on device dev (once per process and device); collective over comm: -AR_EUNAVAIL on every
 * rank, with the reason in err, when one rank cannot. who names the backend in err. */
int ar_rtc_load(int dev, MPI_Comm comm, const char *who, char *err, size_t len);
/* The kernel arguments and launch shape of one call (count > 0). 0: launch it; 1: this rank skips the
 * launch (ARBENCH_P2P_STALL test hook); -AR_E* when a kernel gave up before (message printed once). */
int ar_p2p_prepare(void *state, const void *in, void *out, size_t count, enum ar_dtype dt, enum ar_op op,
                   struct ar_p2p_args *a, struct ar_p2p_launch *launch);

#endif
