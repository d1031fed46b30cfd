/* nccl_version_shim.c — preloaded by nccl_warning.sh: ncclGetVersion says 2.26.5, as a different NCCL
 * found at run time would, so arbench must warn that the loaded NCCL differs from its headers. */
int ncclGetVersion(int *version);

int ncclGetVersion(int *version) {
  *version = 22605;
  return 0;
}
