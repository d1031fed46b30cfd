/* nccl_version_shim.c — preloaded by nccl_warning.sh: ncclGetVersion says 2.19.3 (older than any stack
 * arbench builds), as a different NCCL found at run time would, so arbench must warn that the loaded NCCL
 * differs from its headers. */
int ncclGetVersion(int *version);

int ncclGetVersion(int *version) {
  *version = 21903;
  return 0;
}
