/* internal.h — what the files of the CUDA runtime stand-in share: the process's state under one lock, queued work
 * (ops) and streams, events, graphs, the allocation table; the public API is cuda_runtime_api.h, standin.h. */
#ifndef AR_STANDIN_INTERNAL_H
#define AR_STANDIN_INTERNAL_H

#include "cuda_runtime_api.h"
#include "standin.h"
#include <pthread.h>
#include <stdint.h>

#define SA_MAX_DEVICES 16
#define SA_SMS 4                /* multiprocessors of a stand-in device */
#define SA_THREADS_PER_SM 2048  /* resident threads per multiprocessor: a wave of blocks */
#define SA_L2_BYTES (256 << 10) /* what cudaDevAttrL2CacheSize says (the rotation of --buffers cold) */
#define SA_MEMORY_BYTES ((size_t)1 << 30)
#define SA_LATENCY_S 200e-6     /* no queued work starts earlier than this after it was queued */
#define SA_MAX_SLOTS 16         /* grid runners (stream workers) of a process: __shared__ storage rows / 64 */

/* ---- queued work ---- */
enum sa_kind { SA_KERNEL, SA_COPY, SA_SET, SA_EVENT, SA_HOST, SA_WORK };

struct sa_stream;
struct sa_event;

struct sa_dep { /* wait until stream s completed its work number seq (the legacy stream's implicit order) */
  struct sa_stream *s;
  uint64_t seq;
};

struct sa_op {
  enum sa_kind kind;
  struct sa_op *next;
  uint64_t seq;         /* its number on its stream */
  double ready_at;      /* CLOCK_MONOTONIC seconds: not started before */
  struct sa_dep *dep;   /* ndep entries */
  int ndep;
  const char *what;     /* for messages */
  union {
    struct { /* a kernel: run(job) per GPU thread of blocks x threads */
      void (*run)(void *job);
      void *(*clone)(const void *job);
      void (*release)(void *job);
      void *job;
      unsigned blocks, threads;
    } k;
    struct { /* bytes from src to dst; staged: src is a copy owned by the op (pageable host source) */
      void *dst;
      const void *src;
      size_t bytes, width, height, dpitch, spitch;
      int staged, corruptible;
      int dropped;  /* a peer copy over a P2P path that ACS breaks: nothing arrives */
    } c;
    struct {
      void *dst;
      int value;
      size_t bytes;
    } m;
    struct {
      struct sa_event *ev;
      uint64_t record; /* which cudaEventRecord of ev this is */
    } e;
    struct {
      cudaHostFn_t fn;
      void *data;
    } h;
    struct { /* ar_standin_enqueue: fn on the op's own copy of arg */
      ar_standin_work_fn fn;
      void *arg;
      size_t bytes;
    } w;
  } u;
};

struct sa_graph;

struct sa_stream {
  int device, legacy, nonblocking;
  int slot;                 /* its grid runner's __shared__ rows, -1 none yet */
  struct ar_emu_fiber_grid *grid;
  pthread_t thread;
  int started, destroying;
  struct sa_op *head, *tail;
  uint64_t queued, done;    /* work numbers queued and completed */
  /* capture */
  int capturing, invalidated;
  enum cudaStreamCaptureMode mode;
  pthread_t capturer;
  struct sa_graph *graph;   /* the graph being captured */
  struct sa_stream *next_all;
};

struct sa_event {
  int device;
  unsigned flags;
  uint64_t records;         /* cudaEventRecord calls made */
  uint64_t done;            /* the latest record completed */
  int captured;             /* last recorded into a capture */
  double t;                 /* when the latest completed record ran */
  int destroyed, pending;   /* freed when destroyed and no queued record remains */
};

struct sa_keep { /* a CUDA user object (cudaUserObjectCreate): its destructor runs when the last graph goes */
  void (*fn)(void *);
  void *arg;
  int refs;                 /* under sa.mu: the graphs and executable graphs holding it */
  struct sa_keep *next;     /* in its graph's list */
};

struct sa_graph {
  struct sa_op **node;      /* recorded work, in order (captures are linear: one stream) */
  int n, cap;
  int device;
  struct sa_keep **keep;    /* user objects this graph holds a reference to (nkeep) */
  int nkeep;
};

/* ---- the process's state (sa_state), guarded by sa.mu; sa.cv is broadcast on every change ---- */
struct sa_state {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int init;
  int ndev;                       /* visible devices */
  int physical[SA_MAX_DEVICES];   /* visible index -> stand-in device number (CUDA_VISIBLE_DEVICES) */
  struct sa_stream *legacy[SA_MAX_DEVICES];
  struct sa_stream *all;          /* every live stream (for implicit order and device synchronisation) */
  struct sa_stream *dead;         /* destroyed ones, kept: queued work may still name them as met dependencies */
  int slots_used[SA_MAX_SLOTS];
  int peer_enabled[SA_MAX_DEVICES][SA_MAX_DEVICES]; /* visible device -> visible peer (cudaDeviceEnablePeerAccess) */
  signed char p2p[SA_MAX_DEVICES][SA_MAX_DEVICES];  /* physical pair: SA_P2P_* (ARBENCH_STANDIN_NO_P2P, _ACS) */
  int hang_rank, corrupt_rank, ipc_fail_rank, rank;
  int cc_major, cc_minor;         /* every device's compute capability (ARBENCH_STANDIN_CC, default 12.0) */
  cudaError_t sticky;             /* a failed kernel or stream work: every call returns it from then on */
};
extern struct sa_state sa;

enum { SA_P2P_OK = 0, SA_P2P_NONE = 1, SA_P2P_ACS = 2 };

/* device.c */
void sa_init(void);                          /* once: devices, environment; takes no lock */
int sa_device(void);                         /* the calling thread's current device */
int sa_p2p(int a, int b);                    /* SA_P2P_* of two visible devices */
cudaError_t sa_error(cudaError_t e);         /* records e as the thread's last error, returns it */
cudaError_t sa_last_error_swap(cudaError_t e); /* sets the thread's last error to e, returns the one before */
void sa_context_made(void);                  /* cudaFree(0): the current device's primary context is current */
int sa_context_device(void);                 /* the device of the thread's current context, -1 if none */
/* driver.c */
void *sa_driver_entry(const char *symbol);   /* a driver API function of the stand-in, NULL if it has none */
int sa_capture_illegal(const char *call);    /* a synchronising call during this thread's capture: violation */
cudaError_t sa_capture_other(void);          /* under sa.mu: another thread's Global capture forbids an unsafe call */
/* stream.c */
struct sa_stream *sa_stream_of(cudaStream_t s, const char *call); /* NULL/legacy -> the current device's */
cudaError_t sa_enqueue(struct sa_stream *s, struct sa_op *op);     /* takes op (or frees it on error) */
struct sa_op *sa_op_new(enum sa_kind kind, const char *what);
void sa_op_free(struct sa_op *op);
struct sa_op *sa_op_clone(const struct sa_op *op);
void sa_wait_stream(struct sa_stream *s, uint64_t upto);           /* under sa.mu: until s->done >= upto */
void sa_sync_device(int device);                                   /* under sa.mu */
double sa_now(void);
/* memory.c */
enum ar_standin_mem sa_pointer(const void *p, size_t bytes, struct ar_standin_ptr *info); /* under sa.mu */
/* peer.c: kernel-side mappings of pairs whose P2P traffic is lost */
int sa_guard_add(void *lo, size_t bytes);    /* under sa.mu; -1: table full */
void sa_guard_drop(void *lo);                /* under sa.mu */
void sa_guard_kernel(volatile int *fault);   /* the worker's running kernel's fault word, or NULL */
void *sa_host_view(const void *p);           /* memory.c, under sa.mu: where the stand-in itself reads/writes p */
int sa_guarded(const void *p);               /* memory.c, under sa.mu: p is in a kernel-side guarded mapping */
/* compute_mode.c */
int sa_compute_mode(void);                   /* cudaComputeMode of every device (ARBENCH_STANDIN_COMPUTE_MODE) */
cudaError_t sa_occupy(int device);           /* this process takes visible device's context (Exclusive_Process) */
/* fault.c */
int sa_hung(const struct sa_stream *s);
int sa_corrupting(void);
int sa_ipc_failing(void);
/* graph.c */
void sa_graph_add(struct sa_graph *g, struct sa_op *op);
/* event.c */
void sa_event_done(struct sa_event *ev, uint64_t record); /* under sa.mu, from a worker */
/* launch.c: the launch of cuda_runtime.h's ar_standin_launch and of driver.c's cuLaunchKernel (regs -1: registers.tsv) */
cudaError_t ar_standin_launch_job_regs(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                       size_t shmem, cudaStream_t stream, void (*run)(void *),
                                       void *(*clone)(const void *), void (*release)(void *), void *job,
                                       const char *name, int regs);
/* launch.cc / copy.c: what a worker runs */
cudaError_t sa_run_kernel(struct sa_stream *s, struct sa_op *op);
void sa_run_copy(struct sa_op *op);
/* grid runner slots */
int sa_slot_take(void);
void sa_slot_give(int slot);

#endif
