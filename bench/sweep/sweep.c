/* sweep.c — `arbench sweep`: plan the launches, skip those already finished (--resume), run each
 * under the launcher with a deadline, record its outcome, stop cleanly on Ctrl-C (exit 130). */
#include "ar.h"
#include "commands.h"
#include "sweep/exec.h"
#include "sweep/file.h"
#include "sweep/plan.h"
#include "sweep/progress.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define AR_EXIT_INTERRUPTED 130

extern char **environ;

struct sweep {
  struct ar_sweep_cfg cfg;
  struct ar_plan plan;
  char *todo; /* per launch j of ntotal: 1 = run it */
  int ntodo, ntotal; /* ntotal = plan.n * --repeat; step j: launch ar_round_launch(j, plan.n), repeat j / plan.n */
  char id[32];
  struct ar_supervisor sup;
  struct ar_writer w;
  struct ar_progress prog;
  int failed, done;
};

static int say(int status, const char *msg) {
  fprintf(stderr, "arbench sweep: %s\n", msg);
  return status;
}

static void make_id(char *buf, size_t len) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  unsigned long long h = 0xcbf29ce484222325ull ^ ((unsigned long long)getpid() << 32) ^ (unsigned long long)ts.tv_nsec;
  h = (h ^ (unsigned long long)ts.tv_sec) * 0x100000001b3ull;
  snprintf(buf, len, "%016llx", h);
}

/* Decide which launches run: --resume skips those with a point record (done ones only with
 * --retry-failed); without --resume, finding any is an error (it would duplicate records). */
static int choose(struct sweep *s, char *err, size_t len) {
  json_t *points;
  int rc = ar_sweep_file_points(s->cfg.json, &points, err, len);
  if (rc) return rc;
  int found = 0, first = -1;
  s->ntotal = s->plan.n * s->cfg.repeat;
  s->todo = calloc((size_t)s->ntotal + 1, 1);
  for (int i = 0; s->todo && i < s->ntotal; i++) {
    const char *st = ar_sweep_point_status(points, &s->plan.l[ar_round_launch(i, s->plan.n)], i / s->plan.n);
    if (st && !strcmp(st, "interrupted")) st = NULL; /* never finished */
    int skip = st && (!s->cfg.retry_failed || !strcmp(st, "done"));
    if (st && first < 0) first = i;
    found += st != NULL;
    s->todo[i] = s->cfg.resume ? !skip : 1;
    s->ntodo += s->todo[i];
  }
  json_decref(points);
  if (!s->todo) return -AR_ERUNTIME;
  if (found && !s->cfg.resume) {
    snprintf(err, len, "%s already has %d point%s of this sweep (e.g. %s); add --resume to skip them or use another -J file",
             s->cfg.json, found, found > 1 ? "s" : "", s->plan.l[ar_round_launch(first, s->plan.n)].label);
    return -AR_EINVAL;
  }
  return 0;
}

static void dry_run(struct sweep *s) {
  for (int i = 0; i < s->ntotal; i++) {
    if (!s->todo[i]) continue;
    if (s->cfg.repeat > 1 && i % s->plan.n == 0) printf("# repeat %d of %d\n", i / s->plan.n + 1, s->cfg.repeat);
    ar_launch_print(stdout, &s->plan.l[ar_round_launch(i, s->plan.n)]);
    putchar('\n');
  }
  fprintf(stderr, "arbench sweep: dry run: %d launch%s (%d point%s), %d already in %s\n", s->ntodo,
          s->ntodo == 1 ? "" : "es", s->plan.npoints, s->plan.npoints == 1 ? "" : "s", s->ntotal - s->ntodo, s->cfg.json);
}

static void repair(const char *path) {
  long removed;
  char err[AR_ERRLEN];
  if (ar_results_repair(path, &removed, err, sizeof err)) fprintf(stderr, "arbench sweep: warning: %s\n", err);
  else if (removed)
    fprintf(stderr, "arbench sweep: warning: %s: removed a torn last line (%ld bytes) left by an interrupted writer\n",
            path, removed);
}

static void put(struct sweep *s, json_t *rec) {
  char err[AR_ERRLEN];
  if (ar_writer_put(&s->w, rec, err, sizeof err)) fprintf(stderr, "arbench sweep: %s\n", err);
  json_decref(rec);
}

static void tick(void *arg, double elapsed) { ar_progress_tick(arg, elapsed); }

/* Record a finished launch: an error record when it did not succeed, then its point record. */
static void record(struct sweep *s, const struct ar_launch *l, int repeat, off_t start, const struct ar_child *c) {
  char err[AR_ERRLEN];
  struct ar_appended a;
  repair(s->cfg.json); /* a killed launch may have left half a line */
  if (ar_sweep_file_scan(s->cfg.json, start, &a, err, sizeof err)) fprintf(stderr, "arbench sweep: warning: %s\n", err);
  const char *status = ar_sweep_status(c);
  char detail[512];
  ar_sweep_outcome(c, s->cfg.point_timeout, detail, sizeof detail);
  int ok = !strcmp(status, "done");
  if (!ok) put(s, ar_point_error_record(s->id, l, c, &a, s->cfg.point_timeout));
  put(s, ar_point_record(s->id, l, repeat, c, &a));
  ar_appended_free(&a);
  s->failed += !ok;
  s->done += ok;
  ar_progress_end(&s->prog, status, c->elapsed, ok ? NULL : detail);
}

/* Ctrl-C: the running launch (if any) is gone; drop its partial records. */
static int interrupted(struct sweep *s, int sig, const struct ar_launch *l, off_t start) {
  char err[AR_ERRLEN], msg[700];
  if (l && ar_sweep_file_truncate(s->cfg.json, start, err, sizeof err)) say(0, err);
  if (s->prog.tty) fprintf(stderr, "\r\033[K");
  snprintf(msg, sizeof msg, "interrupted by %s%s%s%s; %d of %d launches finished; rerun with --resume to complete %s",
           strsignal(sig), l ? " during " : "", l ? l->label : "", l ? " (its partial records removed)" : "",
           s->prog.done, s->prog.total, s->cfg.json);
  return say(AR_EXIT_INTERRUPTED, msg);
}

/* Partial records of launches a killed sweep left behind get an "interrupted" point record. */
static void mark_orphans(struct sweep *s) {
  char err[AR_ERRLEN];
  json_t *orphans;
  if (ar_sweep_file_orphans(s->cfg.json, &orphans, err, sizeof err)) {
    fprintf(stderr, "arbench sweep: warning: %s\n", err);
    return;
  }
  size_t i;
  json_t *o;
  json_array_foreach(orphans, i, o) put(s, ar_orphan_record(s->id, o));
  if (json_array_size(orphans))
    fprintf(stderr, "arbench sweep: marked %zu incomplete run%s in %s as interrupted\n", json_array_size(orphans),
            json_array_size(orphans) > 1 ? "s" : "", s->cfg.json);
  json_decref(orphans);
}

static int run_all(struct sweep *s) {
  char err[AR_ERRLEN];
  repair(s->cfg.json);
  if (ar_sweep_writer_open(&s->w, s->cfg.json, err, sizeof err)) return say(AR_EXIT_USAGE, err);
  put(s, ar_sweep_record(&s->cfg, &s->plan, s->id, s->ntodo));
  mark_orphans(s);
  ar_progress_init(&s->prog, stderr, isatty(2), s->ntotal, s->ntotal - s->ntodo);
  if (s->ntodo < s->ntotal)
    fprintf(stderr, "arbench sweep: resuming: %d of %d launches already in %s\n", s->ntotal - s->ntodo, s->ntotal, s->cfg.json);
  for (int i = 0; i < s->ntotal; i++) {
    if (!s->todo[i]) continue;
    int sig = ar_supervisor_pending(&s->sup);
    if (sig) return interrupted(s, sig, NULL, 0);
    const struct ar_launch *l = &s->plan.l[ar_round_launch(i, s->plan.n)];
    off_t start = ar_sweep_file_size(s->cfg.json, err, sizeof err);
    if (start < 0) return say(AR_EXIT_FAIL, err);
    ar_progress_begin(&s->prog, l->label);
    struct ar_child c;
    ar_child_run(&s->sup, l->argv.v, l->env.v, s->cfg.point_timeout, s->cfg.verbose, tick, &s->prog, &c);
    if (c.end == AR_CHILD_INTERRUPTED) return interrupted(s, c.code, l, start);
    record(s, l, i / s->plan.n, start, &c);
  }
  char summary[300];
  snprintf(summary, sizeof summary, "%d launch%s (%d points): %d done, %d not done, %d already in %s",
           s->ntotal, s->ntotal == 1 ? "" : "es", s->plan.npoints, s->done, s->failed, s->ntotal - s->ntodo, s->cfg.json);
  ar_progress_finish(&s->prog, summary);
  return s->failed ? AR_EXIT_FAIL : AR_EXIT_OK;
}

static int sweep(struct sweep *s, int argc, char **argv) {
  char exe[PATH_MAX], cwd[PATH_MAX], err[AR_ERRLEN];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n < 0 || !getcwd(cwd, sizeof cwd)) return say(AR_EXIT_FAIL, "cannot find the arbench binary or the working directory");
  exe[n] = 0;
  int rc = ar_sweep_parse(&s->cfg, argc, argv, exe, cwd, err, sizeof err);
  if (rc == 1) {
    ar_sweep_usage(stdout);
    return AR_EXIT_OK;
  }
  if (!rc) rc = ar_sweep_env_check(&s->cfg, environ, err, sizeof err); /* the points skip it (--point) */
  if (!rc)
    for (int i = 0; i < s->cfg.warnings.n; i++) fprintf(stderr, "arbench sweep: %s\n", s->cfg.warnings.v[i]);
  if (!rc) rc = ar_sweep_plan(&s->cfg, environ, geteuid() == 0, &s->plan, err, sizeof err);
  if (!rc) rc = choose(s, err, sizeof err);
  if (rc) return say(rc == -AR_EINVAL ? AR_EXIT_USAGE : AR_EXIT_FAIL, err);
  ar_sweep_applies_say(&s->cfg, s->cfg.apply, stderr);
  if (s->cfg.dry_run) {
    dry_run(s);
    return AR_EXIT_OK;
  }
  if (!s->ntodo) {
    fprintf(stderr, "arbench sweep: nothing to do: all %d launches are already in %s\n", s->ntotal, s->cfg.json);
    return AR_EXIT_OK;
  }
  make_id(s->id, sizeof s->id);
  if (ar_supervisor_init(&s->sup, err, sizeof err)) return say(AR_EXIT_FAIL, err);
  rc = run_all(s);
  ar_writer_close(&s->w);
  ar_supervisor_fini(&s->sup);
  return rc;
}

int ar_cmd_sweep(int argc, char **argv) {
  struct sweep *s = calloc(1, sizeof *s);
  if (!s) return AR_EXIT_FAIL;
  int rc = sweep(s, argc, argv);
  ar_plan_free(&s->plan);
  ar_sweep_cfg_free(&s->cfg);
  free(s->todo);
  free(s);
  return rc;
}
