/* reduce.c — the NCCL stand-in's element math: every rank's input reduced in rank order, in the datatype's own
 * arithmetic as NCCL's kernels do it (fp16/bf16 rounded after each operation; ncclAvg pre-multiplies floats by
 * 1/nranks in the datatype and divides integers after a wrapping sum, as 2.28.9's hostToDevRedOp sets up). */
#include "standin_nccl.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

/* v rounded to nearest-even with `bits` significant bits, 2^emin the smallest normal, max the largest finite
 * value (a larger result is infinity): what fp16 (11, -14, 65504) and bf16 (8, -126) arithmetic keeps. */
static double round_to(double v, int bits, int emin, double max) {
  if (v != v || v == 0.0 || isinf(v)) return v;
  int e;
  frexp(fabs(v), &e);
  int lead = e - 1 < emin ? emin : e - 1;
  double q = ldexp(1.0, lead - (bits - 1));
  double r = nearbyint(v / q) * q;
  return fabs(r) > max ? copysign(INFINITY, v) : r;
}

#define HALF_MAX 65504.0
#define BF16_MAX 3.3895313892515355e38

static double half_get(const void *p, size_t i) {
  uint16_t h;
  memcpy(&h, (const char *)p + 2 * i, 2);
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return h & 0x8000 ? -v : v;
}

/* r is exactly representable in fp16 (round_to made it so). */
static void half_put(void *p, size_t i, double r) {
  uint16_t s = signbit(r) ? 0x8000 : 0, h;
  double a = fabs(r);
  int e;
  if (a != a) h = 0x7e00;
  else if (isinf(a)) h = s | 0x7c00;
  else if (a == 0.0) h = s;
  else if (frexp(a, &e), e - 1 < -14) h = s | (uint16_t)(a / ldexp(1.0, -24));
  else h = s | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)(ldexp(frexp(a, &e), 11) - 1024);
  memcpy((char *)p + 2 * i, &h, 2);
}

static double bf16_get(const void *p, size_t i) {
  uint16_t b;
  uint32_t u;
  float f;
  memcpy(&b, (const char *)p + 2 * i, 2);
  u = (uint32_t)b << 16;
  memcpy(&f, &u, 4);
  return f;
}

/* r is exactly representable in bf16, so in float too: the top half of the float's bits. */
static void bf16_put(void *p, size_t i, double r) {
  float f = (float)r;
  uint32_t u;
  memcpy(&u, &f, 4);
  uint16_t b = r != r ? 0x7fc0 : (uint16_t)(u >> 16);
  memcpy((char *)p + 2 * i, &b, 2);
}

/* fp16 and bf16: each operation exact in double (or nearly: bf16 sums of values 2^45 apart), then rounded. */
static void reduce_small_float(void *out, const void *const *in, int n, size_t count, ncclRedOp_t op, int bf16) {
  double (*get)(const void *, size_t) = bf16 ? bf16_get : half_get;
  void (*put)(void *, size_t, double) = bf16 ? bf16_put : half_put;
  int bits = bf16 ? 8 : 11, emin = bf16 ? -126 : -14;
  double max = bf16 ? BF16_MAX : HALF_MAX, scale = round_to((double)(float)(1.0 / n), bits, emin, max);
  for (size_t i = 0; i < count; i++) {
    double acc = 0.0;
    for (int r = 0; r < n; r++) {
      double x = get(in[r], i);
      if (op == ncclAvg) x = round_to(x * scale, bits, emin, max);
      if (r == 0) acc = x;
      else if (op == ncclProd) acc = round_to(acc * x, bits, emin, max);
      else if (op == ncclMax) acc = x > acc ? x : acc;
      else if (op == ncclMin) acc = x < acc ? x : acc;
      else acc = round_to(acc + x, bits, emin, max);
    }
    put(out, i, acc);
  }
}

#define REDUCE_FLOAT(T)                                                                                             \
  static void reduce_##T(void *out, const void *const *in, int n, size_t count, ncclRedOp_t op) {                   \
    T scale = (T)(1.0 / n);                                                                                         \
    for (size_t i = 0; i < count; i++) {                                                                            \
      T acc = 0;                                                                                                    \
      for (int r = 0; r < n; r++) {                                                                                 \
        T x;                                                                                                        \
        memcpy(&x, (const char *)in[r] + i * sizeof(T), sizeof(T));                                                 \
        if (op == ncclAvg) x = x * scale;                                                                           \
        acc = r == 0 ? x : op == ncclProd ? acc * x : op == ncclMax ? (x > acc ? x : acc)                           \
                                                    : op == ncclMin ? (x < acc ? x : acc) : acc + x;                \
      }                                                                                                             \
      memcpy((char *)out + i * sizeof(T), &acc, sizeof(T));                                                        \
    }                                                                                                               \
  }
REDUCE_FLOAT(float)
REDUCE_FLOAT(double)

/* Integers: sums and products wrap (unsigned arithmetic); ncclAvg divides the wrapped sum, truncating. */
#define REDUCE_INT(S, U)                                                                                            \
  static void reduce_##S(void *out, const void *const *in, int n, size_t count, ncclRedOp_t op) {                   \
    for (size_t i = 0; i < count; i++) {                                                                            \
      S acc = 0, x;                                                                                                 \
      for (int r = 0; r < n; r++) {                                                                                 \
        memcpy(&x, (const char *)in[r] + i * sizeof(S), sizeof(S));                                                 \
        acc = r == 0 ? x : op == ncclProd ? (S)((U)acc * (U)x) : op == ncclMax ? (x > acc ? x : acc)                \
                                          : op == ncclMin ? (x < acc ? x : acc) : (S)((U)acc + (U)x);               \
      }                                                                                                             \
      if (op == ncclAvg) acc = (S)(acc / (S)n);                                                                     \
      memcpy((char *)out + i * sizeof(S), &acc, sizeof(S));                                                         \
    }                                                                                                               \
  }
REDUCE_INT(int8_t, uint8_t)
REDUCE_INT(uint8_t, uint8_t)
REDUCE_INT(int32_t, uint32_t)
REDUCE_INT(uint32_t, uint32_t)
REDUCE_INT(int64_t, uint64_t)
REDUCE_INT(uint64_t, uint64_t)

void sn_reduce(void *out, const void *const *in, int n, size_t count, ncclDataType_t dt, ncclRedOp_t op) {
  switch (dt) {
  case ncclInt8: reduce_int8_t(out, in, n, count, op); break;
  case ncclUint8: reduce_uint8_t(out, in, n, count, op); break;
  case ncclInt32: reduce_int32_t(out, in, n, count, op); break;
  case ncclUint32: reduce_uint32_t(out, in, n, count, op); break;
  case ncclInt64: reduce_int64_t(out, in, n, count, op); break;
  case ncclUint64: reduce_uint64_t(out, in, n, count, op); break;
  case ncclFloat16: reduce_small_float(out, in, n, count, op, 0); break;
  case ncclBfloat16: reduce_small_float(out, in, n, count, op, 1); break;
  case ncclFloat32: reduce_float(out, in, n, count, op); break;
  case ncclFloat64: reduce_double(out, in, n, count, op); break;
  default: break; /* fp8: refused before anything is queued (coll.c) */
  }
}
