/* fault.c — planted faults for the tests: corrupted output elements on chosen ranks (the check must
 * count each of them) and one slow rank (the statistics must take the max over ranks, -T must fire). */
#include "run/fault.h"
#include "ar_config.h"
#include "dtype.h"
#if AR_CUDA_EMU
#include "standin.h"
#endif
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AR_FAULT_UNWRITTEN (-3LL)

static int parse_rank(const char *s, char **end, int nranks, int *rank) {
  errno = 0;
  long r = strtol(s, end, 10);
  if (*end == s || errno || r < 0 || r >= nranks) return -1;
  *rank = (int)r;
  return 0;
}

static int parse_pos(const char *s, size_t n, long long *pos) {
  char buf[32];
  if (!n || n >= sizeof buf) return -1;
  memcpy(buf, s, n);
  buf[n] = 0;
  if (!strcmp(buf, "first")) *pos = 0;
  else if (!strcmp(buf, "mid")) *pos = -2;
  else if (!strcmp(buf, "last")) *pos = -1;
  else if (!strcmp(buf, "unwritten")) *pos = AR_FAULT_UNWRITTEN;
  else {
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (*end || errno || v < 0 || buf[0] == '-' || buf[0] == '+') return -1;
    *pos = v;
  }
  return 0;
}

static int parse_corrupt(struct ar_fault *f, const char *s, int nranks, char *err, size_t len) {
  for (const char *p = s; *p;) {
    char *end;
    long long pos = 0;
    int rank, bad = f->n == AR_FAULT_MAX || parse_rank(p, &end, nranks, &rank);
    if (!bad && *end == ':') {
      const char *q = end + 1;
      size_t n = strcspn(q, ",");
      bad = parse_pos(q, n, &pos);
      end = (char *)q + n;
    }
    bad = bad || (*end && *end != ',') || (*end == ',' && !end[1]);
    if (bad) {
      snprintf(err, len, "bad ARBENCH_INJECT_FAULT '%.200s' (allowed: up to %d of RANK[:POS] separated by "
               "commas, RANK 0 to %d, POS an element index, first, mid, last or unwritten)", s, AR_FAULT_MAX, nranks - 1);
      return -AR_EINVAL;
    }
    if (pos == AR_FAULT_UNWRITTEN) {
      f->unwritten_rank = rank;
    } else {
      f->rank[f->n] = rank;
      f->pos[f->n++] = pos;
    }
    p = *end ? end + 1 : end;
  }
  return 0;
}

static int parse_delay(struct ar_fault *f, const char *s, int nranks, char *err, size_t len) {
  char *end;
  int rank;
  int bad = parse_rank(s, &end, nranks, &rank) || *end != ':';
  double ms = 0;
  if (!bad) {
    char *e2;
    errno = 0;
    ms = strtod(end + 1, &e2);
    bad = e2 == end + 1 || *e2 || errno || !(ms > 0 && ms <= 3600e3);
  }
  if (bad) {
    snprintf(err, len, "bad ARBENCH_INJECT_DELAY '%.200s' (allowed: RANK:MS, RANK 0 to %d, MS a number of "
             "milliseconds above 0, at most 3600000)", s, nranks - 1);
    return -AR_EINVAL;
  }
  f->delay_rank = rank;
  f->delay_ms = ms;
  return 0;
}

int ar_fault_parse(struct ar_fault *f, const char *corrupt, const char *delay, int nranks, char *err,
                   size_t len) {
  memset(f, 0, sizeof *f);
  f->delay_rank = -1;
  f->unwritten_rank = -1;
  if (corrupt && *corrupt && parse_corrupt(f, corrupt, nranks, err, len)) return -AR_EINVAL;
  if (delay && *delay && parse_delay(f, delay, nranks, err, len)) return -AR_EINVAL;
  return 0;
}

/* One test hook's value: RANK (0..nranks-1), BYTES (an unsigned count), RANK:BYTES or RANK:N (N a count, in the
 * bytes field). NULL or empty: rank -1, bytes 0. */
enum hook_form { HOOK_RANK, HOOK_BYTES, HOOK_RANK_BYTES, HOOK_RANK_COUNT };

static int parse_bytes(const char *s, char **end, size_t *bytes) {
  errno = 0;
  if (*s < '0' || *s > '9') return -1;
  unsigned long long v = strtoull(s, end, 10);
  if (*end == s || errno) return -1;
  *bytes = (size_t)v;
  return 0;
}

static int parse_hook(const char *name, enum hook_form form, const char *s, int nranks, int *rank, size_t *bytes,
                      char *err, size_t len) {
  *rank = -1;
  if (!s || !*s) return 0;
  char *end = (char *)s;
  int bad = form != HOOK_BYTES && parse_rank(s, &end, nranks, rank);
  int pair = form == HOOK_RANK_BYTES || form == HOOK_RANK_COUNT;
  if (!bad && pair) bad = *end != ':' || parse_bytes(end + 1, &end, bytes);
  if (!bad && form == HOOK_BYTES) bad = parse_bytes(s, &end, bytes);
  if (bad || *end) {
    *rank = -1;
    *bytes = 0;
    if (form == HOOK_BYTES) snprintf(err, len, "bad %s '%.200s' (allowed: BYTES, a non-negative integer)", name, s);
    else if (form == HOOK_RANK) snprintf(err, len, "bad %s '%.200s' (allowed: one RANK, 0 to %d)", name, s, nranks - 1);
    else snprintf(err, len, "bad %s '%.200s' (allowed: RANK:%s, RANK 0 to %d)", name, s,
                  form == HOOK_RANK_COUNT ? "N, N a count" : "BYTES", nranks - 1);
    return -AR_EINVAL;
  }
  return 0;
}

/* Every test hook the tests set in the environment, parsed here and nowhere else; backends read the result
 * through env->fault. */
static const struct hook {
  const char *name;
  enum hook_form form;
  size_t rank, bytes; /* offsetof in struct ar_fault; bytes = 0: none */
} hooks[] = {
  {"ARBENCH_P2P_STALL", HOOK_RANK, offsetof(struct ar_fault, p2p_stall), 0},
  {"ARBENCH_SYMM_STALL", HOOK_RANK, offsetof(struct ar_fault, symm_stall), 0},
  {"ARBENCH_NCCL_HANG_BYTES", HOOK_BYTES, 0, offsetof(struct ar_fault, nccl_hang_bytes)},
  {"ARBENCH_INJECT_FILL_FAIL", HOOK_RANK_BYTES, offsetof(struct ar_fault, fill_fail_rank),
   offsetof(struct ar_fault, fill_fail_bytes)},
  {"ARBENCH_INJECT_SILENT", HOOK_RANK, offsetof(struct ar_fault, silent_rank), 0},
  {"ARBENCH_INJECT_UNHELD", HOOK_RANK_COUNT, offsetof(struct ar_fault, unheld_rank),
   offsetof(struct ar_fault, unheld_tries)},
  {"ARBENCH_INJECT_MPI_ERROR", HOOK_RANK_BYTES, offsetof(struct ar_fault, mpi_error_rank),
   offsetof(struct ar_fault, mpi_error_bytes)},
  {"ARBENCH_EMU_HANG", HOOK_RANK, offsetof(struct ar_fault, emu_hang), 0},
  {"ARBENCH_EMU_CORRUPT", HOOK_RANK, offsetof(struct ar_fault, emu_corrupt), 0},
  {"ARBENCH_EMU_IPC_FAIL", HOOK_RANK, offsetof(struct ar_fault, emu_ipc_fail), 0},
};

int ar_fault_hooks(struct ar_fault *f, char *(*get)(const char *), int nranks, char *err, size_t len) {
  for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++) {
    const struct hook *h = &hooks[i];
    int rank = -1;
    size_t bytes = 0;
    int rc = parse_hook(h->name, h->form, get(h->name), nranks, &rank, &bytes, err, len);
    if (h->form != HOOK_BYTES) *(int *)((char *)f + h->rank) = rank;
    if (h->form != HOOK_RANK) *(size_t *)((char *)f + h->bytes) = bytes;
    if (rc) return rc;
  }
#if AR_CUDA_EMU /* the stand-in's own hooks: it compares the ranks with its own */
  ar_standin_faults(f->emu_hang, f->emu_corrupt, f->emu_ipc_fail);
#endif
  return 0;
}

static size_t element_of(long long pos, size_t count) {
  if (pos == -2) return count / 2;
  if (pos < 0 || (unsigned long long)pos >= count) return count - 1;
  return (size_t)pos;
}

int ar_fault_corrupt(const struct ar_fault *f, const struct ar_platform *p, void *out, size_t count,
                     enum ar_dtype dt, enum ar_op op, int rank, int nranks) {
  int rc = 0;
  for (int i = 0; !rc && count && i < f->n; i++)
    if (f->rank[i] == rank)
      rc = p->fill((char *)out + element_of(f->pos[i], count) * ar_dtype_size(dt), 1, dt, op, -1, nranks);
  return rc;
}

static int slow_allreduce(void *state, const void *in, void *out, size_t count, enum ar_dtype dt,
                          enum ar_op op, void *stream) {
  struct ar_fault_slow *w = state;
  int rc = w->be->allreduce(w->state, in, w->scratch ? w->scratch : out, count, dt, op, stream);
  int timed = w->calls++ - w->warmup;
  if (!rc && timed >= 0 && timed % 2 == 0) {
    struct timespec ts = {(time_t)(w->ms / 1e3), (long)((w->ms - 1e3 * (double)(time_t)(w->ms / 1e3)) * 1e6)};
    while (nanosleep(&ts, &ts) && errno == EINTR) {}
  }
  return rc;
}

void ar_fault_wrap(const struct ar_fault *f, int rank, const struct ar_platform *p, struct ar_loop *loop,
                   struct ar_fault_slow *w) {
  if (f->delay_rank != rank || p != &ar_host_platform) return;
  memset(w, 0, sizeof *w);
  w->ops = *loop->be;
  w->ops.allreduce = slow_allreduce;
  w->be = loop->be;
  w->state = loop->state;
  w->warmup = loop->warmup;
  w->ms = f->delay_ms;
  loop->be = &w->ops;
  loop->state = w;
}

int ar_fault_wrap_checked(const struct ar_fault *f, int rank, const struct ar_platform *p, size_t max_bytes,
                          const struct ar_backend **be, void **state, struct ar_fault_slow *w) {
  memset(w, 0, sizeof *w);
  if (f->unwritten_rank != rank || p != &ar_host_platform) return 0;
  w->scratch = malloc(max_bytes ? max_bytes : 1);
  if (!w->scratch) return -AR_ERUNTIME;
  w->ops = **be;
  w->ops.allreduce = slow_allreduce;
  w->be = *be;
  w->state = *state;
  w->warmup = 1 << 30; /* never sleeps */
  *be = &w->ops;
  *state = w;
  return 0;
}

void ar_fault_unwrap(struct ar_fault_slow *w) {
  free(w->scratch);
  w->scratch = NULL;
}
