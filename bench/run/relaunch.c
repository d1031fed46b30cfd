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
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

extern char **environ;

void ar_relaunch_plan(int np_opt, bool no_launch, struct ar_launch *l) {
  char why[AR_ERRLEN];
  bool outside = !no_launch && !ar_launcher_var(environ);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  ar_launch_decide(environ, outside ? ar_gpu_count(why, sizeof why) : 0, (int)cores, np_opt, no_launch, geteuid() == 0,
                   l);
}

static volatile sig_atomic_t child_pid, forwarded;

static void forward(int sig) {
  forwarded = sig;
  if (child_pid > 0) kill((pid_t)child_pid, sig);
}

/* mpirun -q runs the ranks and prints none of its banners; arbench waits for it, passes on the signals
 * meant for the job, and says in one line what -q keeps quiet: a rank ended by a signal (status 128+N). */
static int supervise(char **v) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "arbench: cannot start %s: %s (run it yourself, or --no-launch for one rank here)\n", v[0],
            strerror(errno));
    return AR_EXIT_FAIL;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* arbench killed: mpirun takes its ranks down */
    execvp(v[0], v);
    fprintf(stderr, "arbench: cannot start %s: %s (run it yourself, or --no-launch for one rank here)\n", v[0],
            strerror(errno));
    _exit(AR_EXIT_FAIL);
  }
  child_pid = pid;
  struct sigaction sa = {.sa_handler = forward};
  sigemptyset(&sa.sa_mask);
  int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  if (WIFSIGNALED(st)) {
    if (!forwarded) fprintf(stderr, "arbench: mpirun ended on signal %d (%s)\n", WTERMSIG(st), strsignal(WTERMSIG(st)));
    return 128 + WTERMSIG(st);
  }
  int code = WIFEXITED(st) ? WEXITSTATUS(st) : AR_EXIT_FAIL;
  if (code > 128 && code < 128 + 65 && !forwarded)
    fprintf(stderr, "arbench: a rank ended on signal %d (%s); mpirun ended the job\n", code - 128, strsignal(code - 128));
  return code;
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
  int rc = supervise(v);
  ar_launch_free(v);
  return rc;
}
