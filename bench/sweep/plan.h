/* plan.h — `arbench sweep` input and plan: axes (--np, --env), exclusion rules, launcher and
 * run options, expanded into launches (argv, environment, point JSON). Pure: no processes, no files. */
#ifndef AR_SWEEP_PLAN_H
#define AR_SWEEP_PLAN_H

#include "ar.h"
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#define AR_SWEEP_MAX_AXES 32
#define AR_SWEEP_MAX_POINTS 100000

/* np: ranks per launch; env: one launch per value; nccl: an in-process `nccl:` variant key;
 * nccl_lib: one launch per NCCL install prefix (--nccl, preloaded); stack: one launch per stack
 * build (--stacks, its own arbench binary). Point keys "nccl" and "stack"; always the last axes. */
enum ar_axis_kind { AR_AXIS_NP, AR_AXIS_ENV, AR_AXIS_NCCL, AR_AXIS_NCCL_LIB, AR_AXIS_STACK };
/* How axis variables reach the ranks: Open MPI `-x NAME=V` flags, or the inherited environment. */
enum ar_forward { AR_FORWARD_AUTO, AR_FORWARD_X, AR_FORWARD_NONE };

struct ar_strv { /* growable, NULL-terminated vector of heap strings */
  char **v;
  int n, cap;
};

struct ar_axis {
  char *name;      /* "np" or the variable name */
  enum ar_axis_kind kind;
  const char *key; /* variant key ("algo", "proto", "ctas") when kind is AR_AXIS_NCCL */
  struct ar_strv values;
  struct ar_strv paths; /* per value: the arbench binary (stack) or libnccl file (nccl_lib) */
};

struct ar_sweep_cfg {
  struct ar_axis axes[AR_SWEEP_MAX_AXES]; /* axes[0] is np, --env axes in order, --nccl, --stacks */
  int naxes;
  struct ar_strv excludes; /* raw --exclude texts, resolved by the planner */
  struct ar_strv applies;  /* raw --applies NAME=LIST texts */
  json_t *apply;           /* env axis -> {backends, by}: the axes that do not apply to every backend (applies.c) */
  struct ar_strv launcher; /* launcher argv, e.g. {"mpirun", "--bind-to", "none"} */
  struct ar_strv run_args; /* run options after --, without --backend */
  struct ar_strv backends; /* backend specs from --backend (sweep's or the run options') */
  enum ar_forward forward;
  double point_timeout;    /* seconds, 0 = no limit */
  int repeat;              /* --repeat N: every launch N times, all launches once per round */
  bool resume, retry_failed, dry_run, verbose;
  bool allow_unknown_env;  /* --allow-unknown-env: a near-miss NCCL_* name is a warning, not an error */
  struct ar_strv warnings; /* one line each (NCCL_* names no NCCL reads): sweep.c prints them once */
  int warn_oom;            /* a warning could not be kept */
  char *json;              /* -J, made absolute */
  char *exe;               /* the arbench binary the launches run */
  struct ar_strv command;  /* the sweep's own command line, for the sweep record */
};

struct ar_launch {
  json_t *point;         /* {"np":2,"NAME":"V",...}: launch axes, in axis order */
  char *label;           /* "np=2 NAME=V" for progress lines */
  struct ar_strv argv;   /* launcher ... arbench run ... --point JSON -J FILE */
  struct ar_strv env;    /* the complete environment of the launch */
  struct ar_strv assign; /* NAME=V of the env axes (what --dry-run shows before the command) */
  struct ar_strv preset; /* NAME=V the sweep adds itself (Open MPI's root variables): --dry-run shows them too */
  json_t *args;          /* run options after "run" minus --point/-J: identity for --resume */
  char *backend;         /* the --backend value given to this launch, or NULL */
  int nvariants;         /* full points (with in-process axes) this launch covers */
};

struct ar_plan {
  struct ar_launch *l;
  int n;
  int npoints; /* full points after exclusions (sum of nvariants) */
};

/* String vectors. */
int ar_strv_push(struct ar_strv *s, const char *str);
void ar_strv_free(struct ar_strv *s);

/* Split a command line into words: blanks separate, '...' is literal, "..." allows \" and \\,
 * a backslash outside quotes escapes the next character. No expansions. */
int ar_split_words(const char *s, struct ar_strv *out, char *err, size_t len);
/* Append s to f quoted for a POSIX shell when it needs quoting. */
void ar_shell_quote(FILE *f, const char *s);

/* Parse `arbench sweep` argv (argv[0] = "sweep"). exe: the binary to launch; cwd: for making -J
 * absolute. Returns 0, 1 for --help, or -AR_EINVAL with one line in err. */
int ar_sweep_parse(struct ar_sweep_cfg *c, int argc, char **argv, const char *exe, const char *cwd,
                   char *err, size_t len);
void ar_sweep_usage(FILE *f);
void ar_sweep_cfg_free(struct ar_sweep_cfg *c);

/* Expand the axes into launches. envp: the sweep's environment; root: running as root (adds the
 * Open MPI allow-run-as-root variables when unset). Returns 0 or -AR_EINVAL with one line in err. */
int ar_sweep_plan(const struct ar_sweep_cfg *c, char **envp, bool root, struct ar_plan *p, char *err,
                  size_t len);
void ar_plan_free(struct ar_plan *p);
/* --repeat's order: the launch run at step j (0-based over all rounds) of a plan of n launches. Round j / n
 * runs them forward, or backward when the round number has an odd count of 1 bits (Thue–Morse: forward,
 * back, back, forward, back, forward, forward, back ...): A B | B A | B A | A B for two points, so a launch's
 * place in its round (first or second after the previous launch) and a drift linear (over each 2 rounds)
 * or quadratic (over each 4) in time fall on every point alike. */
int ar_round_launch(int j, int n);
/* One launch as a shell-readable line: NAME=V ... argv..., no trailing newline; the variables the sweep adds
 * itself come first, so the line pasted into a shell runs as the sweep runs it. */
void ar_launch_print(FILE *f, const struct ar_launch *l);

/* applies.c: the axes that do not apply to every backend (rules by variable prefix, then --applies), as the
 * sweep record's "applies"; -AR_EINVAL with one line for a bad --applies. And one stderr line per such axis
 * whose pooling concerns the chosen backends. */
int ar_sweep_applies(const struct ar_sweep_cfg *c, json_t **out, char *err, size_t len);
void ar_sweep_applies_say(const struct ar_sweep_cfg *c, json_t *applies, FILE *f);
/* An --env axis applying to none of the chosen backends (and no --applies for it): -AR_EINVAL with one line. */
int ar_sweep_applies_check(const struct ar_sweep_cfg *c, json_t *applies, char *err, size_t len);

/* Split "a,b,c" into out (strv.c); empty items and repeats are -AR_EINVAL naming what (the option). */
int ar_strv_split_list(const char *list, const char *what, struct ar_strv *out, char *err, size_t len);
/* Seconds one point may run (--point-timeout's default). */
#define AR_SWEEP_POINT_TIMEOUT 3600.0
/* The sweep's own environment (envp), which every launch inherits: its NCCL_* names that are not axes,
 * checked as the axes' are (args.c): 0 with warnings added to c->warnings, or -AR_EINVAL naming a near miss. */
int ar_sweep_env_check(struct ar_sweep_cfg *c, char *const *envp, char *err, size_t len);
/* A backend spec of the nccl backend ("nccl" or "nccl:VARIANT"). plan.c. */
int ar_spec_is_nccl(const char *spec);
/* --stacks LIST and --nccl LIST (stacks.c): a launch axis each, with the file every value names (checked
 * here: an executable arbench, a libnccl); -AR_EINVAL with one line naming the bad value. */
int ar_sweep_add_stacks(struct ar_sweep_cfg *c, const char *list, const char *cwd, char *err, size_t len);
int ar_sweep_add_nccl(struct ar_sweep_cfg *c, const char *list, const char *cwd, char *err, size_t len);

#endif
