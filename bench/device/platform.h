/* platform.h — where buffers live and how an iteration is timed: host (CLOCK_MONOTONIC) or
 * device (CUDA events / graphs). The engine picks one by the backend's flags. */
#ifndef AR_PLATFORM_H
#define AR_PLATFORM_H

#include "backend.h"

/* One timed loop: warm-up, then iters timed iterations rotating over nsets buffer sets. */
struct ar_loop {
  const struct ar_backend *be;
  void *state;
  void **in, **out; /* nsets pointers each; out[k] == in[k] for in-place */
  int nsets;
  size_t count;
  enum ar_dtype dt;
  enum ar_op op;
  int warmup, iters;
  int graph;          /* iterations per CUDA graph replay, 0 = plain launches */
  int loop;           /* 1: one sample, the interval around all timed iterations / iters */
  void *stream;       /* device stream, NULL on host */
  volatile uint64_t *heartbeat; /* incremented once per iteration for the watchdog */
};

#define AR_MAX_GRAPHS 256 /* CUDA graphs captured to cover the buffer rotation in -G mode */

struct ar_platform {
  const char *name; /* "host" or "device" */
  int (*alloc)(size_t bytes, void **p, char *err, size_t len);
  void (*release)(void *p);
  /* Fill count elements with rank's pattern (kernels/ar_pattern.h); rank < 0 writes the
   * poison value of ar_pat_poison() that no correct result can have. */
  int (*fill)(void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int rank, int nranks);
  /* Compare with the exact expected result; *wrong = number of differing elements. */
  int (*check)(const void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int nranks,
               uint64_t *wrong);
  /* Run the loop; samples_us[j] = this rank's time of iteration (or graph-averaged iteration) j;
   * with loop set, samples_us[0] = the whole timed loop / iters. Returns the number of samples
   * written (iters, iters / graph, or 1 with loop) or -AR_E*. No allocation, print or MPI inside. */
  int (*time_loop)(const struct ar_loop *loop, double *samples_us, char *err, size_t len);
  /* Bytes of the last-level cache buffers must outgrow to avoid measuring cache hits. */
  size_t (*cache_bytes)(void);
  /* Wait until work queued on stream is done (NULL on host). */
  int (*sync)(void *stream);
  /* Optional: after a failure, what the device says about it (a sticky CUDA error, e.g. a kernel's illegal address):
   * 1 with err set, or 0 when it says nothing. */
  int (*why)(char *err, size_t len);
  /* Optional: create/destroy the rank's stream. */
  int (*stream_create)(void **stream, char *err, size_t len);
  void (*stream_destroy)(void *stream);
};

extern const struct ar_platform ar_host_platform;
/* Device platform: bench/device/platform_cuda.c (NULL when built without CUDA). */
const struct ar_platform *ar_device_platform(void);

#endif
