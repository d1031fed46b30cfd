/* bootstrap.c — the NCCL stand-in's rendezvous: the unique id names a shared-memory area (a memfd of the process
 * that made the id, opened by the others through /proc) where the ranks meet, publish and wait. */
#include "standin_nccl.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define AREA_MAGIC 0x6e63636c2d736e31ULL /* "nccl-sn1" */

/* What the 128-byte unique id carries. */
struct sn_id {
  uint64_t magic;
  int pid, fd;
  uint64_t tag;
};
_Static_assert(sizeof(struct sn_id) <= NCCL_UNIQUE_ID_BYTES, "the id fits ncclUniqueId");

static uint64_t random_tag(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ ((uint64_t)getpid() << 16);
  x ^= x >> 33; /* splitmix-style scramble: distinct ids of one process differ in every word */
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x | 1;
}

/* ncclGetUniqueId: a new area, kept open in this process (its fd is in the id) until this process's communicator
 * of that id goes: the process that makes an id must outlive the others' init, as NCCL's bootstrap root must. */
ncclResult_t sn_area_create(ncclUniqueId *id) {
  int fd = memfd_create("nccl-standin-bootstrap", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)sizeof(struct sn_area))) {
    SN_WARN("Bootstrap : cannot create the rendezvous area: %s", strerror(errno));
    if (fd >= 0) close(fd);
    return ncclSystemError;
  }
  struct sn_area *a = mmap(NULL, sizeof *a, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (a == MAP_FAILED) {
    SN_WARN("Bootstrap : cannot map the rendezvous area: %s", strerror(errno));
    close(fd);
    return ncclSystemError;
  }
  struct sn_id sid = {AREA_MAGIC, (int)getpid(), fd, random_tag()};
  a->tag = sid.tag;
  __atomic_store_n(&a->magic, AREA_MAGIC, __ATOMIC_RELEASE);
  munmap(a, sizeof *a);
  memset(id, 0, sizeof *id);
  memcpy(id->internal, &sid, sizeof sid);
  return ncclSuccess;
}

static int open_area(const struct sn_id *sid) {
  if (sid->pid == (int)getpid()) return dup(sid->fd);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", sid->pid, sid->fd);
  return open(path, O_RDWR | O_CLOEXEC);
}

/* Map the id's area, check it is the one the id names, take my slot; then wait for every rank (no bound, as
 * NCCL's bootstrap: a rank that never comes leaves the others here until the job is ended). */
ncclResult_t sn_area_join(ncclComm_t c, const ncclUniqueId *id) {
  struct sn_id sid;
  memcpy(&sid, id->internal, sizeof sid);
  if (sid.magic != AREA_MAGIC) {
    SN_WARN("Bootstrap : the unique id was not made by ncclGetUniqueId");
    return ncclInvalidArgument;
  }
  int fd = open_area(&sid);
  struct sn_area *a = fd < 0 ? MAP_FAILED : mmap(NULL, sizeof *a, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (a == MAP_FAILED) {
    SN_WARN("Bootstrap : cannot reach the root's rendezvous area (pid %d fd %d): %s", sid.pid, sid.fd, strerror(errno));
    if (fd >= 0) close(fd);
    return ncclSystemError;
  }
  if (__atomic_load_n(&a->magic, __ATOMIC_ACQUIRE) != AREA_MAGIC || a->tag != sid.tag) {
    SN_WARN("Bootstrap : the root's rendezvous area (pid %d fd %d) is not this unique id's: stale id?", sid.pid, sid.fd);
    munmap(a, sizeof *a);
    close(fd);
    return ncclSystemError;
  }
  c->area = a;
  c->area_fd = fd;
  c->root_fd = sid.pid == (int)getpid() ? sid.fd : -1; /* this process made the id: its fd goes with the comm */
  int expect = 0;
  if (!__atomic_compare_exchange_n(&a->nranks, &expect, c->nranks, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
      expect != c->nranks)
    __atomic_store_n(&a->mismatch, 1, __ATOMIC_RELEASE);
  if (__atomic_load_n(&a->peer[c->rank].joined, __ATOMIC_ACQUIRE)) {
    SN_WARN("Bootstrap : rank %d joined twice with one unique id", c->rank);
    return ncclInvalidUsage;
  }
  return ncclSuccess;
}

void sn_area_leave(ncclComm_t c) {
  if (c->area) munmap(c->area, sizeof *c->area);
  if (c->area_fd >= 0) close(c->area_fd);
  if (c->root_fd >= 0) close(c->root_fd);
  c->area = NULL;
  c->area_fd = c->root_fd = -1;
}

/* Waiting on peers that run on the same few cores: yield first, then sleep a little longer each time. */
void sn_pause(unsigned *spins) {
  unsigned s = (*spins)++;
  if (s < 32) {
    sched_yield();
    return;
  }
  struct timespec t = {0, s < 1000 ? 20000L : 200000L};
  nanosleep(&t, NULL);
}

int sn_wait_all(ncclComm_t c, int (*pred)(const struct sn_peer *p, uint64_t v), uint64_t v) {
  unsigned spins = 0;
  for (int r = 0; r < c->nranks; r++)
    while (!pred(&c->area->peer[r], v)) {
      if (__atomic_load_n(&c->aborted, __ATOMIC_SEQ_CST)) return 1;
      sn_pause(&spins);
    }
  return 0;
}
