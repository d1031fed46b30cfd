/* provenance.h — where a number came from: the `run` record (versions, hosts, ranks, topology,
 * environment, options) and `arbench version`. */
#ifndef AR_PROVENANCE_H
#define AR_PROVENANCE_H

#include "backend.h"

/* Collective over env->comm; returns the record on rank 0, NULL elsewhere. */
json_t *ar_run_record(const struct ar_env *env, int argc, char **argv, const char *run_id,
                      json_t *bindings);
/* MPI library version (first line) and hwloc versions, as strings. */
void ar_mpi_version(char *buf, size_t len);
void ar_hwloc_versions(char *compiled, char *loaded, size_t len);

#endif
