/* results.c — JSON Lines writer (append, one flushed line per record) and tolerant reader.
 * A malformed last line is a crash's torn write: skipped with a warning. Anywhere else: an error. */
#include "results.h"
#include "ar.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int ar_results_repair(const char *path, long *removed, char *err, size_t len) {
  *removed = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return 0;
    snprintf(err, len, "cannot open results file '%s': %s", path, strerror(errno));
    return -AR_EINVAL;
  }
  off_t end = lseek(fd, 0, SEEK_END), pos = end;
  char buf[4096];
  int found = 0;
  while (pos > 0 && !found) { /* find the last newline, from the end */
    size_t n = pos < (off_t)sizeof buf ? (size_t)pos : sizeof buf;
    if (pread(fd, buf, n, pos - (off_t)n) != (ssize_t)n) break;
    for (size_t i = n; i-- > 0 && !found;)
      if (buf[i] == '\n') {
        found = 1;
        pos = pos - (off_t)n + (off_t)i + 1;
      }
    if (!found) pos -= (off_t)n;
  }
  close(fd);
  if (pos == end) return 0;
  *removed = (long)(end - pos);
  if (truncate(path, pos) == 0) return 0;
  snprintf(err, len, "cannot repair results file '%s': %s", path, strerror(errno));
  return -AR_EINVAL;
}

int ar_writer_open(struct ar_writer *w, const char *path, char *err, size_t len) {
  memset(w, 0, sizeof *w);
  snprintf(w->path, sizeof w->path, "%s", path);
  if (!strcmp(path, "-")) {
    w->f = stdout;
    return 0;
  }
  /* A crash can leave a torn last line: cut it off so records appended after it stay readable
   * (readers skip only a torn *last* line). */
  long removed = 0;
  if (ar_results_repair(path, &removed, err, len)) return -AR_EINVAL;
  if (removed)
    fprintf(stderr, "arbench: warning: %s: dropping a torn last line (%ld bytes) before appending\n", path, removed);
  w->f = fopen(path, "a");
  if (!w->f) {
    snprintf(err, len, "cannot open results file '%s' for appending: %s", path, strerror(errno));
    return -AR_EINVAL;
  }
  return 0;
}

int ar_writer_put(struct ar_writer *w, json_t *rec, char *err, size_t len) {
  if (!w->f) return 0;
  char *s = json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
  if (!s) {
    snprintf(err, len, "cannot encode a result record");
    return -AR_ERUNTIME;
  }
  int bad = fprintf(w->f, "%s\n", s) < 0 || fflush(w->f) != 0;
  free(s);
  if (bad) {
    snprintf(err, len, "cannot write results file '%s': %s", w->path, strerror(errno));
    return -AR_ERUNTIME;
  }
  return 0;
}

void ar_writer_close(struct ar_writer *w) {
  if (w->f && w->f != stdout) fclose(w->f);
  w->f = NULL;
}

/* Read one line of any length; returns NULL at EOF. *had_nl tells whether it ended in '\n'. */
static char *read_line(FILE *f, int *had_nl) {
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  int c;
  *had_nl = 0;
  if (!buf) return NULL;
  while ((c = fgetc(f)) != EOF) {
    if (c == '\n') {
      *had_nl = 1;
      break;
    }
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        return NULL;
      }
      buf = nb;
    }
    buf[n++] = (char)c;
  }
  if (n == 0 && c == EOF) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  return buf;
}

static int blank(const char *s) {
  for (; *s; s++)
    if (*s != ' ' && *s != '\t' && *s != '\r') return 0;
  return 1;
}

int ar_results_read(const char *path, ar_record_fn fn, void *arg, char *err, size_t len) {
  FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
  if (!f) {
    snprintf(err, len, "cannot open results file '%s': %s", path, strerror(errno));
    return -AR_EINVAL;
  }
  int line = 0, rc = 0, had_nl, nrec = 0;
  char *s;
  while (!rc && (s = read_line(f, &had_nl))) {
    line++;
    if (blank(s)) {
      free(s);
      continue;
    }
    json_error_t je;
    json_t *rec = json_loads(s, 0, &je);
    free(s);
    if (!rec || !json_is_object(rec)) {
      json_decref(rec);
      int c = fgetc(f);
      int last = c == EOF;
      if (c != EOF) ungetc(c, f);
      if (last) {
        fprintf(stderr, "arbench: warning: %s:%d: ignoring truncated last line%s\n", path, line,
                had_nl ? "" : " (no newline: the writer was interrupted)");
        break;
      }
      snprintf(err, len, "%s:%d: not a JSON object (%s); is this an arbench results file?", path,
               line, je.text);
      rc = -AR_EINVAL;
      break;
    }
    if (!json_is_string(json_object_get(rec, "type"))) {
      snprintf(err, len, "%s:%d: record has no \"type\" field; is this an arbench results file?", path, line);
      json_decref(rec);
      rc = -AR_EINVAL;
      break;
    }
    nrec++;
    rc = fn(rec, path, line, arg);
    json_decref(rec);
  }
  if (f != stdin) fclose(f);
  return rc;
}

static int append_rec(json_t *rec, const char *path, int line, void *arg) {
  (void)path;
  (void)line;
  return json_array_append(arg, rec) ? -AR_ERUNTIME : 0;
}

int ar_results_load(int nfiles, char **paths, json_t **out, char *err, size_t len) {
  json_t *all = json_array();
  for (int i = 0; i < nfiles; i++) {
    int rc = ar_results_read(paths[i], append_rec, all, err, len);
    if (rc) {
      json_decref(all);
      return rc;
    }
  }
  *out = all;
  return 0;
}

const char *ar_rec_str(json_t *rec, const char *key, const char *dflt) {
  const char *s = json_string_value(json_object_get(rec, key));
  return s ? s : dflt;
}

double ar_rec_num(json_t *rec, const char *key, double dflt) {
  json_t *v = json_object_get(rec, key);
  return json_is_number(v) ? json_number_value(v) : dflt;
}
