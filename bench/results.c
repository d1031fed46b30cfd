/* results.c — JSON Lines writer (one locked write() per record; concurrent appenders never tear a line)
 * and the streaming reader: torn last line skipped with a warning, malformed/binary/empty refused. */
#include "results.h"
#include "infile.h"
#include "ar.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the writer ---- */

#ifdef F_OFD_SETLK /* per open file: threads and other fds of this process do not drop it */
#define LOCK_SET F_OFD_SETLK
#define LOCK_GET F_OFD_GETLK
#else
#define LOCK_SET F_SETLK
#define LOCK_GET F_GETLK
#endif

static void nap_s(double s) {
  struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&t, &t) && errno == EINTR) {
  }
}

/* Exclusive lock on the whole file, waited for at most AR_WRITER_LOCK_S (a stopped writer must not
 * hang us). 0, or -1 with err set. */
static int lock_file(int fd, const char *path, char *err, size_t len) {
  for (double waited = 0;; waited += 0.01) {
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, LOCK_SET, &fl) == 0) return 0;
    if (errno != EACCES && errno != EAGAIN && errno != EINTR) {
      snprintf(err, len, "cannot lock results file '%s': %s", path, strerror(errno));
      return -1;
    }
    if (waited >= AR_WRITER_LOCK_S) {
      struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
      int pid = fcntl(fd, LOCK_GET, &q) == 0 && q.l_type != F_UNLCK ? (int)q.l_pid : 0;
      char who[32] = "";
      if (pid > 0) snprintf(who, sizeof who, " (pid %d)", pid);
      snprintf(err, len, "results file '%s' stayed locked by another writer%s for %g s; is it stopped?", path, who,
               AR_WRITER_LOCK_S);
      return -1;
    }
    nap_s(0.01);
  }
}

static void unlock_file(int fd) {
  struct flock fl = {.l_type = F_UNLCK, .l_whence = SEEK_SET};
  fcntl(fd, LOCK_SET, &fl);
}

/* Under the lock: where the file's last complete line ends. A file whose last byte is not '\n' has a
 * torn tail (a writer that died inside its write, or a foreign one); *torn = its length. */
static off_t complete_end(int fd, off_t end, long *torn) {
  char buf[4096];
  off_t pos = end;
  *torn = 0;
  while (pos > 0) {
    size_t n = pos < (off_t)sizeof buf ? (size_t)pos : sizeof buf;
    if (pread(fd, buf, n, pos - (off_t)n) != (ssize_t)n) return end; /* unreadable: leave it */
    for (size_t i = n; i-- > 0;)
      if (buf[i] == '\n') {
        off_t nl = pos - (off_t)n + (off_t)i + 1;
        *torn = (long)(end - nl);
        return nl;
      }
    pos -= (off_t)n;
  }
  *torn = (long)end;
  return 0;
}

/* Under the lock: cut a torn tail; returns the end of the file after it, -1 on error (err set). */
static off_t repair_locked(int fd, const char *path, long *removed, char *err, size_t len) {
  *removed = 0;
  off_t end = lseek(fd, 0, SEEK_END);
  if (end < 0) {
    snprintf(err, len, "cannot read results file '%s': %s", path, strerror(errno));
    return -1;
  }
  long torn;
  off_t good = complete_end(fd, end, &torn);
  if (!torn) return end;
  if (ftruncate(fd, good)) {
    snprintf(err, len, "cannot repair results file '%s': %s", path, strerror(errno));
    return -1;
  }
  *removed = torn;
  return good;
}

int ar_results_repair(const char *path, long *removed, char *err, size_t len) {
  *removed = 0;
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return 0;
    snprintf(err, len, "cannot open results file '%s': %s", path, strerror(errno));
    return -AR_EINVAL;
  }
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if (lock_file(fd, path, err, len)) rc = -AR_EINVAL;
    else {
      if (repair_locked(fd, path, removed, err, len) < 0) rc = -AR_EINVAL;
      unlock_file(fd);
    }
  }
  close(fd);
  return rc;
}

static long plain_write(int fd, const void *buf, unsigned long n, void *arg) {
  (void)arg;
  return (long)write(fd, buf, n);
}

static int open_writer(struct ar_writer *w, const char *path, int repair, char *err, size_t len) {
  memset(w, 0, sizeof *w);
  snprintf(w->path, sizeof w->path, "%s", path);
  w->write_fn = plain_write;
  w->retry_s = AR_WRITER_RETRY_S;
  if (!strcmp(path, "-")) {
    w->fd = STDOUT_FILENO;
    w->on = 1;
    return 0;
  }
  struct stat st;
  int exists = stat(path, &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    snprintf(err, len, "cannot append to results file '%s': it is a directory", path);
    return -AR_EINVAL;
  }
  int special = exists && !S_ISREG(st.st_mode); /* a device, fifo or terminal: written, not locked */
  w->fd = open(path, (special ? O_WRONLY : O_RDWR | O_CREAT) | O_APPEND | O_CLOEXEC, 0644);
  if (w->fd < 0) {
    snprintf(err, len, "cannot open results file '%s' for appending: %s", path, strerror(errno));
    return -AR_EINVAL;
  }
  w->on = w->own = 1;
  w->regular = !special;
  if (!w->regular || !repair) return 0;
  /* A crash can leave a torn last line: cut it off (under the lock, so never a live writer's line). */
  long removed = 0;
  int bad = lock_file(w->fd, path, err, len) || repair_locked(w->fd, path, &removed, err, len) < 0;
  unlock_file(w->fd);
  if (bad) {
    ar_writer_close(w);
    return -AR_EINVAL;
  }
  if (removed)
    fprintf(stderr, "arbench: warning: %s: dropping a torn last line (%ld bytes) left by an interrupted writer\n",
            path, removed);
  return 0;
}

int ar_writer_open(struct ar_writer *w, const char *path, char *err, size_t len) {
  return open_writer(w, path, 1, err, len);
}

int ar_writer_open_append(struct ar_writer *w, const char *path, char *err, size_t len) {
  return open_writer(w, path, 0, err, len);
}

/* Write all n bytes (a short write continues; EINTR repeats). 0, or -1 with errno set. */
static int write_all(struct ar_writer *w, const char *buf, size_t n) {
  while (n) {
    long k = w->write_fn(w->fd, buf, n, w->write_arg);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = EIO;
      return -1;
    }
    buf += k;
    n -= (size_t)k;
  }
  return 0;
}

/* One try: under the lock, repair a torn tail, write the line, undo a partial write. */
static int put_once(struct ar_writer *w, const char *line, size_t n, int *eno, char *err, size_t len) {
  *eno = 0;
  if (!w->regular) {
    if (write_all(w, line, n)) *eno = errno;
    return *eno ? -1 : 0;
  }
  if (lock_file(w->fd, w->path, err, len)) return -2;
  long removed;
  off_t end = repair_locked(w->fd, w->path, &removed, err, len);
  if (end < 0) {
    unlock_file(w->fd);
    return -2;
  }
  if (removed)
    fprintf(stderr, "arbench: warning: %s: dropping a torn last line (%ld bytes) left by an interrupted writer\n",
            w->path, removed);
  int rc = 0;
  if (write_all(w, line, n)) {
    *eno = errno;
    rc = -1;
    if (ftruncate(w->fd, end)) { /* cannot undo: the reader will see a torn line there */
    }
  }
  unlock_file(w->fd);
  return rc;
}

static int retryable(int eno) { return eno == ENOSPC || eno == EDQUOT || eno == EAGAIN || eno == EIO; }

/* "result nccl:algo=Ring float 1024 B out", for the message about a record that was not written. */
static void describe(json_t *rec, char *buf, size_t len) {
  const char *spec = ar_rec_str(rec, "spec", ar_rec_str(rec, "backend", "")), *dt = ar_rec_str(rec, "dtype", "");
  json_t *size = json_object_get(rec, "size");
  char sz[40] = "";
  if (json_is_integer(size)) snprintf(sz, sizeof sz, " %lld B", (long long)json_integer_value(size));
  snprintf(buf, len, "%s%s%.200s%s%s%s%s%s", ar_rec_str(rec, "type", "record"), *spec ? " " : "", spec, *dt ? " " : "",
           dt, sz, json_is_string(json_object_get(rec, "placement")) ? " " : "", ar_rec_str(rec, "placement", ""));
}

int ar_writer_put(struct ar_writer *w, json_t *rec, char *err, size_t len) {
  if (!w->on) return 0;
  char what[300];
  describe(rec, what, sizeof what);
  if (w->failed) {
    snprintf(err, len, "results file '%s' failed earlier: record %ld (%s) not written", w->path, w->records + 1, what);
    return -AR_ERUNTIME;
  }
  char *s = json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
  size_t n = s ? strlen(s) : 0;
  char *line = s ? realloc(s, n + 2) : NULL;
  if (!line) {
    free(s);
    snprintf(err, len, "cannot encode result record %ld (%s) for '%s'", w->records + 1, what, w->path);
    w->failed = 1;
    return -AR_ERUNTIME;
  }
  line[n++] = '\n';
  line[n] = 0;
  double waited = 0, nap = 0.05;
  int eno, rc;
  while ((rc = put_once(w, line, n, &eno, err, len)) == -1 && w->regular && retryable(eno) && waited < w->retry_s) {
    nap_s(nap); /* the disk may free up: the record goes out whole or not at all */
    waited += nap;
    nap = nap * 2 > 0.5 ? 0.5 : nap * 2;
  }
  free(line);
  if (!rc) {
    w->records++;
    return 0;
  }
  w->failed = 1;
  char why[AR_ERRLEN];
  if (rc == -1 && waited > 0)
    snprintf(why, sizeof why, "cannot write results file '%.400s': %s (retried for %.1f s)", w->path, strerror(eno), waited);
  else if (rc == -1) snprintf(why, sizeof why, "cannot write results file '%.400s': %s", w->path, strerror(eno));
  else snprintf(why, sizeof why, "%s", err);
  char kept[96] = "";
  if (w->regular) snprintf(kept, sizeof kept, "; the file keeps the %ld records before it, whole", w->records);
  snprintf(err, len, "%.600s; record %ld (%.200s) not written and nothing more will be%s", why, w->records + 1, what,
           kept);
  return -AR_ERUNTIME;
}

void ar_writer_close(struct ar_writer *w) {
  if (w->on && w->own) close(w->fd);
  w->on = w->own = 0;
}

/* Read one line of any length (getline: buffered, no per-character calls); NULL at EOF. *had_nl
 * tells whether it ended in '\n' (which is removed). The buffer is reused: *buf, *cap. */
static char *read_line(FILE *f, char **buf, size_t *cap, int *had_nl, size_t *nbytes) {
  ssize_t n = getline(buf, cap, f);
  *had_nl = 0;
  *nbytes = n > 0 ? (size_t)n : 0;
  if (n <= 0) return NULL;
  if ((*buf)[n - 1] == '\n') {
    *had_nl = 1;
    (*buf)[n - 1] = 0;
  }
  return *buf;
}

/* A line no text writer makes: a NUL byte, or control bytes other than tab and CR. */
static int binary(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == 0 || (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f) return 1;
  }
  return 0;
}

static int blank(const char *s) {
  for (; *s; s++)
    if (*s != ' ' && *s != '\t' && *s != '\r') return 0;
  return 1;
}

/* ---- taking samples_us out of a line before parsing it ---- */

static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\r') p++;
  return p;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* One JSON number at p. Up to 15 significant digits and a decimal exponent within +-22: the mantissa
 * and the power of ten are exact doubles, so one IEEE multiply or divide is correctly rounded, the
 * same double strtod (and so jansson) gives. Otherwise strtod itself. -1 when p is no JSON number. */
static int parse_number(const char *p, const char **end, double *out) {
  static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char *s = p;
  int neg = *p == '-', nd = 0, k = 0;
  unsigned long long m = 0;
  p += neg;
  if (!is_digit(*p) || (*p == '0' && is_digit(p[1]))) return -1;
  for (; is_digit(*p); p++)
    if (nd || *p != '0') {
      if (++nd <= 18) m = m * 10 + (unsigned)(*p - '0');
      else k++;
    }
  int integer = *p != '.' && *p != 'e' && *p != 'E';
  if (*p == '.') {
    if (!is_digit(*++p)) return -1;
    for (; is_digit(*p); p++)
      if (nd || *p != '0') {
        if (++nd <= 18) {
          m = m * 10 + (unsigned)(*p - '0');
          k--;
        }
      } else k--;
  }
  if (*p == 'e' || *p == 'E') {
    int eneg = *++p == '-', e = 0;
    p += *p == '-' || *p == '+';
    if (!is_digit(*p)) return -1;
    for (; is_digit(*p); p++) e = e < 10000 ? e * 10 + (*p - '0') : e;
    k += eneg ? -e : e;
  }
  *end = p;
  if (integer) { /* jansson reads these as integers: exact up to 15 digits, else its own verdict */
    if (nd > 15) return -1;
    *out = neg && m ? -(double)m : (double)m;
    return 0;
  }
  if (nd <= 15 && k >= -22 && k <= 22) {
    double v = (double)m;
    v = k < 0 ? v / p10[-k] : v * p10[k];
    *out = neg ? -v : v;
    return 0;
  }
  char *e2;
  *out = strtod(s, &e2);
  return e2 == p && isfinite(*out) ? 0 : -1; /* jansson refuses an overflow */
}

static int samples_push(struct ar_samples *sm, double v) {
  if (sm->n == sm->cap) {
    size_t cap = sm->cap ? sm->cap * 2 : 1024;
    double *nv = realloc(sm->v, cap * sizeof *nv);
    if (!nv) return -1;
    sm->v = nv;
    sm->cap = cap;
  }
  sm->v[sm->n++] = v;
  return 0;
}

/* When line holds "samples_us":[numbers] as a member (after '{' or ','), parse the numbers into sm
 * and cut the member out of line, so the JSON parser never builds a value per sample. Anything
 * unusual leaves the line as it is (sm->present = 0) for the JSON parser to judge. */
static void take_samples(char *line, struct ar_samples *sm) {
  static const char key[] = "\"samples_us\"";
  sm->present = 0;
  sm->n = 0;
  char *k = strstr(line, key);
  if (!k) return;
  char *before = k;
  while (before > line && (before[-1] == ' ' || before[-1] == '\t')) before--;
  if (before == line || (before[-1] != ',' && before[-1] != '{')) return;
  const char *p = skip_ws(k + sizeof key - 1);
  if (*p++ != ':') return;
  p = skip_ws(p);
  if (*p++ != '[') return;
  p = skip_ws(p);
  while (*p != ']') { /* numbers separated by commas: a trailing comma is no JSON */
    double v;
    if (parse_number(p, &p, &v) || samples_push(sm, v)) return;
    p = skip_ws(p);
    if (*p == ']') break;
    if (*p != ',') return;
    p = skip_ws(p + 1);
    if (*p == ']') return;
  }
  p = skip_ws(p + 1); /* after ']': ',' or '}' */
  char *from = before[-1] == ',' ? before - 1 : before; /* ",member" or "member," */
  if (*p == ',' && before[-1] == '{') p++;
  else if (*p != '}' && *p != ',') return;
  memmove(from, p, strlen(p) + 1);
  sm->present = 1;
}

static int read_file(const char *path, ar_record_fn fn, ar_record_samples_fn sfn, void *arg, char *err, size_t len) {
  FILE *f;
  int orc = ar_infile_open(path, "results file", AR_INFILE_STDIN | AR_INFILE_DIR, &f, err, len);
  if (orc == 1) {
    snprintf(err, len, "'%s' is a directory, not a results file (give its files, e.g. %s/*.jsonl)", path, path);
    return -AR_EINVAL;
  }
  if (orc) return orc;
  int line = 0, rc = 0, had_nl;
  char *s, *buf = NULL;
  size_t cap = 0, nb;
  struct ar_samples sm = {0};
  while (!rc && (s = read_line(f, &buf, &cap, &had_nl, &nb))) {
    line++;
    if (binary(s, nb - (size_t)had_nl)) { /* read_line put a NUL where the newline was */
      snprintf(err, len, "%s:%d: binary data (%zu bytes), not a line of JSON; is this an arbench results file?", path,
               line, nb);
      rc = -AR_EINVAL;
      break;
    }
    if (blank(s)) continue;
    if (sfn) take_samples(s, &sm);
    json_error_t je;
    json_t *rec = json_loads(s, 0, &je);
    if (!rec || !json_is_object(rec)) {
      json_decref(rec);
      int c = fgetc(f);
      int last = c == EOF;
      if (c != EOF) ungetc(c, f);
      if (last && !had_nl) { /* a writer cut off inside its line: the complete records before it stand */
        fprintf(stderr, "arbench: warning: %s:%d: ignoring an incomplete last line (%zu bytes, no newline: its "
                "writer was interrupted or is still writing it)\n", path, line, nb);
        break;
      }
      snprintf(err, len, "%s:%d: not a JSON object (%s)%s; is this an arbench results file?", path, line, je.text,
               last ? " in a complete last line (it ends with a newline: not a torn one)" : "");
      rc = -AR_EINVAL;
      break;
    }
    if (!json_is_string(json_object_get(rec, "type"))) {
      snprintf(err, len, "%s:%d: record has no \"type\" field; is this an arbench results file?", path, line);
      json_decref(rec);
      rc = -AR_EINVAL;
      break;
    }
    rc = sfn ? sfn(rec, &sm, path, line, arg) : fn(rec, path, line, arg);
    json_decref(rec);
  }
  free(buf);
  free(sm.v);
  fclose(f);
  return rc;
}

int ar_results_read(const char *path, ar_record_fn fn, void *arg, char *err, size_t len) {
  return read_file(path, fn, NULL, arg, err, len);
}

int ar_results_read_samples(const char *path, ar_record_samples_fn fn, void *arg, char *err, size_t len) {
  return read_file(path, NULL, fn, arg, err, len);
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
