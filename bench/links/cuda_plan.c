/* cuda_plan.c — the deciding logic of `arbench links` on GPUs (cuda_plan.h): methods of a run, the flows a rank
 * starts, wait bounds, status and smoke-test decoding, the per-link score. Pure: in every build. */
#include "links/cuda_plan.h"
#include "links/measure.h"
#include "cuda_status.h"
#include <math.h>
#include <stdio.h>

int ar_lmethod_gpu(int m) { return m >= AR_LM_CE_READ && m < AR_LM_N; }
int ar_lmethod_sm(int m) { return m == AR_LM_SM_READ || m == AR_LM_SM_WRITE; }
int ar_lmethod_pull(int m) { return m == AR_LM_READ || m == AR_LM_CE_READ || m == AR_LM_SM_READ; }

/* The first method of set among mask, -1 when none. */
static int first_of(unsigned set, unsigned mask) {
  for (int m = 0; m < AR_LM_N; m++)
    if ((set & mask) >> m & 1) return m;
  return -1;
}

int ar_links_resolve_methods(unsigned given, int explicit, int gpus, int sm, const char *nogpu, const char *nosm,
                             unsigned *out, char *err, size_t len) {
  if (!explicit) {
    *out = gpus ? AR_LM_CE_SET | (sm ? AR_LM_SM_SET : 0u) : AR_LM_HOST_SET;
    return 0;
  }
  int m = first_of(given, AR_LM_CE_SET | AR_LM_SM_SET);
  if (m >= 0 && !gpus) {
    snprintf(err, len, "--method %s needs a CUDA device on every rank: %s", ar_lmethod_name(m), nogpu ? nogpu : "?");
    return -AR_EINVAL;
  }
  m = first_of(given, AR_LM_SM_SET);
  if (m >= 0 && !sm) {
    snprintf(err, len, "--method %s: the SM copy kernels are not in this build: %s", ar_lmethod_name(m),
             nosm ? nosm : "?");
    return -AR_EINVAL;
  }
  *out = given;
  return 0;
}

int ar_lcuda_started(int method, const struct ar_flow *f, int nf, int rank, int *idx, int max) {
  int k = 0;
  for (int i = 0; i < nf && k < max; i++)
    if (ar_links_initiator(method, f[i]) == rank) idx[k++] = i;
  return k;
}

double ar_lcuda_bound_s(size_t bytes, int copies) {
  return AR_LCUDA_FLOOR_S + (double)bytes * (copies > 0 ? copies : 0) / (AR_LCUDA_SLOW_GBS * 1e9);
}

double ar_lcuda_kernel_bound_s(double kernel_s) { return kernel_s + AR_LCUDA_MARGIN_S; }

double ar_lcuda_gbs(size_t bytes, int copies, double ms) {
  return ms > 0 ? (double)bytes * copies / (ms * 1e-3) / 1e9 : NAN;
}

double ar_lcuda_pingpong_us(int hw, const unsigned long long *st, int warm, int iters, char *why, size_t len) {
  char dummy[8];
  if (!why) why = dummy, len = sizeof dummy;
  if (hw != AR_HW_DONE) {
    snprintf(why, len, hw == AR_HW_TIMEOUT ? "the ping-pong kernel did not end within its bound"
                                           : "the ping-pong kernel failed");
    return NAN;
  }
  if (st[AR_LKS_STATE] == AR_LKS_TIMEOUT) {
    snprintf(why, len, "a flag did not arrive before the deadline (after %llu of %d round trips)", st[AR_LKS_DONE],
             warm + iters);
    return NAN;
  }
  if (st[AR_LKS_STATE] != AR_LKS_OK || st[AR_LKS_DONE] != (unsigned long long)(warm + iters) || iters < 1) {
    snprintf(why, len, "the ping-pong kernel left no result (state %llu)", st[AR_LKS_STATE]);
    return NAN;
  }
  snprintf(why, len, "ok");
  return (double)st[AR_LKS_NS] / iters / 2 / 1e3;
}

int ar_lcuda_smoke_verdict(int ipc_ok, int hw, uint64_t wrong) {
  if (!ipc_ok) return AR_PAIR_NOIPC;
  if (hw != AR_HW_DONE) return AR_PAIR_TIMEOUT;
  return wrong ? AR_PAIR_CORRUPT : AR_PAIR_OK;
}

void ar_lcuda_bad_line(int verdict, int src, int dst, const char *sbus, const char *dbus, size_t bytes,
                       double timeout_s, char *buf, size_t len) {
  const char *what = verdict == AR_PAIR_TIMEOUT ? "the copy did not finish"
                     : verdict == AR_PAIR_CORRUPT ? "the data arrived corrupted"
                     : verdict == AR_PAIR_NOIPC   ? "the peer's memory could not be mapped through CUDA IPC"
                                                  : "failed";
  snprintf(buf, len,
           "GPU pair %d->%d (%s -> %s): %s in the P2P smoke test (%zu bytes, %g s timeout): skipped; the usual causes "
           "are PCIe ACS or the IOMMU on the path (NVIDIA/nccl#1999, #2079: NCCL works there only with "
           "NCCL_P2P_DISABLE=1; see arbench doctor)",
           src, dst, sbus && *sbus ? sbus : "?", dbus && *dbus ? dbus : "?", what, bytes, timeout_s);
}

double ar_links_score(double gbs, double link_gbs) {
  return isfinite(gbs) && isfinite(link_gbs) && gbs > 0 && link_gbs > 0 ? gbs / link_gbs : NAN;
}
