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

/* Wait for pid until the monotonic time end; past it kill its process group and reap it. */
static int wait_bounded(pid_t pid, double end, int *status) {
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

int ar_page_start(char *const argv[], const char *out, const char *errf, struct ar_page_job *job, char *err, size_t len) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&at);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP); /* its own group: a timeout ends its children too */
  posix_spawnattr_setpgroup(&at, 0);
  int rc = posix_spawn(&job->pid, argv[0], &fa, &at, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  snprintf(job->what, sizeof job->what, "%s %s", argv[0], argv[1] ? argv[1] : "");
  job->start = now();
  if (rc) {
    snprintf(err, len, "cannot run %s: %s", argv[0], strerror(rc));
    job->pid = -1;
    return -1;
  }
  return 0;
}

int ar_page_finish(struct ar_page_job *job, int timeout, char *err, size_t len) {
  int status = 0;
  int w = wait_bounded(job->pid, job->start + timeout, &status);
  if (w < 0) {
    snprintf(err, len, "lost `%s`: %s", job->what, strerror(errno));
    return -1;
  }
  if (w > 0) {
    snprintf(err, len, "`%s` did not finish in %d s (--timeout): stopped", job->what, timeout);
    return -1;
  }
  if (WIFSIGNALED(status)) {
    snprintf(err, len, "`%s` died of signal %d", job->what, WTERMSIG(status));
    return -1;
  }
  return WEXITSTATUS(status);
}

int ar_page_spawn(char *const argv[], const char *out, const char *errf, int timeout, char *err, size_t len) {
  struct ar_page_job job;
  if (ar_page_start(argv, out, errf, &job, err, len)) return -1;
  return ar_page_finish(&job, timeout, err, len);
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
