/* absent.c — the registry entries of backends this build does not compile (the gates of meson.build, seen
 * through ar_config.h): name, family and an `available` that says "not compiled in: why", nothing else. */
#include "ar_config.h"
#include "backend.h"
#include "backends/symm/symm_plan.h"
#include <stdio.h>

#ifndef AR_HAVE_CUDA
#define AR_ABSENT_P2P_WHY "built without CUDA"
#else
#define AR_ABSENT_P2P_WHY "no nvcc or NVRTC in this stack"
#endif

/* A table without init: ar_backend_built says no; `run --backend NAME` is a usage error naming why. */
#define AR_ABSENT(SYM, NAME, FLAGS, FAMILY, SUMMARY, WHY)                              \
  static int SYM##_absent(const struct ar_env *env, char *why, size_t len) {           \
    (void)env;                                                                         \
    snprintf(why, len, "not compiled in: %s", WHY);                                    \
    return -AR_EUNAVAIL;                                                               \
  }                                                                                    \
  const struct ar_backend SYM = {.name = NAME, .summary = SUMMARY, .flags = (FLAGS),   \
                                 .family = FAMILY, .available = SYM##_absent}

/* The CPU stand-in build (-Dcuda-emu) always has the NCCL stand-in (standin/nccl/): nccl is then compiled in. */
#if !defined(AR_HAVE_CUDA) || !AR_HAVE_NCCL
AR_ABSENT(ar_be_nccl, "nccl", AR_BE_DEVICE | AR_BE_GRAPH | AR_BE_BASELINE, AR_BE_FAM_NCCL, "ncclAllReduce",
          "built without CUDA");
#endif

#if !defined(AR_HAVE_CUDA) || !AR_HAVE_P2P
#define AR_ABSENT_KERNEL "custom allreduce kernel over CUDA IPC"
AR_ABSENT(ar_be_p2p_oneshot, "p2p-oneshot", AR_BE_DEVICE | AR_BE_GRAPH, AR_BE_FAM_P2P, AR_ABSENT_KERNEL,
          AR_ABSENT_P2P_WHY);
AR_ABSENT(ar_be_p2p_twoshot, "p2p-twoshot", AR_BE_DEVICE | AR_BE_GRAPH, AR_BE_FAM_P2P, AR_ABSENT_KERNEL,
          AR_ABSENT_P2P_WHY);
AR_ABSENT(ar_be_p2p_staged, "p2p-staged", AR_BE_DEVICE | AR_BE_GRAPH, AR_BE_FAM_P2P, AR_ABSENT_KERNEL,
          AR_ABSENT_P2P_WHY);
AR_ABSENT(ar_be_p2p_islands, "p2p-islands", AR_BE_DEVICE | AR_BE_GRAPH, AR_BE_FAM_P2P, AR_ABSENT_KERNEL,
          AR_ABSENT_P2P_WHY);
AR_ABSENT(ar_be_fused, "fused", AR_BE_DEVICE | AR_BE_GRAPH | AR_BE_FUSED, AR_BE_FAM_FUSED,
          "custom allreduce + residual add + RMSNorm, one kernel (bf16)", AR_ABSENT_P2P_WHY);
#endif

#if !defined(AR_HAVE_CUDA) || !AR_HAVE_SYMM
/* symm is compiled only with nvcc and NCCL >= 2.28 headers: the gate says which is missing (the headers'
 * version as meson found it, the one its check used). */
static int symm_absent(const struct ar_env *env, char *why, size_t len) {
  (void)env;
  char gate[AR_ERRLEN];
#if AR_CUDA_EMU /* the NCCL stand-in has NCCL's host API, not its device API */
  snprintf(gate, sizeof gate, "its kernel needs NCCL's device API, which the NCCL stand-in (-Dcuda-emu) lacks");
#elif defined(AR_HAVE_CUDA)
  ar_symm_gate(1, AR_HAVE_NVCC, AR_NCCL_HEADER_CODE, 0, gate, sizeof gate);
#else
  ar_symm_gate(0, 0, 0, 0, gate, sizeof gate);
#endif
  snprintf(why, len, "not compiled in: %s", gate);
  return -AR_EUNAVAIL;
}
const struct ar_backend ar_be_symm = {.name = "symm",
                                      .summary = "custom one-/two-shot kernel on NCCL's device API",
                                      .flags = AR_BE_DEVICE | AR_BE_GRAPH | AR_BE_WATCHDOG_ONLY,
                                      .family = AR_BE_FAM_SYMM,
                                      .available = symm_absent};
#endif
