/* topo.c — PLACEHOLDER until topo/ lands: hwloc discovery (see topo.h). */
#include "topo.h"
#include "ar.h"
#include <stdio.h>
#include <stdlib.h>

struct ar_topo { int dummy; };

int ar_topo_load(struct ar_topo **t, const char *xml, char *err, size_t len) {
  (void)xml;
  *t = NULL;
  snprintf(err, len, "topology discovery not built yet");
  return -AR_ERUNTIME;
}
void ar_topo_destroy(struct ar_topo *t) { free(t); }
int ar_topo_ngpus(const struct ar_topo *t) { (void)t; return 0; }
const struct ar_gpu_info *ar_topo_gpu(const struct ar_topo *t, int i) { (void)t; (void)i; return NULL; }
enum ar_path ar_topo_path(const struct ar_topo *t, int i, int j, double *b, bool *s) {
  (void)t; (void)i; (void)j; *b = 0; *s = false; return AR_PATH_SYS;
}
const char *ar_path_name(enum ar_path p) { (void)p; return "SYS"; }
int ar_topo_nnuma(const struct ar_topo *t) { (void)t; return 1; }
double ar_topo_bottleneck_gbs(const struct ar_topo *t, const int *g, int n) { (void)t; (void)g; (void)n; return 0; }
int ar_topo_gpu_of_cuda(const struct ar_topo *t, int dev) { (void)t; (void)dev; return -1; }
int ar_topo_bind(struct ar_topo *t, int gpu, int lr, int ln, char *desc, size_t len) {
  (void)t; (void)gpu; (void)lr; (void)ln; snprintf(desc, len, "not bound"); return -1;
}
int ar_topo_numa_of_self(struct ar_topo *t) { (void)t; return -1; }
json_t *ar_topo_summary(const struct ar_topo *t) { (void)t; return json_null(); }
