/* measure_nocuda.c — the GPU half of `arbench links` (measure_cuda.h) in a build without CUDA: every call
 * refuses; `links` never gets this far (its GPU methods are refused at start-up), doctor says skipped. */
#include "links/measure.h"
#include "links/measure_cuda.h"
#include <stdio.h>

int ar_lgpu_kernels(char *why, size_t len) {
  snprintf(why, len, "built without CUDA");
  return 0;
}

int ar_lgpu_open(struct ar_lgpu **g, MPI_Comm comm, int device, size_t max_bytes, double timeout_s, int silent,
                 const struct ar_fault *fault, char *err, size_t len) {
  (void)comm, (void)device, (void)max_bytes, (void)timeout_s, (void)silent, (void)fault;
  *g = NULL;
  snprintf(err, len, "the GPU methods need a build with CUDA (this one is built without)");
  return -AR_ERUNTIME;
}

void ar_lgpu_close(struct ar_lgpu *g) { (void)g; }
const int *ar_lgpu_bad(const struct ar_lgpu *g) { return (void)g, (const int *)0; }
const char *ar_lgpu_busid(const struct ar_lgpu *g, int r) { return (void)g, (void)r, ""; }
int ar_lgpu_stuck(const struct ar_lgpu *g) { return (void)g, 0; }
const int *ar_lgpu_stuck_ranks(const struct ar_lgpu *g) { return (void)g, (const int *)0; }
const char *ar_lgpu_timing(void) { return "none (built without CUDA)"; }
void ar_lgpu_beat(struct ar_lgpu *g, uint64_t *beat) { (void)g, (void)beat; }
int ar_lgpu_smoke(struct ar_lgpu *g, size_t bytes) { return (void)g, (void)bytes, 0; }

int ar_lgpu_measure(struct ar_lgpu *g, int method, const struct ar_flow *f, int nf, size_t bytes, int iters,
                    int warmup, int repeat, const char *what, double *gbs, uint64_t *wrong, char *err, size_t len) {
  (void)g, (void)method, (void)f, (void)nf, (void)bytes, (void)iters, (void)warmup, (void)repeat, (void)what;
  (void)gbs, (void)wrong;
  snprintf(err, len, "built without CUDA");
  return -AR_ERUNTIME;
}

int ar_lgpu_pingpong(struct ar_lgpu *g, int src, int dst, int iters, int repeat, double *us, char *why, size_t len) {
  (void)g, (void)src, (void)dst, (void)iters, (void)repeat, (void)us;
  snprintf(why, len, "built without CUDA");
  return -AR_ERUNTIME;
}

int ar_lgpu_ce_latency(struct ar_lgpu *g, int method, int src, int dst, size_t bytes, int iters, int repeat,
                       double *us, char *err, size_t len) {
  (void)g, (void)method, (void)src, (void)dst, (void)bytes, (void)iters, (void)repeat, (void)us;
  snprintf(err, len, "built without CUDA");
  return -AR_ERUNTIME;
}

int ar_lgpu_smoke_local(int a, int b, size_t bytes, double timeout_s, char *why, size_t len) {
  (void)a, (void)b, (void)bytes, (void)timeout_s;
  snprintf(why, len, "built without CUDA");
  return AR_PAIR_NOIPC;
}
