/* results.c — JSON Lines writer (one flushed line per record) and tolerant, streaming reader: a torn
 * last line is skipped with a warning (elsewhere: an error); samples can come apart from the record. */
#include "results.h"
#include "ar.h"
#include <errno.h>
#include <math.h>
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

/* Read one line of any length (getline: buffered, no per-character calls); NULL at EOF. *had_nl
 * tells whether it ended in '\n' (which is removed). The buffer is reused: *buf, *cap. */
static char *read_line(FILE *f, char **buf, size_t *cap, int *had_nl) {
  ssize_t n = getline(buf, cap, f);
  *had_nl = 0;
  if (n <= 0) return NULL;
  if ((*buf)[n - 1] == '\n') {
    *had_nl = 1;
    (*buf)[n - 1] = 0;
  }
  return *buf;
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
  FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
  if (!f) {
    snprintf(err, len, "cannot open results file '%s': %s", path, strerror(errno));
    return -AR_EINVAL;
  }
  int line = 0, rc = 0, had_nl;
  char *s, *buf = NULL;
  size_t cap = 0;
  struct ar_samples sm = {0};
  while (!rc && (s = read_line(f, &buf, &cap, &had_nl))) {
    line++;
    if (blank(s)) continue;
    if (sfn) take_samples(s, &sm);
    json_error_t je;
    json_t *rec = json_loads(s, 0, &je);
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
    rc = sfn ? sfn(rec, &sm, path, line, arg) : fn(rec, path, line, arg);
    json_decref(rec);
  }
  free(buf);
  free(sm.v);
  if (f != stdin) fclose(f);
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
