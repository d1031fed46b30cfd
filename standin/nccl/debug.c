/* debug.c — the NCCL stand-in's logger as NCCL 2.28.9's src/debug.cc behaves: NCCL_DEBUG, NCCL_DEBUG_SUBSYS
 * (default INIT,BOOTSTRAP,ENV) and NCCL_DEBUG_FILE read at the first line after (re)initialisation. */
#include "standin_nccl.h"
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RESET_TRIGGERED (-2)

/* Process-wide state, as NCCL's (one logger per library). */
static int level = -1;
static unsigned long mask;
static FILE *out;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static char last_error[1024];
static char host[1024];
static int pid;

static const struct { const char *name; unsigned long bit; } subsystems[] = {
  {"INIT", SN_INIT}, {"COLL", SN_COLL}, {"P2P", SN_P2P}, {"SHM", SN_SHM}, {"NET", SN_NET}, {"GRAPH", SN_GRAPH},
  {"TUNING", SN_TUNING}, {"ENV", SN_ENV}, {"ALLOC", SN_ALLOC}, {"CALL", SN_CALL}, {"PROXY", SN_PROXY},
  {"NVLS", SN_NVLS}, {"BOOTSTRAP", SN_BOOTSTRAP}, {"REG", SN_REG}, {"PROFILE", SN_PROFILE}, {"RAS", SN_RAS},
  {"ALL", SN_ALL},
};

static int parse_level(const char *v) {
  static const char *const names[] = {"VERSION", "WARN", "INFO", "ABORT", "TRACE"};
  if (!v) return SN_LOG_NONE;
  for (int i = 0; i < 5; i++)
    if (!strcasecmp(v, names[i])) return i + 1;
  return -1; /* an unknown value leaves the level uninitialised: every line re-reads (as NCCL does) */
}

/* "INIT,COLL" or "^INIT": unknown names are ignored. */
static unsigned long parse_subsys(const char *v) {
  if (!v) return SN_INIT | SN_BOOTSTRAP | SN_ENV;
  int invert = *v == '^';
  unsigned long m = invert ? SN_ALL : 0;
  char *dup = strdup(v + invert), *save = NULL;
  for (char *tok = dup ? strtok_r(dup, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save))
    for (size_t i = 0; i < sizeof subsystems / sizeof subsystems[0]; i++)
      if (!strcasecmp(tok, subsystems[i].name)) m = invert ? m & ~subsystems[i].bit : m | subsystems[i].bit;
  free(dup);
  return m;
}

/* %h host (up to the first dot), %p pid, %% percent; anything else echoed. */
static void expand_path(const char *pattern, char *path, size_t len) {
  size_t k = 0;
  for (const char *p = pattern; *p && k + 1 < len; p++) {
    if (*p != '%') {
      path[k++] = *p;
      continue;
    }
    char c = *++p;
    if (!c) break;
    int n = c == 'h' ? snprintf(path + k, len - k, "%s", host)
            : c == 'p' ? snprintf(path + k, len - k, "%d", pid)
            : c == '%' ? snprintf(path + k, len - k, "%%") : snprintf(path + k, len - k, "%%%c", c);
    k += n > 0 ? (size_t)n : 0;
    if (k >= len) k = len - 1;
  }
  path[k] = 0;
}

/* Under the mutex: finish a reset (close the old file), read the three variables, open the file ("w") when the
 * level is above VERSION. */
static void debug_init(void) {
  if (level == RESET_TRIGGERED && out && out != stdout) fclose(out);
  if (!out || level == RESET_TRIGGERED) out = stdout;
  int lv = parse_level(sn_getenv("NCCL_DEBUG"));
  unsigned long m = parse_subsys(sn_getenv("NCCL_DEBUG_SUBSYS"));
  gethostname(host, sizeof host - 1);
  host[strcspn(host, ".")] = 0;
  pid = (int)getpid();
  const char *file = sn_getenv("NCCL_DEBUG_FILE");
  if (lv > SN_LOG_VERSION && file) {
    char path[PATH_MAX + 1];
    expand_path(file, path, sizeof path);
    FILE *f = *path ? fopen(path, "w") : NULL;
    if (f) {
      setlinebuf(f);
      out = f;
    }
  }
  mask = m;
  __atomic_store_n(&level, lv, __ATOMIC_RELEASE);
}

int sn_log_level(void) { return __atomic_load_n(&level, __ATOMIC_ACQUIRE); }

const char *sn_last_error(void) { return last_error; }

/* The WARN prefix's time stamp: NCCL's default (NCCL_DEBUG_TIMESTAMP_LEVELS=WARN, format "[%F %T] "). */
static size_t stamp(char *buf, size_t len) {
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  localtime_r(&ts.tv_sec, &tm);
  return strftime(buf, len, "[%F %T] ", &tm);
}

void sn_log(int lvl, unsigned long flags, const char *file, int line, const char *fmt, ...) {
  int got = sn_log_level();
  if (lvl == SN_LOG_WARN) { /* the last error is kept whatever the level */
    va_list ap;
    pthread_mutex_lock(&mutex);
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&mutex);
  }
  if (got >= 0 && (got < lvl || !(flags & __atomic_load_n(&mask, __ATOMIC_RELAXED)))) return;
  pthread_mutex_lock(&mutex);
  if (level < 0) debug_init();
  if (level < lvl || !(flags & mask)) {
    pthread_mutex_unlock(&mutex);
    return;
  }
  char buf[1024];
  size_t n = 0;
  int dev = 0;
  cudaGetDevice(&dev);
  if (lvl == SN_LOG_WARN) {
    buf[n++] = '\n';
    n += stamp(buf + n, sizeof buf - n);
  }
  if (lvl != SN_LOG_VERSION) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s:%d:%ld ", host, pid, (long)syscall(SYS_gettid));
  if (n >= sizeof buf) n = sizeof buf - 1;
  if (lvl == SN_LOG_WARN) n += (size_t)snprintf(buf + n, sizeof buf - n, "[%d] %s:%d NCCL WARN ", dev, file, line);
  else if (lvl == SN_LOG_INFO) n += (size_t)snprintf(buf + n, sizeof buf - n, "[%d] NCCL INFO ", dev);
  if (n >= sizeof buf) n = sizeof buf - 1;
  va_list ap;
  va_start(ap, fmt);
  n += (size_t)vsnprintf(buf + n, sizeof buf - n, fmt, ap);
  va_end(ap);
  if (n >= sizeof buf) n = sizeof buf - 1;
  buf[n++] = '\n';
  fwrite(buf, 1, n, out);
  pthread_mutex_unlock(&mutex);
}

/* Exported under NCCL's name (deprecated in 2.28's nccl.h, still a symbol): the next line re-reads. */
SN_API void ncclResetDebugInit(void) {
  pthread_mutex_lock(&mutex);
  __atomic_store_n(&level, RESET_TRIGGERED, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&mutex);
}

/* The first line after a (re)initialisation reads the environment; NCCL's init logs before it asks the level. */
static void ensure_init(void) {
  if (sn_log_level() >= 0) return;
  pthread_mutex_lock(&mutex);
  if (level < 0) debug_init();
  pthread_mutex_unlock(&mutex);
}

static void show_version(void) {
  int lv = sn_log_level();
  char ver[16], v[48];
  sn_version_string(ver, sizeof ver);
  snprintf(v, sizeof v, "NCCL version %s+cuda13.0", ver);
  if (lv == SN_LOG_VERSION || lv == SN_LOG_WARN) sn_log(SN_LOG_VERSION, SN_ALL, __FILE__, __LINE__, "%s", v);
  else sn_log(SN_LOG_INFO, SN_ALL, __func__, __LINE__, "%s", v);
  sn_log(SN_LOG_INFO, SN_INIT, __func__, __LINE__, "arbench NCCL stand-in: CPU ranks, no GPU and no NCCL ran here");
}

/* ncclCommInitRankDev: when the level is above WARN, or set at all on rank 0, once per process; as a VERSION
 * line at levels VERSION and WARN, else as an INFO line of every sub-system. */
void sn_log_version(int rank) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  ensure_init();
  int lv = sn_log_level();
  if (lv > SN_LOG_WARN || (lv != SN_LOG_NONE && rank == 0)) pthread_once(&once, show_version);
}
