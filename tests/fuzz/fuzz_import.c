/* fuzz_import.c — libFuzzer harness for `arbench import nccl-tests`: any log is imported or refused
 * with exit status 2, never a crash. */
#include "fuzz_util.h"
#include "commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  int fd = ar_fuzz_file(data, size, path, sizeof path);
  if (fd < 0) return 0;
  FILE *quiet = freopen("/dev/null", "w", stderr);
  (void)quiet;
  char *argv[] = {"import", "nccl-tests", path, "-J", "/dev/null", NULL};
  int rc = ar_cmd_import(5, argv);
  if (rc != 0 && rc != 2) abort();
  close(fd);
  return 0;
}
