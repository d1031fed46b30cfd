/* results.h — JSON Lines results: the writer (append, one flushed line per record) and the
 * reader every analysis tool uses (a truncated last line is skipped with a warning). */
#ifndef AR_RESULTS_H
#define AR_RESULTS_H

#include <jansson.h>
#include <stdio.h>

struct ar_writer {
  FILE *f;
  char path[1024];
};

/* Cut a torn last line (no trailing newline) off path; *removed = bytes cut. Missing file: 0. */
int ar_results_repair(const char *path, long *removed, char *err, size_t len);
/* Open path for appending ("-" = stdout), after cutting off a torn last line. */
int ar_writer_open(struct ar_writer *w, const char *path, char *err, size_t len);
/* Write one record as one line, then fflush + fsync-free flush. */
int ar_writer_put(struct ar_writer *w, json_t *rec, char *err, size_t len);
void ar_writer_close(struct ar_writer *w);

/* Read every record of a file. Calls fn for each object; a malformed last line (crash, truncation)
 * gives a warning on stderr and is skipped; a malformed line elsewhere is an error naming the line.
 * Returns 0, -AR_EINVAL (bad file, message in err) or fn's non-zero return. */
typedef int (*ar_record_fn)(json_t *rec, const char *path, int line, void *arg);
int ar_results_read(const char *path, ar_record_fn fn, void *arg, char *err, size_t len);

/* Per-iteration samples the streaming reader took out of a record's line ("samples_us":[...]) before
 * parsing it: present = 1 with v[0..n) in file order; present = 0 when the line had none or an
 * unusual form (the record then keeps its samples_us as parsed). Valid during the callback only,
 * which may reorder v (the loader selects and sorts in place). */
struct ar_samples {
  double *v;
  size_t n, cap;
  int present;
};
typedef int (*ar_record_samples_fn)(json_t *rec, const struct ar_samples *s, const char *path, int line, void *arg);
/* As ar_results_read, but a record's samples come apart from it (no JSON value per sample): the
 * analysis commands reduce them as they stream (memory per record, not per sample). */
int ar_results_read_samples(const char *path, ar_record_samples_fn fn, void *arg, char *err, size_t len);

/* Load all records of several files into one array (records gain nothing; caller decrefs). */
int ar_results_load(int nfiles, char **paths, json_t **out, char *err, size_t len);

/* Helpers for readers. */
const char *ar_rec_str(json_t *rec, const char *key, const char *dflt);
double ar_rec_num(json_t *rec, const char *key, double dflt);

#endif
