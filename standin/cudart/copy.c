/* copy.c — the stand-in's copies and sets: the kinds checked against the pointers, and CUDA's rules of when a call
 * returns (a pageable host source is staged and the copy may still be running; device-to-host waits; sets don't). */
#include "internal.h"
#include <stdlib.h>
#include <string.h>

static const char *kind_name(enum cudaMemcpyKind k) {
  static const char *const n[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
                                  "cudaMemcpyDeviceToDevice", "cudaMemcpyDefault"};
  return (unsigned)k < 5 ? n[k] : "an unknown cudaMemcpyKind";
}

enum side { HOST_PAGEABLE, HOST_PINNED, DEVICE };

/* What p .. p + bytes is; a range that starts inside a stand-in allocation and runs past its end is the
 * illegal access a GPU would fault on. */
static enum side side_of(const void *p, size_t bytes, const char *call, const char *which) {
  struct ar_standin_ptr info;
  pthread_mutex_lock(&sa.mu);
  enum ar_standin_mem k = sa_pointer(p, bytes, &info);
  enum ar_standin_mem first = k == AR_STANDIN_NOT_OURS ? sa_pointer(p, 1, &info) : k;
  pthread_mutex_unlock(&sa.mu);
  if (k == AR_STANDIN_NOT_OURS && first != AR_STANDIN_NOT_OURS)
    ar_standin_violation("%s: %s %p + %zu bytes runs past the end of its %zu-byte allocation at %p", call, which, p,
                         bytes, info.bytes, (void *)info.base);
  return k == AR_STANDIN_DEVICE || k == AR_STANDIN_IPC ? DEVICE : k == AR_STANDIN_HOST_PINNED ? HOST_PINNED
                                                                                                : HOST_PAGEABLE;
}

/* The sides of a copy, checked against its kind (a host pointer where the kind says device memory is the
 * caller's error). Returns the kind resolved (cudaMemcpyDefault inferred from the pointers). */
static enum cudaMemcpyKind check(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, const char *call,
                                 enum side *ds, enum side *ss) {
  if ((unsigned)kind > cudaMemcpyDefault) ar_standin_violation("%s: bad kind %d", call, (int)kind);
  *ds = side_of(dst, bytes, call, "destination");
  *ss = side_of(src, bytes, call, "source");
  enum cudaMemcpyKind real = *ss == DEVICE ? (*ds == DEVICE ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                       : (*ds == DEVICE ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  static const char *const what[] = {"pageable host", "pinned host", "device"};
  if (kind != cudaMemcpyDefault && kind != real)
    ar_standin_violation("%s(%p <- %p, %zu bytes, %s): the destination is %s memory and the source %s memory "
                         "(that is %s): a pointer is not the memory the kind says", call, dst, src, bytes,
                         kind_name(kind), what[*ds], what[*ss], kind_name(real));
  return real;
}

/* A copy through an IPC mapping of a pair whose P2P traffic is lost (memory.c) reaches the memory by the mapping's
 * twin and arrives nowhere, as over that pair's P2P path (peer_op). */
static struct sa_op *copy_op(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind real, const char *what) {
  struct sa_op *op = sa_op_new(SA_COPY, what);
  if (!op) return NULL;
  pthread_mutex_lock(&sa.mu);
  op->u.c.dropped = sa_guarded(dst) || sa_guarded(src);
  op->u.c.dst = sa_host_view(dst);
  op->u.c.src = sa_host_view(src);
  pthread_mutex_unlock(&sa.mu);
  op->u.c.bytes = bytes;
  op->u.c.corruptible = (real == cudaMemcpyDeviceToDevice || real == cudaMemcpyDeviceToHost) && bytes >= 64;
  return op;
}

/* The source as it is now, for a copy that runs later (a synchronous copy from pageable memory returns once the
 * data is staged, CUDA's rule). */
static int stage(struct sa_op *op) {
  void *b = malloc(op->u.c.bytes + 1);
  if (!b) return -1;
  if (op->u.c.height) {
    for (size_t r = 0; r < op->u.c.height; r++)
      memcpy((char *)b + r * op->u.c.width, (const char *)op->u.c.src + r * op->u.c.spitch, op->u.c.width);
    op->u.c.spitch = op->u.c.width;
  } else {
    memcpy(b, op->u.c.src, op->u.c.bytes);
  }
  op->u.c.src = b;
  op->u.c.staged = 1;
  return 0;
}

void sa_run_copy(struct sa_op *op) {
  if (op->u.c.dropped) return;
  if (op->u.c.height) {
    for (size_t r = 0; r < op->u.c.height; r++)
      memmove((char *)op->u.c.dst + r * op->u.c.dpitch, (const char *)op->u.c.src + r * op->u.c.spitch,
              op->u.c.width);
    return;
  }
  memmove(op->u.c.dst, op->u.c.src, op->u.c.bytes);
  if (op->u.c.corruptible && sa_corrupting()) /* ARBENCH_EMU_CORRUPT: a bit flips in flight */
    ((uint32_t *)op->u.c.dst)[op->u.c.bytes / 4 / 2] ^= 1u;
}

/* Queue on the legacy stream and wait for it when CUDA's synchronous call does: device-to-host and from pinned
 * host memory wait, device-to-device and sets do not, from pageable memory once staged. */
static cudaError_t sync_call(struct sa_op *op, int wait, const char *call) {
  struct sa_stream *s = sa_stream_of(NULL, call);
  pthread_mutex_lock(&sa.mu);
  sa_capture_illegal(call);
  pthread_mutex_unlock(&sa.mu);
  cudaError_t e = sa_enqueue(s, op);
  if (e || !wait) return e;
  pthread_mutex_lock(&sa.mu);
  sa_wait_stream(s, s->queued);
  e = sa.sticky;
  pthread_mutex_unlock(&sa.mu);
  return sa_error(e);
}

static cudaError_t sync_copy(struct sa_op *op, enum side ss, enum cudaMemcpyKind real, const char *call) {
  if (real == cudaMemcpyHostToDevice && ss == HOST_PAGEABLE && stage(op)) {
    sa_op_free(op);
    return sa_error(cudaErrorMemoryAllocation);
  }
  int wait = real == cudaMemcpyDeviceToHost || real == cudaMemcpyHostToHost ||
             (real == cudaMemcpyHostToDevice && ss == HOST_PINNED);
  return sync_call(op, wait, call);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind) {
  sa_init();
  if (!bytes) return cudaSuccess;
  if (!dst || !src) return sa_error(cudaErrorInvalidValue);
  enum side ds, ss;
  enum cudaMemcpyKind real = check(dst, src, bytes, kind, "cudaMemcpy", &ds, &ss);
  struct sa_op *op = copy_op(dst, src, bytes, real, "cudaMemcpy");
  return op ? sync_copy(op, ss, real, "cudaMemcpy") : sa_error(cudaErrorMemoryAllocation);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
  sa_init();
  if (!width || !height) return cudaSuccess;
  if (!dst || !src || width > dpitch || width > spitch) return sa_error(cudaErrorInvalidValue);
  enum side ds, ss;
  size_t dspan = (height - 1) * dpitch + width, sspan = (height - 1) * spitch + width;
  enum cudaMemcpyKind real = check(dst, src, dspan < sspan ? dspan : sspan, kind, "cudaMemcpy2D", &ds, &ss);
  side_of(dst, dspan, "cudaMemcpy2D", "destination");
  side_of(src, sspan, "cudaMemcpy2D", "source");
  struct sa_op *op = copy_op(dst, src, width * height, real, "cudaMemcpy2D");
  if (!op) return sa_error(cudaErrorMemoryAllocation);
  op->u.c.width = width, op->u.c.height = height, op->u.c.dpitch = dpitch, op->u.c.spitch = spitch;
  op->u.c.corruptible = 0;
  return sync_copy(op, ss, real, "cudaMemcpy2D");
}

/* Asynchronous: a pageable host buffer is read (or written) when the copy runs, so it must live until then. */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t h) {
  sa_init();
  if (!bytes) return cudaSuccess;
  if (!dst || !src) return sa_error(cudaErrorInvalidValue);
  enum side ds, ss;
  enum cudaMemcpyKind real = check(dst, src, bytes, kind, "cudaMemcpyAsync", &ds, &ss);
  struct sa_stream *s = sa_stream_of(h, "cudaMemcpyAsync");
  struct sa_op *op = copy_op(dst, src, bytes, real, "cudaMemcpyAsync");
  return op ? sa_enqueue(s, op) : sa_error(cudaErrorMemoryAllocation);
}

static void peer_sides(void *dst, int dd, const void *src, int sd, size_t bytes, const char *call) {
  struct ar_standin_ptr a, b;
  pthread_mutex_lock(&sa.mu);
  enum ar_standin_mem kd = sa_pointer(dst, bytes, &a), ks = sa_pointer(src, bytes, &b);
  pthread_mutex_unlock(&sa.mu);
  if (kd != AR_STANDIN_DEVICE || ks != AR_STANDIN_DEVICE || a.device != dd || b.device != sd)
    ar_standin_violation("%s(%p on device %d <- %p on device %d, %zu bytes): each pointer must be this process's "
                         "device memory of the device named (they are %s of device %d and %s of device %d)",
                         call, dst, dd, src, sd, bytes, kd == AR_STANDIN_NOT_OURS ? "no device memory" : "memory",
                         a.device, ks == AR_STANDIN_NOT_OURS ? "no device memory" : "memory", b.device);
}

/* A copy between two devices (cuda_runtime_api.h:5959-5992, cudaMemcpyPeer: between any two devices) takes the P2P
 * path when peer access is enabled between them, else CUDA stages it through host memory (the CUDA C++ Programming
 * Guide, peer-to-peer memory copy). On a pair whose P2P traffic ACS breaks, only the staged copy arrives. */
static struct sa_op *peer_op(void *dst, int dd, const void *src, int sd, size_t bytes, const char *call) {
  peer_sides(dst, dd, src, sd, bytes, call);
  struct sa_op *op = copy_op(dst, src, bytes, cudaMemcpyDeviceToDevice, call);
  if (!op || dd == sd) return op;
  pthread_mutex_lock(&sa.mu);
  int direct = sa.peer_enabled[sd][dd] || sa.peer_enabled[dd][sd];
  pthread_mutex_unlock(&sa.mu);
  op->u.c.dropped |= direct && sa_p2p(sd, dd) == SA_P2P_ACS;
  return op;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t bytes, cudaStream_t h) {
  sa_init();
  if (!bytes) return cudaSuccess;
  struct sa_stream *s = sa_stream_of(h, "cudaMemcpyPeerAsync");
  struct sa_op *op = peer_op(dst, dd, src, sd, bytes, "cudaMemcpyPeerAsync");
  return op ? sa_enqueue(s, op) : sa_error(cudaErrorMemoryAllocation);
}

cudaError_t cudaMemcpyPeer(void *dst, int dd, const void *src, int sd, size_t bytes) {
  sa_init();
  if (!bytes) return cudaSuccess;
  struct sa_op *op = peer_op(dst, dd, src, sd, bytes, "cudaMemcpyPeer");
  return op ? sync_call(op, 0, "cudaMemcpyPeer") : sa_error(cudaErrorMemoryAllocation);
}

static struct sa_op *set_op(void *dst, int value, size_t bytes, const char *call) {
  if (side_of(dst, bytes, call, "destination") != DEVICE)
    ar_standin_violation("%s(%p, %d, %zu bytes): not device memory", call, dst, value, bytes);
  struct sa_op *op = sa_op_new(SA_SET, call);
  if (!op) return NULL;
  pthread_mutex_lock(&sa.mu);
  op->u.m.dst = sa_host_view(dst), op->u.m.value = value, op->u.m.bytes = sa_guarded(dst) ? 0 : bytes; /* as copy_op */
  pthread_mutex_unlock(&sa.mu);
  return op;
}

/* Asynchronous to the host for device memory (CUDA's rule): the set may still be running when it returns. */
cudaError_t cudaMemset(void *dst, int value, size_t bytes) {
  sa_init();
  if (!bytes) return cudaSuccess;
  struct sa_op *op = set_op(dst, value, bytes, "cudaMemset");
  return op ? sync_call(op, 0, "cudaMemset") : sa_error(cudaErrorMemoryAllocation);
}

cudaError_t cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t h) {
  sa_init();
  if (!bytes) return cudaSuccess;
  struct sa_op *op = set_op(dst, value, bytes, "cudaMemsetAsync");
  return op ? sa_enqueue(sa_stream_of(h, "cudaMemsetAsync"), op) : sa_error(cudaErrorMemoryAllocation);
}
