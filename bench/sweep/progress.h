/* progress.h — sweep progress on stderr: points done/total, the current point, elapsed and
 * ETA; a redrawn bar on a terminal, plain lines otherwise. */
#ifndef AR_SWEEP_PROGRESS_H
#define AR_SWEEP_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

struct ar_progress {
  FILE *f;
  bool tty;
  int total;        /* launches in the plan */
  int done;         /* finished or skipped (resume) */
  int ran;          /* finished in this session */
  double t0;        /* session start */
  double run_s;     /* time spent in finished launches */
  const char *label;
  double point_start;
};

void ar_progress_init(struct ar_progress *p, FILE *f, bool tty, int total, int skipped);
void ar_progress_begin(struct ar_progress *p, const char *label);
/* Redraw (terminal only) while the current launch has run `elapsed` seconds. */
void ar_progress_tick(struct ar_progress *p, double elapsed);
/* The current launch ended with status after `seconds`; detail may be NULL. */
void ar_progress_end(struct ar_progress *p, const char *status, double seconds, const char *detail);
/* Final summary line. */
void ar_progress_finish(struct ar_progress *p, const char *summary);

#endif
