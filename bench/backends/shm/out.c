/* out.c — writes into a rank's private output buffer: plain, or streaming (non-temporal) stores
 * for large results on x86, so writing a cold destination does not first read it from memory. */
#include "backends/shm/algo.h"
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void shm_out_copy(const struct shm_state *s, void *dst, const void *src, size_t bytes) {
#if defined(__SSE2__)
  if (s->stream) {
    char *d = (char *)dst;
    const char *p = (const char *)src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (head > bytes) head = bytes;
    memcpy(d, p, head);
    d += head, p += head, bytes -= head;
    size_t body = bytes & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
      __m128i a = _mm_loadu_si128((const __m128i *)(p + i)), b = _mm_loadu_si128((const __m128i *)(p + i + 16));
      __m128i c = _mm_loadu_si128((const __m128i *)(p + i + 32)), e = _mm_loadu_si128((const __m128i *)(p + i + 48));
      _mm_stream_si128((__m128i *)(d + i), a);
      _mm_stream_si128((__m128i *)(d + i + 16), b);
      _mm_stream_si128((__m128i *)(d + i + 32), c);
      _mm_stream_si128((__m128i *)(d + i + 48), e);
    }
    memcpy(d + body, p + body, bytes - body);
    return;
  }
#endif
  memcpy(dst, src, bytes);
}

void shm_out_reduce(const struct shm_state *s, int dt, int op, int div, void *out, void *res,
                    const void *const *src, int ns, size_t n) {
  if (!s->stream) {
    ar_reduce(dt, op, div, out, res, src, ns, n);
    return;
  }
  uint32_t tmp[AR_CORE_BLOCK]; /* reduce a block in L1, then stream it out */
  const void *at[AR_CORE_MAX_RANKS];
  size_t es = ar_core_esize(dt);
  for (size_t b = 0; b < n; b += AR_CORE_BLOCK) {
    size_t k = n - b < AR_CORE_BLOCK ? n - b : AR_CORE_BLOCK;
    for (int q = 0; q < ns; q++) at[q] = (const char *)src[q] + b * es;
    ar_reduce(dt, op, div, tmp, res ? (char *)res + b * es : NULL, at, ns, k);
    shm_out_copy(s, (char *)out + b * es, tmp, k * es);
  }
}

void shm_out_fence(const struct shm_state *s) {
#if defined(__SSE2__)
  if (s->stream) _mm_sfence();
#else
  (void)s;
#endif
}
