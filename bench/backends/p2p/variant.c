/* variant.c — the key=value,... variant text of the custom GPU backends: the splitter and the integer
 * reader behind p2p-*, fused and symm (variant.h). Pure C. */
#include "backends/p2p/variant.h"
#include "ar.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ar_variant_int(const char *who, const char *key, const char *val, int lo, int hi, int *out, char *err,
                   size_t len) {
  char *end;
  errno = 0;
  long x = strtol(val, &end, 10);
  if (!*val || *end || errno || x < lo || x > hi) {
    snprintf(err, len, "%s variant %s=%s: expected an integer %d..%d", who, key, val, lo, hi);
    return -AR_EINVAL;
  }
  *out = (int)x;
  return 0;
}

int ar_variant_each(const char *who, const char *keys, const char *text, ar_variant_fn fn, void *ctx, char *err,
                    size_t len) {
  char buf[256];
  if (strlen(text) >= sizeof buf) {
    snprintf(err, len, "%s variant '%.60s...': too long", who, text);
    return -AR_EINVAL;
  }
  if (*text && (text[0] == ',' || text[strlen(text) - 1] == ',' || strstr(text, ",,"))) {
    snprintf(err, len, "%s variant '%s': empty key=value between commas", who, text);
    return -AR_EINVAL;
  }
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq || eq == kv || !eq[1]) {
      snprintf(err, len, "%s variant '%s': expected key=value (keys: %s)", who, kv, keys);
      return -AR_EINVAL;
    }
    *eq = 0;
    int rc = fn(ctx, kv, eq + 1, err, len);
    if (rc) return rc;
  }
  return 0;
}
