/* env.c — the NCCL stand-in's environment reads that are cached for the life of the process (NCCL_PARAM in
 * 2.28.9: src/include/param.h, src/misc/param.cc ncclLoadParam), and its own report of what it saw at init. */
#include "standin_nccl.h"
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNREAD INT64_MIN

/* setEnvFile (src/misc/param.cc, v2.28.9): NAME=VALUE lines ('#' comments, lines without '=' skipped, names and
 * values cut at 1023 bytes), each set only where the environment has no such variable yet (setenv(..., 0)). */
static void conf_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  char *line = NULL, name[1024], value[1024];
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, f)) != -1) {
    if (line[0] == '#') continue;
    if (line[n - 1] == '\n') line[n - 1] = '\0';
    size_t k = strcspn(line, "=");
    if (!line[k]) continue;
    size_t nk = k < 1023 ? k : 1023;
    memcpy(name, line, nk);
    name[nk] = '\0';
    snprintf(value, sizeof value, "%s", line + k + 1);
    setenv(name, value, 0);
  }
  free(line);
  fclose(f);
}

/* initEnvFunc (src/misc/param.cc): once per process, at NCCL's first environment read (ncclGetEnv): NCCL_CONF_FILE
 * when set and non-empty, else ~/.nccl.conf (the passwd entry's home), then /etc/nccl.conf. */
static void conf_once(void) {
  char path[1024];
  const char *user = getenv("NCCL_CONF_FILE");
  if (user && *user) {
    conf_file(user);
  } else {
    struct passwd *pw = getpwuid(getuid());
    if (pw && pw->pw_dir) snprintf(path, sizeof path, "%s/.nccl.conf", pw->pw_dir), conf_file(path);
  }
  conf_file("/etc/nccl.conf");
}

const char *sn_getenv(const char *name) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, conf_once);
  return getenv(name);
}

/* ncclLoadParam: strtoll base 0 of a non-empty value, once; "set by environment" (ENV) or "Invalid value"
 * (every sub-system) and the default. */
static int64_t load(int64_t *cache, const char *name, int64_t deflt) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lock);
  if (*cache == UNREAD) {
    const char *s = sn_getenv(name);
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

/* The SHM transport's copy-engine switches, read when a connection goes through host memory (initCeOperation,
 * src/transport/shm.cc:504-505 at v2.28.9-1), by the releases that have them (up to 2.30.4: sn_since). */
void sn_param_shm_ce(void) {
  static int64_t use = UNREAD, mode = UNREAD;
  if (sn_since(SN_SHM_CE_GONE)) return;
  if (load(&use, "NCCL_SHM_USE_CUDA_MEMCPY", 0)) load(&mode, "NCCL_SHM_MEMCPY_MODE", 1);
}

/* The proxy thread's context switch, read when the proxy starts (setProxyThreadContext, src/proxy.cc:866-872 at
 * v2.28.9-1), up to 2.30.4. */
void sn_param_thread_context(void) {
  static int64_t c = UNREAD;
  if (!sn_since(SN_THREAD_CTX_GONE)) load(&c, "NCCL_CREATE_THREAD_CONTEXT", 0);
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
