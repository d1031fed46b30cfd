/* provenance.h — where a number came from: the `run` record (versions, hosts, ranks, topology,
 * environment, options) and `arbench version`. */
#ifndef AR_PROVENANCE_H
#define AR_PROVENANCE_H

#include "backend.h"

/* Collective over env->comm; returns the record on rank 0, NULL elsewhere. */
json_t *ar_run_record(const struct ar_env *env, int argc, char **argv, const char *run_id,
                      json_t *bindings);
/* MPI library version (first line). */
void ar_mpi_version(char *buf, size_t len);
/* hwloc's release and API versions, of the headers built against and of the library loaded. */
struct ar_hwloc_versions {
  char compiled[32], loaded[32], api_compiled[32], api_loaded[32];
};
void ar_hwloc_versions(struct ar_hwloc_versions *v);
/* "2.9.0 (library and headers; API 2.8.0)", or both sides spelled out when they differ. */
void ar_hwloc_line(const struct ar_hwloc_versions *v, char *buf, size_t len);
/* What GPU code this build holds, from ar_stack_describe: its archs, or why none ("this build has CUDA
 * disabled (configured with -Dcuda=disabled)", "no nvcc in this stack ..."), for `version` and `list`. */
void ar_stack_kernels_line(json_t *stack, char *buf, size_t len);

#endif
