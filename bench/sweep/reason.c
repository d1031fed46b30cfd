/* reason.c — why a launch failed, in one line, from the end of its stderr: arbench's own error line, else the
 * first paragraph of the launcher's message block (Open MPI's "not enough slots"), else its last line. */
#include "sweep/exec.h"
#include <stdio.h>
#include <string.h>

#define AR_REASON_MAX 240

static int blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t') return 0;
  return 1;
}

static int dashes(const char *s, size_t n) { /* Open MPI's ------ block rule */
  size_t k = 0;
  while (k < n && s[k] == '-') k++;
  return k >= 20 && blank(s + k, n - k);
}

/* An arbench error line, "arbench: X" or "arbench CMD: X" (not a warning, note or launch remark): the offset
 * of X, else 0. */
static size_t arbench_error(const char *s, size_t n) {
  if (n < 9 || strncmp(s, "arbench", 7)) return 0;
  size_t i = 7;
  if (s[i] == ' ')
    for (i++; i < n && s[i] >= 'a' && s[i] <= 'z';) i++;
  if (i >= n || s[i] != ':') return 0;
  i += 1 + (i + 1 < n && s[i + 1] == ' ');
  const char *m = s + i;
  return strncmp(m, "warning:", 8) && strncmp(m, "note:", 5) && strncmp(m, "not started by mpirun", 21) ? i : 0;
}

/* Append n bytes of s to buf (collapsing runs of blanks), at most AR_REASON_MAX characters. */
static void put(char *buf, size_t len, size_t *k, const char *s, size_t n) {
  for (size_t i = 0; i < n && *k + 1 < len && *k < AR_REASON_MAX; i++) {
    char c = s[i] == '\t' ? ' ' : s[i];
    if (c == ' ' && (!*k || buf[*k - 1] == ' ')) continue;
    buf[(*k)++] = c;
  }
  buf[*k] = 0;
}

void ar_sweep_reason(const char *tail, char *buf, size_t len) {
  const char *first = NULL, *block = NULL, *last = NULL;
  size_t nfirst = 0, nlast = 0, off = 0;
  int in_block = 0;
  buf[0] = 0;
  if (!len) return;
  for (const char *p = tail; *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (!first && (off = arbench_error(p, n))) first = p + off, nfirst = n - off;
    if (dashes(p, n)) in_block = !in_block;
    else if (in_block && !block && !blank(p, n)) block = p;
    if (!blank(p, n) && !dashes(p, n)) last = p, nlast = n;
    p += n + (e != NULL);
  }
  size_t k = 0;
  if (first) {
    put(buf, len, &k, first, nfirst);
  } else if (block) { /* the paragraph: lines up to a blank one, joined */
    for (const char *p = block; *p;) {
      const char *e = strchr(p, '\n');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      if (blank(p, n) || dashes(p, n)) break;
      if (k) put(buf, len, &k, " ", 1);
      put(buf, len, &k, p, n);
      p += n + (e != NULL);
    }
    while (k && (buf[k - 1] == ':' || buf[k - 1] == ' ')) buf[--k] = 0;
  } else if (last) {
    put(buf, len, &k, last, nlast);
  }
  if (k >= AR_REASON_MAX && len > AR_REASON_MAX + 3) snprintf(buf + AR_REASON_MAX - 3, 4, "...");
  if (strstr(buf, "not enough slots"))
    snprintf(buf + k, len - k, " (more ranks than cores: add --oversubscribe to --launcher, or export "
                               "OMPI_MCA_rmaps_base_oversubscribe=1)");
}
