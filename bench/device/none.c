/* none.c — the GPU hooks of gpu.h for a build without CUDA (-Dcuda=disabled or no toolkit):
 * no devices, and a stack description that says so. */
#include "device/gpu.h"
#include "ar_config.h"
#include "device/platform.h"
#include <stdio.h>
#include <string.h>

int ar_gpu_count(char *why, size_t len) {
  snprintf(why, len, "built without CUDA (-Dcuda=disabled or no CUDA toolkit under %s)", AR_CUDA_HOME);
  return 0;
}

int ar_gpu_select(struct ar_env *env, char *err, size_t len) {
  (void)err;
  (void)len;
  env->device = -1;
  return 0;
}

json_t *ar_stack_describe(void) {
  char why[300];
  if (!strcmp(AR_CUDA_OPTION, "disabled")) snprintf(why, sizeof why, "configured with -Dcuda=disabled");
  else snprintf(why, sizeof why, "configured with -Dcuda=%s, meson found no CUDA runtime and NCCL under %s", AR_CUDA_OPTION,
                AR_CUDA_HOME);
  return json_pack("{s:s, s:n, s:n, s:n, s:n, s:n, s:s}", "name", *AR_STACK_NAME ? AR_STACK_NAME : "host-only",
                   "cuda_runtime", "cuda_driver", "nccl_compiled", "nccl_loaded", "archs", "cuda_disabled", why);
}

json_t *ar_gpu_describe(void) { return json_array(); }

const struct ar_platform *ar_device_platform(void) { return NULL; }
