/* fuzz_results.c — libFuzzer harness for the results reader behind table, compare and tune: any
 * file loads or is refused with a message, and the size x configuration grid builds on what loaded. */
#include "fuzz_util.h"
#include "analysis/analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64], err[512] = "";
  int fd = ar_fuzz_file(data, size, path, sizeof path);
  if (fd < 0) return 0;
  FILE *quiet = freopen("/dev/null", "w", stderr); /* torn-line warnings are expected */
  (void)quiet;
  char *paths[] = {path};
  struct ar_ana a;
  memset(&a, 0, sizeof a);
  if (ar_ana_load(&a, 1, paths, err, sizeof err) == 0) {
    struct ar_grid *g = NULL;
    int n = 0;
    if (ar_grids_build(a.results, a.runs, &g, &n) == 0) ar_grids_free(g, n);
  } else if (!*err) {
    abort();
  }
  ar_ana_free(&a);
  close(fd);
  return 0;
}
