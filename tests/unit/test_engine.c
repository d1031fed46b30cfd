/* test_engine.c — the engine's buffer rotation (ar_buffer_sets) on a 128 MiB cache: how many sets
 * --buffers hot/cold rotate, what span they really touch, and when "cold" is not reached. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "run/engine.h"

#define MiB ((size_t)1 << 20)
#define L2 (128 * MiB)     /* a 128 MiB GPU L2 */
#define POOL (2 * L2)      /* the engine's pool under --buffers cold: at least twice the cache */

static void test_hot(void **st) {
  (void)st;
  struct ar_rotation r = ar_buffer_sets(0, L2, POOL, 8, 0, 0);
  assert_int_equal(r.nsets, 1);
  assert_int_equal(r.stride, 256);
  assert_int_equal(r.setsz, 512);
  assert_int_equal(r.span_bytes, 256); /* in + out, one 128-byte line each */
  assert_false(r.cold_reached);
  r = ar_buffer_sets(0, L2, 4 * L2, 256 * MiB, 0, 0); /* one hot set of 2 x 256 MiB outgrows the cache anyway */
  assert_int_equal(r.nsets, 1);
  assert_int_equal(r.span_bytes, 512 * MiB);
  assert_true(r.cold_reached);
}

static void test_cold_small_messages_hit_the_cap(void **st) {
  (void)st;
  /* 8 B out of place: 4096 sets of 512 bytes, touching 2 lines each: 1 MiB, far below 2 x 128 MiB */
  struct ar_rotation r = ar_buffer_sets(1, L2, POOL, 8, 0, 0);
  assert_int_equal(r.nsets, 4096);
  assert_int_equal(r.span_bytes, MiB);
  assert_false(r.cold_reached);
  /* 100 B in place: a line and a bit, rounded up to one line (128 B) per set */
  r = ar_buffer_sets(1, L2, POOL, 100, 1, 0);
  assert_int_equal(r.nsets, 4096);
  assert_int_equal(r.span_bytes, 4096 * 128);
  /* 16 KiB out of place: 4096 x 32 KiB = 128 MiB, one cache, not two */
  r = ar_buffer_sets(1, L2, POOL, 16384, 0, 0);
  assert_int_equal(r.nsets, 4096);
  assert_int_equal(r.span_bytes, L2);
  assert_false(r.cold_reached);
  /* 32 KiB out of place: exactly 4096 sets of 64 KiB = 256 MiB: reached */
  r = ar_buffer_sets(1, L2, POOL, 32768, 0, 0);
  assert_int_equal(r.nsets, 4096);
  assert_int_equal(r.span_bytes, 2 * L2);
  assert_true(r.cold_reached);
}

/* The record's method says when cold was not: its sets, their span, and the size from which as many sets are
 * cold (RTX PRO 6000, 128 MiB L2: 32 KiB out of place; H200, 50 MB L2: 12,288 B out of place, 24,448 B in place). */
static void test_cold_note(void **st) {
  (void)st;
  char note[400];
  struct ar_rotation r = ar_buffer_sets(1, L2, POOL, 16384, 0, 0);
  ar_cold_note(&r, L2, 0, note, sizeof note);
  assert_string_equal(note, "not cold: --buffers cold, but its 4096 sets span 134217728 bytes, under 2 x the "
                            "134217728-byte cache, so its reads partly hit the cache; 4096 sets reach it out of place "
                            "from 32768 bytes");
  r = ar_buffer_sets(1, L2, POOL, 32768, 0, 0); /* reached: nothing to say */
  ar_cold_note(&r, L2, 0, note, sizeof note);
  assert_string_equal(note, "");
  size_t h200 = 50000000;
  r = ar_buffer_sets(1, h200, ar_pool_bytes(1, h200, 1 << 20), 8192, 0, 0);
  assert_false(r.cold_reached);
  ar_cold_note(&r, h200, 0, note, sizeof note);
  assert_non_null(strstr(note, "4096 sets reach it out of place from 12288 bytes"));
  r = ar_buffer_sets(1, h200, ar_pool_bytes(1, h200, 1 << 20), 8192, 1, 0);
  ar_cold_note(&r, h200, 1, note, sizeof note);
  assert_non_null(strstr(note, "4096 sets reach it in place from 24448 bytes"));
  r = ar_buffer_sets(1, h200, ar_pool_bytes(1, h200, 1 << 20), 12288, 0, 0); /* the size it names: reached */
  assert_true(r.cold_reached);
  r = ar_buffer_sets(1, h200, ar_pool_bytes(1, h200, 1 << 20), 12288 - 128, 0, 0); /* a line less: not */
  assert_false(r.cold_reached);
}

static void test_cold_large_messages(void **st) {
  (void)st;
  struct ar_rotation r = ar_buffer_sets(1, L2, POOL, MiB, 1, 0); /* 1 MiB in place: 256 sets */
  assert_int_equal(r.nsets, 256);
  assert_int_equal(r.span_bytes, 256 * MiB);
  assert_true(r.cold_reached);
  /* 3 MiB + 1 out of place: 43 sets of 2 x (3 MiB + 256) cover 2 x 128 MiB; the engine's pool (2 x cache plus
   * the largest set) holds them all, a pool of exactly 2 x cache only 42 (252 MiB: not cold) */
  assert_int_equal(ar_pool_bytes(1, L2, 3 * MiB + 1), POOL + 2 * (3 * MiB + 256));
  assert_int_equal(ar_pool_bytes(0, L2, 3 * MiB + 1), 2 * (3 * MiB + 256)); /* hot: one set */
  assert_int_equal(ar_pool_bytes(0, L2, 0), 512);
  r = ar_buffer_sets(1, L2, ar_pool_bytes(1, L2, 3 * MiB + 1), 3 * MiB + 1, 0, 0);
  assert_int_equal(r.stride, 3 * MiB + 256);
  assert_int_equal(r.nsets, 43);
  assert_int_equal(r.span_bytes, 43 * 2 * (3 * MiB + 128));
  assert_true(r.cold_reached);
  r = ar_buffer_sets(1, L2, POOL, 3 * MiB + 1, 0, 0);
  assert_int_equal(r.nsets, 42);
  assert_false(r.cold_reached);
  r = ar_buffer_sets(1, L2, 64 * MiB, MiB, 0, 0); /* a pool of 64 MiB holds 32 sets of 2 MiB: not cold */
  assert_int_equal(r.nsets, 32);
  assert_int_equal(r.span_bytes, 64 * MiB);
  assert_false(r.cold_reached);
}

/* -G K on the device: the graphs (at most 256) hold the rotation, so at most 256 x K sets. */
static void test_cold_graphs(void **st) {
  (void)st;
  struct ar_rotation r = ar_buffer_sets(1, L2, POOL, 65536, 0, 1); /* 64 KiB, -G 1: 256 sets, not 2048 */
  assert_int_equal(r.nsets, 256);
  assert_int_equal(r.span_bytes, 32 * MiB);
  assert_false(r.cold_reached);
  r = ar_buffer_sets(1, L2, POOL, 65536, 0, 8); /* -G 8: 2048 sets, the 2 x 128 MiB of the plain launches */
  assert_int_equal(r.nsets, 2048);
  assert_true(r.cold_reached);
  r = ar_buffer_sets(1, L2, POOL, 8, 0, 100); /* 256 x 100 > 4096: the set cap still holds */
  assert_int_equal(r.nsets, 4096);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hot),
      cmocka_unit_test(test_cold_small_messages_hit_the_cap),
      cmocka_unit_test(test_cold_note),
      cmocka_unit_test(test_cold_large_messages),
      cmocka_unit_test(test_cold_graphs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
