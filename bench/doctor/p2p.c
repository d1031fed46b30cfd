/* p2p.c — doctor's P2P check: access and attributes per GPU pair through the CUDA runtime; needs a CUDA
 * build, the live system and a device, and says which of those it lacked when it skips. */
#include "doctor/doctor.h"
#if defined(AR_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

#define G "P2P"

#if defined(AR_HAVE_CUDA)
static void pair(struct ar_doc *d, int a, int b) {
  int can = 0, rank = 0, atom = 0;
  cudaDeviceCanAccessPeer(&can, a, b);
  cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, a, b);
  cudaDeviceGetP2PAttribute(&atom, cudaDevP2PAttrNativeAtomicSupported, a, b);
  if (can)
    ar_doc_add(d, G, "access", AR_D_OK, "", "CUDA %d -> %d: P2P supported (performance rank %d, native atomics %s)",
               a, b, rank, atom ? "yes" : "no");
  else
    ar_doc_add(d, G, "access", AR_D_WARN,
               "NCCL falls back to SHM through host memory and the custom kernels cannot run: check ACS and the "
               "IOMMU above, and on GeForce/workstation boards the driver's P2P support",
               "CUDA %d -> %d: no P2P access", a, b);
}
#endif

void ar_doctor_p2p(struct ar_doc *d, int n) {
  (void)n;
  if (!d->live) {
    ar_doc_add(d, G, "access", AR_D_SKIP, "", "P2P needs the live GPUs; not read from a fixture root");
    return;
  }
#if defined(AR_HAVE_CUDA)
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    ar_doc_add(d, G, "access", AR_D_SKIP, "", "no CUDA device: P2P access per pair not checked");
    return;
  }
  if (count == 1) ar_doc_add(d, G, "access", AR_D_SKIP, "", "one CUDA device: no pair to check");
  for (int a = 0; a < count; a++)
    for (int b = 0; b < count; b++)
      if (a != b) pair(d, a, b);
#else
  ar_doc_add(d, G, "access", AR_D_SKIP, "", "built without CUDA: P2P access per pair not checked");
#endif
}
