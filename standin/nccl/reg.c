/* reg.c — the NCCL stand-in's buffers: ncclMemAlloc/ncclMemFree (stand-in device memory), buffer registration and
 * windows as NCCL 2.28.9 does them without symmetric-memory support (register/register.cc, dev_runtime.cc). */
#include "standin_nccl.h"
#include "standin.h"
#include <stdio.h>
#include <string.h>

/* ncclMemAlloc's allocations (NCCL's are cuMem; here cudaMalloc): ncclMemFree takes only those. */
#define MAX_MEM 1024
static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static void *mem[MAX_MEM];

SN_API ncclResult_t ncclMemAlloc(void **ptr, size_t size) {
  if (!ptr || !size) {
    SN_WARN("ncclMemAlloc : %s", !ptr ? "ptr argument is NULL" : "size is 0");
    return ncclInvalidArgument;
  }
  cudaError_t e = cudaMalloc(ptr, size);
  if (e != cudaSuccess) {
    SN_WARN("Cuda failure '%s' (ncclMemAlloc of %zu bytes)", cudaGetErrorString(e), size);
    return ncclUnhandledCudaError;
  }
  pthread_mutex_lock(&mem_lock);
  int i = 0;
  while (i < MAX_MEM && mem[i]) i++;
  if (i < MAX_MEM) mem[i] = *ptr;
  pthread_mutex_unlock(&mem_lock);
  if (i == MAX_MEM) {
    cudaFree(*ptr);
    *ptr = NULL;
    SN_WARN("arbench NCCL stand-in: more than %d ncclMemAlloc buffers at once", MAX_MEM);
    return ncclSystemError;
  }
  SN_INFO(SN_ALLOC, "ncclMemAlloc: %zu bytes at %p", size, *ptr);
  return ncclSuccess;
}

SN_API ncclResult_t ncclMemFree(void *ptr) {
  if (!ptr) return ncclSuccess;
  pthread_mutex_lock(&mem_lock);
  int i = 0;
  while (i < MAX_MEM && mem[i] != ptr) i++;
  if (i < MAX_MEM) mem[i] = NULL;
  pthread_mutex_unlock(&mem_lock);
  if (i == MAX_MEM) { /* NCCL's cuMemRetainAllocationHandle fails on memory it did not map */
    SN_WARN("ncclMemFree: %p was not allocated by ncclMemAlloc", ptr);
    return ncclInvalidArgument;
  }
  cudaError_t e = cudaFree(ptr);
  if (e == cudaSuccess) return ncclSuccess;
  SN_WARN("Cuda failure '%s' (ncclMemFree)", cudaGetErrorString(e));
  return ncclUnhandledCudaError;
}

/* ncclRegister: a registration cache entry (NCCL touches no CUDA memory here); the same range twice shares one. */
static ncclResult_t add_reg(ncclComm_t c, void *buff, size_t size, int window, void **handle) {
  ncclResult_t rc = sn_comm_check(c, "ncclCommRegister");
  if (rc) return rc;
  SN_INFO(SN_REG, "register comm %p buffer %p size %zi", (void *)c, buff, size);
  pthread_mutex_lock(&c->lock);
  if (c->nreg == (int)(sizeof c->reg / sizeof c->reg[0])) {
    pthread_mutex_unlock(&c->lock);
    SN_WARN("arbench NCCL stand-in: more than %d registrations on one communicator", c->nreg);
    return ncclSystemError;
  }
  struct sn_reg *r = &c->reg[c->nreg++];
  *r = (struct sn_reg){buff, size, window, 0, 0};
  *handle = r;
  pthread_mutex_unlock(&c->lock);
  return ncclSuccess;
}

static ncclResult_t drop_reg(ncclComm_t c, void *handle) {
  ncclResult_t rc = sn_comm_check(c, "ncclCommRegister");
  if (rc || !handle) return rc;
  pthread_mutex_lock(&c->lock);
  int i = 0;
  while (i < c->nreg && &c->reg[i] != handle) i++;
  if (i == c->nreg) {
    pthread_mutex_unlock(&c->lock);
    SN_WARN("Deregister: Could not find handle");
    return ncclInvalidUsage;
  }
  /* keep handles of the others stable: only the slot is emptied (a zero-sized entry matches nothing) */
  c->reg[i] = (struct sn_reg){NULL, 0, 0, 0, 0};
  while (c->nreg && !c->reg[c->nreg - 1].base) c->nreg--;
  pthread_mutex_unlock(&c->lock);
  return ncclSuccess;
}

SN_API ncclResult_t ncclCommRegister(const ncclComm_t c, void *buff, size_t size, void **handle) {
  if (!handle) {
    SN_WARN("ncclCommRegister : handle argument is NULL");
    return ncclInvalidArgument;
  }
  return add_reg(c, buff, size, 0, handle);
}

SN_API ncclResult_t ncclCommDeregister(const ncclComm_t c, void *handle) { return drop_reg(c, handle); }

/* Is base the start of an ncclMemAlloc allocation (a cuMem allocation: cuMemRetainAllocationHandle succeeds)? */
static int is_cumem(const void *base) {
  pthread_mutex_lock(&mem_lock);
  int i = 0;
  while (i < MAX_MEM && mem[i] != base) i++;
  pthread_mutex_unlock(&mem_lock);
  return i < MAX_MEM;
}

static int window_reached(const struct sn_peer *p, uint64_t v) { return __atomic_load_n(&p->windows, __ATOMIC_ACQUIRE) >= v; }

/* NCCL 2.28.9's ncclDevrWindowRegisterInGroup (src/dev_runtime.cc:578-640): the local registration first; without
 * symmetricSupport (a pair without CUDA P2P, src/init.cc:1376) the window is that registration's handle. With it:
 * the allocation of cuMemGetAddressRange, the window's offset in it a multiple of NCCL_WIN_REQUIRED_ALIGNMENT (4096,
 * nccl.h) or "Window address must be suitably aligned." (ncclInvalidArgument), its cuMem handle
 * (cuMemRetainAllocationHandle: cudaMalloc memory has none, CUDA_ERROR_INVALID_VALUE: ncclUnhandledCudaError), then
 * a bootstrap barrier: every rank must register, or the others wait (until ncclCommAbort). A NULL buffer or a size
 * of 0 registers nothing and leaves *win as it was (src/dev_runtime.cc:902). */
SN_API ncclResult_t ncclCommWindowRegister(ncclComm_t c, void *buff, size_t size, ncclWindow_t *win, int flags) {
  if (!buff || !size) return ncclSuccess;
  void *h = NULL;
  ncclResult_t rc = add_reg(c, buff, size, 1, &h);
  if (rc) return rc;
  ((struct sn_reg *)h)->flags = flags; /* the symmetric kernels need NCCL_WIN_COLL_SYMMETRIC on both (sym.c) */
  if (!c->symmetric) {
    *win = (ncclWindow_t)h;
    return ncclSuccess;
  }
  struct ar_standin_ptr info;
  enum ar_standin_mem k = ar_standin_pointer(buff, 1, &info);
  if (k == AR_STANDIN_DEVICE && (size_t)((char *)buff - info.base) % NCCL_WIN_REQUIRED_ALIGNMENT) {
    SN_WARN("Window address must be suitably aligned.");
    drop_reg(c, h);
    return ncclInvalidArgument;
  }
  if (k != AR_STANDIN_DEVICE || !is_cumem(info.base)) {
    SN_WARN("Cuda failure 1 'invalid argument' (cuMemRetainAllocationHandle of %p: not memory of ncclMemAlloc / "
            "cuMemCreate)", buff);
    drop_reg(c, h);
    return ncclUnhandledCudaError;
  }
  struct sn_reg *r = h;
  r->symmetric = 1;
  uint64_t n = ++c->windows;
  __atomic_store_n(&c->area->peer[c->rank].windows, n, __ATOMIC_RELEASE);
  if (sn_wait_all(c, window_reached, n)) return ncclSuccess; /* aborted meanwhile */
  *win = (ncclWindow_t)h;
  return ncclSuccess;
}

SN_API ncclResult_t ncclCommWindowDeregister(ncclComm_t c, ncclWindow_t win) { return win ? drop_reg(c, win) : ncclSuccess; }
