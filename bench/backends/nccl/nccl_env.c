/* nccl_env.c — the nccl backend's environment plan per phase (nccl_env.h): what is set around a
 * variant's communicator, decided without NCCL so a unit test checks the no-add/no-remove-while-live rule.
 *
 * Who reads these variables, and when, in NCCL's source (checked at v2.22.3-1, v2.26.6-1, v2.28.9-1,
 * v2.30.7-1):
 *   NCCL_ALGO, NCCL_PROTO  read at every init (src/graph/tuning.cc ncclTopoTuneModel, not cached); from
 *                          2.28 also at every enqueue in the calling thread (src/enqueue.cc: the
 *                          CTAPolicy-efficiency test and the "no algorithm" error): kept as forced
 *                          until the communicator is destroyed, so what enqueue reads is what init read.
 *   NCCL_MIN/MAX_CTAS      NCCL_PARAM, cached at first read of the process (src/init.cc): cleared, the
 *                          user's values go to ncclConfig_t (ar_nccl_ctas).
 *   NCCL_TUNER_PLUGIN      read when the tuner is loaded at init (src/plugin/tuner.cc; 2.22:
 *                          src/tuner.cc); ARBENCH_TUNER_FILE by arbench's plugin at its init.
 *   NCCL_DEBUG, _SUBSYS, _FILE  read by ncclDebugInit (src/debug.cc) in whichever thread logs first after
 *                          ncclResetDebugInit, under NCCL's debug mutex; 2.30 reads them as uncached
 *                          ncclParams (src/debug.cc DEFINE_NCCL_PARAM), still on each re-init. The file
 *                          is opened only above level VERSION.
 *   Other variables        read by threads a communicator starts, at any time they first need them:
 *                          the proxy progress thread (2.28 src/proxy.cc proxyCpusetOnceFunc reads
 *                          NCCL_PROXY_CPUSET; NCCL_PARAMs are loaded on first use), the proxy service
 *                          and socket threads (src/misc/socket.cc), RAS (2.26+ src/ras).
 * glibc 2.36's setenv of a name not yet present reallocates environ, and unsetenv shifts its entries,
 * under any getenv another thread runs; replacing the value of a present name swaps one pointer and
 * keeps the old string. So variables are added or removed only while no communicator lives (INIT,
 * RESTORE), and while one lives (QUIET) only present names get new values. */
#include "backends/nccl/nccl_env.h"
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const names[AR_NENV_COUNT] = {"NCCL_ALGO", "NCCL_PROTO", "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS",
                                                 "NCCL_DEBUG_FILE", "NCCL_MIN_CTAS", "NCCL_MAX_CTAS",
                                                 "NCCL_TUNER_PLUGIN", "ARBENCH_TUNER_FILE"};

/* The sub-systems of the probe's lines: what tuning chose and why (nccl_parse.c reads them). */
static const char probe_subsys[] = "INIT,ENV,GRAPH,TUNING";

const char *ar_nccl_env_name(enum ar_nccl_env_var v) {
  return (unsigned)v < AR_NENV_COUNT ? names[v] : "";
}

/* debug.cc: INIT|ENV up to 2.25, INIT|BOOTSTRAP|ENV from 2.26 (2.26.6, 2.28.9, 2.30.7). */
const char *ar_nccl_env_default_subsys(int version) {
  return version >= 22600 ? "INIT,BOOTSTRAP,ENV" : "INIT,ENV";
}

static const char *forced_or(const char *forced, const char *saved) {
  return forced && *forced ? forced : saved;
}

static int plan_init(const struct ar_nccl_env_in *in, struct ar_nccl_env_set *out) {
  int tuned = in->tuner && *in->tuner;
  const char *v[AR_NENV_COUNT] = {
      [AR_NENV_ALGO] = forced_or(in->algo, in->saved[AR_NENV_ALGO]),
      [AR_NENV_PROTO] = forced_or(in->proto, in->saved[AR_NENV_PROTO]),
      [AR_NENV_DEBUG] = "INFO",
      [AR_NENV_SUBSYS] = probe_subsys,
      [AR_NENV_FILE] = in->logpath,
      [AR_NENV_MINCTAS] = NULL,
      [AR_NENV_MAXCTAS] = NULL,
      [AR_NENV_TUNER] = tuned ? in->tuner_lib : in->saved[AR_NENV_TUNER],
      [AR_NENV_TUNERFILE] = tuned ? in->tuner : in->saved[AR_NENV_TUNERFILE],
  };
  /* Forced per call (ncclCollConfig_t, NCCL >= 2.31): the variables of what the call forces are unset at init. */
  if (in->percall && in->algo && *in->algo) v[AR_NENV_ALGO] = NULL;
  if (in->percall && in->proto && *in->proto) v[AR_NENV_PROTO] = NULL;
  for (int i = 0; i < AR_NENV_COUNT; i++) out[i] = (struct ar_nccl_env_set){names[i], v[i]};
  return AR_NENV_COUNT;
}

/* The three debug variables, each present since INIT: new values only. Lines the user asked for go to
 * userlog (appended where the user wanted them at fini); without NCCL_DEBUG, level VERSION prints
 * nothing after init (the version banner is printed at init, and none happens before RESTORE). */
static int plan_quiet(const struct ar_nccl_env_in *in, struct ar_nccl_env_set *out) {
  const char *const *s = in->saved;
  int lines = s[AR_NENV_DEBUG] != NULL;
  out[0] = (struct ar_nccl_env_set){names[AR_NENV_DEBUG], lines ? s[AR_NENV_DEBUG] : "VERSION"};
  out[1] = (struct ar_nccl_env_set){names[AR_NENV_SUBSYS],
                                    s[AR_NENV_SUBSYS] ? s[AR_NENV_SUBSYS] : ar_nccl_env_default_subsys(in->version)};
  out[2] = (struct ar_nccl_env_set){names[AR_NENV_FILE], lines || s[AR_NENV_FILE] ? in->userlog : in->logpath};
  return 3;
}

static int plan_restore(const struct ar_nccl_env_in *in, struct ar_nccl_env_set *out) {
  for (int i = 0; i < AR_NENV_COUNT; i++) out[i] = (struct ar_nccl_env_set){names[i], in->saved[i]};
  return AR_NENV_COUNT;
}

int ar_nccl_env_plan(enum ar_nccl_env_phase p, const struct ar_nccl_env_in *in, struct ar_nccl_env_set *out) {
  switch (p) {
  case AR_NENV_INIT: return plan_init(in, out);
  case AR_NENV_QUIET: return plan_quiet(in, out);
  case AR_NENV_RESTORE: return plan_restore(in, out);
  }
  return 0;
}

/* NCCL's conf files (src/misc/param.cc setEnvFile/initEnvFunc, v2.28.9; the same since 2.x): once per process, at
 * NCCL's first environment read, NCCL_CONF_FILE (when non-empty) else ~/.nccl.conf, then /etc/nccl.conf; each
 * NAME=VALUE line ('#' comments) set only where the environment has no such variable. NCCL's first read comes
 * after arbench saved the environment, so RESTORE removed those variables for every later variant (a conf-file
 * NCCL_ALGO ruled the first variant only) and a conf-file NCCL_MIN_CTAS became a cached NCCL parameter. Applied
 * here first, the same way, they are part of the user's environment that every variant starts from. Only a
 * regular file is read, at most 1 MiB of it (never a FIFO or a device), as NCCL would read a sane one. */
static void conf_file(const char *path) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0) return;
  FILE *f = fstat(fd, &st) || !S_ISREG(st.st_mode) ? NULL : fdopen(fd, "r");
  if (!f) {
    close(fd);
    return;
  }
  char line[2048];
  size_t total = 0;
  while (total < (1u << 20) && fgets(line, sizeof line, f)) {
    size_t n = strlen(line);
    total += n;
    if (line[0] == '#') continue;
    if (n && line[n - 1] == '\n') line[--n] = '\0';
    char *eq = strchr(line, '=');
    if (!eq || eq == line) continue;
    *eq = '\0';
    if (strlen(line) < 1024) setenv(line, eq + 1, 0);
  }
  fclose(f);
}

static void conf_once(void) {
  const char *user = getenv("NCCL_CONF_FILE");
  if (user && *user) {
    conf_file(user);
  } else {
    struct passwd *pw = getpwuid(getuid());
    char path[1024];
    if (pw && pw->pw_dir && snprintf(path, sizeof path, "%s/.nccl.conf", pw->pw_dir) < (int)sizeof path)
      conf_file(path);
  }
  conf_file("/etc/nccl.conf");
}

void ar_nccl_conf_load(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, conf_once);
}
