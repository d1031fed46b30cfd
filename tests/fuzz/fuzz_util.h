/* fuzz_util.h — what the libFuzzer harnesses share: the input as an in-memory file with a path
 * (memfd), and as a NUL-separated argv. Header-only; every harness includes it once. */
#ifndef AR_FUZZ_UTIL_H
#define AR_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file: returns its fd (close it after) and its path in path, or -1. */
static inline int ar_fuzz_file(const uint8_t *data, size_t size, char *path, size_t len) {
  int fd = memfd_create("arbench-fuzz", 0);
  if (fd < 0) return -1;
  for (size_t done = 0; done < size;) {
    ssize_t w = write(fd, data + done, size - done);
    if (w <= 0) {
      close(fd);
      return -1;
    }
    done += (size_t)w;
  }
  snprintf(path, len, "/proc/self/fd/%d", fd);
  return fd;
}

/* Split the input at NUL bytes into at most max-1 arguments after argv0; the strings live in *buf
 * (free it after). Returns argc. */
static inline int ar_fuzz_argv(const uint8_t *data, size_t size, const char *argv0, char **argv, int max,
                               char **buf) {
  *buf = malloc(size + 1);
  if (!*buf) return 0;
  memcpy(*buf, data, size);
  (*buf)[size] = 0;
  int argc = 0;
  argv[argc++] = (char *)argv0;
  for (size_t i = 0; i <= size && argc < max - 1;) {
    argv[argc++] = *buf + i;
    i += strlen(*buf + i) + 1;
  }
  argv[argc] = NULL;
  return argc;
}

#endif
