/* env.c — the NCCL stand-in's environment reads that are cached for the life of the process (NCCL_PARAM in
 * 2.28.9: src/include/param.h, src/misc/param.cc ncclLoadParam), and its own report of what it saw at init. */
#include "standin_nccl.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNREAD INT64_MIN

/* ncclLoadParam: strtoll base 0 of a non-empty value, once; "set by environment" (ENV) or "Invalid value"
 * (every sub-system) and the default. */
static int64_t load(int64_t *cache, const char *name, int64_t deflt) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lock);
  if (*cache == UNREAD) {
    const char *s = getenv(name);
    int64_t v = deflt;
    if (s && *s) {
      errno = 0;
      v = strtoll(s, NULL, 0);
      if (errno) {
        v = deflt;
        SN_INFO(SN_ALL, "Invalid value %s for %s, using default %lld.", s, name, (long long)deflt);
      } else {
        SN_INFO(SN_ENV, "%s set by environment to %lld.", name, (long long)v);
      }
    }
    __atomic_store_n(cache, v, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&lock);
  return *cache;
}

int64_t sn_param_min_ctas(void) {
  static int64_t c = UNREAD;
  return load(&c, "NCCL_MIN_CTAS", NCCL_CONFIG_UNDEF_INT);
}

int64_t sn_param_max_ctas(void) {
  static int64_t c = UNREAD;
  return load(&c, "NCCL_MAX_CTAS", NCCL_CONFIG_UNDEF_INT);
}

int64_t sn_param_comm_blocking(void) {
  static int64_t c = UNREAD;
  return load(&c, "NCCL_COMM_BLOCKING", NCCL_CONFIG_UNDEF_INT);
}

/* Not an NCCL line: the variables arbench plans around a communicator, as this process's environment holds
 * them at init (tests check arbench's INIT plan from inside the library with it). */
void sn_env_report(int rank) {
  static const char *const names[] = {"NCCL_ALGO", "NCCL_PROTO", "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE",
                                      "NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_TUNER_PLUGIN", "ARBENCH_TUNER_FILE"};
  char line[2048];
  size_t k = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && k < sizeof line; i++) {
    const char *v = getenv(names[i]);
    k += (size_t)snprintf(line + k, sizeof line - k, " %s%s%s", names[i], v ? "=" : " unset", v ? v : "");
  }
  SN_INFO(SN_ENV, "arbench NCCL stand-in: rank %d environment at init:%s", rank, line);
}
