/* algo.c — the host side of kernels/ar_core.h: one-shot, two-shot, staged two-shot and islands,
 * each rank writing only its own region and flags, reading its peers' after acquiring their flags. */
#include "backends/shm/algo.h"
#include <stdio.h>
#include <string.h>

static char *region(const struct shm_state *s, int rank) { return s->base[rank]; }
static uint32_t *flag_of(const struct shm_state *s, int rank, int which) {
  return ar_core_flag(s->base[rank], which);
}
static char *slot(const struct shm_state *s, int rank, const size_t off[2], uint32_t g) {
  return region(s, rank) + off[g & 1u];
}
static void post(const struct shm_state *s, int which, uint32_t g) { ar_flag_store(flag_of(s, s->rank, which), g); }

/* Wait for peer's flag `which` to reach g; on failure print one line and poison this state. */
static int wait_for(struct shm_state *s, int peer, int which, uint32_t g, const char *pass) {
  int who = -1;
  int rc = ar_wait_flag(flag_of(s, peer, which), g, &s->wait, &who);
  if (rc == AR_WAIT_OK) return 0;
  s->broken = 1;
  if (rc == AR_WAIT_TIMEOUT) {
    ar_flag_store(flag_of(s, s->rank, AR_FLAG_ABORT), 1u);
    fprintf(stderr, "arbench: rank %d: %s: timeout after %g s in pass %s (generation %u) waiting for rank %d\n",
            s->rank, s->name, s->timeout_s, pass, g, peer);
  } else {
    fprintf(stderr, "arbench: rank %d: %s: gave up in pass %s (generation %u) waiting for rank %d: "
                    "rank %d timed out\n", s->rank, s->name, pass, g, peer, who);
  }
  fflush(stderr);
  return -AR_ETIMEOUT;
}

/* Wait for every peer's flag, nearest following rank first. */
static int wait_all(struct shm_state *s, int which, uint32_t g, const char *pass) {
  for (int k = 1; k < s->n; k++) {
    int rc = wait_for(s, (s->rank + k) % s->n, which, g, pass);
    if (rc) return rc;
  }
  return 0;
}

static int avg_div(const struct shm_state *s, int op) { return op == AR_CORE_AVG ? s->n : 0; }

/* Copy my input except [skip.begin, skip.end) (which only I read) into my `in` slot. */
static void copy_in(const struct shm_state *s, const char *in, size_t cnt, size_t es, struct ar_span skip,
                    uint32_t g) {
  char *dst = slot(s, s->rank, s->lay.in_off, g);
  memcpy(dst, in, skip.begin * es);
  memcpy(dst + skip.end * es, in + skip.end * es, (cnt - skip.end) * es);
}

/* One-shot: everyone publishes its whole input, then reduces everything in rank order. Inputs of up
 * to AR_CORE_INLINE_BYTES travel in the flag line of the generation's parity. Both the START and the
 * INLINE line are posted either way, so neither goes stale across the generation wrap. */
static int oneshot(struct shm_state *s, const char *in, char *out, size_t cnt, int dt, int op, uint32_t g) {
  size_t es = ar_core_esize(dt);
  int inl = AR_FLAG_INLINE0 + (int)(g & 1u), small = cnt * es <= AR_CORE_INLINE_BYTES;
  if (small) memcpy((char *)flag_of(s, s->rank, inl) + AR_CORE_INLINE_OFF, in, cnt * es);
  else memcpy(slot(s, s->rank, s->lay.in_off, g), in, cnt * es);
  post(s, small ? AR_FLAG_START : inl, g); /* the line peers do not read this time */
  post(s, small ? inl : AR_FLAG_START, g);
  int rc = wait_all(s, small ? inl : AR_FLAG_START, g, "oneshot");
  if (rc) return rc;
  const void *src[AR_CORE_MAX_RANKS];
  for (int q = 0; q < s->n; q++)
    src[q] = q == s->rank ? in
             : small      ? (const char *)flag_of(s, q, inl) + AR_CORE_INLINE_OFF
                          : slot(s, q, s->lay.in_off, g);
  shm_out_reduce(s, dt, op, avg_div(s, op), out, NULL, src, s->n, cnt);
  return 0;
}

/* All-gather of two-shot: copy every peer's reduced slice from its `res` slot. */
static int gather(struct shm_state *s, char *out, size_t cnt, size_t es, uint32_t g, int staged) {
  for (int k = 1; k < s->n; k++) {
    int q = staged ? ar_staged_from(s->n, s->rank, k - 1) : (s->rank + k) % s->n;
    int rc = wait_for(s, q, AR_FLAG_END, g, staged ? "staged all-gather" : "all-gather");
    if (rc) return rc;
    struct ar_span sl = ar_part(cnt, es, s->n, q);
    shm_out_copy(s, out + sl.begin * es, slot(s, q, s->lay.res_off, g) + sl.begin * es, (sl.end - sl.begin) * es);
  }
  return 0;
}

/* Two-shot: reduce-scatter (rank r reduces slice r from all ranks, in rank order), then all-gather. */
static int twoshot(struct shm_state *s, const char *in, char *out, size_t cnt, int dt, int op, uint32_t g) {
  size_t es = ar_core_esize(dt);
  struct ar_span me = ar_part(cnt, es, s->n, s->rank);
  copy_in(s, in, cnt, es, me, g);
  post(s, AR_FLAG_START, g);
  int rc = wait_all(s, AR_FLAG_START, g, "reduce-scatter");
  if (rc) return rc;
  const void *src[AR_CORE_MAX_RANKS];
  for (int q = 0; q < s->n; q++)
    src[q] = (q == s->rank ? in : slot(s, q, s->lay.in_off, g)) + me.begin * es;
  shm_out_reduce(s, dt, op, avg_div(s, op), out + me.begin * es, slot(s, s->rank, s->lay.res_off, g) + me.begin * es,
            src, s->n, me.end - me.begin);
  post(s, AR_FLAG_END, g);
  return gather(s, out, cnt, es, g, 0);
}

/* Staged two-shot: in pass p rank r reads only from (r-1-p) mod n (who in turn sends only to r),
 * accumulating in that fixed order: own slice, then r-1, r-2, ... Float and int32 accumulate in the
 * output slice itself; fp16/bf16 (and avg, divided once) in a private fp32 buffer. */
static int staged(struct shm_state *s, const char *in, char *out, size_t cnt, int dt, int op, uint32_t g) {
  size_t es = ar_core_esize(dt);
  struct ar_span me = ar_part(cnt, es, s->n, s->rank);
  size_t len = me.end - me.begin;
  char *mine = out + me.begin * es, *res = slot(s, s->rank, s->lay.res_off, g) + me.begin * es;
  int direct = es == 4 && op != AR_CORE_AVG;
  copy_in(s, in, cnt, es, me, g);
  post(s, AR_FLAG_START, g);
  if (!direct) ar_acc_load(dt, s->acc, in + me.begin * es, len);
  for (int p = 0; p < s->n - 1; p++) {
    int q = ar_staged_from(s->n, s->rank, p);
    int rc = wait_for(s, q, AR_FLAG_START, g, "staged reduce-scatter");
    if (rc) return rc;
    const char *theirs = slot(s, q, s->lay.in_off, g) + me.begin * es;
    const void *src[2] = {p ? mine : in + me.begin * es, theirs};
    if (direct && p == s->n - 2) shm_out_reduce(s, dt, op, 0, mine, res, src, 2, len);
    else if (direct) ar_reduce(dt, op, 0, mine, NULL, src, 2, len);
    else ar_acc_apply(dt, op, s->acc, theirs, len);
  }
  if (!direct) ar_acc_store(dt, avg_div(s, op), mine, res, s->acc, len);
  else if (s->n == 1) memmove(mine, in + me.begin * es, len * es);
  post(s, AR_FLAG_END, g);
  return gather(s, out, cnt, es, g, 1);
}

/* Islands, step B: reduce my island slice across islands (island order; each island's partial is
 * read from the rank of that island owning the elements), writing out and my `res` slot. */
static int islands_cross(struct shm_state *s, char *out, size_t cnt, int dt, int op, struct ar_span me, uint32_t g) {
  const struct ar_islands *is = &s->isl;
  size_t es = ar_core_esize(dt), end;
  int mine = is->of[s->rank];
  for (size_t at = me.begin; at < me.end; at = end) { /* wait for every overlapping owner first */
    end = me.end;
    for (int i = 0; i < is->n; i++) {
      size_t e;
      int q = ar_island_owner(is, cnt, es, i, at, &e);
      if (e < end) end = e;
      if (i != mine) {
        int rc = wait_for(s, q, AR_FLAG_MID, g, "islands exchange");
        if (rc) return rc;
      }
    }
  }
  const void *src[AR_CORE_MAX_RANKS];
  for (size_t at = me.begin; at < me.end; at = end) {
    end = me.end;
    for (int i = 0; i < is->n; i++) {
      size_t e;
      int q = ar_island_owner(is, cnt, es, i, at, &e);
      if (e < end) end = e;
      src[i] = slot(s, q, s->lay.part_off, g) + at * es;
    }
    shm_out_reduce(s, dt, op, avg_div(s, op), out + at * es, slot(s, s->rank, s->lay.res_off, g) + at * es, src, is->n,
              end - at);
  }
  return 0;
}

/* Islands: reduce my island slice inside my island (step A), across islands (B), gather in the island (C). */
static int islands(struct shm_state *s, const char *in, char *out, size_t cnt, int dt, int op, uint32_t g) {
  const struct ar_islands *is = &s->isl;
  size_t es = ar_core_esize(dt);
  int mine = is->of[s->rank], m = is->size[mine];
  struct ar_span me = ar_island_slice(is, cnt, es, s->rank);
  copy_in(s, in, cnt, es, me, g);
  post(s, AR_FLAG_START, g);
  const void *src[AR_CORE_MAX_RANKS];
  for (int k = 0; k < m; k++) {
    int q = ar_island_rank(is, mine, k);
    int rc = q == s->rank ? 0 : wait_for(s, q, AR_FLAG_START, g, "islands reduce");
    if (rc) return rc;
    src[k] = (q == s->rank ? in : slot(s, q, s->lay.in_off, g)) + me.begin * es;
  }
  int pop = op == AR_CORE_AVG ? AR_CORE_SUM : op; /* partials stay undivided */
  ar_reduce(dt, pop, 0, slot(s, s->rank, s->lay.part_off, g) + me.begin * es, NULL, src, m, me.end - me.begin);
  post(s, AR_FLAG_MID, g);
  int rc = islands_cross(s, out, cnt, dt, op, me, g);
  if (rc) return rc;
  post(s, AR_FLAG_END, g);
  for (int k = 1; k < m; k++) {
    int q = ar_island_rank(is, mine, (is->pos[s->rank] + k) % m);
    rc = wait_for(s, q, AR_FLAG_END, g, "islands gather");
    if (rc) return rc;
    struct ar_span sl = ar_island_slice(is, cnt, es, q);
    shm_out_copy(s, out + sl.begin * es, slot(s, q, s->lay.res_off, g) + sl.begin * es, (sl.end - sl.begin) * es);
  }
  return 0;
}

int shm_chunk(struct shm_state *s, const char *in, char *out, size_t cnt, int dt, int op, uint32_t g) {
  switch (s->algo) {
  case AR_CORE_ONESHOT: return oneshot(s, in, out, cnt, dt, op, g);
  case AR_CORE_TWOSHOT: return twoshot(s, in, out, cnt, dt, op, g);
  case AR_CORE_STAGED: return staged(s, in, out, cnt, dt, op, g);
  default: return islands(s, in, out, cnt, dt, op, g);
  }
}
