/* knownbad.h — the one table of known-bad stacks (library version range × GPUs → symptom, source, what to do)
 * that doctor, run, import and report read, and the NCCL version forms they compare (bench/knownbad.c). */
#ifndef AR_KNOWNBAD_H
#define AR_KNOWNBAD_H

#include <jansson.h>
#include <stddef.h>

enum ar_kb_severity { AR_KB_CRASH, AR_KB_FAILS, AR_KB_SLOW };

struct ar_knownbad {
  const char *id;      /* stable name, what records hold */
  const char *library; /* "nccl": its version decides with min/max; NULL: the GPUs alone decide */
  const char *min;     /* lowest affected version (inclusive); NULL: every version below max */
  const char *max;     /* first version known fixed (exclusive); NULL: no fixed version known */
  const char *gpus;    /* '|'-separated substrings of a GPU name (case-insensitive); NULL: any GPU */
  int min_gpus;        /* that many matching GPUs (1 or 2) */
  enum ar_kb_severity severity;
  const char *condition; /* what else the report names (sizes, transport), not checked by the match */
  const char *symptom, *todo;
  const char *source;   /* the URL read */
  const char *says;     /* what the source says, in our words */
  const char *verified; /* what of the entry was checked against the source, and what was not */
};

/* The table, and its size. */
const struct ar_knownbad *ar_knownbad_table(size_t *n);
/* The entry of an id; NULL when this table has none (a record written by another arbench). */
const struct ar_knownbad *ar_knownbad_find(const char *id);
/* An NCCL version as one comparable code, major*10000 + minor*100 + patch: "2.26.2", "2.26.2+cuda12.8",
 * "2.26.2-1", and NCCL_VERSION_CODE integers ("22602"; before 2.9 the code was major*1000 + minor*100 +
 * patch: "2804" is 2.8.4). -1 when it is none of these. */
long ar_knownbad_version(const char *s);
/* Entries matching a stack: library ("nccl"; NULL or "" unknown: only GPU-only entries can match), its
 * version (any form above; NULL: unknown), the GPU names. Up to max into out; the count. */
int ar_knownbad_match(const char *library, const char *version, const char *const *gpus, int ngpus,
                      const struct ar_knownbad **out, int max);
/* A run record ({"stack": {"nccl_loaded", "library"}, "gpus": [{"name"}]}): sets its "known_bad" (array of
 * entry ids, [] when none) and writes into line (when len) one line naming them, "" when none. The count. */
int ar_knownbad_record(json_t *run, char *line, size_t len);
/* The line of a record's known_bad as it stands ("" when none, or no such field); the count. */
int ar_knownbad_line(json_t *run, char *line, size_t len);
/* "NCCL 2.26.2 on 2 GPUs named RTX PRO 6000": what an entry matches, in words. */
void ar_knownbad_scope(const struct ar_knownbad *e, char *buf, size_t len);
const char *ar_knownbad_severity_name(enum ar_kb_severity s);

#endif
