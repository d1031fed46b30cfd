/* gpu.c — the GPU hooks of gpu.h with CUDA: device count and why none, one device per rank,
 * the CUDA/NCCL stack this binary was built against and runs with, and the devices it sees. */
#include "ar_config.h"
#include "ar_kernel_report.h"
#include "device/gpu.h"
#include "device/device.h"
#include "backends/nccl/nccl_parse.h"
#include "backends/p2p/rtc_pick.h"
#include "opts.h"
#include <cuda_runtime_api.h>
#include <ctype.h>
#if AR_HAVE_NCCL
#include <nccl.h>
#endif
#if AR_CUDA_EMU
#include "standin.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR_MAX_DEVICES 256

static void cuda_version_str(int v, char *buf, size_t len) { snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10); }

int ar_gpu_count(char *why, size_t len) {
  int n = 0, driver = 0, runtime = 0;
  cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc == cudaSuccess && n > 0) return n;
  cudaGetLastError();
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  char dv[16], rv[16];
  cuda_version_str(driver, dv, sizeof dv);
  cuda_version_str(runtime, rv, sizeof rv);
  if (!driver) snprintf(why, len, "no CUDA device (no NVIDIA driver loaded)");
  else if (rc == cudaErrorInsufficientDriver)
    snprintf(why, len, "CUDA driver too old: driver supports CUDA %s, this runtime is %s", dv, rv);
  else if (rc == cudaErrorNoDevice || (rc == cudaSuccess && n == 0)) snprintf(why, len, "no CUDA device");
  else snprintf(why, len, "no CUDA device (%s)", cudaGetErrorString(rc));
  return 0;
}

/* Check a --devices list against the devices present. */
static int check_list(const char *text, const int *list, int n, int count, int shared, char *err, size_t len) {
  for (int i = 0; i < n; i++) {
    if (list[i] >= count) {
      snprintf(err, len, "bad --devices '%s': device %d does not exist (this node has %d CUDA device%s: 0-%d)",
               text, list[i], count, count == 1 ? "" : "s", count - 1);
      return -AR_EINVAL;
    }
    for (int j = 0; j < i && !shared; j++)
      if (list[j] == list[i]) {
        snprintf(err, len, "bad --devices '%s': device %d listed twice (several ranks on one GPU need --shared-gpu)",
                 text, list[i]);
        return -AR_EINVAL;
      }
  }
  return 0;
}

/* Lower-case PCI bus id of device d ("" when unknown). */
static void busid_of(int d, char *bus, size_t len) {
  *bus = 0;
  if (cudaDeviceGetPCIBusId(bus, (int)len, d) != cudaSuccess) *bus = 0;
  for (char *c = bus; *c; c++) *c = (char)tolower((unsigned char)*c);
}

/* Every local rank's text (len bytes each) gathered over the node: an array of nlocal pointers into
 * one block (free both). Collective over node_comm. */
static char **node_gather(const struct ar_env *env, const char *mine, size_t len, char **block) {
  char *me = calloc(1, len);
  *block = calloc((size_t)env->local_nranks, len);
  char **ptr = calloc((size_t)env->local_nranks, sizeof *ptr);
  if (!me || !*block || !ptr) { /* every rank must take part: no quiet way out */
    fprintf(stderr, "arbench: rank %d: out of memory gathering the node's GPUs\n", env->rank);
    MPI_Abort(env->comm, AR_EXIT_FAIL);
  }
  snprintf(me, len, "%s", mine);
  MPI_Allgather(me, (int)len, MPI_CHAR, *block, (int)len, MPI_CHAR, env->node_comm);
  free(me);
  for (int r = 0; r < env->local_nranks; r++) ptr[r] = *block + (size_t)r * len;
  return ptr;
}

#define AR_VISIBLE_LEN 4096

/* The device of this rank decided from every local rank's visible GPUs (by PCI bus id), so ranks
 * that each see only their own GPU all get one. Collective over the node; -1 when none. */
static int choose(struct ar_env *env, const int *list, int n, int count) {
  char vis[AR_VISIBLE_LEN] = "", bus[32];
  for (int d = 0; d < count; d++) {
    busid_of(d, bus, sizeof bus);
    size_t k = strlen(vis);
    snprintf(vis + k, sizeof vis - k, "%s%s", d ? "," : "", *bus ? bus : "?");
  }
  char *block, **all = node_gather(env, vis, sizeof vis, &block);
  int dev = ar_gpu_assign_visible((const char *const *)all, env->local_nranks, n ? list : NULL, n,
                                  env->opts->shared_gpu, env->local_rank);
  free(all);
  free(block);
  return dev;
}

/* Does another local rank use the same physical GPU (same PCI bus id)? Collective over the node. */
static int shared_by_busid(struct ar_env *env, int dev) {
  char bus[32] = "";
  if (dev >= 0) busid_of(dev, bus, sizeof bus);
  char *block, **all = node_gather(env, bus, sizeof bus, &block);
  int shared = ar_gpu_busid_shared((const char *const *)all, env->local_nranks, env->local_rank);
  free(all);
  free(block);
  return shared;
}

/* Ranks that share a GPU need it to take several processes' contexts: in the Exclusive_Process compute mode the second
 * one's cudaSetDevice fails (cuda_runtime_api.h:1638-1640), in Prohibited every one does (driver_types.h:1834-1837).
 * Said before any rank makes its context, naming the GPU and the way out; 0 when the GPU can be shared. */
static int shareable(const struct ar_env *env, int dev, char *err, size_t len) {
  int mode = cudaComputeModeDefault;
  if (cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev) != cudaSuccess) {
    cudaGetLastError();
    return 0; /* unknown: cudaSetDevice will say */
  }
  if (mode == cudaComputeModeDefault) return 0;
  char bus[32];
  busid_of(dev, bus, sizeof bus);
  snprintf(err, len, "rank %d: GPU %d (%s) is in the %s compute mode, so ranks cannot share it (--shared-gpu): run one "
           "rank per GPU, or set its Default mode (nvidia-smi -i %s -c DEFAULT)", env->rank, dev, *bus ? bus : "?",
           mode == cudaComputeModeExclusiveProcess ? "Exclusive_Process" : mode == cudaComputeModeProhibited
                                                                             ? "Prohibited" : "Exclusive_Thread",
           *bus ? bus : "?");
  return -AR_EINVAL;
}

int ar_gpu_select(struct ar_env *env, char *err, size_t len) {
  const struct ar_opts *o = env->opts;
  int list[AR_MAX_DEVICES], n = 0;
  env->device = -1;
  env->device_shared = 0;
  if (*o->devices && ar_gpu_list_parse(o->devices, list, AR_MAX_DEVICES, &n, err, len)) return -AR_EINVAL;
  char why[AR_ERRLEN];
  int count = ar_gpu_count(why, sizeof why);
  int rc = n && count ? check_list(o->devices, list, n, count, o->shared_gpu, err, len) : 0;
  /* Every rank takes part in both gathers (also one without GPUs or with a bad list): no hang. */
  int dev = choose(env, list, rc ? 0 : n, rc ? 0 : count);
  env->device_shared = shared_by_busid(env, dev);
  if (rc || dev < 0) return rc;
  if (env->device_shared && (rc = shareable(env, dev, err, len))) return rc;
  cudaError_t crc = cudaSetDevice(dev);
  if (crc != cudaSuccess) {
    snprintf(err, len, "rank %d: cudaSetDevice(%d) failed: %s", env->rank, dev, cudaGetErrorString(crc));
    return -AR_ERUNTIME;
  }
  env->device = dev;
  return 0;
}

static json_t *str_or_null(const char *s) { return s && *s ? json_string(s) : json_null(); }

/* How the custom allreduce kernels (p2p-*, fused) got into this binary: "nvcc", "nvrtc" (cubins embedded, loaded
 * at run time; archs: the cubins'), or null (not compiled in). */
static json_t *custom_kernels(void) {
#if AR_HAVE_RTC /* a CUDA stack's NVRTC, or the stand-in build without nvcc (its cubins from the real NVRTC) */
  char archs[128] = "";
  size_t at = 0;
  for (int i = 0; i < ar_rtc_nimages && at < sizeof archs; i++)
    at += (size_t)snprintf(archs + at, sizeof archs - at, "%s%s_%d", i ? "," : "", ar_rtc_images[i].ptx ? "compute" : "sm",
                           ar_rtc_images[i].arch);
  return json_pack("{s:s, s:s, s:s}", "compiler", "nvrtc", "archs", archs, "load",
                   AR_CUDA_EMU ? "loaded at run time (the CPU stand-in of the CUDA driver API: the images checked, "
                                 "the kernels' source run on CPU threads)"
                               : "loaded at run time (CUDA driver API)");
#elif AR_CUDA_EMU && !AR_HAVE_NVCC
  return json_null(); /* -Dcuda-emu-nvcc=false without NVRTC: a stack without nvcc or NVRTC, on the stand-in */
#elif AR_CUDA_EMU
  return json_pack("{s:s, s:s, s:s}", "compiler", "host-c++", "archs", "the CPU stand-in of CUDA", "load",
                   "linked in, run on CPU threads");
#elif AR_HAVE_NVCC
  return json_pack("{s:s, s:s, s:s}", "compiler", "nvcc", "archs", AR_CUDA_ARCHS, "load", "linked in");
#else
  return json_null();
#endif
}

int ar_gpu_standin(void) { return AR_CUDA_EMU; }

/* The stack's name: -Dstack-name, else derived from the versions; the CPU stand-in's always says so first, so no
 * record of it passes for a GPU stack's. */
static void stack_name(int runtime, const char *nccl, char *name, size_t len) {
#if AR_CUDA_EMU
  (void)runtime, (void)nccl;
  snprintf(name, len, "cuda-standin%s%s", *AR_STACK_NAME ? "-" : "", AR_STACK_NAME);
#else
  if (*AR_STACK_NAME) snprintf(name, len, "%s", AR_STACK_NAME);
  else snprintf(name, len, "cu%d%d-nccl%s", runtime / 1000, runtime % 1000 / 10, nccl);
#endif
}

json_t *ar_stack_describe(void) {
  int runtime = 0, driver = 0, loaded = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  char rv[16], cv[16], dv[16] = "", nc[32] = "", nl[32] = "", name[96], warn[256] = "";
#if AR_HAVE_NCCL
  ncclGetVersion(&loaded);
  ar_nccl_code_str(ar_nccl_code(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH), nc, sizeof nc);
#endif
  cuda_version_str(runtime, rv, sizeof rv);
  cuda_version_str(CUDART_VERSION, cv, sizeof cv);
  if (driver) cuda_version_str(driver, dv, sizeof dv);
  if (loaded) ar_nccl_code_str(loaded, nl, sizeof nl);
  stack_name(runtime, *nl ? nl : nc, name, sizeof name);
  if (*nl && strcmp(nl, nc))
    snprintf(warn, sizeof warn, "loaded NCCL %s differs from the headers this binary was built with (%s)", nl, nc);
  else if (driver && driver < runtime)
    snprintf(warn, sizeof warn, "CUDA driver %s is older than the runtime %s", dv, rv);
  json_t *st = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:b, s:s, s:s}", "name", name, "cuda_runtime", rv,
                         "cuda_compiled", cv, "cuda_driver", str_or_null(dv), "nccl_compiled", str_or_null(nc),
                         "nccl_loaded", str_or_null(nl),
                         "archs", str_or_null(AR_HAVE_NVCC && !AR_CUDA_EMU ? AR_CUDA_ARCHS : ""),
                         "kernels", AR_HAVE_NVCC, "cuda_home", AR_CUDA_HOME, "nccl_home", AR_NCCL_HOME);
  if (*warn) json_object_set_new(st, "warning", json_string(warn));
#if AR_CUDA_EMU /* what the records' readers test (ar_rec_standin): the stand-ins this stack is made of */
  json_t *standin = json_pack("{s:s}", "cuda", ar_standin_describe());
#ifdef AR_NCCL_STANDIN_DESCRIBE /* the NCCL stand-in's nccl.h: "nccl-standin (mimics 2.28.9)"; the release its knob */
  char sn[64];                    /* (ARBENCH_STANDIN_NCCL_VERSION) models is the one ncclGetVersion says */
  snprintf(sn, sizeof sn, "nccl-standin (mimics %s)", *nl ? nl : nc);
  json_object_set_new(standin, "nccl", json_string(sn));
#endif
  json_object_set_new(st, "standin", standin);
  json_object_set_new(st, "cuda_home", json_null());
  json_object_set_new(st, "nccl_home", json_null());
#endif
  json_object_set_new(st, "custom_kernels", custom_kernels());
  /* How this stack's compiler built each kernel per arch (kernels/meson.build); null if unreadable. */
  json_object_set_new(st, "kernel_build", json_loads(AR_KERNEL_REPORT, 0, NULL));
  return st;
}

json_t *ar_gpu_describe(void) {
  json_t *a = json_array();
  char why[AR_ERRLEN];
  int n = ar_gpu_count(why, sizeof why);
  for (int d = 0; d < n; d++) {
    struct cudaDeviceProp p;
    char bus[32] = "", cc[16];
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    busid_of(d, bus, sizeof bus);
    snprintf(cc, sizeof cc, "%d.%d", p.major, p.minor);
    json_array_append_new(a, json_pack("{s:i, s:s, s:s, s:s, s:I, s:I}", "index", d, "name", p.name, "busid", bus,
                                       "cc", cc, "memory_bytes", (json_int_t)p.totalGlobalMem, "l2_bytes",
                                       (json_int_t)p.l2CacheSize));
  }
  return a;
}
