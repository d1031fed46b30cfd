/* nccl_ran.h — what NCCL ran against what the variant asked, for the record (pure C, no NCCL): CTAs it clamped, an
 * algorithm or protocol it fell back from, variables the loaded NCCL does not read. NULL: nothing to say. */
#ifndef AR_NCCL_RAN_H
#define AR_NCCL_RAN_H

#include <jansson.h>

/* CTAs asked (the variant's ctas=, else the user's NCCL_MIN_CTAS/NCCL_MAX_CTAS as NCCL reads them: strtoll base 0,
 * values <= 0 ignored) against the communicator's channels NCCL said it has (coll_channels, 0 unknown):
 * {"asked_min", "asked_max", "ran", "status": "as asked" | "clamped" | "unknown", "note"}; NULL when none asked. */
json_t *ar_nccl_ctas_json(int variant_ctas, const char *user_min, const char *user_max, int coll_channels);

/* Whether NCCL's choice of one call (ran_algo "RING"/"TREE"/"SYMMETRIC", ran_proto "LL"... or "" for a symmetric
 * kernel) is one the NCCL_ALGO/NCCL_PROTO values asked allow (NCCL's list syntax: "Ring,Tree", "^Tree",
 * "allreduce:tree;broadcast:ring"): {"asked_algo", "asked_proto", "ran_algo", "ran_proto", "note"} when it is not;
 * NULL when it is, nothing was asked, or nothing is known of the call. */
json_t *ar_nccl_fallback_json(const char *asked_algo, const char *asked_proto, const char *ran_algo,
                              const char *ran_proto);

/* The NCCL_* variables of envp (NAME=VALUE, NULL-terminated) that some NCCL release reads but NCCL version (code)
 * does not — removed before it or added after it (bench/ncclenv.c's ranges): [{"name", "why"}]; NULL when none. */
json_t *ar_nccl_ignored_env_json(char *const *envp, int version);

#endif
