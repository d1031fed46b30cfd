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

/* ---- a GPU whose work never ended ---- */

int ar_lcuda_stuck_pairs(const int *stuck, int n, int *bad) {
  int k = 0;
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++)
      if (s != d && (stuck[s] || stuck[d]) && bad[s * n + d] == AR_PAIR_OK) bad[s * n + d] = AR_PAIR_STUCK, k++;
  return k;
}

int ar_lcuda_stuck_owner(const int *stuck, int s, int d) {
  if (stuck[s] && stuck[d]) return s < d ? s : d;
  return stuck[s] ? s : d;
}

int ar_lcuda_names(const int *flags, int n, char *buf, size_t len) {
  int k = 0;
  for (int r = 0; r < n; r++) k += flags[r] != 0;
  size_t at = (size_t)snprintf(buf, len, "%s", k > 1 ? "ranks " : "rank ");
  for (int r = 0, i = 0; r < n && at < len; r++)
    if (flags[r]) at += (size_t)snprintf(buf + at, len - at, "%s%d", i++ ? ", " : "", r);
  if (!k) snprintf(buf, len, "no rank");
  return k;
}

void ar_lcuda_stuck_line(int r, const char *bus, int npairs, double smoke_timeout_s, char *buf, size_t len) {
  snprintf(buf, len,
           "GPU of rank %d (%s): work queued on it did not end within its bound (%g s for a smoke-test copy, %g s "
           "for staging): nothing more is queued on it and nothing waits for it; its %d untested pair%s skipped",
           r, bus && *bus ? bus : "?", smoke_timeout_s, AR_LCUDA_FLOOR_S, npairs, npairs == 1 ? "" : "s");
}

/* ---- held timing ---- */

int ar_lcuda_batches(int iters, int k) {
  if (k <= 0 || iters <= 0) return 1;
  int per = AR_LCUDA_HELD_OPS / k - 3; /* a hold and two events per stream */
  if (per < 1) per = 1;
  return (iters + per - 1) / per;
}

int ar_lcuda_batch_copies(int iters, int nbatch, int b) {
  if (nbatch < 1 || b < 0 || b >= nbatch) return 0;
  return iters / nbatch + (b < iters % nbatch);
}

int ar_lcuda_repeat_step(int i, int warm, int nbatch, int *batch) {
  static const int head[] = {AR_LS_FILL, AR_LS_AGREE}, wsteps[] = {AR_LS_WARM, AR_LS_WAIT, AR_LS_AGREE},
                   per[] = {AR_LS_HOLD, AR_LS_BARRIER, AR_LS_RELEASE, AR_LS_WAIT, AR_LS_AGREE, AR_LS_TIME},
                   tail[] = {AR_LS_CHECK, AR_LS_AGREE};
  const int nh = 2, nw = warm ? 3 : 0, np = 6, nt = 2;
  *batch = -1;
  if (i < 0) return AR_LS_END;
  if (i < nh) return head[i];
  i -= nh;
  if (i < nw) return wsteps[i];
  i -= nw;
  if (nbatch > 0 && i < np * nbatch) {
    *batch = i / np;
    return per[i % np];
  }
  i -= np * (nbatch > 0 ? nbatch : 0);
  return i < nt ? tail[i] : AR_LS_END;
}

double ar_lcuda_hold_next_s(double last_s, double took_s) {
  double base = last_s > took_s ? last_s : took_s; /* !(a > b) with a NAN took: the last hold */
  double next = 2 * (base > 0 ? base : AR_LCUDA_HOLD_S);
  return next < AR_LCUDA_HOLD_MAX_S ? next : AR_LCUDA_HOLD_MAX_S;
}

int ar_lcuda_hold_retry(int tries) { return tries < AR_LCUDA_HOLD_TRIES; }

void ar_lcuda_unheld_line(const char *what, int tries, double hold_s, double took_s, char *buf, size_t len) {
  snprintf(buf, len, "%s: not measured: its copies could not be held in %d tries (the last hold waited up to %.3g s "
           "for its release; the hosts took %.3g s to queue the copies and meet): the host is too loaded to start the "
           "copies together, not a GPU fault; measure it on a quieter host", what, tries, hold_s, took_s);
}

void ar_lcuda_retry_line(const char *what, int tries, double hold_s, double took_s, double next_s, char *buf,
                         size_t len) {
  snprintf(buf, len, "%s: try %d of %d ended unheld (its hold waited up to %.3g s; the hosts took %.3g s to queue the "
           "copies and meet: a loaded host): measuring it again with a %.3g s hold", what, tries,
           AR_LCUDA_HOLD_TRIES, hold_s, took_s, next_s);
}

/* ---- the ping-pong's progress ---- */

void ar_lcuda_watch_start(struct ar_lwatch *w, double now, double bound_s) {
  w->since = now;
  w->bound_s = bound_s;
  w->last = 0;
}

int ar_lcuda_watch_expired(struct ar_lwatch *w, double now, unsigned long long count) {
  if (count != w->last) {
    w->last = count;
    w->since = now;
    return 0;
  }
  return now - w->since > w->bound_s;
}
