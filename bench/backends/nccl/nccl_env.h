/* nccl_env.h — which environment variables the nccl backend sets, to what, and when: a pure plan per
 * phase of a variant's communicator, so the rule "never add or remove a variable while NCCL threads run"
 * is decided (and unit-tested) here and nccl.c only applies it. */
#ifndef AR_NCCL_ENV_H
#define AR_NCCL_ENV_H

#include <stddef.h>

/* The variables, in the order of the user's saved values (nccl.c keeps them). */
enum ar_nccl_env_var {
  AR_NENV_ALGO, AR_NENV_PROTO, AR_NENV_DEBUG, AR_NENV_SUBSYS, AR_NENV_FILE, AR_NENV_MINCTAS, AR_NENV_MAXCTAS,
  AR_NENV_TUNER, AR_NENV_TUNERFILE, AR_NENV_COUNT
};

/* INIT: before ncclCommInitRankConfig, no communicator of this process alive (the engine destroys one
 * variant's before the next one's init). QUIET: after the probe, the communicator and its proxy and
 * service threads alive: NCCL's INFO lines off for the timed calls. RESTORE: after ncclCommDestroy or
 * ncclCommAbort (threads joined): the user's environment exactly as it was. */
enum ar_nccl_env_phase { AR_NENV_INIT, AR_NENV_QUIET, AR_NENV_RESTORE };

/* What a variant asks for; empty strings = not forced. */
struct ar_nccl_env_in {
  const char *saved[AR_NENV_COUNT]; /* the user's values, NULL = unset */
  const char *algo, *proto;         /* forced NCCL_ALGO / NCCL_PROTO */
  int percall;                      /* algo/proto go through ncclCollConfig_t per call (NCCL >= 2.31): the variables
                                       they force are unset at init instead (none narrows the call's selection) */
  const char *tuner_lib, *tuner;    /* tuner=FILE: NCCL_TUNER_PLUGIN and ARBENCH_TUNER_FILE */
  const char *logpath;              /* NCCL's INFO lines of the probe */
  const char *userlog;              /* NCCL's lines outside the probe when the user asked for lines */
  int version;                      /* loaded NCCL (ar_nccl_code) */
};

struct ar_nccl_env_set {
  const char *name;
  const char *value; /* NULL = unsetenv */
};

const char *ar_nccl_env_name(enum ar_nccl_env_var v);
/* NCCL's NCCL_DEBUG_SUBSYS when the variable is unset, written out (debug.cc at each tag). */
const char *ar_nccl_env_default_subsys(int version);
/* NCCL's conf files applied to the environment as NCCL applies them (once per process), before the environment is
 * saved: every variant starts from the same variables (nccl_env.c says why). */
void ar_nccl_conf_load(void);
/* The settings of phase p, at most AR_NENV_COUNT; returns how many. In QUIET every value is non-NULL and
 * names a variable INIT set to a non-NULL value: an in-place replacement, which glibc's setenv does by
 * swapping one pointer in environ (no array reallocation, no entries shifted under a concurrent getenv). */
int ar_nccl_env_plan(enum ar_nccl_env_phase p, const struct ar_nccl_env_in *in, struct ar_nccl_env_set *out);

#endif
