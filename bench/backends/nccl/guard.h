/* guard.h — one communicator's guard between the main thread and a watchdog thread: a lock around
 * every call on the communicator, the aborted flag and message, and an abort made outside the lock. */
#ifndef AR_GPU_GUARD_H
#define AR_GPU_GUARD_H

#include <pthread.h>
#include <stddef.h>

struct ar_guard {
  pthread_mutex_t lock;
  int aborted;
  char msg[512];
};

void ar_guard_init(struct ar_guard *g);
void ar_guard_destroy(struct ar_guard *g);
/* Before a call on the communicator: 0 with the lock held (call ar_guard_leave after it), or
 * -AR_ETIMEOUT with the abort message in err and the lock not held: then nothing may touch it. */
int ar_guard_enter(struct ar_guard *g, char *err, size_t len);
void ar_guard_leave(struct ar_guard *g);
/* Abort once: under the lock set aborted and msg, then call abort_fn(arg) after releasing it (in
 * NCCL 2.28.9 ncclCommAbort waits until graphs that captured the communicator are destroyed, and the
 * thread destroying them may be waiting for this lock). The caller must not hold the lock.
 * 1 when this call aborted, 0 when it was already aborted. */
int ar_guard_abort(struct ar_guard *g, const char *msg, void (*abort_fn)(void *), void *arg);
/* The flag without the lock (a hint: decide under ar_guard_enter). */
int ar_guard_aborted(const struct ar_guard *g);
/* The abort message (copied under the lock); -AR_ETIMEOUT when aborted, else 0 and err untouched. */
int ar_guard_message(struct ar_guard *g, char *err, size_t len);

#endif
