/* infile.c — opening a file the user named: the type, size and first-block checks, and a stream
 * bounded at the size the file had when opened (fopencookie), so a growing file's read ends. */
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "ar.h"

struct bounded {
  int fd;
  int own; /* close fd at the end (not standard input's) */
  off_t pos, end;
};

static ssize_t b_read(void *c, char *buf, size_t n) {
  struct bounded *b = c;
  if (b->pos >= b->end) return 0;
  if ((off_t)n > b->end - b->pos) n = (size_t)(b->end - b->pos);
  ssize_t r;
  do r = pread(b->fd, buf, n, b->pos);
  while (r < 0 && errno == EINTR);
  if (r > 0) b->pos += r;
  if (r == 0) b->end = b->pos; /* the file shrank: it ends here */
  return r;
}

static int b_seek(void *c, off64_t *off, int whence) {
  struct bounded *b = c;
  off_t to = whence == SEEK_SET ? *off : whence == SEEK_CUR ? b->pos + *off : b->end + *off;
  if (to < 0) return errno = EINVAL, -1;
  *off = b->pos = to;
  return 0;
}

static int b_close(void *c) {
  struct bounded *b = c;
  int rc = b->own ? close(b->fd) : 0;
  free(b);
  return rc;
}

/* A stream over standard input when it is a pipe: bounded by count only. */
static ssize_t p_read(void *c, char *buf, size_t n) {
  struct bounded *b = c;
  if (b->pos >= b->end) return errno = EFBIG, -1;
  if ((off_t)n > b->end - b->pos) n = (size_t)(b->end - b->pos);
  ssize_t r;
  do r = read(b->fd, buf, n);
  while (r < 0 && errno == EINTR);
  if (r > 0) b->pos += r;
  return r;
}

static const char *kind(mode_t m) {
  return S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO (named pipe)"
       : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" : "not a regular file";
}

static void size_str(char *s, size_t n, unsigned long long v) {
  if (v >= (1ull << 30)) snprintf(s, n, "%.1f GiB", (double)v / (1ull << 30));
  else snprintf(s, n, "%llu bytes", v);
}

/* The checks on an open descriptor; 0, 1 (a directory under AR_INFILE_DIR) or -AR_EINVAL. */
static int check_fd(int fd, const char *path, const char *what, unsigned flags, off_t *size, char *err, size_t len) {
  struct stat st;
  if (fstat(fd, &st)) {
    snprintf(err, len, "cannot read %s '%s': %s", what, path, strerror(errno));
    return -AR_EINVAL;
  }
  if (S_ISDIR(st.st_mode)) {
    if (flags & AR_INFILE_DIR) return 1;
    snprintf(err, len, "'%s' is a directory, not a %s (give a regular file)", path, what);
    return -AR_EINVAL;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, len, "'%s' is %s, not a %s (arbench reads regular files only; copy it to one first)", path,
             kind(st.st_mode), what);
    return -AR_EINVAL;
  }
  struct statfs fs;
  if (!fstatfs(fd, &fs) && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC)) {
    snprintf(err, len, "'%s' is a %s file (its size is unknown until read, some never end), not a %s (copy it to a "
             "regular file first)", path, fs.f_type == PROC_SUPER_MAGIC ? "/proc" : "/sys", what);
    return -AR_EINVAL;
  }
  if ((unsigned long long)st.st_size > AR_INFILE_MAX) {
    char s[32];
    size_str(s, sizeof s, (unsigned long long)st.st_size);
    snprintf(err, len, "'%s' is %s, larger than any %s arbench reads (at most 4 GiB)", path, s, what);
    return -AR_EINVAL;
  }
  if (!(flags & AR_INFILE_BINARY)) {
    char blk[AR_INFILE_SNIFF];
    ssize_t n = pread(fd, blk, sizeof blk, 0);
    if (n < 0) {
      snprintf(err, len, "cannot read %s '%s': %s", what, path, strerror(errno));
      return -AR_EINVAL;
    }
    if (memchr(blk, 0, (size_t)n)) {
      snprintf(err, len, "'%s' has NUL bytes in its first %d bytes: binary data, not a %s", path, AR_INFILE_SNIFF,
               what);
      return -AR_EINVAL;
    }
  }
  *size = st.st_size;
  return 0;
}

static int open_fd(const char *path, const char *what, unsigned flags, int *fd, off_t *size, char *err,
                   size_t len) {
  *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY); /* a FIFO with no writer opens at once */
  if (*fd < 0) {
    snprintf(err, len, "cannot open %s '%s': %s", what, path, strerror(errno));
    return -AR_EINVAL;
  }
  int rc = check_fd(*fd, path, what, flags, size, err, len);
  if (rc) {
    close(*fd);
    *fd = -1;
  } else
    fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
  return rc;
}

static FILE *wrap(int fd, int own, off_t end, int pipe) {
  struct bounded *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  *b = (struct bounded){.fd = fd, .own = own, .pos = 0, .end = end};
  cookie_io_functions_t io = {.read = pipe ? p_read : b_read, .seek = pipe ? NULL : b_seek, .close = b_close};
  FILE *f = fopencookie(b, "r", io);
  if (!f) free(b);
  return f;
}

static int open_stdin(const char *what, unsigned flags, FILE **f, char *err, size_t len) {
  struct stat st;
  if (fstat(0, &st)) {
    snprintf(err, len, "cannot read %s from standard input: %s", what, strerror(errno));
    return -AR_EINVAL;
  }
  int pipe = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
  off_t size = (off_t)AR_INFILE_MAX;
  if (!pipe) {
    int rc = check_fd(0, "-", what, flags & ~(unsigned)AR_INFILE_DIR, &size, err, len);
    if (rc) return -AR_EINVAL;
  }
  if (!(*f = wrap(0, 0, size, pipe))) {
    snprintf(err, len, "cannot read %s from standard input: %s", what, strerror(errno));
    return -AR_EINVAL;
  }
  return 0;
}

int ar_infile_open(const char *path, const char *what, unsigned flags, FILE **f, char *err, size_t len) {
  *f = NULL;
  if ((flags & AR_INFILE_STDIN) && !strcmp(path, "-")) return open_stdin(what, flags, f, err, len);
  int fd;
  off_t size;
  int rc = open_fd(path, what, flags, &fd, &size, err, len);
  if (rc) return rc;
  if (!(*f = wrap(fd, 1, size, 0))) {
    snprintf(err, len, "cannot open %s '%s': %s", what, path, strerror(errno));
    close(fd);
    return -AR_EINVAL;
  }
  return 0;
}

int ar_infile_check(const char *path, const char *what, unsigned flags, char *err, size_t len) {
  int fd;
  off_t size;
  int rc = open_fd(path, what, flags & ~(unsigned)AR_INFILE_STDIN, &fd, &size, err, len);
  if (!rc) close(fd);
  return rc;
}

int ar_infile_slurp(const char *path, const char *what, unsigned flags, char **buf, size_t *n, char *err,
                    size_t len) {
  FILE *f;
  *buf = NULL;
  *n = 0;
  int rc = ar_infile_open(path, what, flags & ~(unsigned)AR_INFILE_DIR, &f, err, len);
  if (rc) return rc;
  size_t cap = 0, k;
  char chunk[65536];
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (*n + k + 1 > cap) {
      size_t nc = cap ? cap * 2 : sizeof chunk + 1;
      while (nc < *n + k + 1) nc *= 2;
      char *p = realloc(*buf, nc);
      if (!p) break;
      *buf = p;
      cap = nc;
    }
    memcpy(*buf + *n, chunk, k);
    *n += k;
  }
  int bad = ferror(f) || (k > 0);
  int eno = errno;
  fclose(f);
  if (bad || !*buf) {
    if (bad) {
      snprintf(err, len, "cannot read %s '%s': %s", what, path, strerror(eno ? eno : ENOMEM));
      free(*buf);
      *buf = NULL;
      return -AR_EINVAL;
    }
    *buf = calloc(1, 1);
  }
  (*buf)[*n] = 0;
  return 0;
}

int ar_infile_json(const char *path, const char *what, size_t flags, json_t **out, json_error_t *je, char *err,
                   size_t len) {
  FILE *f;
  *out = NULL;
  int rc = ar_infile_open(path, what, 0, &f, err, len);
  if (rc) return rc;
  *out = json_loadf(f, flags, je);
  fclose(f);
  return 0;
}

int ar_outfile_check(const char *path, const char *what, char *err, size_t len) {
  struct stat st;
  if (!*path) {
    snprintf(err, len, "%s: empty path (give a file name)", what);
    return -AR_EINVAL;
  }
  if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
    snprintf(err, len, "%s '%s' is %s: give a new or regular file%s", what, path, kind(st.st_mode),
             S_ISDIR(st.st_mode) ? " (a name inside it, e.g. its report.html)" : "");
    return -AR_EINVAL;
  }
  char dir[4096];
  const char *slash = strrchr(path, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (slash == path ? 1 : (int)(slash - path)) : 1, slash ? path : ".");
  int missing = stat(dir, &st) != 0;
  if (missing || !S_ISDIR(st.st_mode)) {
    snprintf(err, len, "%s '%s': its folder '%s' %s", what, path, dir, missing ? "does not exist" : "is not a folder");
    return -AR_EINVAL;
  }
  if (access(dir, W_OK)) {
    snprintf(err, len, "%s '%s': its folder '%s' is not writable: %s", what, path, dir, strerror(errno));
    return -AR_EINVAL;
  }
  return 0;
}
