/* finding.c — the doctor's findings and the files they read: one finding per call (level, check, found,
 * todo) and the system root (live or a fixture) that every check group reads under. */
#include "doctor/finding.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const level_names[] = {"ok", "info", "warn", "FAIL", "skip"};

void ar_doc_add(struct ar_doc *d, const char *group, const char *check, enum ar_dlevel lv, const char *todo,
                const char *fmt, ...) {
  char found[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(found, sizeof found, fmt, ap);
  va_end(ap);
  json_array_append_new(d->items, json_pack("{s:s,s:s,s:s,s:s,s:s}", "group", group, "check", check, "level",
                                            level_names[lv], "found", found, "todo", todo ? todo : ""));
  d->count[lv]++;
}

void ar_doc_path(const struct ar_doc *d, char *buf, size_t len, const char *fmt, ...) {
  char rel[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rel, sizeof rel, fmt, ap);
  va_end(ap);
  snprintf(buf, len, "%s%s", d->root, rel);
}

int ar_doc_read(const struct ar_doc *d, const char *path, char *buf, size_t len) {
  char full[2048];
  ar_doc_path(d, full, sizeof full, "%s", path);
  FILE *f = fopen(full, "r");
  *buf = 0;
  if (!f) return -1;
  if (!fgets(buf, (int)len, f)) *buf = 0;
  fclose(f);
  buf[strcspn(buf, "\n")] = 0;
  return 0;
}

