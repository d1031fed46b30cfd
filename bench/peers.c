/* peers.c — the node-local table of ranks' pids (MPI-3 shared memory) that lets the watchdog name a
 * peer that died (no such process) or stopped (state T), and lets only the first rank report. */
#include "peers.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct table {
  uint32_t claim;
  uint32_t pad[15]; /* the claim word on its own cache line */
  struct ar_peer_slot slots[];
};

void ar_peers_open(struct ar_peers *p, MPI_Comm node_comm, int world_rank) {
  memset(p, 0, sizeof *p);
  p->win = MPI_WIN_NULL;
  MPI_Comm_rank(node_comm, &p->me);
  MPI_Comm_size(node_comm, &p->n);
  MPI_Aint bytes = p->me ? 0 : (MPI_Aint)(sizeof(struct table) + (size_t)p->n * sizeof(struct ar_peer_slot));
  struct table *t = NULL;
  if (MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, node_comm, &t, &p->win) != MPI_SUCCESS) {
    p->win = MPI_WIN_NULL;
    return;
  }
  MPI_Aint size;
  int disp;
  MPI_Win_shared_query(p->win, 0, &size, &disp, &t);
  p->claim = &t->claim;
  p->slots = t->slots;
  if (p->me == 0) __atomic_store_n(&t->claim, 0u, __ATOMIC_RELEASE);
  __atomic_store_n(&p->slots[p->me].pid, (int32_t)getpid(), __ATOMIC_RELEASE);
  __atomic_store_n(&p->slots[p->me].rank, (int32_t)world_rank, __ATOMIC_RELEASE);
  MPI_Barrier(node_comm);
}

void ar_peers_close(struct ar_peers *p) {
  if (p->win != MPI_WIN_NULL) MPI_Win_free(&p->win);
  p->claim = NULL;
  p->slots = NULL;
}

void ar_peers_copy(const struct ar_peers *p, struct ar_peers *copy) {
  memset(copy, 0, sizeof *copy);
  copy->win = MPI_WIN_NULL;
  if (!p->slots) return;
  copy->slots = malloc(sizeof *copy->slots * (size_t)p->n);
  copy->claim = calloc(1, sizeof *copy->claim);
  if (!copy->slots || !copy->claim) {
    ar_peers_free(copy);
    return;
  }
  for (int i = 0; i < p->n; i++) {
    copy->slots[i].pid = __atomic_load_n(&p->slots[i].pid, __ATOMIC_ACQUIRE);
    copy->slots[i].rank = __atomic_load_n(&p->slots[i].rank, __ATOMIC_ACQUIRE);
  }
  copy->n = p->n;
  copy->me = p->me;
}

void ar_peers_free(struct ar_peers *copy) {
  free(copy->slots);
  free(copy->claim);
  copy->slots = NULL;
  copy->claim = NULL;
}

int ar_peers_claim(const struct ar_peers *p, int world_rank) {
  if (!p || !p->claim) return 1;
  uint32_t none = 0;
  return __atomic_compare_exchange_n(p->claim, &none, (uint32_t)world_rank + 1u, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
}

char ar_proc_state(int pid) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return kill(pid, 0) && errno == ESRCH ? 0 : '?';
  size_t n = fread(line, 1, sizeof line - 1, f);
  fclose(f);
  line[n] = 0;
  const char *close = strrchr(line, ')'); /* the command name may hold spaces and parentheses */
  if (!close || close[1] != ' ' || !close[2]) return '?';
  return close[2] == 'Z' || close[2] == 'X' ? 0 : close[2]; /* a zombie is gone too */
}

static const char *what_of(char state) {
  if (!state) return "is gone";
  if (state == 'T' || state == 't') return "is stopped";
  return NULL;
}

void ar_peers_culprits(const struct ar_peers *p, char *buf, size_t len) {
  size_t used = 0;
  *buf = 0;
  for (int i = 0; p && p->slots && i < p->n && used < len; i++) {
    if (i == p->me) continue;
    int pid = __atomic_load_n(&p->slots[i].pid, __ATOMIC_ACQUIRE);
    const char *what = pid > 0 ? what_of(ar_proc_state(pid)) : NULL;
    if (!what) continue;
    int w = snprintf(buf + used, len - used, "%srank %d (pid %d) %s", used ? ", " : "",
                     (int)__atomic_load_n(&p->slots[i].rank, __ATOMIC_ACQUIRE), pid, what);
    if (w > 0) used += (size_t)w;
  }
  if (!*buf) snprintf(buf, len, "no rank on this node is stopped or gone");
}
