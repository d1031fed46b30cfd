/* links_smoke.c — doctor's P2P smoke test, the one `arbench links` runs first: per GPU pair a small copy there
 * and back with peer access on, each within a timeout, checked word by word (bench/links/measure_cuda.c); a pair
 * that hangs or corrupts fails with ACS and the IOMMU named. Skipped, with the reason, without live GPUs. */
#include "doctor/doctor.h"
#include "links/measure.h"
#include "links/measure_cuda.h"
#include <stdio.h>
#if defined(AR_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

#define G "P2P"
#define SMOKE_BYTES 4096
#define SMOKE_S 2.0

void ar_doctor_links_smoke(struct ar_doc *d) {
  if (!d->live) {
    ar_doc_add(d, G, "smoke", AR_D_SKIP, "", "the P2P smoke test needs the live GPUs; not run on a fixture root");
    return;
  }
#if defined(AR_HAVE_CUDA)
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
    cudaGetLastError();
    ar_doc_add(d, G, "smoke", AR_D_SKIP, "", "%s: the P2P smoke test needs two GPUs",
               count == 1 ? "one CUDA device" : "no CUDA device");
    return;
  }
  for (int a = 0; a < count; a++)
    for (int b = a + 1; b < count; b++) {
      char why[256] = "";
      int v = ar_lgpu_smoke_local(a, b, SMOKE_BYTES, SMOKE_S, why, sizeof why);
      if (v == AR_PAIR_OK)
        ar_doc_add(d, G, "smoke", AR_D_OK, "", "CUDA %d <-> %d: %s (%g s timeout)", a, b, why, SMOKE_S);
      else if (v == AR_PAIR_NOIPC)
        ar_doc_add(d, G, "smoke", AR_D_SKIP, "", "CUDA %d <-> %d: not run: %s", a, b, why);
      else
        ar_doc_add(d, G, "smoke", AR_D_FAIL,
                   "the usual causes are PCIe ACS or the IOMMU on the path (NVIDIA/nccl#1999, #2079): see the ACS "
                   "lines above; NCCL works there only with NCCL_P2P_DISABLE=1, and arbench links skips the pair",
                   "CUDA %d <-> %d: %s", a, b, why);
    }
#else
  ar_doc_add(d, G, "smoke", AR_D_SKIP, "", "built without CUDA: the P2P smoke test not run");
#endif
}
