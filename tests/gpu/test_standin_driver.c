/* test_standin_driver.c — the driver API stand-in's contract on its own (standin/cudart/driver.c), on the images this
 * build embeds (the real NVRTC's cubins and PTX): each answer as cuda.h documents it. Stand-in build without nvcc only. */
#include "backends/p2p/rtc_pick.h"
#include "ar_p2p.h"
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int fails;
#define EXPECT(what, cond)                                                                                   \
  do {                                                                                                       \
    if (!(cond)) fprintf(stderr, "FAIL: %s (%s:%d)\n", what, __FILE__, __LINE__), fails++;                   \
    else printf("ok: %s\n", what);                                                                           \
  } while (0)

static const struct ar_rtc_image *image(int arch, int ptx) {
  for (int i = 0; i < ar_rtc_nimages; i++)
    if (ar_rtc_images[i].arch == arch && ar_rtc_images[i].ptx == ptx) return &ar_rtc_images[i];
  return NULL;
}

static CUresult other_thread_rc;
static CUfunction other_fn;
static void *other_thread(void *arg) { /* a host thread that made no context current */
  CUmodule m;
  void *params[] = {arg};
  CUresult a = cuModuleLoadData(&m, image(120, 0)->data);
  CUresult b = cuLaunchKernel(other_fn, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL);
  other_thread_rc = a == CUDA_ERROR_INVALID_CONTEXT && b == CUDA_ERROR_INVALID_CONTEXT ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN;
  return NULL;
}

int main(void) {
  CUmodule m = NULL, m90 = NULL;
  CUfunction f = NULL;
  const char *name = NULL;
  int n = 0;
  cudaGetDeviceCount(&n);
  EXPECT("no context current before cudaSetDevice/cudaFree(0): CUDA_ERROR_INVALID_CONTEXT (cuda.h:2617-2627)",
         cuModuleLoadData(&m, image(120, 0)->data) == CUDA_ERROR_INVALID_CONTEXT);
  cudaSetDevice(0);
  EXPECT("not an image: CUDA_ERROR_INVALID_IMAGE (cuda.h:2611-2615)",
         cuModuleLoadData(&m, "not a cubin, no PTX") == CUDA_ERROR_INVALID_IMAGE);
  unsigned char elf[64];
  memcpy(elf, image(120, 0)->data, sizeof elf);
  elf[0x12] = 62; /* EM_X86_64 */
  EXPECT("an ELF of another machine: CUDA_ERROR_INVALID_IMAGE", cuModuleLoadData(&m, elf) == CUDA_ERROR_INVALID_IMAGE);
  if (image(90, 0))
    EXPECT("the sm_90 cubin on a compute capability 12.0 device: CUDA_ERROR_NO_BINARY_FOR_GPU (cuda.h:2659-2665)",
           cuModuleLoadData(&m90, image(90, 0)->data) == CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT("the sm_120 cubin loads", cuModuleLoadData(&m, image(120, 0)->data) == CUDA_SUCCESS);
  EXPECT("the compute_120 PTX loads", image(120, 1) && cuModuleLoadData(&m90, image(120, 1)->data) == CUDA_SUCCESS);
  for (int k = 0; k < AR_RTC_NKERNELS; k++) {
    CUfunction g = NULL;
    EXPECT(ar_rtc_kernel_names[k], cuModuleGetFunction(&g, m, ar_rtc_kernel_names[k]) == CUDA_SUCCESS && g);
    EXPECT("... and in the PTX", cuModuleGetFunction(&g, m90, ar_rtc_kernel_names[k]) == CUDA_SUCCESS && g);
  }
  EXPECT("an unknown name: CUDA_ERROR_NOT_FOUND (cuda.h:7505-7532)",
         cuModuleGetFunction(&f, m, "_ZN6ar_p2p10p2p_kernelILi7EEEv11ar_p2p_args") == CUDA_ERROR_NOT_FOUND);
  EXPECT("a device function that is no kernel entry: CUDA_ERROR_NOT_FOUND",
         cuModuleGetFunction(&f, m, "$__internal_0_$__cuda_sm20_div_u64") == CUDA_ERROR_NOT_FOUND);
  cuModuleGetFunction(&f, m, ar_rtc_kernel_names[0]);
  size_t off = 1, size = 0;
  EXPECT("parameter 0: the host's ar_p2p_args at offset 0 (cuda.h:17353-17374)",
         cuFuncGetParamInfo(f, 0, &off, &size) == CUDA_SUCCESS && off == 0 && size == sizeof(struct ar_p2p_args));
  EXPECT("no parameter 1: CUDA_ERROR_INVALID_VALUE", cuFuncGetParamInfo(f, 1, &off, &size) == CUDA_ERROR_INVALID_VALUE);
  struct ar_p2p_args a;
  memset(&a, 0, sizeof a);
  void *params[] = {&a}, *extra[] = {NULL};
  EXPECT("kernelParams and extra both: CUDA_ERROR_INVALID_VALUE (cuda.h:17474-17475)",
         cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, params, extra) == CUDA_ERROR_INVALID_VALUE);
  EXPECT("a block of 2048 threads: CUDA_ERROR_INVALID_VALUE",
         cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, NULL, params, NULL) == CUDA_ERROR_INVALID_VALUE);
  EXPECT("a failed driver launch leaves the runtime's last error alone", cudaGetLastError() == cudaSuccess);
  if (n > 1) {
    cudaSetDevice(1);
    EXPECT("a function of device 0's context launched in device 1's: CUDA_ERROR_INVALID_CONTEXT",
           cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL) == CUDA_ERROR_INVALID_CONTEXT);
    cudaSetDevice(0);
  }
  other_fn = f;
  pthread_t t;
  pthread_create(&t, NULL, other_thread, &a);
  pthread_join(t, NULL);
  EXPECT("a thread with no current context: cuModuleLoadData and cuLaunchKernel say CUDA_ERROR_INVALID_CONTEXT",
         other_thread_rc == CUDA_SUCCESS);
  EXPECT("cuGetErrorName names CUDA_ERROR_NO_BINARY_FOR_GPU",
         cuGetErrorName(CUDA_ERROR_NO_BINARY_FOR_GPU, &name) == CUDA_SUCCESS && !strcmp(name, "CUDA_ERROR_NO_BINARY_FOR_GPU"));
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  EXPECT("cudaGetDriverEntryPoint finds cuLaunchKernel",
         cudaGetDriverEntryPoint("cuLaunchKernel", &fn, cudaEnableDefault, &q) == cudaSuccess &&
             q == cudaDriverEntryPointSuccess && fn == (void *)cuLaunchKernel);
  EXPECT("... and no symbol the stand-in lacks",
         cudaGetDriverEntryPoint("cuMemAlloc", &fn, cudaEnableDefault, &q) == cudaSuccess && !fn &&
             q == cudaDriverEntryPointSymbolNotFound);
  printf("%d failed\n", fails);
  return fails ? 1 : 0;
}
