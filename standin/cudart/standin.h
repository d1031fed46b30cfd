/* standin.h — what the CPU stand-in of the CUDA runtime (standin/cudart/) offers the code built on it beyond
 * CUDA's own API: a second stand-in (NCCL) queuing host work in a stream's order, pointer facts, faults, marking. */
#ifndef AR_STANDIN_H
#define AR_STANDIN_H

#include "cuda_runtime_api.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- work in a stream's order (the NCCL stand-in's collectives, as a kernel would run them) ----
 * fn(arg) runs on the stream's worker thread after everything queued before it on that stream (and, for the
 * legacy stream, what CUDA's implicit synchronisation orders before it), before anything queued after it. The
 * stand-in keeps its own copy of arg_bytes of arg (so the caller's may go at once); a stream being captured
 * records it as a graph node, and every replay runs fn on a fresh copy of the recorded bytes. fn returns 0, or
 * a cudaError_t that becomes the process's sticky error (as a faulting kernel's does). what names the work in
 * the stand-in's messages ("ncclAllReduce"). Returns 0 or a cudaError_t (the stream is invalid, or a
 * capture-illegal use). Under ARBENCH_EMU_HANG this rank's created streams never run it. */
typedef int (*ar_standin_work_fn)(void *arg);
cudaError_t ar_standin_enqueue(cudaStream_t stream, ar_standin_work_fn fn, const void *arg, size_t arg_bytes,
                               const char *what);

/* ---- a destructor owned by the graph being captured (NCCL's persistent plans) ----
 * What NCCL does with cudaUserObjectCreate + cudaGraphRetainUserObject(..., cudaGraphUserObjectMove) on the graph
 * cudaStreamGetCaptureInfo names (src/misc/strongstream.cc ncclCudaGraphAddDestructor): the graph captured on
 * stream, and every executable graph instantiated from it, hold a reference; fn(arg) runs once the last of them is
 * destroyed (CUDA's user objects, cuda_runtime_api.h:12725-12759 cudaUserObjectCreate: "Destructor callbacks cannot
 * make CUDA API calls"; here they run on the destroying thread). cudaErrorIllegalState when stream is not being
 * captured. */
cudaError_t ar_standin_capture_keep(cudaStream_t stream, void (*fn)(void *arg), void *arg);

/* ---- the peer topology (ARBENCH_STANDIN_NO_P2P, ARBENCH_STANDIN_ACS; docs/emu.md) ----
 * ar_standin_bus_p2p: what cudaDeviceCanAccessPeer answers between the devices of two PCI bus ids (of
 * cudaDeviceGetPCIBusId, in any process of the node; -1 when one is not a stand-in device). NCCL reads it per pair
 * (src/transport.cc ncclTransportCheckP2pType, cudaP2p). ar_standin_ipc_open_host: cudaIpcOpenMemHandle for a
 * transport that goes through host memory (NCCL's SHM transport between devices without P2P): no peer access
 * needed. */
int ar_standin_bus_p2p(const char *bus_a, const char *bus_b);
cudaError_t ar_standin_ipc_open_host(void **ptr, cudaIpcMemHandle_t handle);

/* ---- pointers ---- */
enum ar_standin_mem {
  AR_STANDIN_NOT_OURS = 0, /* not memory of the stand-in (plain host memory, or garbage) */
  AR_STANDIN_DEVICE,       /* cudaMalloc of this process */
  AR_STANDIN_IPC,          /* another process's cudaMalloc, opened here with cudaIpcOpenMemHandle */
  AR_STANDIN_HOST_PINNED,  /* cudaHostAlloc (cudaHostAllocMapped: also its device pointer, the same address) */
};
struct ar_standin_ptr {
  enum ar_standin_mem kind;
  int device;     /* the device the memory lives on (-1 for host memory) */
  char *base;     /* the allocation (or mapping) holding the pointer, in this process */
  size_t bytes;   /* its size */
  uint64_t id;    /* unique across the node's processes: the same allocation seen by two processes has one id */
};
/* Where p .. p + bytes lies: kind AR_STANDIN_NOT_OURS when not wholly inside one stand-in allocation. Device
 * memory of the stand-in is ordinary shared memory mapped in this process: the pointer itself is the host
 * address a stand-in may read and write (from a stream worker, in the stream's order). */
enum ar_standin_mem ar_standin_pointer(const void *p, size_t bytes, struct ar_standin_ptr *info);

/* ---- the contract ----
 * A use CUDA documents as an error of the caller or as undefined (a handle opened in its own process, a
 * mapping closed more often than opened, memory freed while a peer maps it, a pointer that is not device memory
 * where device memory is needed, an event of another device, a capture-illegal call): one line on stderr
 * "arbench cuda stand-in: rank R: WHAT" and the process aborts. A second stand-in reports its own the same way. */
void ar_standin_violation(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---- faults (bench/run/fault.c's table hands them over: ARBENCH_EMU_HANG, ARBENCH_EMU_CORRUPT, ARBENCH_EMU_IPC_FAIL) ----
 * Each is a world rank or -1; the stand-in compares it with its own (the launcher's OMPI_COMM_WORLD_RANK or
 * PMIX_RANK, 0 without one). */
void ar_standin_faults(int hang_rank, int corrupt_rank, int ipc_fail_rank);
int ar_standin_world_rank(void);

/* ---- marking: what records say (bench/device/gpu.c puts it in stack.standin.cuda) ---- */
const char *ar_standin_describe(void);

#ifdef __cplusplus
}
#endif

#endif
