/* strv.c — the sweep's string vectors: growable NULL-terminated argv-style arrays, splitting words as a
 * shell would (quotes, escapes) and quoting them back for the plan's printed commands. */
#include "sweep/plan.h"
#include "ar.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ar_strv_push(struct ar_strv *s, const char *str) {
  if (s->n + 2 > s->cap) {
    int cap = s->cap ? 2 * s->cap : 8;
    char **v = realloc(s->v, sizeof *v * (size_t)cap);
    if (!v) return -AR_ERUNTIME;
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n] = strdup(str);
  if (!s->v[s->n]) return -AR_ERUNTIME;
  s->v[++s->n] = NULL;
  return 0;
}

void ar_strv_free(struct ar_strv *s) {
  for (int i = 0; i < s->n; i++) free(s->v[i]);
  free(s->v);
  memset(s, 0, sizeof *s);
}

int ar_split_words(const char *s, struct ar_strv *out, char *err, size_t len) {
  size_t cap = strlen(s) + 1;
  char *word = malloc(cap);
  if (!word) return -AR_ERUNTIME;
  size_t n = 0;
  int inword = 0, rc = 0;
  for (const char *p = s;; p++) {
    char c = *p;
    if (!c || isspace((unsigned char)c)) {
      if (inword) {
        word[n] = 0;
        if ((rc = ar_strv_push(out, word))) break;
      }
      inword = 0;
      n = 0;
      if (!c) break;
      continue;
    }
    inword = 1;
    if (c == '\\' && p[1]) {
      word[n++] = *++p;
    } else if (c == '\'' || c == '"') {
      const char *q = p + 1;
      for (; *q && *q != c; q++) {
        if (c == '"' && *q == '\\' && (q[1] == '"' || q[1] == '\\')) q++;
        word[n++] = *q;
      }
      if (!*q) {
        snprintf(err, len, "unterminated %c quote in launcher '%s'", c, s);
        rc = -AR_EINVAL;
        break;
      }
      p = q;
    } else {
      word[n++] = c;
    }
  }
  free(word);
  return rc;
}

void ar_shell_quote(FILE *f, const char *s) {
  int plain = *s != 0;
  for (const char *p = s; *p && plain; p++)
    plain = isalnum((unsigned char)*p) || strchr("_@%+=:,./-", *p);
  if (plain) {
    fputs(s, f);
    return;
  }
  fputc('\'', f);
  for (const char *p = s; *p; p++) {
    if (*p == '\'') fputs("'\\''", f);
    else fputc(*p, f);
  }
  fputc('\'', f);
}

/* Split "a,b,c" into values; empty items and repeats are errors. */
int ar_strv_split_list(const char *list, const char *what, struct ar_strv *out, char *err, size_t len) {
  if (!*list) {
    snprintf(err, len, "empty value list for %s (expected V1,V2,...)", what);
    return -AR_EINVAL;
  }
  const char *p = list;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    if (!n) {
      snprintf(err, len, "empty value in '%s' for %s (expected V1,V2,...)", list, what);
      return -AR_EINVAL;
    }
    char *v = strndup(p, n);
    if (!v) return -AR_ERUNTIME;
    for (int i = 0; i < out->n; i++)
      if (!strcmp(out->v[i], v)) {
        snprintf(err, len, "value '%s' repeated in '%s' for %s", v, list, what);
        free(v);
        return -AR_EINVAL;
      }
    int rc = ar_strv_push(out, v);
    free(v);
    if (rc) return rc;
    if (!comma) return 0;
    p = comma + 1;
  }
}
