/* mpierr.h — the one place an MPI error on arbench's communicators ends: one line naming the call (or the phase it
 * ran in), its size and MPI's error class, then the job ends with exit status 1 (docs/run.md#when-mpi-itself-fails). */
#ifndef AR_MPIERR_H
#define AR_MPIERR_H

#include <mpi.h>
#include <stddef.h>

struct ar_watchdog;

/* Right after MPI_Init, before any communicator is made from MPI_COMM_WORLD (they inherit its handler): every MPI
 * error on them calls ar_mpi_fail, naming the watchdog's phase (dog may be NULL: no phase, this rank reports). */
void ar_mpi_errors_install(struct ar_watchdog *dog);

/* MPI's words for code: the class's string (Open MPI's "MPI_ERR_INTERN: internal error"), and the code's own string
 * after it when that says more. */
void ar_mpi_error_text(int code, char *buf, size_t len);

/* The one line: "arbench: rank R: error: WHAT failed: <ar_mpi_error_text>[; HINT]; ending the job", then the job ends
 * as a timeout ends it (ar_watchdog_end: one rank per node reports, MPI_Abort with status 1). hint may be NULL. A
 * caller that checks a call made on a communicator with MPI_ERRORS_RETURN (the mpi backend's) names the call and
 * its size in what. Never returns. */
_Noreturn void ar_mpi_fail(struct ar_watchdog *dog, int code, const char *what, const char *hint);

#endif
