/* orphan.c — a rank started by a launcher dies with it: after SIGKILL of mpirun no rank lives on to
 * measure or append a record (the kernel's parent-death signal; issue 28 item 14). */
#include "run/orphan.h"
#include "ar.h"
#include "run/launch.h"
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int ar_orphan_guard(char *const *envp) {
  if (!ar_launcher_var(envp)) return 0; /* one rank started by hand: its parent is a shell */
  pid_t parent = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -AR_ERUNTIME;
  if (getppid() != parent || parent == 1) { /* the launcher died before the signal was armed */
    fprintf(stderr, "arbench: the launcher that started this rank is gone: exiting\n");
    return -AR_ERUNTIME;
  }
  return 0;
}
