/* emu_links.cc — bench/links/links_cuda.cu's own source on CPU threads (kernels/emu/ar_emu_cuda.h): the copy
 * kernel over every grid shape and size class (vectors, unrolled vectors, the 4-byte tail, nothing past the
 * end), the flag ping-pong between two threads (every round trip, the status words) and its deadline (a peer
 * that never answers: AR_LKS_TIMEOUT with the round trips done, within the bound, never a hang). */
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

int main(void) {
  test_copy();
  test_pingpong();
  if (fails) return 1;
  printf("ok\n");
  return 0;
}
