/* backend.h — the ops table every backend fills in, and the run context it is given.
 * The engine owns loops, timing and checks; a backend owns one allreduce call. */
#ifndef AR_BACKEND_H
#define AR_BACKEND_H

#include "ar.h"
#include <jansson.h>
#include <mpi.h>
#include <stdbool.h>

struct ar_opts;
struct ar_topo;

/* What a backend sees of the run. */
struct ar_watchdog;
struct ar_fault;

struct ar_env {
  MPI_Comm comm;      /* all ranks of the run */
  int rank, nranks;
  MPI_Comm node_comm; /* ranks sharing this node's memory (MPI_COMM_TYPE_SHARED) */
  int local_rank, local_nranks;
  int nnodes;
  const struct ar_opts *opts;
  struct ar_topo *topo; /* NULL when discovery failed */
  int device;           /* CUDA device of this rank, -1 when none */
  int device_shared;    /* another rank of this node uses the same physical GPU (by PCI bus id) */
  struct ar_watchdog *dog; /* the run's watchdog (status exchanges are watched), NULL outside a run */
  const struct ar_fault *fault; /* planted faults and test hooks (fault.h: ar_fault_hooks), NULL outside a run */
};

enum ar_backend_flags {
  AR_BE_HOST = 1u << 0,   /* buffers in host memory, CLOCK_MONOTONIC timing */
  AR_BE_DEVICE = 1u << 1, /* buffers in GPU memory, CUDA event timing */
  AR_BE_GRAPH = 1u << 2,  /* the allreduce can be captured in a CUDA graph */
  AR_BE_FUSED = 1u << 3,  /* fused with other work (checked with a tolerance) */
  AR_BE_BASELINE = 1u << 5, /* the library allreduce its family's custom ones are measured against (mpi, nccl) */
  /* A device backend whose waits on peers never give up by themselves: only the run's watchdog bounds them
   * (it ends the job), so it has no health to answer. Every other AR_BE_DEVICE backend sets health/aborted. */
  AR_BE_WATCHDOG_ONLY = 1u << 6,
};

/* What a backend is, for analysis: which baseline it is compared with, how tune groups it. Read from the
 * table (ar_backend_family), never guessed from a name. */
enum ar_be_family {
  AR_BE_FAM_HOST,  /* host memory: mpi, shm-* */
  AR_BE_FAM_NCCL,  /* NCCL's own allreduce (and nccl-tests' records) */
  AR_BE_FAM_P2P,   /* arbench's kernels over CUDA IPC */
  AR_BE_FAM_SYMM,  /* arbench's kernels on NCCL's device API */
  AR_BE_FAM_FUSED, /* allreduce + residual add + RMSNorm: more work than an allreduce */
};
const char *ar_be_family_name(enum ar_be_family f);

/* All functions return 0 or -AR_E*; err/why receive one line without a trailing newline. */
struct ar_backend {
  const char *name;
  const char *summary;
  unsigned flags;
  enum ar_be_family family;
  /* Optional: is this variant text valid (names, values, what this build's libraries support)?
   * Called before anything else runs, so a bad variant is a usage error (exit 2) everywhere. */
  int (*check_variant)(const char *variant, char *err, size_t len);
  /* Optional (NULL: always): can this backend run here at all (compiled-in deps, devices, node layout)? */
  int (*available)(const struct ar_env *env, char *why, size_t len);
  /* Create state for one variant ("" or the text after "name:"); collective over env->comm. */
  int (*init)(const struct ar_env *env, const char *variant, void **state, char *err, size_t len);
  /* Optional: size internal resources for messages up to max_bytes; collective. */
  int (*setup)(void *state, size_t max_bytes, char *err, size_t len);
  /* Does it support dtype/op? -AR_EUNAVAIL with why when not (recorded as a skip). */
  int (*supports)(void *state, enum ar_dtype dt, enum ar_op op, char *why, size_t len);
  /* One allreduce; in == out for in-place. stream: cudaStream_t for device backends, NULL on host. */
  int (*allreduce)(void *state, const void *in, void *out, size_t count, enum ar_dtype dt,
                   enum ar_op op, void *stream);
  /* Optional: add what the backend really did (algorithm, protocol, channels...) to a record. */
  int (*describe)(void *state, json_t *rec);
  void (*fini)(void *state);
  /* Optional: allocate the engine's message buffers (e.g. ncclMemAlloc for registration or symmetric
   * windows); collective. Without them the platform's allocator is used. Released before fini. */
  int (*alloc)(void *state, size_t bytes, void **p, char *err, size_t len);
  void (*release)(void *state, void *p);
  /* Optional: can one call take count elements of dt? -AR_EUNAVAIL with why: that size is a recorded skip. */
  int (*fits)(void *state, size_t count, enum ar_dtype dt, char *why, size_t len);
  /* Optional: check the output of the call just made in place of the engine's exact comparison (fused work,
   * within a tolerance); *wrong = elements outside it. Records then say "checked": "tolerance". */
  int (*check)(void *state, const void *out, size_t count, enum ar_dtype dt, enum ar_op op, uint64_t *wrong);
  /* Device backends' hooks, asked by the device loop (bench/device/platform_cuda.c). Required for an
   * AR_BE_DEVICE backend unless AR_BE_WATCHDOG_ONLY (tests/unit/test_backends.c checks):
   * health: after the loop waited on the backend's work (the stream is drained): 0, or -AR_ETIMEOUT/-AR_ERUNTIME
   * with the message of the wait that gave up (a kernel's timeout, a watchdog abort); ends any watching of
   * the stream until the next loop. aborted: the same verdict without side effects, asked before every launch
   * and after every harvested unit (cheap, no lock when healthy). */
  int (*health)(void *state, char *err, size_t len);
  int (*aborted)(void *state, char *err, size_t len);
  /* Optional, for a backend with its own watchdog thread: graph capture begins (quiet = 1) or ends (0), when
   * the capturing stream must not be touched; progress counts finished collectives (the engine's heartbeat),
   * per = collectives in one launched unit (K in a CUDA graph). */
  void (*quiet)(void *state, int quiet);
  void (*progress)(void *state, const volatile uint64_t *progress, int per);
};

/* Registry (bench/backends/registry.c): every backend arbench has, in display order. One this build does
 * not compile (bench/backends/absent.c) has only name, summary, flags, family and an available that says
 * "not compiled in: why"; ar_backend_built is 0 for it. */
const struct ar_backend *const *ar_backends(int *n);
const struct ar_backend *ar_backend_find(const char *name);
int ar_backend_built(const struct ar_backend *be);
/* The family and flags of the backend a record names: a registry entry, or a source `arbench import` writes
 * records for ("nccl-tests": NCCL's, a baseline). -1 for a name this binary does not know. */
int ar_backend_family(const char *name, unsigned *flags);
/* Split "name:variant" into a backend and the variant text; -AR_EINVAL naming the known ones. */
int ar_backend_resolve(const char *spec, const struct ar_backend **be, const char **variant,
                       char *err, size_t len);

#endif
