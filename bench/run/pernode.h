/* pernode.h — `run --per-node` and `links --per-node`: one job over many nodes, every node measuring alone
 * and at once on a communicator of its own ranks; the tag every record of a node carries (host, Slurm). */
#ifndef AR_PERNODE_H
#define AR_PERNODE_H

#include "backend.h"
#include "watchdog.h"

/* The Slurm job this process runs in, from Slurm's environment: {"job_id", "step_id", "node", "job_nodelist",
 * "step_nodelist", "cluster", "array_job_id", "array_task_id"} with the variables that are set (ids as
 * strings: Slurm prints them so), or NULL outside a Slurm job. */
json_t *ar_slurm_describe(char *const *envp);

/* node = world split by node: comm a duplicate of world->node_comm, rank/nranks the local ones, nnodes 1.
 * Collective over world->node_comm. Free with ar_pernode_free. */
void ar_pernode_split(const struct ar_env *world, struct ar_env *node);
void ar_pernode_free(struct ar_env *node);

/* What every record of this node carries: {"host": gethostname, "slurm": {"job_id", "step_id", "node"}
 * (when in a Slurm job)}. New reference. */
json_t *ar_pernode_tag(char *const *envp);

/* The run record's "per_node": {"job": a job id every node shares, "nodes": N, "node": this node's index}.
 * Collective over world->comm. New reference on every rank. */
json_t *ar_pernode_job(const struct ar_env *world);

/* After this node's run (status, in `elapsed` seconds): wait for every other node, without spinning, under
 * the watchdog phase "teardown: waiting for the other nodes" whose bound is -T plus twice this node's own
 * time (a node may take three times as long as this one before the job is ended), then the job's status:
 * 2 when a node had bad input, else 1 when one failed, else 3 when one measured nothing, else 0.
 * Collective over world->comm. */
int ar_pernode_finish(const struct ar_env *world, struct ar_watchdog *dog, int status, double elapsed);

/* The job's status from the nodes' (the rule above). Pure. */
int ar_pernode_status(const int *status, int n);

#endif
