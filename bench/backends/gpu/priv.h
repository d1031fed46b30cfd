/* priv.h — what the files of bench/backends/gpu/ share among themselves: the nvcc-built fill/check
 * launchers, the device-choice rule, and the health hook the device platform asks after a wait. */
#ifndef AR_GPU_PRIV_H
#define AR_GPU_PRIV_H

#include "backend.h"
#include <stddef.h>

/* kernels/ar_fill.cu (only when built with nvcc): 0 or a cudaError_t. wrong is a device counter. */
int ar_cu_fill(void *buf, size_t count, int dtype, int op, int rank, int nranks, void *stream);
int ar_cu_check(const void *buf, size_t count, int dtype, int op, int nranks, unsigned long long *wrong,
                void *stream);

/* Device of local rank lr: from list (n entries, NULL = by local rank) over count GPUs; -1 when
 * this rank gets none (more local ranks than GPUs without shared). Pure: no CUDA. */
int ar_gpu_assign(const int *list, int n, int count, int shared, int lr);
/* Parse --devices "0,2,3" into list (cap entries); -AR_EINVAL with a one-line message. */
int ar_gpu_list_parse(const char *text, int *list, int cap, int *n, char *err, size_t len);
/* The device the options give this rank among count GPUs, -1 when none (no CUDA, no MPI). */
int ar_gpu_expected(const struct ar_env *env, int count);
/* Does another local rank of env use this rank's GPU among count GPUs? (from the options, no MPI) */
int ar_gpu_shared_with_peer(const struct ar_env *env, int count);

/* After the device platform waited on a backend's work: 0, or -AR_ETIMEOUT/-AR_ERUNTIME with the
 * message of a watchdog abort (the nccl backend implements it; other backends: 0). */
int ar_gpu_backend_health(const struct ar_backend *be, void *state, char *err, size_t len);
/* -AR_ETIMEOUT with the message when the backend's watchdog aborted it (no side effects), else 0. */
int ar_gpu_backend_aborted(const struct ar_backend *be, void *state, char *err, size_t len);
/* The p2p-* backends' part of the two hooks above: 0 for other backends or a healthy state, else
 * -AR_ETIMEOUT with the message of the kernel that gave up (bench/backends/gpu/p2p.c; 0 without nvcc). */
int ar_p2p_health(const struct ar_backend *be, void *state, char *err, size_t len);
/* Graph capture begins (quiet = 1) or ends (0): a watchdog must not touch the capturing stream. */
void ar_gpu_backend_quiet(const struct ar_backend *be, void *state, int quiet);

#endif
