/* test_shm_core.c — unit tests of kernels/ar_core.h: partition math, wrap-safe generation compare,
 * staged schedule, islands, region layout, fp16/bf16 conversions, fixed-order reduce and bounded waits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ar_core.h"
#include "dtype.h"
#include <string.h>

static void part_known_values(void **st) {
  (void)st;
  struct ar_span s = ar_part(7, 4, 2, 0);
  assert_int_equal(s.begin, 0);
  assert_int_equal(s.end, 4);
  s = ar_part(7, 4, 2, 1);
  assert_int_equal(s.begin, 4);
  assert_int_equal(s.end, 7);
  /* 1023 floats = 256 units over 3 ranks: 86, 85, 85 units */
  s = ar_part(1023, 4, 3, 1);
  assert_int_equal(s.begin, 344);
  assert_int_equal(s.end, 684);
  s = ar_part(1023, 4, 3, 2);
  assert_int_equal(s.begin, 684);
  assert_int_equal(s.end, 1023);
  /* fewer units than ranks: 3 floats are one unit, held by rank 0; the others are empty */
  s = ar_part(3, 4, 4, 0);
  assert_int_equal(s.end, 3);
  for (int r = 1; r < 4; r++) {
    s = ar_part(3, 4, 4, r);
    assert_int_equal(s.begin, 3);
    assert_int_equal(s.end, 3);
  }
  /* halves: 8 per unit; 17 halves = 3 units over 2 ranks: 2 units, 1 unit */
  s = ar_part(17, 2, 2, 0);
  assert_int_equal(s.end, 16);
  s = ar_part(17, 2, 2, 1);
  assert_int_equal(s.begin, 16);
  assert_int_equal(s.end, 17);
  assert_int_equal(ar_chunk_count(1000, 4), 248); /* whole 16-byte units */
  assert_int_equal(ar_chunk_count(8, 4), 4);      /* at least one unit */
}

static void part_properties(void **st) {
  (void)st;
  const size_t counts[] = {0, 1, 3, 4, 7, 8, 15, 16, 17, 33, 1023, 4097, 1048579};
  const size_t esizes[] = {2, 4};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
    for (size_t e = 0; e < 2; e++)
      for (int n = 1; n <= 9; n++) {
        size_t count = counts[c], es = esizes[e], unit = 16 / es, at = 0, big = 0, small = (size_t)-1;
        for (int r = 0; r < n; r++) {
          struct ar_span s = ar_part(count, es, n, r);
          assert_int_equal(s.begin, at); /* contiguous, ordered */
          assert_true(s.end >= s.begin);
          if (s.end > s.begin) assert_int_equal((s.begin * es) % 16, 0); /* 16-byte aligned */
          size_t units = (s.end - s.begin + unit - 1) / unit;
          if (units > big) big = units;
          if (s.end < count && units < small) small = units;
          for (size_t i = s.begin; i < s.end; i += (s.end - s.begin + 2) / 3)
            assert_int_equal(ar_part_owner(count, es, n, i), r);
          if (s.end > s.begin) assert_int_equal(ar_part_owner(count, es, n, s.end - 1), r);
          at = s.end;
        }
        assert_int_equal(at, count); /* covers everything */
        if (small != (size_t)-1) assert_true(big - small <= 1); /* balanced */
      }
}

static void gen_wrap(void **st) {
  (void)st;
  assert_true(ar_gen_reached(5, 5));
  assert_true(ar_gen_reached(6, 5));
  assert_false(ar_gen_reached(4, 5));
  assert_true(ar_gen_reached(0, 0xffffffffu)); /* across the wrap */
  assert_true(ar_gen_reached(3, 0xfffffffeu));
  assert_false(ar_gen_reached(0xffffffffu, 0));
  assert_false(ar_gen_reached(0xfffffff0u, 2));
  assert_true(ar_gen_reached(100u + 0x7fffffffu, 100u));
  assert_false(ar_gen_reached(100u + 0x80000000u, 100u));
  /* flags start at GEN0 - 1: not yet reached for the first generation */
  assert_false(ar_gen_reached(AR_CORE_GEN0 - 1u, AR_CORE_GEN0));
  assert_true(AR_CORE_GEN0 > 0xf0000000u); /* so runs cross the wrap */
}

static void staged_schedule(void **st) {
  (void)st;
  assert_int_equal(ar_staged_to(4, 3, 0), 0);
  assert_int_equal(ar_staged_from(4, 0, 0), 3);
  assert_int_equal(ar_staged_to(5, 1, 2), 4);
  assert_int_equal(ar_staged_from(5, 4, 2), 1);
  for (int n = 2; n <= 9; n++) {
    int sent[16][16] = {{0}};
    for (int p = 0; p < n - 1; p++) {
      int hit[16] = {0};
      for (int r = 0; r < n; r++) {
        int to = ar_staged_to(n, r, p);
        assert_int_not_equal(to, r);
        assert_int_equal(ar_staged_from(n, to, p), r); /* the receiver reads from exactly this sender */
        hit[to]++;
        sent[r][to]++;
      }
      for (int r = 0; r < n; r++) assert_int_equal(hit[r], 1); /* one inbound peer per pass */
    }
    for (int r = 0; r < n; r++)
      for (int q = 0; q < n; q++) assert_int_equal(sent[r][q], r == q ? 0 : 1); /* every peer once */
  }
  assert_int_equal(ar_core_npasses(AR_CORE_STAGED, 4), 6);
}

static void islands_build(void **st) {
  (void)st;
  struct ar_islands is;
  int key[6] = {5, 3, 5, 3, 9, 3};
  assert_int_equal(ar_islands_build(&is, key, 6), 0);
  assert_int_equal(is.n, 3);
  assert_int_equal(is.size[0], 2); /* {0,2} */
  assert_int_equal(is.size[1], 3); /* {1,3,5} */
  assert_int_equal(is.size[2], 1); /* {4} */
  assert_int_equal(ar_island_rank(&is, 0, 1), 2);
  assert_int_equal(ar_island_rank(&is, 1, 2), 5);
  assert_int_equal(ar_island_rank(&is, 2, 0), 4);
  assert_int_equal(is.of[5], 1);
  assert_int_equal(is.pos[5], 2);
  int even[8];
  ar_islands_even_keys(even, 8, 3);
  assert_int_equal(ar_islands_build(&is, even, 8), 0);
  assert_int_equal(is.n, 3);
  assert_int_equal(is.size[0], 3);
  assert_int_equal(is.size[1], 3);
  assert_int_equal(is.size[2], 2);
  assert_int_equal(ar_islands_build(&is, even, 0), -1);
  /* ownership across islands is symmetric: if my slice overlaps yours, yours overlaps mine */
  size_t count = 4097, end;
  for (int r = 0; r < 8; r++) {
    struct ar_span me = ar_island_slice(&is, count, 4, r);
    for (size_t at = me.begin; at < me.end; at = end) {
      end = me.end;
      for (int i = 0; i < is.n; i++) {
        size_t e;
        int q = ar_island_owner(&is, count, 4, i, at, &e);
        struct ar_span theirs = ar_island_slice(&is, count, 4, q);
        assert_int_equal(is.of[q], i);
        assert_true(theirs.begin <= at && at < theirs.end && e == theirs.end);
        if (e < end) end = e;
      }
    }
  }
}

static void layout(void **st) {
  (void)st;
  struct ar_core_layout l;
  ar_core_layout_init(&l, AR_CORE_ISLANDS, 1000);
  assert_int_equal(l.chunk_bytes, 1024);
  char base[1];
  for (int f = 0; f < AR_CORE_NFLAGS; f++)
    assert_int_equal((char *)ar_core_flag(base, f) - base, f * AR_CORE_LINE); /* one line per flag */
  assert_int_equal(l.in_off[0], AR_CORE_NFLAGS * AR_CORE_LINE);
  size_t offs[6] = {l.in_off[0], l.part_off[0], l.res_off[0], l.in_off[1], l.part_off[1], l.res_off[1]};
  for (int i = 0; i < 6; i++) {
    assert_int_equal(offs[i] % AR_CORE_LINE, 0);
    if (i) assert_int_equal(offs[i], offs[i - 1] + 1024);
  }
  assert_int_equal(l.region_bytes, offs[5] + 1024);
  ar_core_layout_init(&l, AR_CORE_ONESHOT, 64);
  assert_int_equal(l.res_off[0], 0);
  assert_int_equal(l.part_off[1], 0);
  assert_int_equal(l.region_bytes, AR_CORE_NFLAGS * AR_CORE_LINE + 2 * 128);
  /* GPU: one flag set per block, each set on its own lines, slots after the last set */
  ar_core_layout_init_sets(&l, AR_CORE_TWOSHOT, 4096, 3); /* private slots per set: in, res for 2 parities */
  assert_int_equal(l.nsets, 3);
  assert_int_equal(l.in_off[0], 3 * AR_CORE_NFLAGS * AR_CORE_LINE);
  assert_int_equal(l.res_off[1], l.in_off[0] + 3 * 4096);
  assert_int_equal(l.set_stride, 4 * 4096);
  assert_int_equal(l.region_bytes, l.in_off[0] + 3 * 4 * 4096);
  for (int b = 0; b < 3; b++)
    for (int f = 0; f < AR_CORE_NFLAGS; f++)
      assert_int_equal((char *)ar_core_flag_of_set(base, b, f) - base, (b * AR_CORE_NFLAGS + f) * AR_CORE_LINE);
}

static void conversions(void **st) {
  (void)st;
  for (uint32_t h = 0; h < 65536; h++) {
    float a = ar_core_half_to_f32((uint16_t)h), b = ar_half_to_float((uint16_t)h);
    assert_memory_equal(&a, &b, 4);
    a = ar_core_bf16_to_f32((uint16_t)h);
    b = ar_bf16_to_float((uint16_t)h);
    assert_memory_equal(&a, &b, 4);
  }
  for (uint64_t u = 0; u < 0x100000000ull; u += 4093) {
    float f = ar_core_u2f((uint32_t)u);
    assert_int_equal(ar_core_f32_to_half(f), ar_float_to_half(f));
    assert_int_equal(ar_core_f32_to_bf16(f), ar_float_to_bf16(f));
  }
  assert_int_equal(ar_core_f32_to_half(1.0f), 0x3c00);
  assert_int_equal(ar_core_f32_to_half(65504.0f), 0x7bff);
  assert_int_equal(ar_core_f32_to_half(65520.0f), 0x7c00);
  assert_int_equal(ar_core_f32_to_half(1.0f + 1.0f / 2048), 0x3c00); /* tie -> even */
  assert_int_equal(ar_core_f32_to_half(5.9604645e-8f), 0x0001);      /* smallest subnormal */
  assert_int_equal(ar_core_f32_to_bf16(1.0f + 1.0f / 256), 0x3f80);   /* tie -> even */
}

static void reduce_values(void **st) {
  (void)st;
  float a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, c[3] = {100, 200, 300}, out[3], out2[3];
  const void *src[3] = {a, b, c};
  ar_reduce(AR_CORE_FLOAT, AR_CORE_SUM, 0, out, out2, src, 3, 3);
  assert_true(out[0] == 111 && out[1] == 222 && out[2] == 333);
  assert_memory_equal(out, out2, sizeof out);
  ar_reduce(AR_CORE_FLOAT, AR_CORE_AVG, 3, out, NULL, src, 3, 3);
  assert_true(out[0] == 37 && out[1] == 74 && out[2] == 111);
  ar_reduce(AR_CORE_FLOAT, AR_CORE_MIN, 0, a, NULL, src, 3, 3); /* in place over source 0 */
  assert_true(a[0] == 1 && a[2] == 3);
  uint16_t h1[2] = {0x3c00, 0xc000}, h2[2] = {0x4000, 0x3c00}, ho[2]; /* {1,-2} max {2,1} */
  const void *hs[2] = {h1, h2};
  ar_reduce(AR_CORE_HALF, AR_CORE_MAX, 0, ho, NULL, hs, 2, 2);
  assert_int_equal(ho[0], 0x4000);
  assert_int_equal(ho[1], 0x3c00);
  ar_reduce(AR_CORE_BF16, AR_CORE_PROD, 0, ho, NULL, hs, 2, 2); /* bf16 bits: 0x3c00 ~ 2^-7 */
  assert_int_equal(ho[0], ar_core_f32_to_bf16(ar_core_bf16_to_f32(0x3c00) * ar_core_bf16_to_f32(0x4000)));
  int32_t i1[3] = {0x40000000, -7, 5}, i2[3] = {4, 3, -9}, io[3];
  const void *is[2] = {i1, i2};
  ar_reduce(AR_CORE_INT32, AR_CORE_PROD, 0, io, NULL, is, 2, 3);
  assert_int_equal(io[0], 0); /* wraps like hardware */
  assert_int_equal(io[1], -21);
  ar_reduce(AR_CORE_INT32, AR_CORE_MAX, 0, io, NULL, is, 2, 3);
  assert_int_equal(io[1], 3);
  assert_int_equal(io[2], 5);
  /* more than one accumulator block, fp32 accumulation of half: 2048 + 1 + 1 = 2050 (not 2048) */
  enum { N = 3 * AR_CORE_BLOCK + 5 };
  static uint16_t x[N], y[N], z[N], r[N];
  for (int i = 0; i < N; i++) {
    x[i] = ar_core_f32_to_half(2048);
    y[i] = z[i] = ar_core_f32_to_half(1);
  }
  const void *xs[3] = {x, y, z};
  ar_reduce(AR_CORE_HALF, AR_CORE_SUM, 0, r, NULL, xs, 3, N);
  for (int i = 0; i < N; i++) assert_int_equal(r[i], ar_core_f32_to_half(2050));
}

/* Float/int32 combine sources pairwise in rank order; the output may be any one of the sources. */
static void reduce_order_and_alias(void **st) {
  (void)st;
  enum { N = 2 * AR_CORE_BLOCK + 3, NS = 5 };
  static float f[NS][N], out[N], want[N];
  uint32_t x = 12345;
  for (int alias = -1; alias < NS; alias++) {
    for (int s = 0; s < NS; s++)
      for (int i = 0; i < N; i++) {
        x = x * 1664525u + 1013904223u;
        f[s][i] = (float)(x >> 8) / 16777216.0f - 0.5f; /* not integers: order shows in the bits */
      }
    for (int i = 0; i < N; i++) want[i] = (((f[0][i] + f[1][i]) + f[2][i]) + f[3][i]) + f[4][i];
    const void *src[NS] = {f[0], f[1], f[2], f[3], f[4]};
    float *dst = alias < 0 ? out : f[alias];
    ar_reduce(AR_CORE_FLOAT, AR_CORE_SUM, 0, dst, NULL, src, NS, N);
    assert_memory_equal(dst, want, sizeof want);
  }
  int32_t a[4] = {7, -3, 100, 0}, b[4] = {-9, 4, 1, 5}, c[4] = {1, 1, -200, 2};
  const void *is[3] = {a, b, c};
  ar_reduce(AR_CORE_INT32, AR_CORE_MIN, 0, b, NULL, is, 3, 4); /* in place over the middle source */
  assert_int_equal(b[0], -9);
  assert_int_equal(b[1], -3);
  assert_int_equal(b[2], -200);
  assert_int_equal(b[3], 0);
}

static void bounded_wait(void **st) {
  (void)st;
  uint32_t flag = 7, abort_a = 0, abort_b = 0;
  const uint32_t *aborts[2] = {&abort_a, &abort_b};
  struct ar_wait w = {.timeout_ns = 2000000, .oversubscribed = 0, .aborts = aborts, .naborts = 2};
  int who = -1;
  assert_int_equal(ar_wait_flag(&flag, 7, &w, &who), AR_WAIT_OK);
  assert_int_equal(ar_wait_flag(&flag, 8, &w, &who), AR_WAIT_TIMEOUT);
  abort_b = 1;
  w.oversubscribed = 1;
  assert_int_equal(ar_wait_flag(&flag, 8, &w, &who), AR_WAIT_ABORT);
  assert_int_equal(who, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(part_known_values), cmocka_unit_test(part_properties), cmocka_unit_test(gen_wrap),
    cmocka_unit_test(staged_schedule),   cmocka_unit_test(islands_build),   cmocka_unit_test(layout),
    cmocka_unit_test(conversions),       cmocka_unit_test(reduce_values),   cmocka_unit_test(reduce_order_and_alias),
    cmocka_unit_test(bounded_wait),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
