/* version.c — the NCCL stand-in's version knob: which release's behaviour it follows (2.28.9 unless
 * ARBENCH_STANDIN_NCCL_VERSION says 2.29.x, 2.30.x or 2.31.x), read once per process; docs/nccl-standin.md. */
#include "standin_nccl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The releases the stand-in models; a knob outside them ends the process (a test asked for a model that is not
 * there: never a silent 2.28.9). */
static int parse(const char *s) {
  unsigned maj, min, pat;
  char tail;
  if (sscanf(s, "%u.%u.%u%c", &maj, &min, &pat, &tail) != 3 || maj != 2 || min < 28 || min > 31 || pat > 99)
    return -1;
  return (int)(maj * 10000 + min * 100 + pat);
}

static int version_code;
static pthread_once_t version_once = PTHREAD_ONCE_INIT;

static void version_init(void) {
  const char *s = getenv("ARBENCH_STANDIN_NCCL_VERSION");
  if (!s || !*s) {
    version_code = NCCL_VERSION_CODE;
    return;
  }
  version_code = parse(s);
  if (version_code < 0 || version_code < NCCL_VERSION_CODE) {
    fprintf(stderr, "NCCL stand-in: ARBENCH_STANDIN_NCCL_VERSION='%s' is not a modelled release (2.28.9 .. 2.31.x)\n",
            s);
    exit(2);
  }
}

int sn_version(void) {
  pthread_once(&version_once, version_init);
  return version_code;
}

void sn_version_string(char *buf, size_t len) {
  int v = sn_version();
  snprintf(buf, len, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
}
