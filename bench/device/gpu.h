/* gpu.h — what the host code asks of the GPU side: device count, device choice per rank and the
 * CUDA/NCCL stack description. Implemented in bench/device/ with CUDA (gpu.c), in none.c without. */
#ifndef AR_GPU_H
#define AR_GPU_H

#include "backend.h"
#include <jansson.h>

/* Number of CUDA devices usable by this process (0 without CUDA, driver or devices). why gets the
 * reason when 0 ("no CUDA device", "built without CUDA", "CUDA driver too old: ..."). */
int ar_gpu_count(char *why, size_t len);
/* Choose this rank's device (--devices, local rank, --shared-gpu) and make it current.
 * Sets env->device (-1 when there is no GPU). Errors: -AR_EINVAL (bad --devices), -AR_ERUNTIME. */
int ar_gpu_select(struct ar_env *env, char *err, size_t len);
/* Stack description: {"name","cuda_runtime","cuda_driver","nccl_compiled","nccl_loaded",
 * "archs","cuda_home","nccl_home"}; versions as "13.0" / "2.28.9", null when absent. New ref. */
json_t *ar_stack_describe(void);
/* Devices of this process: [{"index","name","busid","cc","memory_bytes"}]. New ref. */
json_t *ar_gpu_describe(void);
/* 1 when the devices are the CPU stand-in of CUDA (a -Dcuda-emu=true build, standin/cudart/): correct
 * results, meaningless times. */
int ar_gpu_standin(void);
/* The line run and links print under their header when ar_gpu_standin(). */
#define AR_GPU_STANDIN_NOTE                                                                                      \
  "# the GPUs are the CPU stand-in of CUDA (-Dcuda-emu): results are checked; times and bandwidths are not GPU " \
  "numbers (records: stack cuda-standin)"

#endif
