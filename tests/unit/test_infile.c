/* test_infile.c — bench/infile.c: what a command refuses to read (devices, a FIFO with no writer, /proc,
 * directories, files over 4 GiB, NUL bytes in the first block) and that a file growing while read ends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ar.h"
#include "infile.h"

static char dir[64];

static void path_of(char *p, size_t n, const char *name) { snprintf(p, n, "%s/%s", dir, name); }

static void put(const char *p, const char *text, size_t n, const char *mode) {
  FILE *f = fopen(p, mode);
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, n, f), n);
  fclose(f);
}

static void refused(const char *p, unsigned flags, const char *needle) {
  FILE *f = (FILE *)1;
  char err[AR_ERRLEN] = "";
  assert_int_equal(ar_infile_open(p, "results file", flags, &f, err, sizeof err), -AR_EINVAL);
  assert_null(f);
  if (!strstr(err, needle)) fail_msg("'%s': got [%s], wanted [%s]", p, err, needle);
  assert_null(strchr(err, '\n'));
}

static void test_special(void **st) {
  (void)st;
  char p[128];
  refused("/dev/zero", 0, "'/dev/zero' is a character device, not a results file");
  refused("/dev/urandom", 0, "is a character device");
  refused("/proc/self/mem", 0, "'/proc/self/mem' is a /proc file");
  refused("/proc/self/status", 0, "is a /proc file");
  path_of(p, sizeof p, "fifo");
  assert_int_equal(mkfifo(p, 0600), 0);
  refused(p, 0, "is a FIFO (named pipe), not a results file"); /* returns: no writer is waited for */
  refused(dir, 0, "is a directory, not a results file");
  refused("/nonexistent/x.jsonl", 0, "cannot open results file '/nonexistent/x.jsonl': No such file");
  FILE *f = NULL;
  char err[AR_ERRLEN];
  assert_int_equal(ar_infile_open(dir, "results file", AR_INFILE_DIR, &f, err, sizeof err), 1); /* a folder, taken */
  assert_null(f);
}

static void test_size_and_binary(void **st) {
  (void)st;
  char p[128], err[AR_ERRLEN];
  path_of(p, sizeof p, "sparse");
  int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0600);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, (off_t)(8ull << 30)), 0); /* 8 GiB, no block written */
  close(fd);
  refused(p, 0, "is 8.0 GiB, larger than any results file arbench reads (at most 4 GiB)");
  fd = open(p, O_WRONLY | O_TRUNC);
  assert_int_equal(ftruncate(fd, (off_t)AR_INFILE_MAX), 0); /* exactly the bound: NULs, so binary */
  close(fd);
  refused(p, 0, "has NUL bytes in its first 4096 bytes: binary data, not a results file");
  char blk[AR_INFILE_SNIFF + 10];
  memset(blk, 'a', sizeof blk);
  blk[sizeof blk - 1] = 0; /* a NUL after the first block is the reader's to find */
  put(p, blk, sizeof blk, "w");
  FILE *f;
  assert_int_equal(ar_infile_open(p, "results file", 0, &f, err, sizeof err), 0);
  fclose(f);
  blk[AR_INFILE_SNIFF - 1] = 0;
  put(p, blk, sizeof blk, "w");
  refused(p, 0, "binary data");
  assert_int_equal(ar_infile_open(p, "results file", AR_INFILE_BINARY, &f, err, sizeof err), 0);
  fclose(f);
}

/* Appends after the open are not read: the stream ends where the file ended when opened. */
static void test_growing(void **st) {
  (void)st;
  char p[128], err[AR_ERRLEN], line[64];
  path_of(p, sizeof p, "grow.jsonl");
  put(p, "one\ntwo\n", 8, "w");
  FILE *f;
  assert_int_equal(ar_infile_open(p, "results file", 0, &f, err, sizeof err), 0);
  put(p, "three\n", 6, "a");
  assert_non_null(fgets(line, sizeof line, f));
  assert_string_equal(line, "one\n");
  put(p, "four\n", 5, "a");
  assert_non_null(fgets(line, sizeof line, f));
  assert_string_equal(line, "two\n");
  assert_null(fgets(line, sizeof line, f));
  rewind(f); /* seeks work within the bound */
  assert_non_null(fgets(line, sizeof line, f));
  assert_string_equal(line, "one\n");
  fclose(f);
  char *buf;
  size_t n;
  put(p, "x\n", 2, "w");
  assert_int_equal(ar_infile_slurp(p, "results file", 0, &buf, &n, err, sizeof err), 0);
  assert_int_equal(n, 2);
  assert_string_equal(buf, "x\n");
  free(buf);
}

static int setup(void **st) {
  (void)st;
  snprintf(dir, sizeof dir, "/tmp/arbench-infile.XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st) {
  (void)st;
  const char *names[] = {"fifo", "sparse", "grow.jsonl"};
  char p[128];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    path_of(p, sizeof p, names[i]);
    unlink(p);
  }
  return rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_special),
    cmocka_unit_test(test_size_and_binary),
    cmocka_unit_test(test_growing),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
