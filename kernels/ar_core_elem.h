/* ar_core_elem.h — element arithmetic of the custom allreduces: fp16/bf16 conversions, the reduction
 * ops with fp32 accumulation (int32 exact), and the fixed-order reduce of a list of sources. */
#ifndef AR_CORE_ELEM_H
#define AR_CORE_ELEM_H

#include "ar_core_types.h"

/* dtype and op codes: the values of enum ar_dtype and enum ar_op in bench/ar.h. */
#define AR_CORE_FLOAT 0
#define AR_CORE_HALF 1
#define AR_CORE_BF16 2
#define AR_CORE_INT32 3
#define AR_CORE_SUM 0
#define AR_CORE_PROD 1
#define AR_CORE_MAX 2
#define AR_CORE_MIN 3
#define AR_CORE_AVG 4 /* summed like SUM, divided once by the rank count when stored */

#define AR_CORE_BLOCK 512 /* elements reduced per step through the on-stack accumulator */

AR_CORE_FN size_t ar_core_esize(int dt) { return dt == AR_CORE_HALF || dt == AR_CORE_BF16 ? 2 : 4; }

AR_CORE_FN uint32_t ar_core_f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
AR_CORE_FN float ar_core_u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* fp16 -> fp32, exact for every input (subnormals, inf, NaN). */
AR_CORE_FN float ar_core_half_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return ar_core_u2f(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    float v = (float)m * (1.0f / 16777216.0f); /* m * 2^-24, exact */
    return sign ? -v : v;
  }
  return ar_core_u2f(sign | ((e + 112u) << 23) | (m << 13));
}

/* fp32 -> fp16, round to nearest even; overflow -> inf, NaN stays NaN. */
AR_CORE_FN uint16_t ar_core_f32_to_half(float f) {
  uint32_t u = ar_core_f2u(f), a = u & 0x7fffffffu;
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds past the largest half */
  if (a < 0x38800000u) {                                    /* below 2^-14: subnormal half or zero */
    float t = ar_core_u2f(a) + 0.5f;                          /* the FPU rounds to a multiple of 2^-24 */
    return (uint16_t)(sign | (uint16_t)(ar_core_f2u(t) - 0x3f000000u));
  }
  a += 0xc8000fffu + ((a >> 13) & 1u); /* rebias 127 -> 15 (mod 2^32) and round the 13 dropped bits */
  return (uint16_t)(sign | (uint16_t)(a >> 13));
}

AR_CORE_FN float ar_core_bf16_to_f32(uint16_t b) { return ar_core_u2f((uint32_t)b << 16); }

/* fp32 -> bf16, round to nearest even; NaN stays NaN. */
AR_CORE_FN uint16_t ar_core_f32_to_bf16(float f) {
  uint32_t u = ar_core_f2u(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* ---- accumulators: fp32 for float/half/bf16, 32-bit two's complement for int32 ---- */

/* The loop over n elements applying OP to acc[i] and the widened source value X. */
#define AR_CORE_APPLY(OP, ACC, X)                                                           \
  switch (OP) {                                                                             \
  case AR_CORE_PROD:                                                                        \
    for (size_t i = 0; i < n; i++) ACC[i] = ACC[i] * (X);                                   \
    break;                                                                                  \
  case AR_CORE_MAX:                                                                         \
    for (size_t i = 0; i < n; i++) ACC[i] = (X) > ACC[i] ? (X) : ACC[i];                    \
    break;                                                                                  \
  case AR_CORE_MIN:                                                                         \
    for (size_t i = 0; i < n; i++) ACC[i] = (X) < ACC[i] ? (X) : ACC[i];                    \
    break;                                                                                  \
  default:                                                                                  \
    for (size_t i = 0; i < n; i++) ACC[i] = ACC[i] + (X);                                   \
    break;                                                                                  \
  }

/* acc[i] = widen(src[i]) for i < n. acc holds 4-byte accumulators. */
AR_CORE_FN void ar_acc_load(int dt, void *AR_CORE_RESTRICT acc, const void *AR_CORE_RESTRICT src, size_t n) {
  float *a = (float *)acc;
  const uint16_t *h = (const uint16_t *)src;
  switch (dt) {
  case AR_CORE_HALF:
    for (size_t i = 0; i < n; i++) a[i] = ar_core_half_to_f32(h[i]);
    break;
  case AR_CORE_BF16:
    for (size_t i = 0; i < n; i++) a[i] = ar_core_bf16_to_f32(h[i]);
    break;
  default: memcpy(acc, src, n * 4); break;
  }
}

/* acc[i] = acc[i] OP widen(src[i]) for i < n (AVG sums). */
AR_CORE_FN void ar_acc_apply(int dt, int op, void *AR_CORE_RESTRICT acc, const void *AR_CORE_RESTRICT src,
                             size_t n) {
  if (dt == AR_CORE_INT32) {
    uint32_t *a = (uint32_t *)acc;
    const uint32_t *s = (const uint32_t *)src;
    int32_t *ai = (int32_t *)acc;
    const int32_t *si = (const int32_t *)src;
    if (op == AR_CORE_MAX || op == AR_CORE_MIN) {
      AR_CORE_APPLY(op, ai, si[i]);
    } else {
      AR_CORE_APPLY(op, a, s[i]); /* sum/prod wrap like two's complement hardware */
    }
    return;
  }
  float *a = (float *)acc;
  const uint16_t *h = (const uint16_t *)src;
  const float *f = (const float *)src;
  switch (dt) {
  case AR_CORE_HALF: AR_CORE_APPLY(op, a, ar_core_half_to_f32(h[i])); break;
  case AR_CORE_BF16: AR_CORE_APPLY(op, a, ar_core_bf16_to_f32(h[i])); break;
  default: AR_CORE_APPLY(op, a, f[i]); break;
  }
}

/* dst[i] (and dst2[i] unless NULL) = narrow(acc[i] / div) for i < n; div <= 1 means no division. */
AR_CORE_FN void ar_acc_store(int dt, int div, void *AR_CORE_RESTRICT dst, void *AR_CORE_RESTRICT dst2,
                             void *AR_CORE_RESTRICT acc, size_t n) {
  size_t es = ar_core_esize(dt);
  if (div > 1 && dt == AR_CORE_INT32) {
    int32_t *a = (int32_t *)acc;
    for (size_t i = 0; i < n; i++) a[i] = a[i] / div;
  } else if (div > 1) {
    float *a = (float *)acc, d = (float)div;
    for (size_t i = 0; i < n; i++) a[i] = a[i] / d;
  }
  if (es == 4) {
    memcpy(dst, acc, n * 4);
    if (dst2) memcpy(dst2, acc, n * 4);
    return;
  }
  const float *a = (const float *)acc;
  uint16_t *d = (uint16_t *)dst;
  if (dt == AR_CORE_HALF)
    for (size_t i = 0; i < n; i++) d[i] = ar_core_f32_to_half(a[i]);
  else
    for (size_t i = 0; i < n; i++) d[i] = ar_core_f32_to_bf16(a[i]);
  if (dst2) memcpy(dst2, dst, n * 2);
}

/* d[i] = a[i] OP b[i] for 4-byte types (float, or int32 wrapping like two's complement hardware).
 * d may equal a or b (element for element); the compiler checks overlap at run time. */
AR_CORE_FN void ar_core_red2(int dt, int op, void *d, const void *a, const void *b, size_t n) {
  if (dt == AR_CORE_INT32) {
    int32_t *di = (int32_t *)d;
    const int32_t *ai = (const int32_t *)a, *bi = (const int32_t *)b;
    uint32_t *du = (uint32_t *)d;
    const uint32_t *au = (const uint32_t *)a, *bu = (const uint32_t *)b;
    switch (op) {
    case AR_CORE_PROD: for (size_t i = 0; i < n; i++) du[i] = au[i] * bu[i]; break;
    case AR_CORE_MAX: for (size_t i = 0; i < n; i++) di[i] = bi[i] > ai[i] ? bi[i] : ai[i]; break;
    case AR_CORE_MIN: for (size_t i = 0; i < n; i++) di[i] = bi[i] < ai[i] ? bi[i] : ai[i]; break;
    default: for (size_t i = 0; i < n; i++) du[i] = au[i] + bu[i]; break;
    }
    return;
  }
  float *df = (float *)d;
  const float *af = (const float *)a, *bf = (const float *)b;
  switch (op) {
  case AR_CORE_PROD: for (size_t i = 0; i < n; i++) df[i] = af[i] * bf[i]; break;
  case AR_CORE_MAX: for (size_t i = 0; i < n; i++) df[i] = bf[i] > af[i] ? bf[i] : af[i]; break;
  case AR_CORE_MIN: for (size_t i = 0; i < n; i++) df[i] = bf[i] < af[i] ? bf[i] : af[i]; break;
  default: for (size_t i = 0; i < n; i++) df[i] = af[i] + bf[i]; break;
  }
}

/* dst[i] = src[0][i] OP src[1][i] OP ... OP src[ns-1][i] for i < n, accumulated in this fixed order
 * in fp32 (int32 for int32), then divided by div (AVG) and narrowed once; also written to dst2 unless
 * NULL. dst may alias one of the sources element for element (in-place). */
AR_CORE_FN void ar_reduce(int dt, int op, int div, void *dst, void *dst2, const void *const *src, int ns,
                          size_t n) {
  uint32_t acc[AR_CORE_BLOCK];
  size_t es = ar_core_esize(dt);
  int direct = es == 4 && div <= 1 && ns >= 2; /* no conversion: combine sources pairwise */
  for (size_t b = 0; b < n; b += AR_CORE_BLOCK) {
    size_t k = n - b < AR_CORE_BLOCK ? n - b : AR_CORE_BLOCK, at = b * es;
    char *d = (char *)dst + at;
    if (direct) { /* sources 0..ns-2 into acc (dst may alias any source), the last one into dst */
      const void *first = ns == 2 ? (const char *)src[0] + at : (const void *)acc;
      if (ns > 2) ar_core_red2(dt, op, acc, (const char *)src[0] + at, (const char *)src[1] + at, k);
      for (int s = 2; s < ns - 1; s++) ar_core_red2(dt, op, acc, acc, (const char *)src[s] + at, k);
      ar_core_red2(dt, op, d, first, (const char *)src[ns - 1] + at, k);
      if (dst2) memcpy((char *)dst2 + at, d, k * es);
      continue;
    }
    ar_acc_load(dt, acc, (const char *)src[0] + at, k);
    for (int s = 1; s < ns; s++) ar_acc_apply(dt, op, acc, (const char *)src[s] + at, k);
    ar_acc_store(dt, div, d, dst2 ? (char *)dst2 + at : NULL, acc, k);
  }
}

#endif
