/* pernode.c — one job, every node on its own: the node communicator a `--per-node` run measures on, the
 * host and Slurm tag of its records, the job id the nodes share, and the bounded wait for the other nodes. */
#include "run/pernode.h"
#include "ar.h"
#include "run/runenv.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *env_get(char *const *envp, const char *name) {
  size_t n = strlen(name);
  for (char *const *e = envp; e && *e; e++)
    if (!strncmp(*e, name, n) && (*e)[n] == '=') return *e + n + 1;
  return NULL;
}

json_t *ar_slurm_describe(char *const *envp) {
  static const char *const vars[][2] = {
    {"job_id", "SLURM_JOB_ID"},         {"step_id", "SLURM_STEP_ID"},
    {"node", "SLURMD_NODENAME"},        {"job_nodelist", "SLURM_JOB_NODELIST"},
    {"step_nodelist", "SLURM_STEP_NODELIST"}, {"cluster", "SLURM_CLUSTER_NAME"},
    {"array_job_id", "SLURM_ARRAY_JOB_ID"}, {"array_task_id", "SLURM_ARRAY_TASK_ID"},
  };
  const char *job = env_get(envp, "SLURM_JOB_ID");
  if (!job) job = env_get(envp, "SLURM_JOBID"); /* older Slurm spells it so */
  if (!job) return NULL;
  json_t *o = json_object();
  json_object_set_new(o, "job_id", json_string(job));
  for (size_t i = 1; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = env_get(envp, vars[i][1]);
    if (v) json_object_set_new(o, vars[i][0], json_string(v));
  }
  return o;
}

void ar_pernode_split(const struct ar_env *world, struct ar_env *node) {
  *node = *world;
  MPI_Comm_dup(world->node_comm, &node->comm);
  node->rank = world->local_rank;
  node->nranks = world->local_nranks;
  node->nnodes = 1;
}

void ar_pernode_free(struct ar_env *node) {
  if (node->comm != MPI_COMM_NULL) MPI_Comm_free(&node->comm);
}

json_t *ar_pernode_tag(char *const *envp) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  json_t *tag = json_pack("{s:s}", "host", host);
  json_t *slurm = ar_slurm_describe(envp);
  if (slurm) { /* the ids that tell one job's records from another's; the lists stay in the run record */
    json_t *s = json_object();
    static const char *const keep[] = {"job_id", "step_id", "node"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
      if (json_object_get(slurm, keep[i])) json_object_set(s, keep[i], json_object_get(slurm, keep[i]));
    json_object_set_new(tag, "slurm", s);
    json_decref(slurm);
  }
  return tag;
}

json_t *ar_pernode_job(const struct ar_env *world) {
  char id[32];
  ar_make_run_id(id, sizeof id, world->comm);
  int leader = world->local_rank == 0, index = 0;
  MPI_Exscan(&leader, &index, 1, MPI_INT, MPI_SUM, world->comm); /* leaders before me: my node's index */
  if (world->rank == 0) index = 0;                                /* MPI_Exscan leaves rank 0's undefined */
  MPI_Bcast(&index, 1, MPI_INT, 0, world->node_comm);            /* every rank of a node: its leader's */
  return json_pack("{s:s, s:i, s:i}", "job", id, "nodes", world->nnodes, "node", index);
}

int ar_pernode_status(const int *status, int n) {
  static const int order[] = {AR_EXIT_USAGE, AR_EXIT_FAIL, AR_EXIT_NOTHING};
  for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
    for (int i = 0; i < n; i++)
      if (status[i] == order[k]) return order[k];
  for (int i = 0; i < n; i++)
    if (status[i] != AR_EXIT_OK) return AR_EXIT_FAIL; /* any other status: a failure */
  return AR_EXIT_OK;
}

int ar_pernode_finish(const struct ar_env *world, struct ar_watchdog *dog, int status, double elapsed) {
  double T = dog->timeout;
  ar_watchdog_phase(dog, "teardown: waiting for the other nodes (this node took %.0f s)", elapsed);
  if (T > 0) ar_watchdog_unit(dog, 1 + (int)ceil(2 * elapsed / T)); /* the bound: -T + 2 x this node's time */
  MPI_Request req;
  MPI_Ibarrier(world->comm, &req);
  for (int done = 0;;) { /* polled with naps: a node that finished early leaves the cores to those still measuring */
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) break;
    struct timespec nap = {0, 2 * 1000 * 1000};
    nanosleep(&nap, NULL);
  }
  ar_watchdog_phase(dog, "teardown: the nodes' statuses");
  int *all = malloc(sizeof *all * (size_t)world->nranks);
  if (!all) return AR_EXIT_FAIL;
  MPI_Allgather(&status, 1, MPI_INT, all, 1, MPI_INT, world->comm);
  int out = ar_pernode_status(all, world->nranks);
  free(all);
  ar_watchdog_phase(dog, "%s", "");
  return out;
}
