/* ncclenv.h — NCCL_* variable names checked against what NCCL's releases read (the list in ncclenv_names.c,
 * generated from NCCL's source by scripts/nccl-env-names.sh): near misses refused, unknown and removed warned. */
#ifndef AR_NCCLENV_H
#define AR_NCCLENV_H

#include <stddef.h>

/* One variable and the first and last release (NCCL_VERSION_CODE, X*10000+Y*100+Z) whose source reads it. */
struct ar_ncclenv_name {
  const char *name;
  int first, last;
};

extern const struct ar_ncclenv_name ar_ncclenv_names[]; /* sorted by name */
extern const int ar_ncclenv_nnames;
extern const int ar_ncclenv_versions[]; /* the releases read, oldest first */
extern const int ar_ncclenv_nversions;

enum ar_ncclenv_verdict { AR_NCCLENV_OK = 0, AR_NCCLENV_WARN = 1, AR_NCCLENV_REFUSE = 2 };

/* The entry of name, or NULL when no release read reads it. */
const struct ar_ncclenv_name *ar_ncclenv_find(const char *name);
/* The names name is a near miss of (a confused word, a missing MIN_/MAX_/NET_, one or two letters off),
 * " or "-joined into out; returns how many (0: not a near miss). Only for names no release reads. */
int ar_ncclenv_suggest(const char *name, char *out, size_t len);
/* Check the variable name (value: its value, or NULL) for an NCCL of version code version (0: not known,
 * checked against the newest release read). Not NCCL_*, an install location (NCCL_HOME, NCCL_ROOT, ...), or
 * read by that NCCL: AR_NCCLENV_OK, msg "".
 * A near miss: AR_NCCLENV_REFUSE and one line naming the value and the likely name(s), or with allow
 * (--allow-unknown-env) AR_NCCLENV_WARN. Another unknown name, or one that NCCL does not read at version
 * (removed before it, or added after): AR_NCCLENV_WARN and one line. msg has no "arbench: " prefix.
 * version < 0: the names only (no removed or added warning), for a check before the NCCL to run is known. */
int ar_ncclenv_check(const char *name, const char *value, int version, int allow, char *msg, size_t len);
/* Check every NCCL_* entry of envp (NAME=VALUE strings, NULL-terminated) with ar_ncclenv_check. A near miss
 * (without allow): -AR_EINVAL with its one line in err, and no warning. Else each warning line goes to
 * warn(ctx, line), once per entry, in envp's order, and 0. */
int ar_ncclenv_check_env(char *const *envp, int version, int allow, void (*warn)(void *ctx, const char *line),
                         void *ctx, char *err, size_t len);
/* The NCCL_* names of envp that some release reads but NCCL version does not (removed before it or added
 * after; version 0: the newest release read): one warning line each to warn. Names no release reads are
 * ar_ncclenv_check_env's. */
void ar_ncclenv_warn_version(char *const *envp, int version, void (*warn)(void *ctx, const char *line), void *ctx);
/* "2.28.9" -> 22809 (NCCL_VERSION_CODE); 0 when s is NULL or no X.Y.Z. */
int ar_ncclenv_version_code(const char *s);
/* "2.30.7" from a version code. */
void ar_ncclenv_version_str(int code, char *out, size_t len);

#endif
