/* appender.c — a test writer through the real results writer (bench/results.c): appends N records of
 * a given size to FILE, optionally with a slow or failing write(2) stand-in (torn and full-disk cases). */
#include "results.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct mode {
  const char *name; /* plain, slow, full:K (K failing tries, each after writing half), dead */
  int fails;        /* tries left that fail */
  int calls;        /* slow: write calls so far (odd ones finish the record) */
};

/* slow: half of each record, a pause (another writer could cut or interleave here), then the rest. */
static long stand_in(int fd, const void *buf, unsigned long n, void *arg) {
  struct mode *m = arg;
  if (!strcmp(m->name, "slow") && n > 1 && m->calls++ % 2 == 0) { /* every record's first write */
    long k = (long)write(fd, buf, n / 2);
    struct timespec t = {0, 150 * 1000000L};
    nanosleep(&t, NULL);
    return k;
  }
  if (!strncmp(m->name, "full", 4) && m->fails != 0) { /* a disk that fills: half goes out, then ENOSPC */
    if (m->fails > 0) m->fails--;
    if (n > 1 && write(fd, buf, n / 2) < 0) return -1;
    errno = ENOSPC;
    return -1;
  }
  return (long)write(fd, buf, n);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: appender FILE ID N BYTES [plain|slow|full:K|full:-1]\n");
    return 2;
  }
  const char *path = argv[1], *id = argv[2];
  int n = atoi(argv[3]);
  size_t pad = (size_t)atol(argv[4]);
  struct mode m = {argc > 5 ? argv[5] : "plain", 0, 0};
  if (!strncmp(m.name, "full:", 5)) m.fails = atoi(m.name + 5);
  char err[512];
  struct ar_writer w;
  if (ar_writer_open(&w, path, err, sizeof err)) {
    fprintf(stderr, "appender: %s\n", err);
    return 2;
  }
  w.write_fn = stand_in;
  w.write_arg = &m;
  w.retry_s = 1.0;
  char *text = malloc(pad + 1);
  memset(text, 'a' + (int)(strlen(id) % 26), pad);
  text[pad] = 0;
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) {
    json_t *rec = json_pack("{s:s, s:s, s:i, s:s}", "type", "append", "writer", id, "seq", i, "pad", text);
    if (ar_writer_put(&w, rec, err, sizeof err)) {
      fprintf(stderr, "appender: %s\n", err);
      rc = 1;
    }
    json_decref(rec);
  }
  ar_writer_close(&w);
  free(text);
  return rc;
}
