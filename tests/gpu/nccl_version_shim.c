/* nccl_version_shim.c — preloaded by nccl_warning.sh: ncclGetVersion says 2.19.3 (older than any stack
 * arbench builds), as a different NCCL found at run time would, so arbench must warn that the loaded NCCL
 * differs from its headers. */
int ncclGetVersion(int *version);

#ifndef AR_SHIM_VERSION /* the sweep's --nccl test builds it twice, with other versions */
#define AR_SHIM_VERSION 21903
#endif

int ncclGetVersion(int *version) {
  *version = AR_SHIM_VERSION;
  return 0;
}
