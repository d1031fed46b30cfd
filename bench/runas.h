/* runas.h — `arbench run --as ENGINE`: the environment a serving engine gives the NCCL (and CUDA) it runs,
 * applied to this process before MPI, CUDA or NCCL start, so the baseline measured is the engine's NCCL. */
#ifndef AR_RUNAS_H
#define AR_RUNAS_H

#include <jansson.h>
#include <stddef.h>

/* One variable an engine sets in its own process before CUDA and NCCL start. */
struct ar_runas_var {
  const char *name, *value;
  int force; /* 1: the engine sets it even when the user did; 0: only when unset */
};

/* One engine's set, read from its source (the commit and file are in the text). */
struct ar_runas {
  const char *engine; /* "sglang", "vllm": the --as value and the "as" of records */
  const char *label;  /* "SGLang" */
  const char *source; /* where the set was read: repository, commit, file and lines */
  const char *note;   /* what is left out of the set, and why */
  const struct ar_runas_var *vars;
  int nvars;
};

#define AR_RUNAS_MAX_VARS 8

/* The engine named name, or NULL. */
const struct ar_runas *ar_runas_find(const char *name);
/* Every engine, for messages and docs ("sglang, vllm"). */
const struct ar_runas *ar_runas_all(int *n);
/* --as NAME: 0 and *out, or -AR_EINVAL with one line naming the value and the known engines. */
int ar_runas_parse(const char *name, const struct ar_runas **out, char *err, size_t len);

/* The values the engine's process would hold, given the user's environment (get: getenv, or a test's):
 * value[i] for vars[i], and set[i] = 1 where the engine would change it (unset, or forced to another
 * value). Pure. */
void ar_runas_plan(const struct ar_runas *a, const char *(*get)(const char *), const char **value, int *set);
/* Apply the plan to this process (setenv; call it while the process has one thread: right after the options
 * are parsed, before MPI_Init, the watchdog and CUDA). Applying it again changes nothing, so a relaunched
 * rank that inherits the values holds the same ones. 0, or -AR_ERUNTIME with one line in err. */
int ar_runas_apply(const struct ar_runas *a, char *err, size_t len);
/* The run record's "as_env": {"engine", "source", "env": {VAR: the value this process holds},
 * "user_kept": [VAR...]} (variables the engine leaves to the user that hold another value than its own). */
json_t *ar_runas_json(const struct ar_runas *a);

#endif
