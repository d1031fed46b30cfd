/* progress.c — progress of a sweep on stderr: a bar redrawn in place on a terminal, one
 * line per launch start and end otherwise; ETA from the mean time of the launches run so far. */
#include "sweep/progress.h"
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define BAR_WIDTH 20

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fmt_time(char *buf, size_t len, double s) {
  long t = (long)(s + 0.5);
  if (t >= 3600) snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* Time left: launches not yet finished times the mean launch time, minus the current one's run. */
static void fmt_eta(const struct ar_progress *p, double running, char *buf, size_t len) {
  if (!p->ran) {
    snprintf(buf, len, "?");
    return;
  }
  double mean = p->run_s / p->ran;
  double left = mean * (p->total - p->done) - running;
  fmt_time(buf, len, left > 0 ? left : 0);
}

static int term_width(FILE *f) {
  struct winsize ws;
  if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
  return 80;
}

void ar_progress_init(struct ar_progress *p, FILE *f, bool tty, int total, int skipped) {
  memset(p, 0, sizeof *p);
  p->f = f;
  p->tty = tty;
  p->total = total;
  p->done = skipped;
  p->t0 = now_s();
}

static void draw(struct ar_progress *p, double running) {
  char bar[BAR_WIDTH + 1], el[32], eta[32], line[1024];
  int fill = p->total ? p->done * BAR_WIDTH / p->total : 0;
  for (int i = 0; i < BAR_WIDTH; i++) bar[i] = i < fill ? '#' : '.';
  bar[BAR_WIDTH] = 0;
  fmt_time(el, sizeof el, now_s() - p->t0);
  fmt_eta(p, running, eta, sizeof eta);
  int n = snprintf(line, sizeof line, "[%s] %d/%d  %s elapsed, ETA %s  %s", bar, p->done, p->total, el, eta,
                   p->label ? p->label : "");
  int w = term_width(p->f) - 1;
  if (n > w) line[w] = 0;
  fprintf(p->f, "\r\033[K%s", line);
  fflush(p->f);
}

void ar_progress_begin(struct ar_progress *p, const char *label) {
  p->label = label;
  p->point_start = now_s();
  if (p->tty) {
    draw(p, 0);
    return;
  }
  char el[32], eta[32];
  fmt_time(el, sizeof el, now_s() - p->t0);
  fmt_eta(p, 0, eta, sizeof eta);
  fprintf(p->f, "arbench sweep: [%d/%d] %s (elapsed %s, ETA %s)\n", p->done + 1, p->total, label, el, eta);
  fflush(p->f);
}

void ar_progress_tick(struct ar_progress *p, double elapsed) {
  if (p->tty) draw(p, elapsed);
}

void ar_progress_end(struct ar_progress *p, const char *status, double seconds, const char *detail) {
  p->done++;
  p->ran++;
  p->run_s += seconds;
  int quiet = !strcmp(status, "done");
  if (p->tty && !quiet) fprintf(p->f, "\r\033[K");
  if (!p->tty || !quiet)
  {
    if (detail) fprintf(p->f, "arbench sweep: [%d/%d] %s: %s (%.1f s)\n", p->done, p->total, p->label, detail, seconds);
    else fprintf(p->f, "arbench sweep: [%d/%d] %s: %s in %.1f s\n", p->done, p->total, p->label, status, seconds);
  }
  p->label = NULL;
  if (p->tty) draw(p, 0);
  fflush(p->f);
}

void ar_progress_finish(struct ar_progress *p, const char *summary) {
  char el[32];
  fmt_time(el, sizeof el, now_s() - p->t0);
  if (p->tty) fprintf(p->f, "\r\033[K");
  fprintf(p->f, "arbench sweep: finished in %s: %s\n", el, summary);
  fflush(p->f);
}
