/* standin.cu — the CPU stand-in of the CUDA runtime (standin/cudart/) on its own: each use CUDA documents as the
 * caller's error ends the process with its one line, each documented answer (not ready, invalid handle...), stream
 * order, events, graphs, IPC across two processes, the fault hooks, kernels on the fiber runner. Every case runs in a
 * child process; the parent checks its exit status and stderr. */
#include <cuda_runtime.h>
#include "standin.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int fails;
#define CHECK(c, ...)                                                                                                \
  do {                                                                                                               \
    if (!(c)) {                                                                                                      \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                          \
      fprintf(stderr, __VA_ARGS__);                                                                                  \
      fputc('\n', stderr);                                                                                           \
      _exit(1);                                                                                                      \
    }                                                                                                                \
  } while (0)
#define OK(call) CHECK((call) == cudaSuccess, "%s: %s", #call, cudaGetErrorString(cudaGetLastError()))

/* ---- kernels (the host compiler builds them; the stand-in's runner runs them) ---- */
__global__ void add_one(int *p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] += 1;
}
/* Block sum through shared memory and a barrier; warp shuffles too. */
__global__ void block_sum(const int *in, int *out) {
  AR_SHARED_ARRAY(int, part, 32);
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (unsigned w = 0; w < blockDim.x / 32; w++) s += part[w];
    out[blockIdx.x] = s;
  }
}
/* Half a warp at the block's barrier, the other half at a shuffle of the whole warp: neither can complete, a kernel
 * bug the runner must name, not hang on. (Threads that exited count as arrived, as on the GPU.) */
__global__ void divergent(int *p) {
  int v = (int)threadIdx.x;
  if (threadIdx.x < 16) __syncthreads();
  else v = __shfl_xor_sync(0xffffffffu, v, 1);
  p[threadIdx.x] = v;
}

/* A template kernel: its launch is named as ptxas names the instance, `regs_tmpl<3>` (cu2cc.py). */
template <int N> __global__ void regs_tmpl(int *p) { p[threadIdx.x] = N; }
__global__ void unlisted(int *p) { p[threadIdx.x] = 1; }

/* ---- one case per child ---- */
static void dev_alloc(void **p, size_t n) { OK(cudaMalloc(p, n)); }

static void c_own_handle(void) {
  void *p;
  cudaIpcMemHandle_t h;
  dev_alloc(&p, 4096);
  OK(cudaIpcGetMemHandle(&h, p));
  void *q;
  cudaIpcOpenMemHandle(&q, h, cudaIpcMemLazyEnablePeerAccess);
}

static void c_free_non_device(void) {
  int x;
  cudaFree(&x);
}

static void c_memset_host(void) {
  static int x[64];
  cudaMemset(x, 0, sizeof x);
}

static void c_kind_mismatch(void) {
  static int host[16];
  int other[16];
  cudaMemcpy(other, host, sizeof host, cudaMemcpyHostToDevice);
}

static void c_past_end(void) {
  void *p;
  static char host[8192];
  dev_alloc(&p, 4096);
  cudaMemcpy(p, host, 8192, cudaMemcpyHostToDevice);
}

static void c_event_other_device(void) {
  cudaEvent_t e;
  cudaStream_t s;
  OK(cudaSetDevice(1));
  OK(cudaEventCreate(&e));
  OK(cudaSetDevice(0));
  OK(cudaStreamCreate(&s));
  cudaEventRecord(e, s);
}

static void c_sync_in_capture(void) {
  cudaStream_t s;
  OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  cudaStreamSynchronize(s);
}

static void c_malloc_in_capture(void) {
  cudaStream_t s;
  void *p;
  OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaMalloc(&p, 64);
}

static void c_destroyed_stream(void) {
  cudaStream_t s;
  OK(cudaStreamCreate(&s));
  OK(cudaStreamDestroy(s));
  cudaStreamQuery(s);
}

static void c_deadlock(void) {
  int *p;
  dev_alloc((void **)&p, 64 * sizeof *p);
  divergent<<<1, 32>>>(p);
  cudaDeviceSynchronize();
}

/* Documented answers: never recorded -> invalid handle; recorded, not complete -> not ready (a hung stream:
 * ARBENCH_EMU_HANG's state, so no timing decides); reversed -> negative; a never recorded event is complete. */
static void c_events(void) {
  ar_standin_faults(ar_standin_world_rank(), -1, -1);
  cudaEvent_t a, b, c;
  cudaStream_t hung, ok;
  float ms = 0;
  OK(cudaEventCreate(&a));
  OK(cudaEventCreate(&b));
  OK(cudaEventCreate(&c));
  CHECK(cudaEventElapsedTime(&ms, a, b) == cudaErrorInvalidResourceHandle, "never recorded");
  CHECK(cudaEventQuery(c) == cudaSuccess, "a never recorded event is complete");
  OK(cudaStreamCreateWithFlags(&hung, cudaStreamNonBlocking));
  OK(cudaEventRecord(a, hung));
  OK(cudaEventRecord(b, hung));
  CHECK(cudaEventQuery(b) == cudaErrorNotReady, "recorded on a hung stream: not ready");
  CHECK(cudaStreamQuery(hung) == cudaErrorNotReady, "hung stream: not ready");
  CHECK(cudaEventElapsedTime(&ms, a, b) == cudaErrorNotReady, "elapsed time before completion");
  ar_standin_faults(-1, -1, -1); /* the legacy stream and created streams run again */
  OK(cudaStreamCreate(&ok));
  OK(cudaEventRecord(a, ok));
  OK(cudaEventRecord(b, ok));
  OK(cudaEventSynchronize(b));
  OK(cudaEventElapsedTime(&ms, a, b));
  CHECK(ms >= 0, "forward: %g", ms);
  OK(cudaEventRecord(b, ok));
  OK(cudaEventRecord(a, ok));
  OK(cudaStreamSynchronize(ok));
  OK(cudaEventElapsedTime(&ms, a, b));
  CHECK(ms < 0, "reversed: %g ms, not negative", ms);
  cudaEvent_t nt;
  OK(cudaEventCreateWithFlags(&nt, cudaEventDisableTiming));
  OK(cudaEventRecord(nt, ok));
  OK(cudaStreamSynchronize(ok));
  CHECK(cudaEventElapsedTime(&ms, a, nt) == cudaErrorInvalidResourceHandle, "without timing");
}

/* A hung created stream never writes; the legacy stream still does (ARBENCH_EMU_HANG's rule); a synchronous copy
 * from pageable memory is staged, so the caller may change its buffer at once. */
static void c_order(void) {
  ar_standin_faults(ar_standin_world_rank(), -1, -1);
  int *d, h[256], back[256];
  dev_alloc((void **)&d, sizeof h);
  for (int i = 0; i < 256; i++) h[i] = i;
  cudaStream_t hung;
  OK(cudaStreamCreateWithFlags(&hung, cudaStreamNonBlocking));
  OK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  for (int i = 0; i < 256; i++) h[i] = -1; /* staged: the copy has its own */
  OK(cudaMemsetAsync(d, 0, sizeof h, hung)); /* never runs */
  OK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 256; i++) CHECK(back[i] == i, "element %d: %d", i, back[i]);
  add_one<<<2, 64>>>(d, 256);
  OK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost)); /* legacy order: after the kernel */
  for (int i = 0; i < 256; i++) CHECK(back[i] == i + 1, "after the kernel, element %d: %d", i, back[i]);
}

/* Kernels on the runner: a grid larger than one wave, shuffles and a barrier, graphs replaying a capture. */
static void c_kernels(void) {
  int *in, *out, h[1024], o[8];
  for (int i = 0; i < 1024; i++) h[i] = i % 7 - 3;
  dev_alloc((void **)&in, sizeof h);
  dev_alloc((void **)&out, sizeof o);
  OK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  block_sum<<<8, 128>>>(in, out);
  OK(cudaGetLastError());
  OK(cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost));
  for (int b = 0; b < 8; b++) {
    int want = 0;
    for (int i = 0; i < 128; i++) want += h[b * 128 + i];
    CHECK(o[b] == want, "block %d: %d, want %d", b, o[b], want);
  }
  int *big;
  dev_alloc((void **)&big, 300000 * sizeof *big);
  OK(cudaMemset(big, 0, 300000 * sizeof *big));
  add_one<<<2000, 256>>>(big, 300000); /* 2000 blocks: 63 waves of 32 */
  cudaStream_t s;
  cudaGraph_t g;
  cudaGraphExec_t x;
  OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  OK(cudaDeviceSynchronize());
  OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  add_one<<<3, 96, 0, s>>>(big, 300000);
  add_one<<<1, 32, 0, s>>>(big, 300000);
  OK(cudaStreamEndCapture(s, &g));
  OK(cudaGraphInstantiate(&x, g, 0));
  OK(cudaGraphUpload(x, s));
  OK(cudaGraphDestroy(g));
  for (int r = 0; r < 3; r++) OK(cudaGraphLaunch(x, s));
  OK(cudaStreamSynchronize(s));
  int *hb = (int *)malloc(300000 * sizeof *hb);
  OK(cudaMemcpy(hb, big, 300000 * sizeof *hb, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 300000; i++) CHECK(hb[i] == 7, "element %d: %d, want 1 + 3 replays x 2", i, hb[i]);
  OK(cudaGraphExecDestroy(x));
  free(hb);
}

/* Event records inside a capture (cuda_runtime_api.h, cudaEventRecordWithFlags): a plain record is capture state, no
 * node, so the graph's launches never record it and a query after them is cudaErrorCapturedEvent (captured-plain);
 * cudaEventRecordExternal is a node each launch records (captured-external); other flags are cudaErrorInvalidValue. */
static void capture_record(unsigned flags) {
  int *p;
  dev_alloc((void **)&p, 64 * sizeof *p);
  cudaStream_t s;
  cudaEvent_t ev;
  cudaGraph_t g;
  cudaGraphExec_t x;
  OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  OK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  add_one<<<1, 64, 0, s>>>(p, 64);
  OK(flags ? cudaEventRecordWithFlags(ev, s, flags) : cudaEventRecord(ev, s));
  OK(cudaStreamEndCapture(s, &g));
  OK(cudaGraphInstantiate(&x, g, 0));
  OK(cudaGraphLaunch(x, s));
  OK(cudaStreamSynchronize(s));
  CHECK(cudaEventQuery(ev) == cudaSuccess, "the external record was not replayed by the launch");
  CHECK(cudaEventRecordWithFlags(ev, s, 0x4) == cudaErrorInvalidValue, "flags 0x4 accepted");
  CHECK(cudaGetLastError() == cudaErrorInvalidValue, "no last error");
  OK(cudaGraphExecDestroy(x));
  OK(cudaGraphDestroy(g));
}
static void c_captured_plain(void) { capture_record(cudaEventRecordDefault); }
static void c_captured_external(void) { capture_record(cudaEventRecordExternal); }

/* ---- IPC across two processes ---- */
static void put(int fd, const void *p, size_t n) { CHECK(write(fd, p, n) == (ssize_t)n, "pipe write"); }
static void get(int fd, void *p, size_t n) { CHECK(read(fd, p, n) == (ssize_t)n, "pipe read"); }
static const char *self_exe;

/* The importer, a process of its own (exec'd: a fork would not have the owner's stream threads): opens the handle
 * read from fd `in` twice (one pointer, counted), writes 41 into its second int, says so on `out`, waits for a word,
 * then closes as `mode` says: 0 and 3 by the rules (3: once more), 4: under ARBENCH_EMU_IPC_FAIL the open fails. */
static int importer(int mode, int in, int out) {
  cudaIpcMemHandle_t h;
  get(in, &h, sizeof h);
  if (mode == 4) {
    ar_standin_faults(-1, -1, ar_standin_world_rank());
    void *x;
    return cudaIpcOpenMemHandle(&x, h, cudaIpcMemLazyEnablePeerAccess) == cudaErrorMapBufferObjectFailed ? 0 : 1;
  }
  int *a, *b, v = 41;
  char go;
  if (mode == 5) { /* device 1 of the pair 0-1 whose P2P traffic is lost (ARBENCH_STANDIN_ACS) */
    OK(cudaSetDevice(1));
    OK(cudaIpcOpenMemHandle((void **)&a, h, cudaIpcMemLazyEnablePeerAccess));
    OK(cudaMemcpy(a + 1, &v, sizeof v, cudaMemcpyHostToDevice)); /* over the P2P path: lost */
    add_one<<<1, 32>>>(a, 32);                                     /* the kernel's first load faults */
    OK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress, "a kernel reading across the ACS pair ran");
    CHECK(cudaMalloc((void **)&b, 64) == cudaErrorIllegalAddress, "the illegal address is not sticky");
    put(out, "o", 1);
    return read(in, &go, 1) == 1 ? 0 : 1;
  }
  OK(cudaIpcOpenMemHandle((void **)&a, h, cudaIpcMemLazyEnablePeerAccess));
  OK(cudaIpcOpenMemHandle((void **)&b, h, cudaIpcMemLazyEnablePeerAccess));
  CHECK(a == b, "a second open of a handle gives the same pointer");
  OK(cudaMemcpy(a + 1, &v, sizeof v, cudaMemcpyHostToDevice));
  OK(cudaDeviceSynchronize());
  put(out, "o", 1);
  if (read(in, &go, 1) != 1) return 0; /* the owner is gone (its own violation ended it) */
  if (mode == 0 || mode == 3) {
    OK(cudaIpcCloseMemHandle(a));
    OK(cudaIpcCloseMemHandle(b));
  }
  if (mode == 3) cudaIpcCloseMemHandle(a); /* once more than opened: a violation */
  put(out, "c", 1);
  return 0;
}

/* The owner (this process) and an importer: mode 0 by the rules (data both ways, the owner frees after the importer
 * closed); 1: the owner frees while the importer maps; 3: the importer closes once more than it opened;
 * 4: ARBENCH_EMU_IPC_FAIL on the importer; 5: the importer on device 1 of a pair whose P2P traffic is lost (a copy
 * through the mapping does not arrive, a kernel's load faults: cudaErrorIllegalAddress, sticky). */
static void ipc(int mode) {
  int *p, down[2], up[2];
  dev_alloc((void **)&p, 4096);
  OK(cudaMemset(p, 0, 4096));
  OK(cudaDeviceSynchronize());
  cudaIpcMemHandle_t h;
  OK(cudaIpcGetMemHandle(&h, p));
  CHECK(!pipe(down) && !pipe(up), "pipe");
  pid_t kid = fork();
  if (kid == 0) {
    char m[16], i[16], o[16];
    snprintf(m, sizeof m, "%d", mode), snprintf(i, sizeof i, "%d", down[0]), snprintf(o, sizeof o, "%d", up[1]);
    close(down[1]), close(up[0]); /* the owner's ends: a gone owner is then an end of file here */
    if (mode == 5) dup2(open("/dev/null", O_WRONLY), 2); /* the stand-in's lines about the fault: not this case's */
    execl("/proc/self/exe", self_exe, "importer", m, i, o, (char *)NULL);
    _exit(127);
  }
  close(down[0]), close(up[1]);
  put(down[1], &h, sizeof h);
  char c;
  int st;
  if (mode != 4) {
    get(up[0], &c, 1);
    int back[2];
    OK(cudaMemcpy(back, p, sizeof back, cudaMemcpyDeviceToHost));
    CHECK(back[1] == (mode == 5 ? 0 : 41), "the importer's write: %d", back[1]);
    if (mode == 1) cudaFree(p); /* the importer still maps it: the owner's violation */
    put(down[1], "g", 1);
  }
  waitpid(kid, &st, 0);
  CHECK(WIFEXITED(st), "importer died by a signal");
  if (WEXITSTATUS(st)) _exit(WEXITSTATUS(st)); /* its violation is this case's outcome */
  if (mode == 0) OK(cudaFree(p)); /* after the importer closed: fine */
}

static void c_ipc_ok(void) { ipc(0); }
static void c_ipc_free_mapped(void) { ipc(1); }
static void c_ipc_close_twice(void) { ipc(3); }
static void c_ipc_fail(void) { ipc(4); }
static void c_ipc_acs(void) {
  setenv("ARBENCH_STANDIN_ACS", "0-1", 1);
  ipc(5);
}

/* A launch into a stream of another device than the current one fails (issue 48); a copy there is fine. */
static void c_launch_other_device(void) {
  cudaStream_t s;
  int *p;
  OK(cudaSetDevice(1));
  OK(cudaStreamCreate(&s));
  dev_alloc((void **)&p, 64 * sizeof *p);
  OK(cudaSetDevice(0));
  add_one<<<1, 64, 0, s>>>(p, 64);
  CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle, "a launch into device 1's stream from device 0 ran");
  OK(cudaSetDevice(1));
  add_one<<<1, 64, 0, s>>>(p, 64);
  OK(cudaGetLastError());
  OK(cudaStreamSynchronize(s));
}

/* A block needs its warps' registers (256-register units, the warps rounded up to 4 sub-partitions) within the 65536
 * of a block (cuda_occupancy.h cudaOccMaxBlocksPerSMRegsLimit); beyond, cudaErrorLaunchOutOfResources, not sticky. */
static void c_registers(void) {
  setenv("ARBENCH_STANDIN_REGS", "add_one=65;block_sum=64;regs_tmpl<3>=200", 1);
  int *p, h[1024];
  dev_alloc((void **)&p, sizeof h);
  OK(cudaMemset(p, 0, sizeof h));
  add_one<<<1, 896>>>(p, 1024); /* 28 warps x 2304 = 64512 */
  OK(cudaGetLastError());
  add_one<<<1, 928>>>(p, 1024); /* 29 -> 32 warps x 2304 = 73728 */
  CHECK(cudaGetLastError() == cudaErrorLaunchOutOfResources, "928 threads x 65 registers launched");
  block_sum<<<1, 1024>>>(p, p); /* 32 x 2048 = 65536: exactly the limit */
  OK(cudaGetLastError());
  OK(cudaDeviceSynchronize()); /* not sticky */
  regs_tmpl<3><<<1, 256>>>(p); /* 8 warps x 6400 = 51200 */
  OK(cudaGetLastError());
  regs_tmpl<3><<<1, 320>>>(p); /* 10 warps fit 64000, but the hardware check rounds to 12: 76800 */
  CHECK(cudaGetLastError() == cudaErrorLaunchOutOfResources, "320 threads x 200 registers launched");
  OK(cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(h[0] == 3 && h[255] == 3 && h[256] == 1 && h[1023] == 1, "the launches that fit did not run as wanted: %d %d %d %d",
        h[0], h[255], h[256], h[1023]);
}

/* Exclusive_Process compute mode: a device whose context another process holds refuses cudaSetDevice and cudaMalloc
 * (cudaErrorDevicesUnavailable, cuda_runtime_api.h:1638-1640); another device is free. The contender is a fresh
 * process (exec): a forked one would inherit the holder's state. */
static void c_exclusive(void) {
  char job[64];
  snprintf(job, sizeof job, "emu-standin-%d", (int)getpid()); /* this case's own devices */
  setenv("PMIX_NAMESPACE", job, 1);
  setenv("ARBENCH_STANDIN_COMPUTE_MODE", "exclusive-process", 1);
  int mode = -1, *p;
  OK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0));
  CHECK(mode == cudaComputeModeExclusiveProcess, "compute mode %d", mode);
  OK(cudaSetDevice(0));
  dev_alloc((void **)&p, 64);
  OK(cudaSetDevice(0)); /* this process holds it: again is fine */
  pid_t kid = fork();
  if (kid == 0) {
    execl("/proc/self/exe", self_exe, "contender", (char *)NULL);
    _exit(127);
  }
  int st;
  waitpid(kid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the contender for device 0 exited %d", st);
}

static int contender(void) {
  int *p;
  CHECK(cudaSetDevice(0) == cudaErrorDevicesUnavailable, "a second process took device 0 in Exclusive_Process mode");
  CHECK(cudaMalloc((void **)&p, 64) == cudaErrorDevicesUnavailable, "cudaMalloc on the default device 0 was not refused");
  OK(cudaSetDevice(1));
  dev_alloc((void **)&p, 64);
  return 0;
}

/* A kernel with no register count: the table is stale, loud. */
static void c_registers_unknown(void) {
  int *p;
  dev_alloc((void **)&p, 64 * sizeof *p);
  unlisted<<<1, 32>>>(p);
}

/* ARBENCH_EMU_CORRUPT: a device-to-device copy of 64 bytes or more flips the lowest bit of its middle word. */
static void c_corrupt(void) {
  ar_standin_faults(-1, ar_standin_world_rank(), -1);
  int *a, *b, h[64], back[64];
  for (int i = 0; i < 64; i++) h[i] = 2 * i;
  dev_alloc((void **)&a, sizeof h);
  dev_alloc((void **)&b, sizeof h);
  OK(cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice));
  OK(cudaMemcpy(b, a, sizeof h, cudaMemcpyDeviceToDevice));
  OK(cudaDeviceSynchronize());
  ar_standin_faults(-1, -1, -1);
  OK(cudaMemcpy(back, b, sizeof back, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++) CHECK(back[i] == (i == 32 ? 65 : 2 * i), "element %d: %d", i, back[i]);
}

/* ---- the harness ---- */
static void run(const char *name, void (*fn)(void), int want_status, const char *want_err) {
  int err[2];
  if (pipe(err)) exit(2);
  fflush(stdout);
  pid_t kid = fork();
  if (kid == 0) {
    dup2(err[1], 2);
    close(err[0]);
    fn();
    _exit(0);
  }
  close(err[1]);
  char buf[8192] = "";
  size_t got = 0;
  ssize_t n;
  while ((n = read(err[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)n;
  buf[got] = 0;
  close(err[0]);
  int st;
  waitpid(kid, &st, 0);
  int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  int lines = 0;
  for (char *c = buf; *c; c++) lines += *c == '\n';
  int ok = status == want_status && (!want_err ? !*buf : strstr(buf, want_err) && lines == 1 &&
                                                          !strncmp(buf, "arbench cuda stand-in: rank 0: ", 31));
  printf("%-24s exit %3d (want %3d)  %s\n", name, status, want_status, ok ? "ok" : "FAIL");
  if (!ok) {
    printf("  stderr: %s\n", *buf ? buf : "(empty)");
    fails++;
  }
}

int main(int argc, char **argv) {
  self_exe = argv[0];
  setenv("OMPI_COMM_WORLD_RANK", "0", 1);
  setenv("ARBENCH_STANDIN_GPUS", "2", 1);
  unsetenv("CUDA_VISIBLE_DEVICES");
  /* this file's kernels are not ptxas's (standin/cudart/registers.tsv): their register counts, as a small kernel's */
  setenv("ARBENCH_STANDIN_REGS", "add_one=16;block_sum=16;divergent=16", 1);
  if (argc == 5 && !strcmp(argv[1], "importer")) return importer(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
  if (argc == 2 && !strcmp(argv[1], "contender")) return contender();
  run("events", c_events, 0, NULL);
  run("order", c_order, 0, NULL);
  run("kernels", c_kernels, 0, NULL);
  run("captured-external", c_captured_external, 0, NULL);
  run("captured-plain", c_captured_plain, 70, "cudaEventQuery of an event last recorded in a stream capture");
  run("ipc", c_ipc_ok, 0, NULL);
  run("ipc-fail-hook", c_ipc_fail, 0, NULL);
  run("ipc-acs-kernel", c_ipc_acs, 0, NULL);
  run("launch-other-device", c_launch_other_device, 0, NULL);
  run("corrupt-hook", c_corrupt, 0, NULL);
  run("registers", c_registers, 0, NULL);
  run("exclusive-process", c_exclusive, 0, NULL);
  run("registers-unknown", c_registers_unknown, 70, "kernel unlisted has no register count in standin/cudart/registers.tsv");
  run("own-handle", c_own_handle, 70, "a handle this process exported itself");
  run("ipc-free-mapped", c_ipc_free_mapped, 70, "while 1 other process still maps it through CUDA IPC");
  run("ipc-close-twice", c_ipc_close_twice, 70, "closed more often than opened");
  run("free-non-device", c_free_non_device, 70, "not memory of cudaMalloc");
  run("memset-host", c_memset_host, 70, "cudaMemset(");
  run("kind-mismatch", c_kind_mismatch, 70, "a pointer is not the memory the kind says");
  run("past-end", c_past_end, 70, "runs past the end of its 4096-byte allocation");
  run("event-other-device", c_event_other_device, 70, "an event of device 1 on a stream of device 0");
  run("sync-in-capture", c_sync_in_capture, 70, "cudaStreamSynchronize on a stream being captured");
  run("malloc-in-capture", c_malloc_in_capture, 70, "cudaMalloc while a stream is being captured");
  run("destroyed-stream", c_destroyed_stream, 70, "not a live stream of this process");
  run("deadlock", c_deadlock, 70, "16 of its threads wait at a __syncthreads that the others never reach");
  printf("%s: %d failed\n", fails ? "FAIL" : "ok", fails);
  return fails ? 1 : 0;
}
