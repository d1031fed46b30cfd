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

/* The rules that changed between the modelled releases, each the first release that has it (read at its tag;
 * docs/nccl-standin.md cites file:line). A release without a tag (2.31.x) follows the newest tag read, 2.30.7. */
int sn_since(enum sn_rule rule) {
  static const int first[SN_RULE_COUNT] = {
      [SN_SYMK_NEEDS_NVLINK] = 22902, /* v2.29.2-1 src/sym_kernels.cc:389 ncclSymkAvailable: !isAllDirectNvlink */
      [SN_SHM_CE_GONE] = 23007,       /* v2.30.4-1 src/transport/shm.cc:68-69 read them; v2.30.7-1 does not */
      [SN_THREAD_CTX_GONE] = 23007,   /* v2.30.4-1 src/proxy.cc:877 read it; v2.30.7-1 does not */
      [SN_TUNER_V6] = 23003,          /* v2.30.3-1 src/plugin/tuner.cc:74 getNcclTuner_v6 first */
  };
  return rule >= 0 && rule < SN_RULE_COUNT && sn_version() >= first[rule];
}
