/* exec.c — child process control for `arbench sweep`: fork/execvpe without a shell, signals
 * through a signalfd, a deadline, SIGTERM then SIGKILL to the launch's process group, and the end of
 * any descendants (reparented to us as subreaper) so nothing keeps writing to the results file. */
#include "sweep/exec.h"
#include "ar.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILL_GRACE_S 5.0   /* SIGTERM lets mpirun take its ranks down; then SIGKILL */
#define ORPHAN_GRACE_S 2.0
#define PIPE_LINGER_S 1.0  /* stderr held open by a stray descendant after the child exited */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int ar_supervisor_init(struct ar_supervisor *s, char *err, size_t len) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &set, &s->old_mask)) goto fail;
  s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (s->sigfd < 0) goto fail;
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) goto fail;
  return 0;
fail:
  snprintf(err, len, "cannot set up signal handling: %s", strerror(errno));
  return -AR_ERUNTIME;
}

void ar_supervisor_fini(struct ar_supervisor *s) {
  close(s->sigfd);
  sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
}

/* Reap every exited child; returns 1 and the status when `pid` was among them. */
static int reap(pid_t pid, int *status) {
  int st, found = 0;
  pid_t r;
  while ((r = waitpid(-1, &st, WNOHANG)) > 0)
    if (r == pid) {
      *status = st;
      found = 1;
    }
  return found;
}

/* Read queued signals; returns the last SIGINT/SIGTERM/SIGHUP seen (0 if none). */
static int read_signals(int fd) {
  struct signalfd_siginfo si;
  int got = 0;
  while (read(fd, &si, sizeof si) == (ssize_t)sizeof si)
    if (si.ssi_signo != SIGCHLD) got = (int)si.ssi_signo;
  return got;
}

int ar_supervisor_pending(struct ar_supervisor *s) {
  int st;
  int sig = read_signals(s->sigfd);
  reap(-1, &st);
  return sig;
}

/* Our direct children other than the launch itself: descendants orphaned by a killed launcher. */
static int list_children(pid_t *out, int cap) {
  DIR *d = opendir("/proc");
  if (!d) return 0;
  pid_t self = getpid();
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < cap) {
    char path[300], buf[512];
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE *f = fopen(path, "re");
    if (!f) continue;
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = 0;
    char *rp = strrchr(buf, ')'); /* "pid (comm) state ppid ..."; comm may hold spaces */
    char state;
    int ppid;
    if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == self && state != 'Z')
      out[n++] = (pid_t)atoi(e->d_name);
  }
  closedir(d);
  return n;
}

static void end_orphans(void) {
  pid_t kids[256];
  int st, n;
  double until = now_s() + ORPHAN_GRACE_S;
  for (int sig = SIGTERM; (n = list_children(kids, 256)) > 0;) {
    for (int i = 0; i < n; i++) kill(kids[i], sig);
    struct timespec nap = {0, 50 * 1000 * 1000};
    nanosleep(&nap, NULL);
    reap(-1, &st);
    if (now_s() > until) {
      if (sig == SIGKILL) break;
      sig = SIGKILL;
      until = now_s() + ORPHAN_GRACE_S;
    }
  }
  reap(-1, &st);
}

static void tail_add(char *tail, const char *buf, size_t n, size_t *used) {
  size_t cap = AR_TAIL_BYTES - 1;
  if (n >= cap) {
    buf += n - cap;
    n = cap;
  }
  if (*used + n > cap) {
    size_t drop = *used + n - cap;
    memmove(tail, tail + drop, *used - drop);
    *used -= drop;
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)buf[i];
    tail[(*used)++] = (c == '\n' || c == '\t' || (c >= 32 && c < 127)) ? (char)c : '?';
  }
  tail[*used] = 0;
}

static void child_exec(struct ar_supervisor *s, char **argv, char **envp, bool verbose, int errfd, pid_t parent) {
  setpgid(0, 0);
  sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
  prctl(PR_SET_PDEATHSIG, SIGTERM); /* a SIGKILLed sweep still takes its launch down */
  if (getppid() != parent) _exit(127);
  int devnull = open("/dev/null", O_RDWR);
  if (devnull < 0 || dup2(devnull, 0) < 0 || (!verbose && dup2(devnull, 1) < 0) || dup2(errfd, 2) < 0) _exit(127);
  execvpe(argv[0], argv, envp);
  dprintf(2, "arbench sweep: cannot execute '%s': %s\n", argv[0], strerror(errno));
  _exit(127);
}

struct watch {
  pid_t pid;
  int status, reaped, pipe_open, stage, why, sig;
  double start, deadline, kill_at, reaped_at;
  size_t used;
};

/* Send the next signal of the kill sequence to the launch's process group. */
static void escalate(struct watch *w, double now) {
  if (w->reaped) return;
  w->stage = w->stage ? 2 : 1;
  kill(-w->pid, w->stage == 1 ? SIGTERM : SIGKILL);
  w->kill_at = now + KILL_GRACE_S;
}

static int wait_ms(const struct watch *w, double now) {
  double t = 1.0;
  if (w->deadline && !w->why && w->deadline - now < t) t = w->deadline - now;
  if (w->stage == 1 && w->kill_at - now < t) t = w->kill_at - now;
  if (w->reaped) t = 0.05;
  return t < 0 ? 0 : (int)(t * 1000) + 1;
}

static void on_pipe(struct watch *w, int fd, bool verbose, struct ar_child *out) {
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) {
    w->pipe_open = 0;
    return;
  }
  tail_add(out->tail, buf, (size_t)n, &w->used);
  if (verbose && write(2, buf, (size_t)n) < 0) { /* nothing to do */ }
}

void ar_child_run(struct ar_supervisor *s, char **argv, char **envp, double timeout, bool verbose,
                  ar_tick_fn tick, void *arg, struct ar_child *out) {
  memset(out, 0, sizeof *out);
  int pfd[2];
  pid_t parent = getpid();
  if (pipe2(pfd, O_CLOEXEC)) {
    out->end = AR_CHILD_NOSTART;
    out->code = errno;
    return;
  }
  struct watch w = {.pipe_open = 1, .start = now_s()};
  w.pid = fork();
  if (w.pid == 0) child_exec(s, argv, envp, verbose, pfd[1], parent);
  close(pfd[1]);
  if (w.pid < 0) {
    close(pfd[0]);
    out->end = AR_CHILD_NOSTART;
    out->code = errno;
    return;
  }
  setpgid(w.pid, w.pid);
  w.deadline = timeout > 0 ? w.start + timeout : 0;
  double next_tick = w.start + 1;
  while (!w.reaped || w.pipe_open) {
    double now = now_s();
    if (w.reaped && now - w.reaped_at > PIPE_LINGER_S) break;
    if (!w.why && w.deadline && now >= w.deadline) {
      w.why = AR_CHILD_TIMEOUT;
      escalate(&w, now);
    }
    if (w.stage == 1 && now >= w.kill_at) escalate(&w, now);
    struct pollfd fds[2] = {{.fd = s->sigfd, .events = POLLIN}, {.fd = pfd[0], .events = POLLIN}};
    int ready = poll(fds, w.pipe_open ? 2 : 1, wait_ms(&w, now));
    now = now_s();
    if (ready > 0 && w.pipe_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) on_pipe(&w, pfd[0], verbose, out);
    int sig = ready > 0 && (fds[0].revents & POLLIN) ? read_signals(s->sigfd) : 0;
    if (sig) { /* Ctrl-C: stop this launch; a second one skips the grace period */
      w.why = AR_CHILD_INTERRUPTED;
      w.sig = sig;
      escalate(&w, now);
    }
    if (!w.reaped && reap(w.pid, &w.status)) {
      w.reaped = 1;
      w.reaped_at = now;
    }
    if (tick && now >= next_tick) {
      tick(arg, now - w.start);
      next_tick = now + 1;
    }
  }
  close(pfd[0]);
  end_orphans();
  out->elapsed = now_s() - w.start;
  if (w.why == AR_CHILD_TIMEOUT || w.why == AR_CHILD_INTERRUPTED) {
    out->end = (enum ar_child_end)w.why;
    out->code = w.why == AR_CHILD_INTERRUPTED ? w.sig : 0;
  } else if (WIFSIGNALED(w.status)) {
    out->end = AR_CHILD_SIGNALED;
    out->code = WTERMSIG(w.status);
  } else {
    out->end = AR_CHILD_EXITED;
    out->code = WEXITSTATUS(w.status);
  }
}
