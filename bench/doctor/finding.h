/* finding.h — what every `arbench doctor` check group reports into (bench/doctor/finding.c): the report (one
 * line per finding: level, check, what was found, what to do) and the system root the checks read under. */
#ifndef AR_DOCTOR_FINDING_H
#define AR_DOCTOR_FINDING_H

#include <jansson.h>
#include <stddef.h>

enum ar_dlevel { AR_D_OK = 0, AR_D_INFO, AR_D_WARN, AR_D_FAIL, AR_D_SKIP };

struct ar_doc {
  const char *root; /* "" for the live system, else a directory holding sys/, proc/, usr/, run/ */
  int live;         /* root is the live system (CUDA queries allowed) */
  json_t *items;    /* array of {group, check, level, found, todo} */
  int count[AR_D_SKIP + 1];
};

/* One finding; todo may be "" (nothing to do). */
void ar_doc_add(struct ar_doc *d, const char *group, const char *check, enum ar_dlevel lv, const char *todo,
                const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* root + path into buf. */
void ar_doc_path(const struct ar_doc *d, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* First line of a file under the root, trimmed; 0, or -1 when unreadable. */
int ar_doc_read(const struct ar_doc *d, const char *path, char *buf, size_t len);

#endif
