/* mpierr_job.c — a two-rank job for tests/unit/mpierr.sh: arbench's MPI error handler (bench/mpierr.c) on a
 * communicator made from the world's after it was installed, and rank 1 making one call that MPI fails there.
 * mode "count": MPI_Bcast with a count of -1 (MPI's own argument check); mode "code": an error code of this job's own
 * in class MPI_ERR_OTHER with its own string (the class's words, then the code's); mode "text": rank 0 prints
 * ar_mpi_error_text of such a code and of a class, and the job ends normally. */
#include "mpierr.h"
#include "watchdog.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  struct ar_watchdog dog;
  ar_watchdog_start(&dog, 0, -1, NULL); /* no thread: only its phase and rank, as run's */
  MPI_Init(&argc, &argv);
  ar_mpi_errors_install(&dog);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ar_watchdog_mpi(&dog, 1, rank, NULL);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm); /* inherits the handler */
  int code;
  MPI_Add_error_code(MPI_ERR_OTHER, &code);
  MPI_Add_error_string(code, "the planted code's own words");
  char buf[1024];
  int v = 0;
  if (!strcmp(mode, "text")) {
    if (rank == 0) {
      ar_mpi_error_text(code, buf, sizeof buf);
      printf("%s\n", buf);
      ar_mpi_error_text(MPI_ERR_COUNT, buf, sizeof buf);
      printf("%s\n", buf);
    }
  } else {
    ar_watchdog_phase(&dog, "start-up: the test's step");
    if (rank == 1 && !strcmp(mode, "count")) MPI_Bcast(&v, -1, MPI_INT, 0, comm);
    if (rank == 1 && !strcmp(mode, "code")) MPI_Comm_call_errhandler(comm, code);
    MPI_Bcast(&v, 1, MPI_INT, 0, comm); /* rank 0 waits here: the job must end it */
    ar_watchdog_phase(&dog, "%s", "");
  }
  MPI_Comm_free(&comm);
  MPI_Finalize();
  ar_watchdog_stop(&dog);
  return 0;
}
