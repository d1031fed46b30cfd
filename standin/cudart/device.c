/* device.c — the stand-in's devices (ARBENCH_STANDIN_GPUS of them, CUDA_VISIBLE_DEVICES honoured), their
 * attributes and peer access, versions, the per-thread last error and the sticky one, CUDA's error strings. */
#include "internal.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct sa_state sa = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Thread_local int current;          /* cudaSetDevice is per host thread */
static _Thread_local cudaError_t last_err;
static _Thread_local int ctx_current; /* the driver's current context: the current device's primary one, once made */

/* The stand-in's peer topology, over physical device numbers "A-B,C-D": ARBENCH_STANDIN_NO_P2P pairs have no peer
 * access (cudaDeviceCanAccessPeer 0, as across the sockets of many PCIe boxes); ARBENCH_STANDIN_ACS pairs answer 1
 * but lose their peer-to-peer traffic (ACS sends it up to the root complex, where the IOMMU drops it): a copy over
 * the P2P path (peer access enabled) leaves its destination as it was; staged through the host it arrives. */
static void pairs(const char *var, int kind, int total) {
  const char *v = getenv(var);
  for (const char *p = v; p && *p;) {
    char *end;
    long a = strtol(p, &end, 10), b = -1;
    if (end != p && *end == '-') p = end + 1, b = strtol(p, &end, 10);
    if (end == p || a < 0 || b < 0 || a >= total || b >= total || a == b || (*end && *end != ',')) {
      fprintf(stderr, "arbench cuda stand-in: bad %s '%s' (allowed: pairs of devices 0..%d, \"0-2,1-3\")\n", var, v,
              total - 1);
      exit(2);
    }
    sa.p2p[a][b] = sa.p2p[b][a] = (signed char)kind;
    p = *end ? end + 1 : end;
  }
}

int sa_p2p(int a, int b) { return sa.p2p[sa.physical[a]][sa.physical[b]]; }

static int bus_physical(const char *bus) {
  unsigned dom, n, dev, fn;
  if (!bus || sscanf(bus, "%x:%x:%x.%x", &dom, &n, &dev, &fn) != 4 || dom != 0xFFFF || n < 1 || n > SA_MAX_DEVICES)
    return -1;
  return (int)n - 1;
}

int ar_standin_bus_p2p(const char *bus_a, const char *bus_b) {
  sa_init();
  int a = bus_physical(bus_a), b = bus_physical(bus_b);
  if (a < 0 || b < 0) return -1;
  return a != b && sa.p2p[a][b] != SA_P2P_NONE;
}

/* ARBENCH_STANDIN_GPUS=N (1..16, default 4) devices exist; CUDA_VISIBLE_DEVICES=i,j,... picks and orders
 * them (indices only; an entry that is not one ends the list, as CUDA does). */
static void init_once(void) {
  const char *n = getenv("ARBENCH_STANDIN_GPUS");
  int total = n && *n ? atoi(n) : 4;
  if (total < 1 || total > SA_MAX_DEVICES) {
    fprintf(stderr, "arbench cuda stand-in: bad ARBENCH_STANDIN_GPUS '%s' (allowed: 1 to %d devices)\n", n,
            SA_MAX_DEVICES);
    exit(2);
  }
  const char *vis = getenv("CUDA_VISIBLE_DEVICES");
  sa.ndev = 0;
  if (!vis) {
    for (int d = 0; d < total; d++) sa.physical[sa.ndev++] = d;
  } else {
    for (const char *p = vis; *p && sa.ndev < SA_MAX_DEVICES;) {
      char *end;
      long d = strtol(p, &end, 10);
      if (end == p || d < 0 || d >= total || (*end && *end != ',')) break;
      int dup = 0;
      for (int i = 0; i < sa.ndev; i++) dup |= sa.physical[i] == d;
      if (dup) break;
      sa.physical[sa.ndev++] = (int)d;
      p = *end ? end + 1 : end;
    }
  }
  /* ARBENCH_STANDIN_CC=MAJOR.MINOR: the devices' compute capability (default 12.0, registers.tsv's sm_120): which of
   * the NVRTC path's images a device takes and which the driver stand-in refuses (driver.c) */
  const char *cc = getenv("ARBENCH_STANDIN_CC");
  int ma = 12, mi = 0, used = 0;
  if (cc && (sscanf(cc, "%d.%d%n", &ma, &mi, &used) != 2 || cc[used] || ma < 3 || ma > 15 || mi < 0 || mi > 9)) {
    fprintf(stderr, "arbench cuda stand-in: bad ARBENCH_STANDIN_CC '%s' (allowed: MAJOR.MINOR, 3.0 to 15.9, e.g. 9.0)\n", cc);
    exit(2);
  }
  sa.cc_major = ma, sa.cc_minor = mi;
  pairs("ARBENCH_STANDIN_NO_P2P", SA_P2P_NONE, total);
  pairs("ARBENCH_STANDIN_ACS", SA_P2P_ACS, total);
  sa.hang_rank = sa.corrupt_rank = sa.ipc_fail_rank = -1;
  const char *r = getenv("OMPI_COMM_WORLD_RANK");
  if (!r) r = getenv("PMIX_RANK");
  sa.rank = r ? atoi(r) : 0;
  for (int i = 0; i < SA_MAX_SLOTS; i++) sa.slots_used[i] = 0;
  sa.init = 1;
}

void sa_init(void) { pthread_once(&once, init_once); }

int sa_device(void) { return current; }

/* cuda_runtime_api.h:1634-1640: cudaSetDevice makes the device's primary context current to the thread; cudaFree(0),
 * the idiom rtc.c uses, initialises it too. The driver API stand-in (driver.c) works in that context. */
void sa_context_made(void) { ctx_current = 1; }
int sa_context_device(void) { return ctx_current ? current : -1; }

cudaError_t sa_last_error_swap(cudaError_t e) {
  cudaError_t was = last_err;
  last_err = e;
  return was;
}

cudaError_t sa_error(cudaError_t e) {
  if (e != cudaSuccess) last_err = e;
  return e;
}

int ar_standin_world_rank(void) {
  sa_init();
  return sa.rank;
}

/* The sticky error, if a kernel or stream work failed (every call returns it from then on). */
static cudaError_t sticky(void) {
  pthread_mutex_lock(&sa.mu);
  cudaError_t e = sa.sticky;
  pthread_mutex_unlock(&sa.mu);
  return e;
}

int sa_capture_illegal(const char *call) {
  pthread_t me = pthread_self();
  for (struct sa_stream *s = sa.all; s; s = s->next_all)
    if (s->capturing &&
        (s->mode == cudaStreamCaptureModeGlobal ||
         (s->mode == cudaStreamCaptureModeThreadLocal && pthread_equal(s->capturer, me)))) {
      pthread_mutex_unlock(&sa.mu);
      ar_standin_violation("%s while a stream is being captured into a CUDA graph (mode %s): CUDA refuses it and "
                           "invalidates the capture (cudaErrorStreamCaptureUnsupported)",
                           call, s->mode == cudaStreamCaptureModeGlobal ? "global" : "thread-local");
    }
  return 0;
}

/* Under sa.mu. cudaStreamCaptureMode (cuda_runtime_api.h:2536-2546, driver_types.h:1430-1432): a thread in the
 * default mode (Global; arbench's threads never exchange it) is prohibited from potentially unsafe calls while any
 * other thread has a capture begun in Global mode; a ThreadLocal or Relaxed capture binds only its own thread.
 * CUDA refuses the call (cudaErrorStreamCaptureUnsupported) and invalidates that capture: its cudaStreamEndCapture
 * returns cudaErrorStreamCaptureInvalidated. The PyTorch NCCL-watchdog crash: a cudaEventQuery from the watchdog
 * thread while the main thread captured in Global mode. */
cudaError_t sa_capture_other(void) {
  pthread_t me = pthread_self();
  cudaError_t e = cudaSuccess;
  for (struct sa_stream *s = sa.all; s; s = s->next_all)
    if (s->capturing && s->mode == cudaStreamCaptureModeGlobal && !pthread_equal(s->capturer, me)) {
      s->invalidated = 1;
      e = cudaErrorStreamCaptureUnsupported;
    }
  return e;
}

static cudaError_t check_device(int d) { return d >= 0 && d < sa.ndev ? cudaSuccess : cudaErrorInvalidDevice; }

cudaError_t cudaGetDeviceCount(int *count) {
  sa_init();
  if (!count) return sa_error(cudaErrorInvalidValue);
  *count = sa.ndev;
  return sa.ndev ? cudaSuccess : sa_error(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int device) {
  sa_init();
  cudaError_t e = sticky();
  if (e) return sa_error(e);
  if (check_device(device)) return sa_error(cudaErrorInvalidDevice);
  e = sa_occupy(device); /* its primary context, made now (cuda_runtime_api.h:1634-1640) */
  if (e) return sa_error(e);
  current = device;
  ctx_current = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
  sa_init();
  if (!device) return sa_error(cudaErrorInvalidValue);
  *device = current;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
  sa_init();
  if (!value) return sa_error(cudaErrorInvalidValue);
  if (check_device(device)) return sa_error(cudaErrorInvalidDevice);
  int phys = sa.physical[device];
  switch (attr) {
  case cudaDevAttrMaxThreadsPerBlock: case cudaDevAttrMaxBlockDimX: *value = 1024; break;
  case cudaDevAttrMaxGridDimX: *value = 2147483647; break;
  case cudaDevAttrMaxSharedMemoryPerBlock: *value = 48 << 10; break;
  case cudaDevAttrWarpSize: *value = 32; break;
  case cudaDevAttrMultiProcessorCount: *value = SA_SMS; break;
  case cudaDevAttrCanMapHostMemory: case cudaDevAttrConcurrentKernels: case cudaDevAttrUnifiedAddressing:
  case cudaDevAttrIpcEventSupport: *value = 1; break;
  case cudaDevAttrPciBusId: *value = phys + 1; break;
  case cudaDevAttrPciDeviceId: *value = 0; break;
  case cudaDevAttrPciDomainId: *value = 0xffff; break;
  case cudaDevAttrL2CacheSize: *value = SA_L2_BYTES; break;
  case cudaDevAttrMaxThreadsPerMultiProcessor: *value = SA_THREADS_PER_SM; break;
  case cudaDevAttrComputeCapabilityMajor: *value = sa.cc_major; break;
  case cudaDevAttrComputeCapabilityMinor: *value = sa.cc_minor; break;
  case cudaDevAttrComputeMode: *value = sa_compute_mode(); break;
  default: return sa_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device) {
  sa_init();
  if (!p) return sa_error(cudaErrorInvalidValue);
  if (check_device(device)) return sa_error(cudaErrorInvalidDevice);
  memset(p, 0, sizeof *p);
  /* ARBENCH_STANDIN_NAME: the GPU it stands in for, first (what name-matching readers such as the known-bad table
   * see), the stand-in still said: "NVIDIA GeForce RTX 5090 (CPU stand-in of a CUDA device, arbench -Dcuda-emu)". */
  const char *as = getenv("ARBENCH_STANDIN_NAME");
  if (as && *as) snprintf(p->name, sizeof p->name, "%.120s (CPU stand-in of a CUDA device, arbench -Dcuda-emu)", as);
  else snprintf(p->name, sizeof p->name, "CPU stand-in of a CUDA device (arbench -Dcuda-emu)");
  p->totalGlobalMem = SA_MEMORY_BYTES;
  p->sharedMemPerBlock = 48 << 10;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->major = sa.cc_major;
  p->minor = sa.cc_minor;
  p->multiProcessorCount = SA_SMS;
  p->canMapHostMemory = 1;
  p->pciBusID = sa.physical[device] + 1;
  p->pciDomainID = 0xffff;
  p->unifiedAddressing = 1;
  p->l2CacheSize = SA_L2_BYTES;
  p->ipcEventSupported = 1;
  return cudaSuccess;
}

/* "FFFF:0N:00.0": a PCI domain no machine has, so no topology lookup finds the stand-in's devices. */
cudaError_t cudaDeviceGetPCIBusId(char *bus, int len, int device) {
  sa_init();
  if (!bus || len < 13) return sa_error(cudaErrorInvalidValue);
  if (check_device(device)) return sa_error(cudaErrorInvalidDevice);
  snprintf(bus, (size_t)len, "FFFF:%02X:00.0", sa.physical[device] + 1);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *bus) {
  sa_init();
  if (!device || !bus) return sa_error(cudaErrorInvalidValue);
  for (int d = 0; d < sa.ndev; d++) {
    char mine[16];
    cudaDeviceGetPCIBusId(mine, sizeof mine, d);
    if (!strcasecmp(mine, bus)) {
      *device = d;
      return cudaSuccess;
    }
  }
  return sa_error(cudaErrorInvalidDevice);
}

cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer) {
  sa_init();
  if (!can) return sa_error(cudaErrorInvalidValue);
  if (check_device(device) || check_device(peer)) return sa_error(cudaErrorInvalidDevice);
  *can = device != peer && sa_p2p(device, peer) != SA_P2P_NONE; /* the stand-in's topology (pairs() above) */
  return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
  sa_init();
  if (flags) return sa_error(cudaErrorInvalidValue);
  if (check_device(peer) || peer == current) return sa_error(cudaErrorInvalidDevice);
  if (sa_p2p(current, peer) == SA_P2P_NONE) return sa_error(cudaErrorPeerAccessUnsupported);
  pthread_mutex_lock(&sa.mu);
  int was = sa.peer_enabled[current][peer];
  sa.peer_enabled[current][peer] = 1;
  pthread_mutex_unlock(&sa.mu);
  return was ? sa_error(cudaErrorPeerAccessAlreadyEnabled) : cudaSuccess;
}

cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int src, int dst) {
  sa_init();
  if (!value) return sa_error(cudaErrorInvalidValue);
  if (check_device(src) || check_device(dst) || src == dst) return sa_error(cudaErrorInvalidDevice);
  switch (attr) {
  case cudaDevP2PAttrPerformanceRank: *value = 0; break;
  case cudaDevP2PAttrAccessSupported: *value = 1; break;
  case cudaDevP2PAttrNativeAtomicSupported: case cudaDevP2PAttrCudaArrayAccessSupported: *value = 0; break;
  default: return sa_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  sa_init();
  pthread_mutex_lock(&sa.mu);
  sa_capture_illegal("cudaDeviceSynchronize");
  sa_sync_device(current);
  cudaError_t e = sa.sticky;
  pthread_mutex_unlock(&sa.mu);
  return sa_error(e);
}

cudaError_t cudaDriverGetVersion(int *v) {
  if (!v) return sa_error(cudaErrorInvalidValue);
  *v = CUDART_VERSION; /* the stand-in is its own driver */
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v) {
  if (!v) return sa_error(cudaErrorInvalidValue);
  *v = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaGetLastError(void) {
  cudaError_t s = sticky();
  if (s) return s;
  cudaError_t e = last_err;
  last_err = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) {
  cudaError_t s = sticky();
  return s ? s : last_err;
}

static const struct {
  cudaError_t e;
  const char *name, *text;
} errors[] = {
  {cudaSuccess, "cudaSuccess", "no error"},
  {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
  {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
  {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
  {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
  {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
  {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
  {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
  {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
   "CUDA driver version is insufficient for CUDA runtime version"},
  {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
  {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
  {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
  {cudaErrorDevicesUnavailable, "cudaErrorDevicesUnavailable", "CUDA-capable device(s) is/are busy or unavailable"},
  {cudaErrorMapBufferObjectFailed, "cudaErrorMapBufferObjectFailed", "mapping of buffer object failed"},
  {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice",
   "no kernel image is available for execution on the device"},
  {cudaErrorPeerAccessUnsupported, "cudaErrorPeerAccessUnsupported",
   "peer access is not supported between these two devices"},
  {cudaErrorUnsupportedPtxVersion, "cudaErrorUnsupportedPtxVersion",
   "the provided PTX was compiled with an unsupported toolchain."},
  {cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized", "invalid device context"},
  {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
  {cudaErrorIllegalState, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
  {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
  {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
  {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
  {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
  {cudaErrorPeerAccessAlreadyEnabled, "cudaErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
  {cudaErrorPeerAccessNotEnabled, "cudaErrorPeerAccessNotEnabled", "peer access has not been enabled"},
  {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
  {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
  {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported",
   "operation not permitted when stream is capturing"},
  {cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated",
   "operation failed due to a previous error during capture"},
  {cudaErrorStreamCaptureUnmatched, "cudaErrorStreamCaptureUnmatched", "capture was not initiated in this stream"},
  {cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit",
   "operation would make the legacy stream depend on a capturing blocking stream"},
  {cudaErrorCapturedEvent, "cudaErrorCapturedEvent",
   "operation not permitted on an event last recorded in a capturing stream"},
  {cudaErrorStreamCaptureWrongThread, "cudaErrorStreamCaptureWrongThread",
   "attempt to terminate a thread-local capture sequence from another thread"},
  {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const char *cudaGetErrorString(cudaError_t e) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].e == e) return errors[i].text;
  return "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t e) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].e == e) return errors[i].name;
  return "cudaErrorUnknown";
}

/* The stand-in has no driver API: no symbol is found (arbench asks only on NVRTC stacks, rtc.c). */
/* The driver API stand-in's entry points (driver.c) where this build runs the NVRTC path; none elsewhere. */
cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *status) {
  (void)flags;
  if (!fn || !symbol) return sa_error(cudaErrorInvalidValue);
  *fn = sa_driver_entry(symbol);
  if (status) *status = *fn ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned int version,
                                             unsigned long long flags, enum cudaDriverEntryPointQueryResult *status) {
  (void)version;
  return cudaGetDriverEntryPoint(symbol, fn, flags, status);
}

/* Every launcher's kernel runs on every stand-in device (the host compiler built it): there is always an image. */
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *func) {
  sa_init();
  if (!a || !func) return sa_error(cudaErrorInvalidDeviceFunction);
  memset(a, 0, sizeof *a);
  a->maxThreadsPerBlock = 1024;
  a->ptxVersion = a->binaryVersion = 120;
  return cudaSuccess;
}
