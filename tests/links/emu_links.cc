/* emu_links.cc — bench/links/links_cuda.cu's own source on CPU threads (standin/kernels/ar_emu_cuda.h): the copy
 * kernel over every grid shape and size class (vectors, unrolled vectors, the 4-byte tail, nothing past the
 * end), the flag ping-pong between two threads (every round trip, the status words), its deadline per wait (a
 * peer that never answers: AR_LKS_TIMEOUT within the bound; a slow one: never cut) and its progress count, and
 * the hold of the timed copies (released in time, or ended by its own deadline). */
#define AR_EMU_KERNELS_ONLY /* links_cuda.cu without its host launchers */
#include "ar_emu_cuda.h"

#include "links_cuda.cu"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

thread_local struct ar_emu_thread ar_emu_self;

static int fails;
#define CHECK(c, ...)                                 \
  do {                                                \
    if (!(c)) {                                       \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                   \
      fputc('\n', stderr);                            \
      fails++;                                        \
    }                                                 \
  } while (0)

/* The grid blocks x threads of the copy kernel, one GPU thread after the other (it has no barriers). */
static void copy_grid(void *dst, const void *src, size_t bytes, unsigned blocks, unsigned threads) {
  for (unsigned b = 0; b < blocks; b++)
    for (unsigned t = 0; t < threads; t++) {
      ar_emu_self = {};
      ar_emu_self.thread_idx = {t, 0, 0};
      ar_emu_self.block_idx = {b, 0, 0};
      ar_emu_self.block_dim = {threads, 1, 1};
      ar_emu_self.grid_dim = {blocks, 1, 1};
      ar_links_copy_kernel(dst, src, bytes);
    }
}

static void test_copy(void) {
  static const size_t sizes[] = {4, 12, 16, 20, 64, 76, 16 * 1024 + 12, 100004, 1 << 20};
  static const unsigned shapes[][2] = {{1, 1}, {1, 7}, {3, 32}, {5, 96}, {64, 512}};
  size_t cap = (1 << 20) + 64;
  uint32_t *src = (uint32_t *)aligned_alloc(16, cap), *dst = (uint32_t *)aligned_alloc(16, cap);
  for (size_t i = 0; i < cap / 4; i++) src[i] = (uint32_t)(i * 2654435761u + 1);
  for (size_t s : sizes)
    for (auto &sh : shapes) {
      for (size_t i = 0; i < cap / 4; i++) dst[i] = 0xdeadbeefu;
      copy_grid(dst, src, s, sh[0], sh[1]);
      size_t bad = 0, past = 0;
      for (size_t i = 0; i < s / 4; i++) bad += dst[i] != src[i];
      for (size_t i = s / 4; i < cap / 4; i++) past += dst[i] != 0xdeadbeefu;
      CHECK(!bad && !past, "copy of %zu bytes on %ux%u: %zu words wrong, %zu written past the end", s, sh[0], sh[1],
            bad, past);
    }
  free(src);
  free(dst);
}

/* One GPU thread of the ping-pong kernel on its own pthread. */
struct side {
  uint32_t *mine;
  const uint32_t *peer;
  int initiator, warm, iters;
  uint32_t g0;
  unsigned long long timeout_ns, st[AR_LKS_WORDS];
};

static void *run_side(void *p) {
  side *s = (side *)p;
  ar_emu_self = {};
  ar_emu_self.block_dim = {1, 1, 1};
  ar_emu_self.grid_dim = {1, 1, 1};
  ar_links_pingpong_kernel(s->mine, s->peer, s->initiator, s->g0, s->warm, s->iters, s->timeout_ns, s->st);
  return NULL;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_pingpong(void) {
  alignas(128) static uint32_t ping[32], pong[32]; /* the initiator's and the responder's own flag lines */
  /* generations from 1 and across the 32-bit wrap */
  static const uint32_t g0s[] = {1u, 0u - 100u, 0u - 100u + 300u};
  for (uint32_t g0 : g0s) {
    ping[0] = pong[0] = g0 - 1; /* the host's generations only grow: the flags stand just before g0 */
    side a = {ping, pong, 1, 10, 200, g0, 5000000000ull, {0}}, b = {pong, ping, 0, 10, 200, g0, 5000000000ull, {0}};
    pthread_t ta, tb;
    pthread_create(&tb, NULL, run_side, &b);
    pthread_create(&ta, NULL, run_side, &a);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK(a.st[AR_LKS_STATE] == AR_LKS_OK && b.st[AR_LKS_STATE] == AR_LKS_OK, "g0 %u: states %llu %llu", g0,
          a.st[AR_LKS_STATE], b.st[AR_LKS_STATE]);
    CHECK(a.st[AR_LKS_DONE] == 210 && b.st[AR_LKS_DONE] == 210, "g0 %u: round trips %llu %llu", g0,
          a.st[AR_LKS_DONE], b.st[AR_LKS_DONE]);
    CHECK(a.st[AR_LKS_NS] > 0, "g0 %u: no time measured", g0);
    CHECK(ping[0] == g0 + 209 && pong[0] == g0 + 209, "g0 %u: last flags %u %u", g0, ping[0], pong[0]);
  }
  /* the peer never answers: both sides give up at the deadline, with what they did */
  uint32_t base = ping[0];
  for (int init = 0; init < 2; init++) {
    side s = {init ? ping : pong, init ? pong : ping, init, 10, 200, base + 1000, 50000000ull, {0}};
    double t0 = now_s();
    run_side(&s);
    double took = now_s() - t0;
    CHECK(s.st[AR_LKS_STATE] == AR_LKS_TIMEOUT && s.st[AR_LKS_DONE] == 0 && s.st[AR_LKS_NS] == 0,
          "alone (initiator %d): state %llu, done %llu, ns %llu", init, s.st[AR_LKS_STATE], s.st[AR_LKS_DONE],
          s.st[AR_LKS_NS]);
    CHECK(took >= 0.05 && took < 2.0, "alone (initiator %d): gave up after %.3f s (deadline 0.05 s)", init, took);
  }
}

/* The responder played by a host thread, answering round trip `pause_at` only after `pause_ms`, and every one
 * after `every_ms` (the initiator's kernel runs on another thread). */
struct slow_peer {
  uint32_t *ping, *pong, g0;
  int n, pause_at, pause_ms, every_ms;
  const volatile unsigned long long *init_st; /* the initiator's status, read during the pause */
  unsigned long long seen_during_pause;
};

static void nap_ms(int ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static void *run_slow_peer(void *p) {
  slow_peer *s = (slow_peer *)p;
  for (int i = 0; i < s->n; i++) {
    uint32_t g = s->g0 + (uint32_t)i;
    double give_up = now_s() + 2.0; /* the initiator gave up (a test failing): stop too, never hang */
    while (!ar_gen_reached(ar_flag_load(s->ping), g))
      if (now_s() > give_up) return NULL;
    if (i == s->pause_at) {
      nap_ms(s->pause_ms);
      s->seen_during_pause = s->init_st[AR_LKS_DONE];
    }
    if (s->every_ms) nap_ms(s->every_ms);
    ar_flag_store(s->pong, g);
  }
  return NULL;
}

/* A wait's deadline is its own: 12 round trips of 30 ms each (0.36 s) under a 0.1 s deadline complete; the
 * kernel leaves its count every AR_LKS_PROGRESS round trips (the host watches it move). */
static void test_pingpong_per_wait(void) {
  alignas(128) static uint32_t ping[32], pong[32];
  ping[0] = pong[0] = 41;
  side a = {ping, pong, 1, 2, 10, 42, 100000000ull, {0}};
  slow_peer p = {ping, pong, 42, 12, -1, 0, 30, a.st, 0};
  pthread_t ta, tp;
  double t0 = now_s();
  pthread_create(&tp, NULL, run_slow_peer, &p);
  pthread_create(&ta, NULL, run_side, &a);
  pthread_join(ta, NULL);
  pthread_join(tp, NULL);
  CHECK(a.st[AR_LKS_STATE] == AR_LKS_OK && a.st[AR_LKS_DONE] == 12, "slow peer (30 ms a round trip, 0.1 s a wait): "
        "state %llu after %llu round trips in %.2f s", a.st[AR_LKS_STATE], a.st[AR_LKS_DONE], now_s() - t0);
  /* progress: paused at round trip 300 of 600, the count the kernel left is 256 */
  uint32_t g0 = pong[0] + 1;
  side b = {ping, pong, 1, 0, 600, g0, 5000000000ull, {0}};
  slow_peer q = {ping, pong, g0, 600, 300, 200, 0, b.st, 0};
  pthread_create(&tp, NULL, run_slow_peer, &q);
  pthread_create(&ta, NULL, run_side, &b);
  pthread_join(ta, NULL);
  pthread_join(tp, NULL);
  CHECK(b.st[AR_LKS_STATE] == AR_LKS_OK && b.st[AR_LKS_DONE] == 600, "600 round trips: state %llu, done %llu",
        b.st[AR_LKS_STATE], b.st[AR_LKS_DONE]);
  CHECK(q.seen_during_pause == 256, "the count during the pause at round trip 300: %llu, want 256", q.seen_during_pause);
}

struct holder {
  const uint32_t *flag;
  uint32_t gen;
  unsigned long long timeout_ns, st[AR_LKS_WORDS];
  int started; /* set right before the kernel starts: the release comes at least 50 ms after it */
};

static void *run_hold(void *p) {
  holder *h = (holder *)p;
  ar_emu_self = {};
  ar_emu_self.block_dim = {1, 1, 1};
  ar_emu_self.grid_dim = {1, 1, 1};
  __atomic_store_n(&h->started, 1, __ATOMIC_RELEASE);
  ar_links_hold_kernel(h->flag, h->gen, h->timeout_ns, h->st);
  return NULL;
}

/* The hold ends at its release (AR_LKS_OK, the time held), or at its deadline when nobody releases it. */
static void test_hold(void) {
  alignas(128) static uint32_t flag[32];
  flag[0] = 6;
  holder h = {flag, 7, 5000000000ull, {0}, 0};
  pthread_t t;
  pthread_create(&t, NULL, run_hold, &h);
  while (!__atomic_load_n(&h.started, __ATOMIC_ACQUIRE)) nap_ms(1); /* a late thread start is not a short hold */
  nap_ms(50);
  CHECK(h.st[AR_LKS_STATE] == AR_LKS_UNSET, "the hold ended before its release: state %llu", h.st[AR_LKS_STATE]);
  ar_flag_store(flag, 7);
  pthread_join(t, NULL);
  CHECK(h.st[AR_LKS_STATE] == AR_LKS_OK && h.st[AR_LKS_NS] >= 50000000ull && h.st[AR_LKS_NS] < 5000000000ull,
        "released hold: state %llu, held %llu ns", h.st[AR_LKS_STATE], h.st[AR_LKS_NS]);
  holder late = {flag, 8, 50000000ull, {0}, 0};
  double t0 = now_s();
  run_hold(&late);
  double took = now_s() - t0;
  CHECK(late.st[AR_LKS_STATE] == AR_LKS_TIMEOUT && took >= 0.05 && took < 2.0, "unreleased hold: state %llu after "
        "%.3f s (deadline 0.05 s)", late.st[AR_LKS_STATE], took);
}

int main(void) {
  test_copy();
  test_pingpong();
  test_pingpong_per_wait();
  test_hold();
  if (fails) return 1;
  printf("ok\n");
  return 0;
}
