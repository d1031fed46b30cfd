/* launch.h — `arbench run` started outside an MPI launcher: relaunch itself under mpirun with one rank
 * per GPU (or --np N), or say how to run N CPU ranks. The decisions are pure, for the unit tests. */
#ifndef AR_LAUNCH_H
#define AR_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

enum ar_launch_action {
  AR_LAUNCH_NONE,     /* run here as this process (under a launcher, --no-launch, one GPU) */
  AR_LAUNCH_RELAUNCH, /* exec mpirun with np ranks */
  AR_LAUNCH_HINT,     /* run here as one rank, after one line saying how to run more (note) */
};

struct ar_launch {
  int action;
  int np;             /* ranks of the relaunch, or suggested by the hint */
  bool root_env;      /* root without OMPI_ALLOW_RUN_AS_ROOT: add Open MPI's two variables */
  bool oversubscribe; /* more ranks than cores: OMPI_MCA_rmaps_base_oversubscribe=1 */
  char note[512];     /* one line for stderr (without "arbench: "), "" when nothing is to be said */
};

/* The environment variable (of envp) that shows this process was started by an MPI launcher: Open MPI's
 * OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK, MPICH/Hydra's PMI_RANK or PMI_SIZE, Slurm's srun (SLURM_STEP_ID with
 * SLURM_PROCID); NULL when none is set. */
const char *ar_launcher_var(char *const *envp);

/* What `arbench run` does here: envp, the GPUs visible, online cores, --np (0 = not given), --no-launch,
 * whether we run as root. Returns 0. */
int ar_launch_decide(char *const *envp, int gpus, int cores, int np_opt, bool no_launch, bool root,
                     struct ar_launch *l);

/* The relaunch's argv (NULL-terminated, malloc'd, free with ar_launch_free): mpirun -np N EXE followed by
 * argv[0..argc) (argv[0] = "run") without --np N / --np=N / --no-launch. NULL when out of memory. */
char **ar_launch_argv(const struct ar_launch *l, const char *exe, int argc, char **argv);
void ar_launch_free(char **v);
/* The command line as a user would type it: the environment the relaunch adds, then argv, each word quoted
 * when it needs it. */
void ar_launch_format(const struct ar_launch *l, char **argv, char *buf, size_t len);

/* relaunch.c (not pure): the decision for this process (its environment, the GPUs it sees, online cores, root
 * or not); and the relaunch itself: print the command (one line), exec it. Returns only when it could not
 * (exit status 1, one line). np_given: --np was given (else the line says "one per GPU"). */
void ar_relaunch_plan(int np_opt, bool no_launch, struct ar_launch *l);
int ar_relaunch_exec(const struct ar_launch *l, bool np_given, int argc, char **argv);

#endif
