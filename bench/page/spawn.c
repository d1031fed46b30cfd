/* spawn.c — the page's helpers around other programs: run one (arbench's own commands, arbench-plot)
 * bounded by a timeout with its output in files, and find the plot script. */
#include "page/page.h"
#include "ar_config.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait for pid at most timeout seconds; on expiry kill its process group and reap it. */
static int wait_bounded(pid_t pid, int timeout, int *status) {
  double end = now() + timeout;
  for (;;) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return 0;
    if (r < 0 && errno != EINTR) return -1;
    if (now() > end) {
      kill(-pid, SIGKILL);
      waitpid(pid, status, 0);
      return 1;
    }
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

int ar_page_spawn(char *const argv[], const char *out, const char *errf, int timeout, char *err, size_t len) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&at);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP); /* its own group: a timeout ends its children too */
  posix_spawnattr_setpgroup(&at, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, &at, argv, environ), status = 0;
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc) {
    snprintf(err, len, "cannot run %s: %s", argv[0], strerror(rc));
    return -1;
  }
  int w = wait_bounded(pid, timeout, &status);
  if (w < 0) {
    snprintf(err, len, "lost %s: %s", argv[0], strerror(errno));
    return -1;
  }
  if (w > 0) {
    snprintf(err, len, "`%s %s` did not finish in %d s (--timeout): stopped", argv[0], argv[1] ? argv[1] : "", timeout);
    return -1;
  }
  if (WIFSIGNALED(status)) {
    snprintf(err, len, "`%s %s` died of signal %d", argv[0], argv[1] ? argv[1] : "", WTERMSIG(status));
    return -1;
  }
  return WEXITSTATUS(status);
}

static int executable(const char *p) { return *p && access(p, X_OK) == 0; }

void ar_page_find_plot(const char *given, const char *self, char *out, size_t len) {
  const char *env = getenv("ARBENCH_PLOT");
  char cand[4096];
  *out = 0;
  if (given || (env && *env)) { /* asked for: used as given, its absence reported by the caller */
    snprintf(out, len, "%s", given ? given : env);
    return;
  }
  const char *slash = strrchr(self, '/');
  snprintf(cand, sizeof cand, "%.*s/../plots/arbench-plot", slash ? (int)(slash - self) : 1, slash ? self : ".");
  if (executable(cand)) {
    snprintf(out, len, "%s", cand);
    return;
  }
  if (executable(AR_PLOT_SCRIPT)) snprintf(out, len, "%s", AR_PLOT_SCRIPT);
}
