/* file.c — the sweep's side of the results file: torn-tail repair, scanning the records a
 * launch appended (its run_ids), finished points for --resume, and the sweep/point/error records. */
#include "sweep/file.h"
#include "ar.h"
#include "run/pernode.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

off_t ar_sweep_file_size(const char *path, char *err, size_t len) {
  struct stat st;
  if (stat(path, &st) == 0) return st.st_size;
  if (errno == ENOENT) return 0;
  snprintf(err, len, "cannot read results file '%s': %s", path, strerror(errno));
  return -1;
}

int ar_sweep_file_truncate(const char *path, off_t size, char *err, size_t len) {
  if (truncate(path, size) == 0 || errno == ENOENT) return 0;
  snprintf(err, len, "cannot truncate results file '%s': %s", path, strerror(errno));
  return -AR_ERUNTIME;
}

static void count_record(json_t *rec, struct ar_appended *a) {
  const char *type = json_string_value(json_object_get(rec, "type"));
  json_t *id = json_object_get(rec, "run_id");
  if (!type) return;
  a->results += !strcmp(type, "result");
  a->skips += !strcmp(type, "skip");
  a->errors += !strcmp(type, "error");
  if (!json_is_string(id)) return;
  size_t i;
  json_t *v;
  json_array_foreach(a->run_ids, i, v) if (json_equal(v, id)) return;
  json_array_append(a->run_ids, id);
}

int ar_sweep_file_scan(const char *path, off_t from, struct ar_appended *a, char *err, size_t len) {
  memset(a, 0, sizeof *a);
  a->run_ids = json_array();
  FILE *f = fopen(path, "re");
  if (!f) {
    if (errno == ENOENT) return 0;
    snprintf(err, len, "cannot read results file '%s': %s", path, strerror(errno));
    return -AR_EINVAL;
  }
  if (fseeko(f, from, SEEK_SET)) {
    fclose(f);
    return 0;
  }
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0) {
    json_t *rec = json_loads(line, 0, NULL); /* a torn line does not parse: ignored */
    if (json_is_object(rec)) count_record(rec, a);
    json_decref(rec);
  }
  free(line);
  fclose(f);
  return 0;
}

void ar_appended_free(struct ar_appended *a) {
  json_decref(a->run_ids);
  a->run_ids = NULL;
}

static int keep_point(json_t *rec, const char *path, int line, void *arg) {
  (void)path;
  (void)line;
  if (!strcmp(ar_rec_str(rec, "type", ""), "point")) json_array_append(arg, rec);
  return 0;
}

int ar_sweep_file_points(const char *path, json_t **points, char *err, size_t len) {
  *points = json_array();
  if (access(path, F_OK) && errno == ENOENT) return 0;
  int rc = ar_results_read(path, keep_point, *points, err, len);
  if (rc) {
    json_decref(*points);
    *points = NULL;
  }
  return rc;
}

struct orphan_scan {
  json_t *runs;   /* run records with a point: {run_id, point} */
  json_t *listed; /* run_id -> true for every run_id a point record lists */
};

static int note_run(json_t *rec, const char *path, int line, void *arg) {
  (void)path;
  (void)line;
  struct orphan_scan *o = arg;
  const char *type = ar_rec_str(rec, "type", "");
  json_t *point = json_object_get(rec, "point"), *id = json_object_get(rec, "run_id");
  if (!strcmp(type, "run") && json_is_object(point) && json_is_string(id))
    json_array_append_new(o->runs, json_pack("{s:O, s:O}", "run_id", id, "point", point));
  if (!strcmp(type, "point")) {
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(rec, "run_ids"), i, v)
      if (json_is_string(v)) json_object_set_new(o->listed, json_string_value(v), json_true());
  }
  return 0;
}

int ar_sweep_file_orphans(const char *path, json_t **orphans, char *err, size_t len) {
  struct orphan_scan o = {json_array(), json_object()};
  *orphans = json_array();
  int rc = access(path, F_OK) && errno == ENOENT ? 0 : ar_results_read(path, note_run, &o, err, len);
  size_t i;
  json_t *r;
  json_array_foreach(o.runs, i, r)
    if (!rc && !json_object_get(o.listed, json_string_value(json_object_get(r, "run_id"))))
      json_array_append(*orphans, r);
  json_decref(o.runs);
  json_decref(o.listed);
  return rc;
}

json_t *ar_orphan_record(const char *sweep_id, json_t *orphan) {
  return json_pack("{s:s, s:s, s:O, s:s, s:[O], s:s}", "type", "point", "sweep_id", sweep_id, "point",
                   json_object_get(orphan, "point"), "status", "interrupted", "run_ids",
                   json_object_get(orphan, "run_id"), "message",
                   "this run was stopped before it finished (its sweep was killed); its records are incomplete");
}

const char *ar_sweep_point_status(json_t *points, const struct ar_launch *l, int repeat) {
  const char *status = NULL;
  size_t i;
  json_t *rec;
  json_array_foreach(points, i, rec) {
    if (json_equal(json_object_get(rec, "point"), l->point) && json_equal(json_object_get(rec, "args"), l->args) &&
        (int)ar_rec_num(rec, "repeat", 0) == repeat)
      status = ar_rec_str(rec, "status", "unknown");
  }
  return status;
}

int ar_sweep_writer_open(struct ar_writer *w, const char *path, char *err, size_t len) {
  return ar_writer_open_append(w, path, err, len); /* locked appends: runs may share the file */
}

/* A launcher that reports a rank's death by signal N exits 128+N (Open MPI, shells). */
static int crash_signal(const struct ar_child *c) {
  if (c->end == AR_CHILD_SIGNALED) return c->code;
  if (c->end == AR_CHILD_EXITED && c->code > 128 && c->code <= 128 + 64) return c->code - 128;
  return 0;
}

const char *ar_sweep_status(const struct ar_child *c) {
  if (c->end == AR_CHILD_TIMEOUT) return "timeout";
  if (c->end == AR_CHILD_INTERRUPTED) return "interrupted";
  if (crash_signal(c)) return "crashed";
  return c->end == AR_CHILD_EXITED && c->code == 0 ? "done" : "failed";
}

static json_t *strv_array(const struct ar_strv *s) {
  json_t *a = json_array();
  for (int i = 0; i < s->n; i++) json_array_append_new(a, json_string(s->v[i]));
  return a;
}

extern char **environ;

json_t *ar_sweep_record(const struct ar_sweep_cfg *c, const struct ar_plan *p, const char *sweep_id, int todo) {
  json_t *axes = json_object(), *inproc = json_object(), *files_of = json_object();
  for (int i = 0; i < c->naxes; i++) {
    const struct ar_axis *a = &c->axes[i];
    json_t *vals = json_array();
    for (int v = 0; v < a->values.n; v++)
      json_array_append_new(vals, a->kind == AR_AXIS_NP ? json_integer(atoi(a->values.v[v])) : json_string(a->values.v[v]));
    json_object_set_new(axes, a->name, vals);
    if (a->kind == AR_AXIS_NCCL) json_object_set_new(inproc, a->name, json_string(a->key));
    if (a->kind == AR_AXIS_STACK || a->kind == AR_AXIS_NCCL_LIB) { /* which binary or library each value is */
      json_t *files = json_object();
      for (int v = 0; v < a->values.n; v++) json_object_set_new(files, a->values.v[v], json_string(a->paths.v[v]));
      json_object_set_new(files_of, a->kind == AR_AXIS_STACK ? "stack_binaries" : "nccl_libraries", files);
    }
  }
  char start[64];
  time_t now = time(NULL);
  strftime(start, sizeof start, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  json_t *rec = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:i, s:b, s:f, s:i}", "type", "sweep",
                   "sweep_id", sweep_id, "start", start, "command", strv_array(&c->command), "axes", axes,
                   "in_process", inproc, "exclude", strv_array(&c->excludes), "launcher",
                   strv_array(&c->launcher), "points", p->npoints, "launches", p->n, "to_run", todo,
                   "resume", c->resume, "point_timeout", c->point_timeout, "repeat", c->repeat);
  if (rec) json_object_update(rec, files_of);
  if (rec && json_object_size(c->apply)) json_object_set(rec, "applies", c->apply); /* what table folds by */
  json_decref(files_of);
  json_t *slurm = ar_slurm_describe(environ); /* the allocation the sweep runs in (--launcher srun) */
  if (rec && slurm) json_object_set(rec, "slurm", slurm);
  json_decref(slurm);
  return rec;
}

static void set_exit(json_t *rec, const struct ar_child *c) {
  if (c->end == AR_CHILD_EXITED) json_object_set_new(rec, "exit_status", json_integer(c->code));
  if (crash_signal(c)) json_object_set_new(rec, "signal", json_integer(crash_signal(c)));
}

json_t *ar_point_record(const char *sweep_id, const struct ar_launch *l, int repeat, const struct ar_child *c,
                        const struct ar_appended *a) {
  json_t *rec = json_pack("{s:s, s:s, s:O, s:O, s:s?, s:i, s:s, s:O, s:i, s:i, s:i, s:f}", "type", "point",
                          "sweep_id", sweep_id, "point", l->point, "args", l->args, "backend", l->backend,
                          "variants", l->nvariants, "status", ar_sweep_status(c), "run_ids", a->run_ids,
                          "results", a->results, "skips", a->skips, "errors", a->errors, "elapsed_s", c->elapsed);
  json_object_set_new(rec, "repeat", json_integer(repeat));
  set_exit(rec, c);
  return rec;
}

void ar_sweep_outcome(const struct ar_child *c, double timeout, char *buf, size_t len) {
  if (c->end == AR_CHILD_TIMEOUT)
    snprintf(buf, len, "timed out after %g s (--point-timeout); killed", timeout);
  else if (crash_signal(c))
    snprintf(buf, len, "crashed: signal %d (%s)", crash_signal(c), strsignal(crash_signal(c)));
  else if (c->end == AR_CHILD_NOSTART)
    snprintf(buf, len, "cannot start: %s", strerror(c->code));
  else if (c->end == AR_CHILD_EXITED && c->code) {
    char why[400];
    ar_sweep_reason(c->tail, why, sizeof why); /* the line that says why, not only the status */
    snprintf(buf, len, "failed: exit status %d%s%s", c->code, *why ? ": " : "", why);
  }
  else
    snprintf(buf, len, "done");
}

json_t *ar_point_error_record(const char *sweep_id, const struct ar_launch *l, const struct ar_child *c,
                              const struct ar_appended *a, double timeout) {
  char what[512], msg[1024];
  ar_sweep_outcome(c, timeout, what, sizeof what);
  snprintf(msg, sizeof msg, "point %s: %s", l->label, what);
  json_t *rec = json_pack("{s:s, s:s, s:O, s:O, s:s, s:s, s:s, s:O}", "type", "error", "sweep_id", sweep_id,
                          "point", l->point, "args", l->args, "status", ar_sweep_status(c), "message", msg,
                          "stderr_tail", c->tail, "run_ids", a->run_ids);
  set_exit(rec, c);
  return rec;
}
