/* results.h — JSON Lines results: the writer (one locked write() per record, safe for concurrent
 * appenders) and the reader every analysis tool uses (torn, malformed, binary, empty told apart). */
#ifndef AR_RESULTS_H
#define AR_RESULTS_H

#include <jansson.h>
#include <stdio.h>

/* A results file open for appending. Concurrent writers (runs, sweeps, other processes) never tear or
 * interleave a line: each record goes out in one write() of the whole line under an exclusive
 * advisory lock (fcntl F_SETLK, waited for at most AR_WRITER_LOCK_S), and a torn tail is cut only
 * under that lock. A failed write is undone (the file is cut back to where it was) and retried with
 * a back-off for up to AR_WRITER_RETRY_S; then the writer fails for good: every later put returns
 * the same error, so the caller says it once. */
#define AR_WRITER_LOCK_S 60.0
#define AR_WRITER_RETRY_S 3.0

struct ar_writer {
  int fd;          /* valid when on */
  int on;          /* 0: no file (no -J); puts are no-ops */
  int regular;     /* a regular file: locked, repaired, failed writes undone and retried */
  int own;         /* close fd at the end (not stdout) */
  int failed;      /* a record could not be written: nothing more is written */
  long records;    /* records this writer appended */
  double retry_s;  /* retry window, AR_WRITER_RETRY_S unless a test shortens it */
  /* write(2), or a test's stand-in (disk-full simulations) */
  long (*write_fn)(int fd, const void *buf, unsigned long n, void *arg);
  void *write_arg;
  char path[1024];
};

/* Cut a torn last line (no trailing newline) off path, under the writers' lock; *removed = bytes
 * cut. Missing file: 0. */
int ar_results_repair(const char *path, long *removed, char *err, size_t len);
/* Open path for appending ("-" = stdout), after cutting off a torn last line (under the lock). */
int ar_writer_open(struct ar_writer *w, const char *path, char *err, size_t len);
/* As ar_writer_open without the repair at open (each put still repairs under the lock). */
int ar_writer_open_append(struct ar_writer *w, const char *path, char *err, size_t len);
/* Append one record as one line (see above). On failure err names the file, the record (its
 * number and type, backend, size) and why; the file keeps every record before it. */
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
