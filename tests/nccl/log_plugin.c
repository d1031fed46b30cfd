/* log_plugin.c — a tuner plugin for test_debug.c: its init logs one line per (level, sub-system) case through the
 * logger NCCL hands it, so the test sees which lines the NCCL stand-in's logger lets through. Exports only the
 * interface version SN_TEST_ABI (5 by default; 2 for the lookup-order case). */
#include <stddef.h>
#include <stdint.h>

#ifndef SN_TEST_ABI
#define SN_TEST_ABI 5
#endif

typedef void (*logger_t)(int level, unsigned long flags, const char *file, int line, const char *fmt, ...);
enum { WARN = 2, INFO = 3 };
#define F_INIT 0x1UL
#define F_COLL 0x2UL
#define F_TUNING 0x40UL
#define F_ENV 0x80UL
#define F_BOOTSTRAP 0x1000UL
#define F_ALL (~0UL)

static void say(logger_t log) {
  log(WARN, F_TUNING, __FILE__, __LINE__, "marker w-tuning");
  log(WARN, F_ALL, __FILE__, __LINE__, "marker w-all");
  log(INFO, F_INIT, __func__, __LINE__, "marker i-init");
  log(INFO, F_ENV, __func__, __LINE__, "marker i-env");
  log(INFO, F_BOOTSTRAP, __func__, __LINE__, "marker i-bootstrap");
  log(INFO, F_TUNING, __func__, __LINE__, "marker i-tuning");
  log(INFO, F_COLL, __func__, __LINE__, "marker i-coll");
}

#if SN_TEST_ABI == 5
static int coll(void *ctx, int c, size_t b, int p, float **t, int na, int np, int r, int *nch) {
  (void)ctx, (void)c, (void)b, (void)p, (void)t, (void)na, (void)np, (void)r, (void)nch;
  return 0;
}
#endif
static int fin(void *ctx) {
  (void)ctx;
  return 0;
}

#if SN_TEST_ABI == 5
static int init5(void **ctx, uint64_t id, size_t nr, size_t nn, logger_t log, void *nvl, void *k) {
  (void)id, (void)nr, (void)nn, (void)nvl, (void)k;
  *ctx = NULL;
  say(log);
  return 0;
}
struct {
  const char *name;
  int (*init)(void **, uint64_t, size_t, size_t, logger_t, void *, void *);
  int (*coll)(void *, int, size_t, int, float **, int, int, int, int *);
  int (*fin)(void *);
} ncclTunerPlugin_v5 __attribute__((visibility("default"))) = {"logtest", init5, coll, fin};
#else
static int init2(size_t nr, size_t nn, logger_t log, void **ctx) {
  (void)nr, (void)nn;
  *ctx = NULL;
  say(log);
  return 0;
}
static int coll2(void *ctx, int c, size_t b, int cn, int nv, int p, int *a, int *pr, int *nch) {
  (void)ctx, (void)c, (void)b, (void)cn, (void)nv, (void)p, (void)a, (void)pr, (void)nch;
  return 0;
}
struct {
  const char *name;
  int (*init)(size_t, size_t, logger_t, void **);
  int (*coll)(void *, int, size_t, int, int, int, int *, int *, int *);
  int (*fin)(void *);
} ncclTunerPlugin_v2 __attribute__((visibility("default"))) = {"logtest2", init2, coll2, fin};
#endif
