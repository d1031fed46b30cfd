/* dtype.c — dtype names, fp16/bf16 conversion and the host-side pattern fill and bit-exact check.
 * Conversions are round-to-nearest-even and exact over the integer range the pattern uses. */
#include "dtype.h"
#include "ar_pattern.h"
#include <string.h>
#include <strings.h>

static const char *const dtype_names[AR_NDTYPES] = {"float", "half", "bfloat16", "int32"};
static const size_t dtype_sizes[AR_NDTYPES] = {4, 2, 2, 4};
static const char *const op_names[AR_NOPS] = {"sum", "prod", "max", "min", "avg"};

const char *ar_status_name(int status) {
  switch (status < 0 ? -status : status) {
  case AR_OK: return "ok";
  case AR_EINVAL: return "invalid input";
  case AR_ERUNTIME: return "runtime error";
  case AR_EWRONG: return "wrong results";
  case AR_ETIMEOUT: return "timeout";
  case AR_EUNAVAIL: return "unavailable";
  default: return "unknown error";
  }
}

const char *ar_dtype_name(enum ar_dtype dt) { return (unsigned)dt < AR_NDTYPES ? dtype_names[dt] : "?"; }
size_t ar_dtype_size(enum ar_dtype dt) { return (unsigned)dt < AR_NDTYPES ? dtype_sizes[dt] : 0; }
const char *ar_op_name(enum ar_op op) { return (unsigned)op < AR_NOPS ? op_names[op] : "?"; }

int ar_dtype_parse(const char *s, enum ar_dtype *out) {
  static const struct { const char *name; enum ar_dtype dt; } alias[] = {
    {"float", AR_FLOAT}, {"float32", AR_FLOAT}, {"fp32", AR_FLOAT}, {"f32", AR_FLOAT},
    {"half", AR_HALF}, {"float16", AR_HALF}, {"fp16", AR_HALF}, {"f16", AR_HALF},
    {"bfloat16", AR_BF16}, {"bf16", AR_BF16},
    {"int32", AR_INT32}, {"int", AR_INT32}, {"i32", AR_INT32},
  };
  for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
    if (!strcasecmp(s, alias[i].name)) {
      *out = alias[i].dt;
      return 0;
    }
  return -AR_EINVAL;
}

int ar_op_parse(const char *s, enum ar_op *out) {
  for (int i = 0; i < AR_NOPS; i++)
    if (!strcasecmp(s, op_names[i])) {
      *out = (enum ar_op)i;
      return 0;
    }
  return -AR_EINVAL;
}

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

uint16_t ar_float_to_bf16(float f) {
  uint32_t u = f2u(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* NaN stays NaN */
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

float ar_bf16_to_float(uint16_t b) { return u2f((uint32_t)b << 16); }

uint16_t ar_float_to_half(float f) {
  uint32_t u = f2u(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00u;          /* NaN */
  if (a >= 0x477ff000u) return sign | 0x7c00u;         /* overflow (>= 65520) -> inf */
  if (a < 0x38800000u) {                               /* subnormal half or zero */
    if (a < 0x33000000u) return sign;                  /* < 2^-25 rounds to 0 */
    uint32_t m = (a & 0x7fffffu) | 0x800000u;
    int shift = 126 - (int)(a >> 23);                  /* 14..24 */
    uint32_t rem = m & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1);
    uint32_t half_m = m >> shift;
    if (rem > halfway || (rem == halfway && (half_m & 1u))) half_m++;
    return sign | (uint16_t)half_m;
  }
  uint32_t e = (a >> 23) - 112;                        /* rebias 127 -> 15 */
  uint32_t m = a & 0x7fffffu;
  uint32_t h = (e << 10) | (m >> 13);
  uint32_t rem = m & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
  return sign | (uint16_t)h;
}

float ar_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return u2f(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    if (!m) return u2f(sign);
    float v = (float)m / 16777216.0f; /* m * 2^-24 */
    return sign ? -v : v;
  }
  return u2f(sign | ((e + 112) << 23) | (m << 13));
}

double ar_elem_get(const void *buf, enum ar_dtype dt, size_t i) {
  switch (dt) {
  case AR_HALF: return ar_half_to_float(((const uint16_t *)buf)[i]);
  case AR_BF16: return ar_bf16_to_float(((const uint16_t *)buf)[i]);
  case AR_INT32: return ((const int32_t *)buf)[i];
  default: return ((const float *)buf)[i];
  }
}

void ar_elem_set(void *buf, enum ar_dtype dt, size_t i, double v) {
  switch (dt) {
  case AR_HALF: ((uint16_t *)buf)[i] = ar_float_to_half((float)v); break;
  case AR_BF16: ((uint16_t *)buf)[i] = ar_float_to_bf16((float)v); break;
  case AR_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
  default: ((float *)buf)[i] = (float)v; break;
  }
}

void ar_host_fill(void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int rank, int nranks) {
  for (size_t i = 0; i < count; i++)
    ar_elem_set(buf, dt, i, (double)ar_pat_value((int)dt, (int)op, rank, nranks, i));
}

/* Bit pattern of v in dt, for a bit-exact comparison. */
static uint32_t bits_of(enum ar_dtype dt, double v) {
  switch (dt) {
  case AR_HALF: return ar_float_to_half((float)v);
  case AR_BF16: return ar_float_to_bf16((float)v);
  case AR_INT32: return (uint32_t)(int32_t)v;
  default: return f2u((float)v);
  }
}

static uint32_t bits_at(const void *buf, enum ar_dtype dt, size_t i) {
  if (dt == AR_HALF || dt == AR_BF16) return ((const uint16_t *)buf)[i];
  return ((const uint32_t *)buf)[i];
}

uint64_t ar_host_check(const void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int nranks) {
  uint64_t wrong = 0;
  for (size_t i = 0; i < count; i++) {
    double want = (double)ar_pat_expect((int)dt, (int)op, nranks, i);
    wrong += bits_at(buf, dt, i) != bits_of(dt, want);
  }
  return wrong;
}
