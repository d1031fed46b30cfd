/* cmd_cuda.h — the GPU parts of the `arbench links` command (cmd_cuda.c): device choice and the run's methods,
 * and a GPU pair's place in the topology on its records. */
#ifndef AR_LINKS_CMD_CUDA_H
#define AR_LINKS_CMD_CUDA_H

#include "links/links.h"
#include "run/runenv.h"
#include <jansson.h>

struct ar_topo;

/* Collective: every rank's device (env->device, as `run` picks it: --devices, --shared-gpu) and o->methods
 * resolved (ar_links_resolve_methods); a GPU method without GPUs is refused in one line on rank 0. 0, or the
 * exit status (AR_EXIT_USAGE, AR_EXIT_FAIL). */
int ar_links_gpu_setup(struct ar_env *env, struct ar_links_opts *o);

/* src_id, dst_id (PCI bus ids), path (PIX..SYS, X for one GPU, ? unknown), bottleneck_gbs (hwloc's narrowest
 * link of the path, null unknown) and score (gbs / bottleneck, null unknown) of a GPU pair's record. */
void ar_links_gpu_where(json_t *rec, struct ar_topo *t, const char *sbus, const char *dbus, double gbs);

#endif
