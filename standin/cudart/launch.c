/* launch.c — kernel launches on the stand-in: the launch template of cuda_runtime.h hands over one job (the kernel
 * and its arguments, copied at the launch as CUDA does), queued on the stream, run by the emu grid runner. */
#include "internal.h"
#include "ar_emu_fiber.h"
#include <stdio.h>

/* The C side of ar_standin_launch (cuda_runtime.h). CUDA's launch errors (a bad shape) are returned and become the
 * last error; the job is released on every path but success. */
cudaError_t ar_standin_launch_job(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                  size_t shmem, cudaStream_t stream, void (*run)(void *), void *(*clone)(const void *),
                                  void (*release)(void *), void *job, const char *name) {
  sa_init();
  if (!job) return sa_error(cudaErrorMemoryAllocation);
  if (gy != 1 || gz != 1 || by != 1 || bz != 1) {
    release(job);
    ar_standin_violation("launch of %s with a %ux%ux%u grid of %ux%ux%u blocks: the stand-in runs 1-D grids only",
                         name, gx, gy, gz, bx, by, bz);
  }
  if (!gx || !bx || bx > 1024 || shmem > 48u * 1024u) {
    release(job);
    return sa_error(cudaErrorInvalidConfiguration);
  }
  struct sa_stream *s = sa_stream_of(stream, "a kernel launch");
  /* "A kernel launch will fail if it is issued to a stream that is not associated to the current device" (CUDA C++
   * Programming Guide, multi-device system: stream and event behavior; the driver's invalid handle) */
  if (!s->legacy && s->device != sa_device()) {
    release(job);
    return sa_error(cudaErrorInvalidResourceHandle);
  }
  struct sa_op *op = sa_op_new(SA_KERNEL, name);
  if (!op) {
    release(job);
    return sa_error(cudaErrorMemoryAllocation);
  }
  op->u.k.run = run, op->u.k.clone = clone, op->u.k.release = release, op->u.k.job = job;
  op->u.k.blocks = gx, op->u.k.threads = bx;
  return sa_enqueue(s, op);
}

/* On the stream's worker: the whole grid, in waves of the blocks a stand-in device holds at once (its SMs x the
 * threads each holds). A block whose threads can never meet at a barrier is a kernel bug: loud. */
cudaError_t sa_run_kernel(struct sa_stream *s, struct sa_op *op) {
  if (!s->grid) {
    pthread_mutex_lock(&sa.mu);
    s->slot = sa_slot_take();
    pthread_mutex_unlock(&sa.mu);
    if (s->slot < 0) ar_standin_violation("more than %d streams ran kernels in this process", SA_MAX_SLOTS);
    s->grid = ar_emu_fiber_open(s->slot * 64);
    if (!s->grid) return cudaErrorLaunchFailure;
  }
  unsigned threads = op->u.k.threads, resident = SA_SMS * (SA_THREADS_PER_SM / threads);
  char why[256];
  int rc = ar_emu_fiber_run(s->grid, op->u.k.blocks, threads, resident, op->u.k.run, op->u.k.job, why, sizeof why);
  if (rc == -2) ar_standin_violation("kernel %s deadlocked: %s", op->what, why);
  if (rc) {
    fprintf(stderr, "arbench cuda stand-in: rank %d: kernel %s: %s\n", sa.rank, op->what, why);
    return cudaErrorLaunchFailure;
  }
  return cudaSuccess;
}
