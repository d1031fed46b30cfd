/* file.h — the sweep's side of the results file: repair a torn tail, scan what a launch
 * appended, find finished points for --resume, and the records the sweep itself writes. */
#ifndef AR_SWEEP_FILE_H
#define AR_SWEEP_FILE_H

#include "results.h"
#include "sweep/exec.h"
#include "sweep/plan.h"
#include <sys/types.h>

/* What one launch appended to the file. */
struct ar_appended {
  json_t *run_ids; /* distinct run_id strings, in order */
  int results, skips, errors;
};

/* Size of path in bytes (0 when missing); -1 with err on failure. */
off_t ar_sweep_file_size(const char *path, char *err, size_t len);
/* Cut path back to size (drop a launch's partial records). */
int ar_sweep_file_truncate(const char *path, off_t size, char *err, size_t len);
/* Records appended after offset `from`. */
int ar_sweep_file_scan(const char *path, off_t from, struct ar_appended *a, char *err, size_t len);
/* Every `point` record of path (empty array when the file is missing). */
int ar_sweep_file_points(const char *path, json_t **points, char *err, size_t len);
/* Status of the last `point` record for this launch and repeat ("done", "failed"...), or NULL. */
const char *ar_sweep_point_status(json_t *points, const struct ar_launch *l, int repeat);

/* Runs (their run record has a "point") that no `point` record lists: left by a killed sweep.
 * Each entry is {run_id, point}; ar_orphan_record marks one as status "interrupted". */
int ar_sweep_file_orphans(const char *path, json_t **orphans, char *err, size_t len);
json_t *ar_orphan_record(const char *sweep_id, json_t *orphan);

/* Open path for appending the sweep's own records (close-on-exec: launches don't inherit it). */
int ar_sweep_writer_open(struct ar_writer *w, const char *path, char *err, size_t len);

/* Records. status: "done", "failed", "timeout" or "crashed". */
const char *ar_sweep_status(const struct ar_child *c);
json_t *ar_sweep_record(const struct ar_sweep_cfg *c, const struct ar_plan *p, const char *sweep_id,
                        int todo);
json_t *ar_point_record(const char *sweep_id, const struct ar_launch *l, int repeat, const struct ar_child *c,
                        const struct ar_appended *a);
json_t *ar_point_error_record(const char *sweep_id, const struct ar_launch *l, const struct ar_child *c,
                              const struct ar_appended *a, double timeout);
/* One phrase for how a launch ended: "timed out after 10 s ...", "crashed: signal 11 (...)". */
void ar_sweep_outcome(const struct ar_child *c, double timeout, char *buf, size_t len);
void ar_appended_free(struct ar_appended *a);

#endif
