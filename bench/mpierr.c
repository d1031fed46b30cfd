/* mpierr.c — the one place an MPI error on arbench's communicators ends (mpierr.h): arbench's handler on
 * MPI_COMM_WORLD in place of MPI_ERRORS_ARE_FATAL, whose text `mpirun -q` hides and whose status is MPI's code. */
#include "mpierr.h"
#include "ar.h"
#include "watchdog.h"
#include <stdio.h>
#include <string.h>

/* The watchdog the handler names the phase from: set once, right after MPI_Init, by ar_mpi_errors_install (an MPI
 * error handler takes no user data). */
static struct ar_watchdog *handler_dog;

void ar_mpi_error_text(int code, char *buf, size_t len) {
  char cs[MPI_MAX_ERROR_STRING] = "", s[MPI_MAX_ERROR_STRING] = "";
  int cls = code, n = 0;
  if (MPI_Error_class(code, &cls) != MPI_SUCCESS) cls = code;
  if (MPI_Error_string(cls, cs, &n) != MPI_SUCCESS || !*cs) snprintf(cs, sizeof cs, "MPI error class %d", cls);
  if (code != cls && MPI_Error_string(code, s, &n) == MPI_SUCCESS && *s && strcmp(s, cs))
    snprintf(buf, len, "%s (%s)", cs, s);
  else snprintf(buf, len, "%s", cs);
}

_Noreturn void ar_mpi_fail(struct ar_watchdog *dog, int code, const char *what, const char *hint) {
  char text[2 * MPI_MAX_ERROR_STRING + 8], line[2048];
  int rank = -1, up = 0;
  ar_mpi_error_text(code, text, sizeof text);
  MPI_Initialized(&up);
  if (up) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(line, sizeof line, "arbench: rank %d: error: %s failed: %s%s%s; ending the job", rank, what, text,
           hint && *hint ? "; " : "", hint ? hint : "");
  ar_watchdog_end(dog, line);
}

static void on_error(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  char where[300], what[400];
  ar_watchdog_where(handler_dog, where, sizeof where);
  snprintf(what, sizeof what, "an MPI call%s%s", *where ? " in " : "", where);
  ar_mpi_fail(handler_dog, *code, what, NULL);
}

void ar_mpi_errors_install(struct ar_watchdog *dog) {
  MPI_Errhandler h;
  handler_dog = dog;
  if (MPI_Comm_create_errhandler(on_error, &h) != MPI_SUCCESS) return; /* MPI's own stays: its text, its status */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, h);
  MPI_Errhandler_free(&h); /* the communicator keeps its reference */
}
