/* launch.c — `arbench run` outside an MPI launcher: the decision (relaunch under mpirun, one rank per GPU;
 * a hint on CPU-only nodes), the relaunch's command line, and its printable form. */
#include "run/launch.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *env_get(char *const *envp, const char *name) {
  size_t n = strlen(name);
  for (char *const *e = envp; e && *e; e++)
    if (!strncmp(*e, name, n) && (*e)[n] == '=') return *e + n + 1;
  return NULL;
}

const char *ar_launcher_var(char *const *envp) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (env_get(envp, vars[i])) return vars[i];
  if (env_get(envp, "SLURM_STEP_ID") && env_get(envp, "SLURM_PROCID")) return "SLURM_STEP_ID"; /* srun, not sbatch */
  return NULL;
}

int ar_launch_decide(char *const *envp, int gpus, int cores, int np_opt, bool no_launch, bool root,
                     struct ar_launch *l) {
  memset(l, 0, sizeof *l);
  l->action = AR_LAUNCH_NONE;
  if (no_launch || ar_launcher_var(envp)) return 0;
  if (env_get(envp, "ARBENCH_LAUNCHED")) { /* we started this launcher, but it set none of the variables */
    snprintf(l->note, sizeof l->note, "warning: relaunched by arbench but no MPI launcher variable is set "
             "(OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK): running as one rank");
    return 0;
  }
  const char *allow = env_get(envp, "OMPI_ALLOW_RUN_AS_ROOT");
  l->root_env = root && !(allow && *allow);
  int suggest = cores < 2 ? 2 : cores > 8 ? 8 : cores;
  if (np_opt > 0 || gpus >= 2) {
    l->action = AR_LAUNCH_RELAUNCH;
    l->np = np_opt > 0 ? np_opt : gpus;
    l->oversubscribe = cores > 0 && l->np > cores;
    return 0;
  }
  if (gpus == 0) {
    l->action = AR_LAUNCH_HINT;
    l->np = suggest;
    snprintf(l->note, sizeof l->note, "not started by mpirun and no GPU here: running 1 rank (busbw is 0 on one "
             "rank); for %d CPU ranks on the host backends: arbench run --np %d ... (or mpirun -np %d arbench run ...)",
             suggest, suggest, suggest);
  }
  return 0;
}

void ar_launch_free(char **v) {
  for (char **p = v; p && *p; p++) free(*p);
  free(v);
}

char **ar_launch_argv(const struct ar_launch *l, const char *exe, int argc, char **argv) {
  char **v = calloc((size_t)argc + 8, sizeof *v);
  int n = 0;
  char np[16];
  snprintf(np, sizeof np, "%d", l->np);
  const char *head[] = {"mpirun", "-q", "-np", np, exe}; /* -q: arbench's one line, not Open MPI's banner */
  for (size_t i = 0; v && i < sizeof head / sizeof head[0]; i++) v[n++] = strdup(head[i]);
  for (int i = 0; v && i < argc; i++) {
    if (!strcmp(argv[i], "--no-launch") || !strncmp(argv[i], "--np=", 5)) continue;
    if (!strcmp(argv[i], "--np")) {
      i++; /* its value */
      continue;
    }
    v[n++] = strdup(argv[i]);
  }
  for (int i = 0; v && i < n; i++)
    if (!v[i]) {
      ar_launch_free(v);
      return NULL;
    }
  return v;
}

/* word, quoted for a POSIX shell when it holds anything but [A-Za-z0-9_./:=,+-] */
static size_t put_word(char *buf, size_t len, size_t k, const char *w) {
  bool plain = *w != 0;
  for (const char *p = w; *p && plain; p++)
    plain = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,+-@%", *p) != NULL;
  if (k && k < len) buf[k++] = ' ';
  if (plain) return k + (size_t)snprintf(buf + (k < len ? k : len), k < len ? len - k : 0, "%s", w);
  if (k < len) buf[k] = '\'';
  k++;
  for (const char *p = w; *p; p++) {
    const char *s = *p == '\'' ? "'\\''" : NULL;
    if (s) k += (size_t)snprintf(buf + (k < len ? k : len), k < len ? len - k : 0, "%s", s);
    else {
      if (k < len) buf[k] = *p;
      k++;
    }
  }
  if (k < len) buf[k] = '\'';
  k++;
  if (k < len) buf[k] = 0;
  return k;
}

void ar_launch_format(const struct ar_launch *l, char **argv, char *buf, size_t len) {
  size_t k = 0;
  if (!len) return;
  buf[0] = 0;
  if (l->root_env) {
    k = put_word(buf, len, k, "OMPI_ALLOW_RUN_AS_ROOT=1");
    k = put_word(buf, len, k, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
  }
  if (l->oversubscribe) k = put_word(buf, len, k, "OMPI_MCA_rmaps_base_oversubscribe=1");
  for (char **p = argv; p && *p; p++) k = put_word(buf, len, k, *p);
  if (k >= len) buf[len - 1] = 0;
}
