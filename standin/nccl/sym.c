/* sym.c — the NCCL stand-in's symmetric kernels: whether an allreduce runs one and which, as ncclSymkAvailable and
 * ncclSymkPickKernel decide (src/sym_kernels.cc; 2.28.x on any all-P2P node, from 2.29.2 only on all-NVLink). */
#include "standin_nccl.h"
#include <math.h>
#include <string.h>

/* The two allreduce kernels of a node without NVLS (the multimem ones need nvlsSupport: src/sym_kernels.cc
 * ncclSymkMask drops STMC/LDMC), in NCCL's kernel-id order. */
enum { K_AGXLL_R, K_RSXLD_AGXST, K_COUNT };
static const char *const kernel_name[K_COUNT] = {"AllReduce_AGxLL_R", "AllReduce_RSxLD_AGxST"};

/* Both buffers wholly inside windows registered with NCCL_WIN_COLL_SYMMETRIC on the symmetric branch. */
static int in_window(ncclComm_t c, const void *p, size_t bytes) {
  const char *q = p;
  int found = 0;
  pthread_mutex_lock(&c->lock);
  for (int i = 0; i < c->nreg && !found; i++)
    found = c->reg[i].window && c->reg[i].symmetric && (c->reg[i].flags & NCCL_WIN_COLL_SYMMETRIC) && q >= (char *)c->reg[i].base &&
            q + bytes <= (char *)c->reg[i].base + c->reg[i].size;
  pthread_mutex_unlock(&c->lock);
  return found;
}

/* ncclSymkImplemented: allreduce of a sum over a floating type other than double (fp8 is not reduced here). */
static int implemented(ncclDataType_t dt, ncclRedOp_t op) {
  return op == ncclSum && (dt == ncclFloat32 || dt == ncclFloat16 || dt == ncclBfloat16);
}

static double softmin(double x, double ceiling, double softness) {
  return ceiling - softness * log1p((exp(ceiling / softness) - 1) * exp(-x / softness));
}

static double softplus(double x, double softness) {
  double z = x / softness;
  return 100.0 <= z ? x : softness * log1p(exp(z));
}

static double model(double bus_bytes, double base_lat, int nsm, double sm_bw, double peak_bw) {
  return base_lat + softplus(bus_bytes / softmin(nsm * sm_bw, peak_bw, sm_bw) - 1, 1);
}

/* queryModel with the Blackwell constants (the CUDA stand-in's device is SM 12.0, cudaArch >= 1000): the fewest
 * blocks within 2.5% of the time at the most. */
static void query(ncclComm_t c, int k, size_t bytes, float *time_us, int *blocks) {
  const double gbps = (double)(1 << 30) / 1.e6;
  int n = c->nranks;
  double bus = k == K_AGXLL_R ? (double)n * (double)bytes * 9 : 2.0 * (double)bytes * (n - 1) / n;
  double lat = k == K_AGXLL_R ? 11 : 19.5, sm_bw = 55 * gbps, peak = 600 * gbps;
  int max = c->config.maxCTAs < 64 ? c->config.maxCTAs : 64, min = c->config.minCTAs;
  *blocks = max;
  *time_us = (float)model(bus, lat, max, sm_bw, peak);
  for (int b = min; b < max; b++) {
    double t = model(bus, lat, b, sm_bw, peak);
    if (t <= 1.025 * *time_us) {
      *blocks = b;
      *time_us = (float)t;
      break;
    }
  }
}

int sn_symk_pick(ncclComm_t c, const void *send, const void *recv, size_t count, ncclDataType_t dt, ncclRedOp_t op,
                 const char **kernel, int *blocks) {
  size_t bytes = count * (size_t)sn_type_size(dt);
  /* src/enqueue.cc ncclPrepareTasks: only with symmetricSupport; v2.29.2-1 src/sym_kernels.cc:389: and
   * isAllDirectNvlink, which no pair of the stand-in's PCIe node is */
  if (!c->symmetric || sn_since(SN_SYMK_NEEDS_NVLINK) || !implemented(dt, op)) return 0;
  if (!in_window(c, send, bytes) || !in_window(c, recv, bytes)) return 0;
  unsigned mask = (1u << K_AGXLL_R) | (1u << K_RSXLD_AGXST);
  if (bytes >= ((size_t)2 << 30)) mask &= ~(1u << K_AGXLL_R); /* LL kernels count in 32-bit ints */
  if (bytes >= 32 * ((size_t)2 << 30)) mask = 0;
  int best = -1, best_blocks = 999;
  float best_time = 1.e30f;
  for (int k = 0; k < K_COUNT; k++) {
    if (!(mask >> k & 1)) continue;
    float t;
    int b;
    query(c, k, bytes, &t, &b);
    if (t * (1.0f + .025f * b) < best_time * (1.0f + .025f * best_blocks)) best = k, best_time = t, best_blocks = b;
  }
  if (best < 0) return 0;
  *kernel = kernel_name[best];
  *blocks = best_blocks;
  return 1;
}
