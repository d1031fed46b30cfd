/* agree.c — ar_agree: one status and message across the ranks of a step (agree.h). The engine, `run`'s
 * start-up, `links` and the backends' collective steps (init, setup, kernel loading) all agree here. */
#include "agree.h"
#include "ar.h"
#include "watchdog.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int agree(MPI_Comm comm, struct ar_watchdog *dog, int rc, char *msg, size_t len, int name_rank) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  int *all = malloc(sizeof(int) * (size_t)n);
  if (!all) return -AR_ERUNTIME;
  ar_watchdog_exchange(dog, 1);
  MPI_Allgather(&rc, 1, MPI_INT, all, 1, MPI_INT, comm);
  int root = -1, nfail = 0;
  for (int r = 0; r < n; r++)
    if (all[r]) {
      nfail++;
      if (root < 0) root = r;
    }
  int out = root < 0 ? 0 : all[root];
  free(all);
  if (root < 0) {
    ar_watchdog_exchange(dog, 0);
    return 0;
  }
  char buf[AR_ERRLEN];
  snprintf(buf, sizeof buf, "%s", rank == root && msg ? msg : "");
  MPI_Bcast(buf, sizeof buf, MPI_CHAR, root, comm);
  ar_watchdog_exchange(dog, 0);
  /* Name the rank only when it matters: some ranks failed and others did not. */
  if (!msg || !len) return out;
  if (name_rank && nfail < n && !strstr(buf, "rank ")) snprintf(msg, len, "rank %d: %.480s", root, buf);
  else snprintf(msg, len, "%s", buf);
  return out;
}

int ar_agree(MPI_Comm comm, struct ar_watchdog *dog, int rc, char *msg, size_t len) {
  return agree(comm, dog, rc, msg, len, 1);
}

int ar_agree_print(MPI_Comm comm, int rc, const char *msg) {
  char buf[AR_ERRLEN];
  snprintf(buf, sizeof buf, "%s", msg ? msg : "");
  int rank, out = agree(comm, NULL, rc, buf, sizeof buf, 0);
  MPI_Comm_rank(comm, &rank);
  if (out && rank == 0) {
    fprintf(stderr, "arbench: %s\n", buf);
    fflush(stderr);
  }
  return out;
}
