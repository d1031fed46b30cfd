/* runenv.h — the start-up of `arbench run` that `arbench links` shares (bench/run/cmd_run.c): the run's
 * environment, topology and binding, the run id, and the agreement on a status across ranks. */
#ifndef AR_RUNENV_H
#define AR_RUNENV_H

#include "agree.h" /* ar_agree_print */
#include "backend.h"

/* The run's communicators, ranks and nodes over MPI_COMM_WORLD; env->opts = o. */
void ar_run_setup_env(struct ar_env *env, const struct ar_opts *o);
/* Topology (--xml or live) and binding (o->bind); *bindings = every rank's description on rank 0, NULL
 * elsewhere. -AR_EINVAL (a bad --xml, said once) or 0. */
int ar_run_setup_topo(struct ar_env *env, json_t **bindings);
/* A run id every rank agrees on (16 hex digits). Collective. */
void ar_make_run_id(char *buf, size_t len, MPI_Comm comm);

#endif
