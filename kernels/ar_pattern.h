/* ar_pattern.h — the exact-integer test pattern: what rank r puts in element i, and the exact result.
 * Compiled by cc and nvcc alike so host and device fill/check agree bit for bit. */
#ifndef AR_PATTERN_H
#define AR_PATTERN_H

#include "ar_core_types.h" /* stdint, or its NVRTC stand-in */

#if defined(__CUDACC__)
#define AR_PAT_FN static __host__ __device__ __forceinline__
#else
#define AR_PAT_FN static inline
#endif

/* Largest integer magnitude every dtype represents exactly (bf16: 8-bit significand). */
#define AR_PAT_EXACT_FLOAT 16777216L
#define AR_PAT_EXACT_HALF 2048L
#define AR_PAT_EXACT_BF16 256L

/* dtype codes match enum ar_dtype in bench/ar.h; ops match enum ar_op. */
AR_PAT_FN long ar_pat_limit(int dtype) {
  switch (dtype) {
  case 1: return AR_PAT_EXACT_HALF;
  case 2: return AR_PAT_EXACT_BF16;
  case 3: return 1L << 30;
  default: return AR_PAT_EXACT_FLOAT;
  }
}

/* Mixing hash so neighbouring elements and ranks differ (catches wrong-peer and wrong-offset bugs). */
AR_PAT_FN uint32_t ar_pat_hash(uint64_t i, uint32_t r) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + (uint64_t)(r + 1) * 0xC2B2AE3D27D4EB4Full;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return (uint32_t)x;
}

/* Half-range m of values for sums: any partial sum of n values stays within the exact range. */
AR_PAT_FN long ar_pat_m(int dtype, int nranks) {
  long m = ar_pat_limit(dtype) / (nranks > 0 ? nranks : 1);
  if (m > 1000) m = 1000;
  return m < 1 ? 1 : m;
}

/* Value of element i on rank r (0-based) for op, as an exact integer. */
AR_PAT_FN long ar_pat_value(int dtype, int op, int rank, int nranks, uint64_t i) {
  uint32_t h = ar_pat_hash(i, (uint32_t)rank);
  long m = ar_pat_m(dtype, nranks);
  switch (op) {
  case 1: /* prod: mostly 1, some -1, at most one rank per element contributes 2 */
    if ((long)((i + (uint64_t)rank) % (uint64_t)nranks) == 0 && (h & 1u)) return 2;
    return (h & 6u) == 6u ? -1 : 1;
  case 4: { /* avg: base(i) plus pairwise-cancelling offsets, so sum = n * base(i) exactly */
    long mm = m / 2 > 0 ? m / 2 : 1;
    long base = (long)(ar_pat_hash(i, 0xA5A5u) % (uint32_t)(2 * mm + 1)) - mm;
    if (rank >= (nranks / 2) * 2) return base;
    long d = (long)(ar_pat_hash(i, 0x1000u + (uint32_t)(rank / 2)) % (uint32_t)(mm + 1));
    if (base + d > mm || base - d < -mm) d = 0;
    return (rank & 1) ? base - d : base + d;
  }
  default: /* sum, max, min */
    return (long)(h % (uint32_t)(2 * m + 1)) - m;
  }
}

/* Bits written into output buffers before a checked call: NaN for the float types, INT32_MIN for
 * int32 (every pattern result is far smaller in magnitude). Low 16 bits for half/bf16. */
AR_PAT_FN uint32_t ar_pat_poison(int dtype) { return dtype == 3 ? 0x80000000u : 0xffffffffu; }

/* The exact reduced value of element i over nranks ranks. */
AR_PAT_FN long ar_pat_expect(int dtype, int op, int nranks, uint64_t i) {
  long acc = ar_pat_value(dtype, op, 0, nranks, i);
  for (int r = 1; r < nranks; r++) {
    long v = ar_pat_value(dtype, op, r, nranks, i);
    switch (op) {
    case 1: acc *= v; break;
    case 2: acc = v > acc ? v : acc; break;
    case 3: acc = v < acc ? v : acc; break;
    default: acc += v; break;
    }
  }
  if (op == 4) acc /= nranks;
  return acc;
}

#endif
