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
};

enum ar_backend_flags {
  AR_BE_HOST = 1u << 0,   /* buffers in host memory, CLOCK_MONOTONIC timing */
  AR_BE_DEVICE = 1u << 1, /* buffers in GPU memory, CUDA event timing */
  AR_BE_GRAPH = 1u << 2,  /* the allreduce can be captured in a CUDA graph */
  AR_BE_FUSED = 1u << 3,  /* fused with other work (checked with a tolerance) */
  AR_BE_EMU = 1u << 4,    /* a correctness check whose times mean nothing (emu-*): only when named */
};

/* All functions return 0 or -AR_E*; err/why receive one line without a trailing newline. */
struct ar_backend {
  const char *name;
  const char *summary;
  unsigned flags;
  /* Optional: is this variant text valid (names, values, what this build's libraries support)?
   * Called before anything else runs, so a bad variant is a usage error (exit 2) everywhere. */
  int (*check_variant)(const char *variant, char *err, size_t len);
  /* Can this backend run here at all (compiled-in deps, devices, node layout)? */
  int (*available)(const struct ar_env *env, char *why, size_t len);
  /* Create state for one variant ("" or the text after "name:"); collective over env->comm. */
  int (*init)(const struct ar_env *env, const char *variant, void **state, char *err, size_t len);
  /* Size internal resources for messages up to max_bytes; collective. */
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
};

/* Registry (bench/backends/registry.c): every backend compiled in, in display order. */
const struct ar_backend *const *ar_backends(int *n);
const struct ar_backend *ar_backend_find(const char *name);
/* Split "name:variant" into a backend and the variant text; -AR_EINVAL naming the known ones. */
int ar_backend_resolve(const char *spec, const struct ar_backend **be, const char **variant,
                       char *err, size_t len);

#endif
