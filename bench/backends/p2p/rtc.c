/* rtc.c — ar_cu_p2p / ar_cu_fused (kernels/ar_p2p.h) on stacks without nvcc: load the embedded NVRTC-built images
 * through the CUDA driver API (entry points from the runtime, no link against libcuda) and cuLaunchKernel them. */
#include "agree.h"
#include "ar_config.h"
#include "ar.h"
#include "ar_p2p.h"
#include "backends/p2p/rtc_pick.h"
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The driver API functions used here, by cudaTypedefs.h's types of the versions asked for below. */
typedef PFN_cuModuleLoadData_v2000 ar_pfn_load;
typedef PFN_cuModuleGetFunction_v2000 ar_pfn_getfn;
typedef PFN_cuLaunchKernel_v4000 ar_pfn_launch;
typedef PFN_cuFuncGetParamInfo_v12040 ar_pfn_paraminfo;
typedef PFN_cuGetErrorName_v6000 ar_pfn_errname;

enum { AR_RTC_MAX_DEVICES = 64, AR_RTC_WHY = 256 };

/* What one device has loaded: its module (in the device's primary context) and kernels. */
struct ar_rtc_dev {
  int state; /* 0 = not tried, 1 = loaded, -1 = failed (why) */
  char why[AR_RTC_WHY];
  CUmodule mod;
  CUfunction fn[AR_RTC_NKERNELS];
  ar_pfn_launch launch;
};

/* Process-wide cache, one entry per device. A static is unavoidable here: the launchers' signature
 * (shared with the nvcc build, where the runtime registers its fatbin per process the same way) carries no
 * backend state, and a module belongs to the device's primary context, which lives as long as the process;
 * several backend states (p2p-*, fused) share one load. The mutex guards the first load. */
static struct ar_rtc_dev ar_rtc_devs[AR_RTC_MAX_DEVICES];
static pthread_mutex_t ar_rtc_lock = PTHREAD_MUTEX_INITIALIZER;

/* A driver entry point by name (CUDA 12.0 ABI or newer, per cuda.h of this stack), NULL if the driver lacks it. */
static void *entry(const char *sym, unsigned int version) {
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  cudaError_t e = cudaGetDriverEntryPointByVersion(sym, &fn, version, cudaEnableDefault, &q);
#else
  (void)version;
  cudaError_t e = cudaGetDriverEntryPoint(sym, &fn, cudaEnableDefault, &q);
#endif
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return NULL;
  }
  return fn;
}

/* The device's compute capability as major * 10 + minor; -1 with why when the runtime cannot say. */
static int device_cc(int dev, char *why, size_t len) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
    snprintf(why, len, "cannot read the compute capability of device %d: %s", dev,
             cudaGetErrorString(cudaGetLastError()));
    return -1;
  }
  return major * 10 + minor;
}

int ar_rtc_ready(int dev, char *why, size_t len) {
  int cc = device_cc(dev, why, len);
  if (cc < 0) return -AR_EUNAVAIL;
  return ar_rtc_pick(ar_rtc_images, ar_rtc_nimages, cc, why, len) < 0 ? -AR_EUNAVAIL : 0;
}

/* A driver error by its cuda.h name ("CUDA_ERROR_NO_BINARY_FOR_GPU"), or its number where the driver has none. */
static const char *errname(ar_pfn_errname name, CUresult r, char *buf, size_t len) {
  const char *n = NULL;
  if (name && name(r, &n) == CUDA_SUCCESS && n) return n;
  snprintf(buf, len, "CUDA driver error %d", (int)r);
  return buf;
}

static void load(struct ar_rtc_dev *d, int dev) {
  d->state = -1;
  int cc = device_cc(dev, d->why, sizeof d->why);
  int img = cc < 0 ? -1 : ar_rtc_pick(ar_rtc_images, ar_rtc_nimages, cc, d->why, sizeof d->why);
  if (img < 0) return;
  ar_pfn_load mload = (ar_pfn_load)entry("cuModuleLoadData", 12000);
  ar_pfn_getfn getfn = (ar_pfn_getfn)entry("cuModuleGetFunction", 12000);
  ar_pfn_paraminfo pinfo = (ar_pfn_paraminfo)entry("cuFuncGetParamInfo", 12040); /* optional: driver >= 12.4 */
  ar_pfn_errname ename = (ar_pfn_errname)entry("cuGetErrorName", 12000);
  char num[48];
  d->launch = (ar_pfn_launch)entry("cuLaunchKernel", 12000);
  if (!mload || !getfn || !d->launch) {
    snprintf(d->why, sizeof d->why, "the CUDA driver gives no cuModuleLoadData/cuModuleGetFunction/cuLaunchKernel");
    return;
  }
  /* The module goes into the current context: the device's primary one, made current by cudaSetDevice (and
   * initialised by cudaFree(0)); the caller's current device is given back after the load. */
  int prev = dev;
  if (cudaGetDevice(&prev) != cudaSuccess || cudaSetDevice(dev) != cudaSuccess || cudaFree(NULL) != cudaSuccess) {
    snprintf(d->why, sizeof d->why, "cannot make device %d current: %s", dev, cudaGetErrorString(cudaGetLastError()));
    return;
  }
  const struct ar_rtc_image *im = &ar_rtc_images[img];
  CUresult r = mload(&d->mod, im->data);
  if (prev != dev && cudaSetDevice(prev) != cudaSuccess) cudaGetLastError();
  if (r != CUDA_SUCCESS) {
    snprintf(d->why, sizeof d->why, "cannot load the %s_%d kernel image on device %d (sm_%d): %s",
             im->ptx ? "compute" : "sm", im->arch, dev, cc, errname(ename, r, num, sizeof num));
    return;
  }
  for (int k = 0; k < AR_RTC_NKERNELS; k++) {
    size_t off = 0, size = 0, off1 = 0;
    r = getfn(&d->fn[k], d->mod, ar_rtc_kernel_names[k]);
    if (r != CUDA_SUCCESS) {
      snprintf(d->why, sizeof d->why, "kernel %s not in the %s_%d image: %s", ar_rtc_kernel_names[k],
               im->ptx ? "compute" : "sm", im->arch, errname(ename, r, num, sizeof num));
      return;
    }
    /* The kernels take one struct ar_p2p_args by value (cuLaunchKernel's kernelParams below holds one pointer): the
     * image's parameter 0 must be the host's struct at offset 0, and there must be no parameter 1 (cuda.h:17353-17374:
     * an index past the last one is CUDA_ERROR_INVALID_VALUE). */
    int more = pinfo && pinfo(d->fn[k], 1, &off1, NULL) == CUDA_SUCCESS;
    if (pinfo && pinfo(d->fn[k], 0, &off, &size) == CUDA_SUCCESS &&
        (size != sizeof(struct ar_p2p_args) || off != 0 || more)) {
      snprintf(d->why, sizeof d->why, "kernel %s takes %zu bytes of arguments at offset %zu%s, the host passes one "
               "parameter of %zu (stale build?)", ar_rtc_kernel_names[k], size, off, more ? " and more parameters" : "",
               sizeof(struct ar_p2p_args));
      return;
    }
  }
  __atomic_store_n(&d->state, 1, __ATOMIC_RELEASE); /* published last: get() reads it without the lock */
}

/* The loaded kernels of device dev, loading them on first use; NULL with why when they cannot be. */
static struct ar_rtc_dev *get(int dev, char *why, size_t len) {
  if (dev < 0 || dev >= AR_RTC_MAX_DEVICES) {
    snprintf(why, len, "device %d: at most %d devices supported", dev, AR_RTC_MAX_DEVICES);
    return NULL;
  }
  struct ar_rtc_dev *d = &ar_rtc_devs[dev];
  /* Loaded at backend init; every launch (inside the timed loop) then takes this path without the lock. */
  if (__atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == 1) return d;
  pthread_mutex_lock(&ar_rtc_lock);
  if (!d->state) load(d, dev);
  pthread_mutex_unlock(&ar_rtc_lock);
  if (__atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == 1) return d;
  snprintf(why, len, "%s", d->why);
  return NULL;
}

int ar_rtc_load(int dev, MPI_Comm comm, const char *who, char *err, size_t len) {
  char why[AR_RTC_WHY] = "";
  int bad = get(dev, why, sizeof why) == NULL;
  if (bad) snprintf(err, len, "%s: NVRTC-built kernels: %s", who, why);
  return ar_agree(comm, NULL, bad ? -AR_EUNAVAIL : 0, err, len); /* every rank gives up together */
}

static int launch(int slot, const struct ar_p2p_args *a, int blocks, int threads, void *stream) {
  int dev = 0;
  char why[AR_RTC_WHY];
  if (cudaGetDevice(&dev) != cudaSuccess) return (int)cudaGetLastError();
  struct ar_rtc_dev *d = get(dev, why, sizeof why);
  if (!d) return (int)cudaErrorNoKernelImageForDevice;
  void *params[] = {(void *)a}; /* one by-value parameter: the driver copies *a */
  CUresult r = d->launch(d->fn[slot], (unsigned)blocks, 1, 1, (unsigned)threads, 1, 1, 0, (CUstream)stream, params, NULL);
  /* CUresult and cudaError_t share the codes of launch errors (invalid value, out of resources, ...). */
  return (int)r;
}

int ar_cu_p2p(const struct ar_p2p_args *a, int blocks, int threads, void *stream) {
  int slot = a->dtype >= 0 && a->dtype < AR_RTC_FUSED0 ? a->dtype : 0; /* as the nvcc launcher: else float */
  return launch(slot, a, blocks, threads, stream);
}

int ar_cu_fused(const struct ar_p2p_args *a, int fused, int blocks, int threads, void *stream) {
  return launch(fused ? AR_RTC_FUSED1 : AR_RTC_FUSED0, a, blocks, threads, stream);
}
