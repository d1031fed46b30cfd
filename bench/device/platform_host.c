/* platform_host.c — host buffers and CLOCK_MONOTONIC timing of host backends.
 * The timed loop holds the backend call, a heartbeat store and two clock reads per iteration (or in all). */
#include "ar_pattern.h"
#include "dtype.h"
#include "device/platform.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int host_alloc(size_t bytes, void **p, char *err, size_t len) {
  size_t rounded = (bytes + 4095) & ~(size_t)4095;
  *p = aligned_alloc(4096, rounded ? rounded : 4096);
  if (!*p) {
    snprintf(err, len, "aligned_alloc of %zu bytes failed", rounded ? rounded : 4096);
    return -AR_ERUNTIME;
  }
  memset(*p, 0, rounded); /* touch every page now, not in the timed loop */
  return 0;
}

static void host_release(void *p) { free(p); }

static int host_fill(void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int rank, int nranks) {
  if (rank < 0) {
    uint32_t bits = ar_pat_poison((int)dt);
    for (size_t i = 0; i < count; i++) {
      if (ar_dtype_size(dt) == 2) ((uint16_t *)buf)[i] = (uint16_t)bits;
      else ((uint32_t *)buf)[i] = bits;
    }
    return 0;
  }
  ar_host_fill(buf, count, dt, op, rank, nranks);
  return 0;
}

static int host_check(const void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int nranks,
                      uint64_t *wrong) {
  *wrong = ar_host_check(buf, count, dt, op, nranks);
  return 0;
}

static inline double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* --timing loop: two clock reads around all timed iterations; one sample, their mean. */
static int host_time_interval(const struct ar_loop *l, double *samples, char *err, size_t len) {
  double t0 = now_us();
  for (int i = 0; i < l->iters; i++) {
    int k = i % l->nsets;
    int rc = l->be->allreduce(l->state, l->in[k], l->out[k], l->count, l->dt, l->op, NULL);
    if (rc) {
      snprintf(err, len, "%s allreduce failed in iteration %d (%s)", l->be->name, i, ar_status_name(rc));
      return rc;
    }
    __atomic_store_n(l->heartbeat, *l->heartbeat + 1, __ATOMIC_RELAXED);
  }
  samples[0] = (now_us() - t0) / l->iters;
  return 1;
}

static int host_time_loop(const struct ar_loop *l, double *samples, char *err, size_t len) {
  for (int i = 0; i < l->warmup; i++) {
    int k = i % l->nsets;
    int rc = l->be->allreduce(l->state, l->in[k], l->out[k], l->count, l->dt, l->op, NULL);
    if (rc) {
      snprintf(err, len, "%s allreduce failed in warm-up iteration %d (%s)", l->be->name, i, ar_status_name(rc));
      return rc;
    }
    __atomic_store_n(l->heartbeat, *l->heartbeat + 1, __ATOMIC_RELAXED);
  }
  if (l->loop) return host_time_interval(l, samples, err, len);
  for (int i = 0; i < l->iters; i++) {
    int k = i % l->nsets;
    double t0 = now_us();
    int rc = l->be->allreduce(l->state, l->in[k], l->out[k], l->count, l->dt, l->op, NULL);
    double t1 = now_us();
    if (rc) {
      snprintf(err, len, "%s allreduce failed in iteration %d (%s)", l->be->name, i, ar_status_name(rc));
      return rc;
    }
    samples[i] = t1 - t0;
    __atomic_store_n(l->heartbeat, *l->heartbeat + 1, __ATOMIC_RELAXED);
  }
  return l->iters;
}

static size_t host_cache_bytes(void) {
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  size_t floor = (size_t)32 << 20;
  return l3 > 0 && (size_t)l3 > floor ? (size_t)l3 : floor;
}

static int host_sync(void *stream) {
  (void)stream;
  return 0;
}

const struct ar_platform ar_host_platform = {
  .name = "host",
  .alloc = host_alloc,
  .release = host_release,
  .fill = host_fill,
  .check = host_check,
  .time_loop = host_time_loop,
  .cache_bytes = host_cache_bytes,
  .sync = host_sync,
};
