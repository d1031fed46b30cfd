/* relaunch.c — `arbench run` and `arbench links` started outside an MPI launcher: launch.c's decision for
 * this process (its environment, GPUs, cores, user), and the exec of mpirun with the command printed. */
#include "ar.h"
#include "device/gpu.h"
#include "run/launch.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

void ar_relaunch_plan(int np_opt, bool no_launch, struct ar_launch *l) {
  char why[AR_ERRLEN];
  bool outside = !no_launch && !ar_launcher_var(environ);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  ar_launch_decide(environ, outside ? ar_gpu_count(why, sizeof why) : 0, (int)cores, np_opt, no_launch, geteuid() == 0,
                   l);
}

int ar_relaunch_exec(const struct ar_launch *l, bool np_given, int argc, char **argv) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) snprintf(exe, sizeof exe, "%s", argv[-1]);
  else exe[n] = 0;
  char **v = ar_launch_argv(l, exe, argc, argv);
  if (!v) return AR_EXIT_FAIL;
  static char cmd[8192];
  ar_launch_format(l, v, cmd, sizeof cmd);
  fprintf(stderr, "arbench: not started by mpirun: running %d ranks%s: %s   (--no-launch: one rank here)\n", l->np,
          np_given ? "" : ", one per GPU", cmd);
  fflush(stderr);
  setenv("ARBENCH_LAUNCHED", "1", 1);
  if (l->root_env) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  if (l->oversubscribe) setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
  execvp(v[0], v);
  fprintf(stderr, "arbench: cannot start %s: %s (run it yourself, or --no-launch for one rank here)\n", v[0],
          strerror(errno));
  ar_launch_free(v);
  return AR_EXIT_FAIL;
}
