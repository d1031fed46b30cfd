/* exec.h — run one launch as a child: argv with an explicit environment, its own process
 * group, stderr tail kept, a deadline, and the whole process tree killed on timeout or Ctrl-C. */
#ifndef AR_SWEEP_EXEC_H
#define AR_SWEEP_EXEC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#define AR_TAIL_BYTES 2048

/* Signals arrive through a signalfd (no handlers, no global state); the sweep is a child
 * subreaper so ranks orphaned by a killed launcher come back to it and can be ended. */
struct ar_supervisor {
  int sigfd;
  sigset_t old_mask;
};

enum ar_child_end {
  AR_CHILD_EXITED,      /* code = exit status */
  AR_CHILD_SIGNALED,    /* code = the signal that ended it */
  AR_CHILD_TIMEOUT,     /* ran past the deadline and was killed */
  AR_CHILD_INTERRUPTED, /* the sweep got SIGINT/SIGTERM/SIGHUP (code) and killed it */
  AR_CHILD_NOSTART,     /* fork or pipe failed (code = errno) */
};

struct ar_child {
  enum ar_child_end end;
  int code;
  double elapsed;           /* seconds */
  char tail[AR_TAIL_BYTES]; /* the end of its stderr, printable ASCII and newlines */
};

/* Called about once a second while a child runs, with its running time. */
typedef void (*ar_tick_fn)(void *arg, double elapsed);

int ar_supervisor_init(struct ar_supervisor *s, char *err, size_t len);
void ar_supervisor_fini(struct ar_supervisor *s);
/* A pending SIGINT/SIGTERM/SIGHUP (its number), or 0; reaps stray children. */
int ar_supervisor_pending(struct ar_supervisor *s);

/* Run argv (argv[0] looked up in PATH) with envp; stdin is /dev/null, stdout /dev/null unless
 * verbose, stderr captured (and echoed when verbose). timeout 0 = none. */
void ar_child_run(struct ar_supervisor *s, char **argv, char **envp, double timeout, bool verbose,
                  ar_tick_fn tick, void *arg, struct ar_child *out);

/* reason.c: why a launch failed, one line from the end of its stderr (tail): arbench's first error line,
 * else the first paragraph of the launcher's ------ block, else the last line; "" when it is empty. */
void ar_sweep_reason(const char *tail, char *buf, size_t len);

#endif
