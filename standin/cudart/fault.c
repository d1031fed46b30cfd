/* fault.c — the stand-in's loud failures (a use CUDA calls an error of the caller or undefined: one line naming the
 * rank, then exit), its fault hooks (a hung device, corrupting copies, a failing IPC open) and what records say. */
#include "internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#define SA_EXIT_VIOLATION 70 /* a contract violation (sysexits' EX_SOFTWARE): the launcher ends the job */

void ar_standin_violation(const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "arbench cuda stand-in: rank %d: %s\n", ar_standin_world_rank(), msg);
  fflush(stderr);
  _exit(SA_EXIT_VIOLATION);
}

void ar_standin_faults(int hang_rank, int corrupt_rank, int ipc_fail_rank) {
  sa_init();
  pthread_mutex_lock(&sa.mu);
  sa.hang_rank = hang_rank;
  sa.corrupt_rank = corrupt_rank;
  sa.ipc_fail_rank = ipc_fail_rank;
  pthread_cond_broadcast(&sa.cv);
  pthread_mutex_unlock(&sa.mu);
}

/* ARBENCH_EMU_HANG: this rank's created streams (the engine's, links') never complete their work; the legacy
 * stream (set-up fills and checks) still does, so the hang lands where the timed work waits. Under sa.mu. */
int sa_hung(const struct sa_stream *s) { return sa.hang_rank >= 0 && sa.hang_rank == sa.rank && !s->legacy; }

int sa_corrupting(void) {
  pthread_mutex_lock(&sa.mu);
  int c = sa.corrupt_rank >= 0 && sa.corrupt_rank == sa.rank;
  pthread_mutex_unlock(&sa.mu);
  return c;
}

int sa_ipc_failing(void) { return sa.ipc_fail_rank >= 0 && sa.ipc_fail_rank == sa.rank; }

const char *ar_standin_describe(void) {
  return "CPU stand-in of the CUDA runtime (arbench -Dcuda-emu=true, mimics CUDA 13.0): streams are host threads, "
         "kernels run on CPU threads, device memory is shared memory; proves the host code, not GPU speed";
}

/* __shared__ storage rows of the grid runners: AR_EMU_MAX_BLOCKS per runner. Under sa.mu. */
int sa_slot_take(void) {
  for (int i = 0; i < SA_MAX_SLOTS; i++)
    if (!sa.slots_used[i]) {
      sa.slots_used[i] = 1;
      return i;
    }
  return -1;
}

void sa_slot_give(int slot) {
  if (slot >= 0 && slot < SA_MAX_SLOTS) sa.slots_used[slot] = 0;
}
