/* fuzz_topo.c — libFuzzer harness for `--xml` topologies: any hwloc XML loads (then the GPU paths are
 * classified and summarised) or is refused with a message. */
#include "fuzz_util.h"
#include "topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 20) return 0;
  char path[64], err[512] = "";
  int fd = ar_fuzz_file(data, size, path, sizeof path);
  if (fd < 0) return 0;
  struct ar_topo *t = NULL;
  if (ar_topo_load(&t, path, err, sizeof err) == 0 && t) {
    int n = ar_topo_ngpus(t), all[64];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double gbs;
        bool same;
        ar_topo_path(t, i, j, &gbs, &same);
      }
    for (int i = 0; i < n && i < 64; i++) all[i] = i;
    if (n > 1) ar_topo_bottleneck_gbs(t, all, n < 64 ? n : 64);
    json_decref(ar_topo_summary(t));
    ar_topo_destroy(t);
  } else if (!*err) {
    abort();
  }
  close(fd);
  return 0;
}
