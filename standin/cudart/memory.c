/* memory.c — the stand-in's memory: each cudaMalloc a memfd (a header page, then the data) that peers map through
 * IPC handles by /proc/PID/fd, opened and freed by CUDA's documented rules; pinned and mapped host memory. */
#include "internal.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define HDR 4096                       /* header page before the data: device pointers are 4096-aligned */
#define MAGIC 0x61726273746e6431ull    /* "arbstnd1" */

/* The header every process mapping an allocation sees (the memfd's first page). */
struct hdr {
  uint64_t magic, id, bytes;
  int32_t owner_pid, device;
  int32_t opens;  /* processes that have it open through IPC (atomic across processes) */
  int32_t freed;  /* the owner called cudaFree */
};

struct alloc {
  enum ar_standin_mem kind;
  char *map;      /* mmap base (the header for device and IPC memory) */
  char *base;     /* what the caller got */
  size_t bytes, map_bytes;
  int fd, device;
  int opened;     /* IPC: cudaIpcOpenMemHandle calls not yet closed in this process */
  uint64_t id;
  struct hdr *h;
  char *view;     /* IPC of a pair whose P2P traffic is lost: map is what kernels get (no access, peer.c), view the
                   * same memory as the stand-in's own copies reach it; NULL otherwise */
};

/* The process's allocations, sorted by base. Under sa.mu. */
static struct alloc *tab;
static size_t ntab, captab;
static uint64_t serial;

static int find(const void *p) {
  size_t lo = 0, hi = ntab;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if ((const char *)p < tab[mid].base) hi = mid;
    else if ((const char *)p >= tab[mid].base + (tab[mid].bytes ? tab[mid].bytes : 1)) lo = mid + 1;
    else return (int)mid;
  }
  return -1;
}

static int insert(const struct alloc *a) {
  if (ntab == captab) {
    size_t cap = captab ? 2 * captab : 64;
    struct alloc *t = realloc(tab, cap * sizeof *t);
    if (!t) return -1;
    tab = t, captab = cap;
  }
  size_t i = ntab;
  while (i > 0 && tab[i - 1].base > a->base) tab[i] = tab[i - 1], i--;
  tab[i] = *a;
  ntab++;
  return 0;
}

static void drop(int i) {
  memmove(&tab[i], &tab[i + 1], (ntab - (size_t)i - 1) * sizeof *tab);
  ntab--;
}

enum ar_standin_mem sa_pointer(const void *p, size_t bytes, struct ar_standin_ptr *info) {
  int i = p ? find(p) : -1;
  struct ar_standin_ptr none = {AR_STANDIN_NOT_OURS, -1, NULL, 0, 0};
  if (i < 0 || (size_t)((const char *)p - tab[i].base) + bytes > tab[i].bytes) {
    if (info) *info = none;
    return AR_STANDIN_NOT_OURS;
  }
  if (info) *info = (struct ar_standin_ptr){tab[i].kind, tab[i].device, tab[i].base, tab[i].bytes, tab[i].id};
  return tab[i].kind;
}

void *sa_host_view(const void *p) {
  int i = p ? find(p) : -1;
  return i >= 0 && tab[i].view ? tab[i].view + ((const char *)p - tab[i].map) : (void *)p;
}

int sa_guarded(const void *p) {
  int i = p ? find(p) : -1;
  return i >= 0 && tab[i].view;
}

enum ar_standin_mem ar_standin_pointer(const void *p, size_t bytes, struct ar_standin_ptr *info) {
  sa_init();
  pthread_mutex_lock(&sa.mu);
  enum ar_standin_mem k = sa_pointer(p, bytes, info);
  pthread_mutex_unlock(&sa.mu);
  return k;
}

/* Every allocation keeps its memfd open (a peer opens it by /proc/PID/fd): lift the soft limit of open files. */
static void more_files(void) {
  static int done;
  struct rlimit r;
  if (done || getrlimit(RLIMIT_NOFILE, &r)) return;
  r.rlim_cur = r.rlim_max;
  setrlimit(RLIMIT_NOFILE, &r);
  done = 1;
}

cudaError_t cudaMalloc(void **p, size_t bytes) {
  sa_init();
  if (!p) return sa_error(cudaErrorInvalidValue);
  *p = NULL;
  pthread_mutex_lock(&sa.mu);
  sa_capture_illegal("cudaMalloc");
  cudaError_t e = sa.sticky;
  pthread_mutex_unlock(&sa.mu);
  if (!e) e = sa_occupy(sa_device()); /* the current device's context (device 0 without a cudaSetDevice) */
  if (e) return sa_error(e);
  if (!bytes) return cudaSuccess;
  if (bytes > SA_MEMORY_BYTES) return sa_error(cudaErrorMemoryAllocation);
  more_files();
  size_t map_bytes = HDR + (bytes + 4095) / 4096 * 4096;
  int fd = memfd_create("arbench-standin-device", MFD_CLOEXEC);
  if (fd < 0) return sa_error(cudaErrorMemoryAllocation);
  char *m = ftruncate(fd, (off_t)map_bytes) ? MAP_FAILED
                                               : mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    close(fd);
    return sa_error(cudaErrorMemoryAllocation);
  }
  struct hdr *h = (struct hdr *)m;
  pthread_mutex_lock(&sa.mu);
  struct alloc a = {AR_STANDIN_DEVICE, m, m + HDR, bytes, map_bytes, fd, sa_device(), 0, 0, h, NULL};
  a.id = ((uint64_t)getpid() << 24) ^ ++serial;
  *h = (struct hdr){MAGIC, a.id, bytes, getpid(), sa_device(), 0, 0};
  int rc = insert(&a);
  pthread_mutex_unlock(&sa.mu);
  if (rc) {
    munmap(m, map_bytes);
    close(fd);
    return sa_error(cudaErrorMemoryAllocation);
  }
  /* fresh device memory is not zero on a GPU: start from a pattern so code that forgets to set it shows */
  memset(m + HDR, 0xa5, bytes);
  *p = m + HDR;
  return cudaSuccess;
}

/* cudaFree waits for the device's queued work (which may still use the memory), then releases it. Freeing memory
 * that a peer process still maps through IPC is undefined (CUDA Runtime API, cudaIpcOpenMemHandle). */
cudaError_t cudaFree(void *p) {
  sa_init();
  sa_context_made();
  if (!p) return cudaSuccess;
  pthread_mutex_lock(&sa.mu);
  sa_capture_illegal("cudaFree");
  int i = find(p);
  if (i < 0 || tab[i].base != p || tab[i].kind != AR_STANDIN_DEVICE) {
    enum ar_standin_mem k = i < 0 ? AR_STANDIN_NOT_OURS : tab[i].kind;
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaFree(%p): %s", p,
                         k == AR_STANDIN_IPC ? "memory opened through IPC (close it with cudaIpcCloseMemHandle)"
                         : k == AR_STANDIN_HOST_PINNED ? "pinned host memory (free it with cudaFreeHost)"
                         : i >= 0 ? "not the start of a cudaMalloc allocation"
                                  : "not memory of cudaMalloc (never allocated, or freed already)");
  }
  sa_sync_device(tab[i].device);
  i = find(p);
  struct alloc a = tab[i];
  int opens = __atomic_load_n(&a.h->opens, __ATOMIC_ACQUIRE);
  if (opens > 0) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaFree(%p) of %zu bytes while %d other process%s still map%s it through CUDA IPC "
                         "(undefined: every importer must cudaIpcCloseMemHandle first)",
                         p, a.bytes, opens, opens == 1 ? "" : "es", opens == 1 ? "s" : "");
  }
  __atomic_store_n(&a.h->freed, 1, __ATOMIC_RELEASE);
  drop(i);
  pthread_mutex_unlock(&sa.mu);
  munmap(a.map, a.map_bytes);
  close(a.fd);
  return cudaSuccess;
}

/* Pinned host memory (page-locked on a GPU machine); with cudaHostAllocMapped also a device pointer, the same
 * address (unified addressing). */
cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned int flags) {
  sa_init();
  if (!p || (flags & ~0x7u)) return sa_error(cudaErrorInvalidValue);
  *p = NULL;
  size_t map_bytes = (bytes ? bytes + 4095 : 4096) / 4096 * 4096;
  char *m = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return sa_error(cudaErrorMemoryAllocation);
  pthread_mutex_lock(&sa.mu);
  struct alloc a = {AR_STANDIN_HOST_PINNED, m, m, bytes ? bytes : 1, map_bytes, -1, -1, 0, 0, NULL, NULL};
  a.id = ((uint64_t)getpid() << 24) ^ ++serial;
  a.opened = (flags & cudaHostAllocMapped) != 0; /* for host memory: mapped into the devices */
  int rc = insert(&a);
  pthread_mutex_unlock(&sa.mu);
  if (rc) {
    munmap(m, map_bytes);
    return sa_error(cudaErrorMemoryAllocation);
  }
  *p = m;
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void *p) {
  sa_init();
  if (!p) return cudaSuccess;
  pthread_mutex_lock(&sa.mu);
  int i = find(p);
  if (i < 0 || tab[i].base != p || tab[i].kind != AR_STANDIN_HOST_PINNED) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaFreeHost(%p): not the start of a cudaHostAlloc allocation", p);
  }
  for (struct sa_stream *s = sa.all; s; s = s->next_all) sa_wait_stream(s, s->queued); /* it synchronises */
  i = find(p);
  struct alloc a = tab[i];
  drop(i);
  pthread_mutex_unlock(&sa.mu);
  munmap(a.map, a.map_bytes);
  return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **dev, void *host, unsigned int flags) {
  sa_init();
  if (!dev || flags) return sa_error(cudaErrorInvalidValue);
  pthread_mutex_lock(&sa.mu);
  int i = find(host);
  int ok = i >= 0 && tab[i].kind == AR_STANDIN_HOST_PINNED && tab[i].opened;
  pthread_mutex_unlock(&sa.mu);
  if (!ok) return sa_error(cudaErrorInvalidValue); /* not mapped pinned memory: CUDA's answer */
  *dev = host;
  return cudaSuccess;
}

/* ---- IPC ---- */

struct handle { /* what cudaIpcMemHandle_t carries */
  uint64_t magic, id, bytes;
  int32_t pid, fd, device;
  int32_t physical; /* the owner's device in the stand-in's numbering (the peer topology's) */
};

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *out, void *p) {
  sa_init();
  if (!out || !p) return sa_error(cudaErrorInvalidValue);
  pthread_mutex_lock(&sa.mu);
  int i = find(p);
  if (i < 0 || tab[i].base != p || tab[i].kind != AR_STANDIN_DEVICE) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaIpcGetMemHandle(%p): %s", p,
                         i < 0 ? "not device memory of this process"
                         : tab[i].kind != AR_STANDIN_DEVICE ? "not memory of this process's cudaMalloc"
                                                            : "not the start of a cudaMalloc allocation");
  }
  struct handle h = {MAGIC, tab[i].id, tab[i].bytes, getpid(), tab[i].fd, tab[i].device, sa.physical[tab[i].device]};
  pthread_mutex_unlock(&sa.mu);
  memset(out, 0, sizeof *out);
  memcpy(out->reserved, &h, sizeof h);
  return cudaSuccess;
}

/* An allocation of this process opened before: the same pointer, counted (CUDA: "the reference count on the
 * handle is incremented by 1 and the existing device pointer is returned"). Under sa.mu. */
static int opened_before(uint64_t id, int guarded) {
  for (size_t i = 0; i < ntab; i++)
    if (tab[i].kind == AR_STANDIN_IPC && tab[i].id == id && !tab[i].view == !guarded) return (int)i;
  return -1;
}

static _Thread_local int through_host; /* ar_standin_ipc_open_host: no peer access needed */

cudaError_t ar_standin_ipc_open_host(void **p, cudaIpcMemHandle_t handle) {
  through_host = 1;
  cudaError_t e = cudaIpcOpenMemHandle(p, handle, cudaIpcMemLazyEnablePeerAccess);
  through_host = 0;
  return e;
}

cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t handle, unsigned int flags) {
  sa_init();
  struct handle h;
  memcpy(&h, handle.reserved, sizeof h);
  if (!p || flags != cudaIpcMemLazyEnablePeerAccess) return sa_error(cudaErrorInvalidValue);
  *p = NULL;
  if (h.magic != MAGIC) ar_standin_violation("cudaIpcOpenMemHandle: not a handle of cudaIpcGetMemHandle");
  if (h.pid == getpid())
    ar_standin_violation("cudaIpcOpenMemHandle of a handle this process exported itself (CUDA: IPC handles are "
                         "opened in another process; use the pointer of cudaMalloc here)");
  /* "cudaDeviceCanAccessPeer can determine if a mapping is possible" (cuda_runtime_api.h:815-820): a device without
   * peer access to the owner's (ARBENCH_STANDIN_NO_P2P) cannot map its memory */
  int mine = sa.physical[sa_device()];
  if (!through_host && h.physical != mine && h.physical >= 0 && h.physical < SA_MAX_DEVICES && sa.p2p[mine][h.physical] == SA_P2P_NONE)
    return sa_error(cudaErrorPeerAccessUnsupported);
  pthread_mutex_lock(&sa.mu);
  if (sa_ipc_failing()) { /* ARBENCH_EMU_IPC_FAIL: as when ACS or the IOMMU keep the peer's memory out of reach */
    pthread_mutex_unlock(&sa.mu);
    return sa_error(cudaErrorMapBufferObjectFailed);
  }
  /* A pair whose P2P traffic ACS loses (ARBENCH_STANDIN_ACS): the mapping is made, but a kernel's load or store
   * through it faults (peer.c; cudaErrorIllegalAddress, driver_types.h:763-775) and copies through it lose their data,
   * as copies over that pair's P2P path do (copy.c). */
  int guarded = !through_host && h.physical != mine && h.physical >= 0 && h.physical < SA_MAX_DEVICES &&
                sa.p2p[mine][h.physical] == SA_P2P_ACS;
  int i = opened_before(h.id, guarded);
  if (i >= 0) {
    tab[i].opened++;
    *p = tab[i].base;
    pthread_mutex_unlock(&sa.mu);
    return cudaSuccess;
  }
  pthread_mutex_unlock(&sa.mu);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)h.pid, (int)h.fd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return sa_error(cudaErrorMapBufferObjectFailed); /* the owner is gone */
  size_t map_bytes = HDR + (h.bytes + 4095) / 4096 * 4096;
  char *m = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  char *k = guarded && m != MAP_FAILED ? mmap(NULL, map_bytes, PROT_NONE, MAP_SHARED, fd, 0) : NULL;
  close(fd);
  if (k == MAP_FAILED) munmap(m, map_bytes), m = MAP_FAILED;
  if (m == MAP_FAILED) return sa_error(cudaErrorMapBufferObjectFailed);
  struct hdr *hd = (struct hdr *)m;
  if (hd->magic != MAGIC || hd->id != h.id || __atomic_load_n(&hd->freed, __ATOMIC_ACQUIRE)) {
    munmap(m, map_bytes);
    if (k) munmap(k, map_bytes);
    ar_standin_violation("cudaIpcOpenMemHandle: the handle's memory (process %d) was freed before this open",
                         (int)h.pid);
  }
  __atomic_fetch_add(&hd->opens, 1, __ATOMIC_ACQ_REL);
  pthread_mutex_lock(&sa.mu);
  struct alloc a = {AR_STANDIN_IPC, m, m + HDR, h.bytes, map_bytes, -1, h.device, 1, h.id, hd, NULL};
  if (k) a.map = k, a.base = k + HDR, a.view = m;
  int rc = insert(&a);
  if (!rc && k && sa_guard_add(k, map_bytes)) drop(find(a.base)), rc = -1;
  pthread_mutex_unlock(&sa.mu);
  if (rc) {
    __atomic_fetch_sub(&hd->opens, 1, __ATOMIC_ACQ_REL);
    munmap(m, map_bytes);
    if (k) munmap(k, map_bytes);
    return sa_error(cudaErrorMemoryAllocation);
  }
  *p = a.base;
  return cudaSuccess;
}

/* The last close of a mapping unmaps it; closing more often than opening, or after the owner freed the memory,
 * is a caller's error. */
cudaError_t cudaIpcCloseMemHandle(void *p) {
  sa_init();
  pthread_mutex_lock(&sa.mu);
  int i = p ? find(p) : -1;
  if (i < 0 || tab[i].kind != AR_STANDIN_IPC || tab[i].base != p) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaIpcCloseMemHandle(%p): not a pointer cudaIpcOpenMemHandle returned in this process "
                         "(closed more often than opened, or never opened)", p);
  }
  if (__atomic_load_n(&tab[i].h->freed, __ATOMIC_ACQUIRE)) {
    pthread_mutex_unlock(&sa.mu);
    ar_standin_violation("cudaIpcCloseMemHandle(%p): its owner already freed the memory while this process still "
                         "mapped it (undefined: the owner must wait until every importer closed it)", p);
  }
  if (--tab[i].opened > 0) {
    pthread_mutex_unlock(&sa.mu);
    return cudaSuccess;
  }
  for (struct sa_stream *s = sa.all; s; s = s->next_all) sa_wait_stream(s, s->queued); /* work may still use it */
  i = find(p);
  struct alloc a = tab[i];
  drop(i);
  if (a.view) sa_guard_drop(a.map);
  __atomic_fetch_sub(&a.h->opens, 1, __ATOMIC_ACQ_REL);
  pthread_mutex_unlock(&sa.mu);
  munmap(a.map, a.map_bytes);
  if (a.view) munmap(a.view, a.map_bytes);
  return cudaSuccess;
}
