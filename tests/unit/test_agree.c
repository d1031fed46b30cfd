/* test_agree.c — ar_agree (bench/agree.c) on 3 MPI ranks: nobody failed; one rank failed (its status and
 * message on every rank, "rank R: " first); two failed (the lowest one's); all failed (no rank named); a
 * message that names a rank already is left as it is. Run under mpirun -np 3. */
#include "agree.h"
#include "ar.h"
#include <stdio.h>
#include <string.h>

static int fails;

static void expect(int rank, const char *what, int got, int want, const char *msg, const char *want_msg) {
  if (got == want && !strcmp(msg, want_msg)) return;
  fprintf(stderr, "FAIL: rank %d: %s: got %d '%s', expected %d '%s'\n", rank, what, got, msg, want, want_msg);
  fails++;
}

static void step(int rank, const char *what, int rc, const char *mine, int want, const char *want_msg) {
  char msg[AR_ERRLEN];
  snprintf(msg, sizeof msg, "%s", rc ? mine : "");
  expect(rank, what, ar_agree(MPI_COMM_WORLD, NULL, rc, msg, sizeof msg), want, msg, want_msg);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n != 3) {
    if (!rank) printf("skipped: test_agree needs 3 ranks (mpirun -np 3), got %d\n", n);
    MPI_Finalize();
    return 77;
  }
  char mine[64];
  snprintf(mine, sizeof mine, "boom on %d", rank);
  step(rank, "none failed", 0, mine, 0, "");
  step(rank, "rank 1 failed", rank == 1 ? -AR_ETIMEOUT : 0, mine, -AR_ETIMEOUT, "rank 1: boom on 1");
  step(rank, "ranks 1, 2 failed", rank == 1 ? -AR_EUNAVAIL : rank == 2 ? -AR_ERUNTIME : 0, mine, -AR_EUNAVAIL,
       "rank 1: boom on 1");
  step(rank, "all failed", rank == 0 ? -AR_ERUNTIME : -AR_EUNAVAIL, mine, -AR_ERUNTIME, "boom on 0");
  step(rank, "names a rank", rank == 2 ? -AR_ERUNTIME : 0, "rank 2 has no GPU", -AR_ERUNTIME, "rank 2 has no GPU");
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!rank) printf(all ? "test_agree: %d failures\n" : "test_agree: ok\n", all);
  MPI_Finalize();
  return all ? 1 : 0;
}
