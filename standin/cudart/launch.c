/* launch.c — kernel launches on the stand-in: the launch template of cuda_runtime.h hands over one job (the kernel
 * and its arguments, copied at the launch as CUDA does), queued on the stream, run by the emu grid runner. */
#include "internal.h"
#include "ar_emu_fiber.h"
#include "ar_standin_registers.h" /* generated from registers.tsv: ptxas's count per kernel, sm_120 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- registers: a launch whose block needs more registers than a block may have fails, as on a GPU ---- */

#define SA_KNAMES 64
static struct {
  pthread_mutex_t mu;
  int n;
  char *name[SA_KNAMES];
  int extra_n;
  struct { char name[128]; int regs; } extra[16];
  int extra_read;
} kn = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* cuda_runtime.h's ar_standin_kname: one copy of each template kernel's name for the life of the process. */
const char *ar_standin_kname_intern(const char *name) {
  pthread_mutex_lock(&kn.mu);
  for (int i = 0; i < kn.n; i++)
    if (!strcmp(kn.name[i], name)) {
      pthread_mutex_unlock(&kn.mu);
      return kn.name[i];
    }
  if (kn.n == SA_KNAMES) ar_standin_violation("more than %d template kernel instances launched", SA_KNAMES);
  char *c = strdup(name);
  if (!c) ar_standin_violation("out of memory naming kernel %s", name);
  kn.name[kn.n++] = c;
  pthread_mutex_unlock(&kn.mu);
  return c;
}

/* ARBENCH_STANDIN_REGS="NAME=N;NAME=N": a register count for a kernel the table has not (a test's own) or in place of
 * the table's (a compiler that allocates more): read once, under kn.mu. */
static void extra_read(void) {
  kn.extra_read = 1;
  const char *v = getenv("ARBENCH_STANDIN_REGS");
  for (const char *p = v; p && *p;) {
    const char *eq = strchr(p, '='), *end = strchr(p, ';');
    if (!end) end = p + strlen(p);
    char *e = NULL;
    long r = eq && eq < end ? strtol(eq + 1, &e, 10) : -1;
    if (!eq || eq >= end || eq == p || (size_t)(eq - p) >= sizeof kn.extra[0].name || e != end || r < 1 || r > 255 ||
        kn.extra_n == 16) {
      fprintf(stderr, "arbench cuda stand-in: bad ARBENCH_STANDIN_REGS '%s' (allowed: up to 16 of KERNEL=1..255, "
                      "';'-separated, e.g. \"ar_p2p::p2p_kernel<0>=72\")\n", v);
      exit(2);
    }
    memcpy(kn.extra[kn.extra_n].name, p, (size_t)(eq - p));
    kn.extra[kn.extra_n].name[eq - p] = 0;
    kn.extra[kn.extra_n++].regs = (int)r;
    p = *end ? end + 1 : end;
  }
}

/* The kernel's registers per thread: the environment's, else the table's; a kernel in neither is a stale table. */
static int regs_of(const char *name) {
  pthread_mutex_lock(&kn.mu);
  if (!kn.extra_read) extra_read();
  int r = -1;
  for (int i = 0; i < kn.extra_n && r < 0; i++)
    if (!strcmp(kn.extra[i].name, name)) r = kn.extra[i].regs;
  pthread_mutex_unlock(&kn.mu);
  for (size_t i = 0; r < 0 && i < sizeof ar_standin_registers / sizeof ar_standin_registers[0]; i++)
    if (!strcmp(ar_standin_registers[i].kernel, name)) r = ar_standin_registers[i].registers;
  if (r < 0)
    ar_standin_violation("kernel %s has no register count in standin/cudart/registers.tsv (%s; regenerate it from a "
                         "CUDA build's kernels-report.json: scripts/kernel-report.py registers)",
                         name, AR_STANDIN_REGISTERS_FROM);
  return r;
}

/* The registers a launch checks: ARBENCH_STANDIN_REGS's for name, else the image's (regs >= 0: the driver stand-in
 * read them from the cubin, as the driver does), else registers.tsv's. */
static int regs_override(const char *name, int regs) {
  if (regs < 0) return regs_of(name);
  pthread_mutex_lock(&kn.mu);
  if (!kn.extra_read) extra_read();
  for (int i = 0; i < kn.extra_n; i++)
    if (!strcmp(kn.extra[i].name, name)) regs = kn.extra[i].regs;
  pthread_mutex_unlock(&kn.mu);
  return regs;
}

/* Whether a block of `threads` fits the per-block register file at `regs` a thread: the hardware check of
 * cuda_occupancy.h cudaOccMaxBlocksPerSMRegsLimit (lines 1523-1546: registers go to warps in units of 256
 * (cudaOccRegAllocationGranularity), the warps rounded up to the 4 sub-partitions, against regsPerBlock = 65536
 * (cudaDevAttrMaxRegistersPerBlock, driver_types.h:1931), at most 255 a thread). */
int ar_standin_regs_fit(int regs, unsigned threads) {
  unsigned warps = (threads + 31) / 32, per_warp = ((unsigned)regs * 32 + 255) / 256 * 256;
  return regs <= 255 && per_warp * ((warps + 3) / 4 * 4) <= 65536;
}

cudaError_t ar_standin_launch_job(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                  size_t shmem, cudaStream_t stream, void (*run)(void *), void *(*clone)(const void *),
                                  void (*release)(void *), void *job, const char *name) {
  return ar_standin_launch_job_regs(gx, gy, gz, bx, by, bz, shmem, stream, run, clone, release, job, name, -1);
}

/* The C side of ar_standin_launch (cuda_runtime.h) and of the driver stand-in's cuLaunchKernel (driver.c: regs from
 * the cubin; -1: registers.tsv's). CUDA's launch errors (a bad shape) are returned and become the last error; the job
 * is released on every path but success. */
cudaError_t ar_standin_launch_job_regs(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                       size_t shmem, cudaStream_t stream, void (*run)(void *),
                                       void *(*clone)(const void *), void (*release)(void *), void *job,
                                       const char *name, int regs) {
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
  /* driver_types.h:777-784: "the kernel launch specifies too many threads for the kernel's register count" */
  if (!ar_standin_regs_fit(regs_override(name, regs), bx)) {
    release(job);
    return sa_error(cudaErrorLaunchOutOfResources);
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
  volatile int fault = 0; /* peer.c: a load or store through a mapping of a pair whose P2P traffic is lost */
  ar_emu_fiber_stop_on(s->grid, &fault);
  sa_guard_kernel(&fault);
  int rc = ar_emu_fiber_run(s->grid, op->u.k.blocks, threads, resident, op->u.k.run, op->u.k.job, why, sizeof why);
  sa_guard_kernel(NULL);
  ar_emu_fiber_stop_on(s->grid, NULL);
  if (rc == -2) ar_standin_violation("kernel %s deadlocked: %s", op->what, why);
  /* driver_types.h:763-775: "The device encountered a load or store instruction on an invalid memory address. This
   * leaves the process in an inconsistent state and any further CUDA work will return the same error." */
  if (rc == -3) {
    fprintf(stderr, "arbench cuda stand-in: rank %d: kernel %s loaded or stored through peer memory its device cannot "
            "reach (a pair whose P2P traffic is lost, ARBENCH_STANDIN_ACS): %s\n", sa.rank, op->what, why);
    return cudaErrorIllegalAddress;
  }
  if (rc) {
    fprintf(stderr, "arbench cuda stand-in: rank %d: kernel %s: %s\n", sa.rank, op->what, why);
    return cudaErrorLaunchFailure;
  }
  return cudaSuccess;
}
