/* test_symm_plan.c — the symm backend's pure-C decisions: variant text and its errors, launch shapes, and
 * the version gate (build: CUDA, nvcc, NCCL headers; run: the loaded libnccl) -> ready or the reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "ar.h"
#include "ar_core.h"
#include "ar_symm.h"
#include "backends/symm/symm_plan.h"

static void test_variant(void **st) {
  (void)st;
  struct ar_symm_variant v;
  char err[256] = "", txt[128];
  assert_int_equal(ar_symm_variant_parse("", &v, err, sizeof err), 0);
  assert_int_equal(v.algo, AR_CORE_ONESHOT);
  ar_symm_variant_text(&v, txt, sizeof txt);
  assert_string_equal(txt, "algo=oneshot,blocks=auto,threads=auto");
  assert_int_equal(ar_symm_variant_parse("algo=twoshot,blocks=32,threads=1024", &v, err, sizeof err), 0);
  assert_int_equal(v.algo, AR_CORE_TWOSHOT);
  assert_int_equal(v.blocks, 32);
  assert_int_equal(v.threads, 1024);
  ar_symm_variant_text(&v, txt, sizeof txt);
  assert_string_equal(txt, "algo=twoshot,blocks=32,threads=1024");
  assert_int_equal(ar_symm_variant_parse("threads=64,algo=oneshot,blocks=1", &v, err, sizeof err), 0);
  ar_symm_variant_text(&v, txt, sizeof txt);
  assert_string_equal(txt, "algo=oneshot,blocks=1,threads=64");
}

static void bad(const char *text, const char *want) {
  struct ar_symm_variant v;
  char err[256] = "";
  assert_int_equal(ar_symm_variant_parse(text, &v, err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, want);
}

static void test_variant_errors(void **st) {
  (void)st;
  bad("algo=threeshot", "symm variant algo=threeshot: expected oneshot or twoshot");
  bad("blocks=33", "symm variant blocks=33: expected an integer 1..32");
  bad("blocks=0", "symm variant blocks=0: expected an integer 1..32");
  bad("threads=100", "symm variant threads=100: expected a multiple of 32 in 64..1024");
  bad("threads=32", "symm variant threads=32: expected an integer 64..1024");
  bad("mode=push", "symm variant: unknown key 'mode' (known: algo, blocks, threads)");
  bad("algo", "symm variant 'algo': expected key=value (keys: algo, blocks, threads)");
  bad("algo=oneshot,", "symm variant 'algo=oneshot,': empty key=value between commas");
}

static void test_shape(void **st) {
  (void)st;
  struct ar_symm_variant v = {AR_CORE_ONESHOT, 0, 0};
  struct ar_symm_shape s = ar_symm_shape(&v, 256, 8, 132);
  assert_int_equal(s.blocks, 1);
  assert_int_equal(s.threads, 512);
  s = ar_symm_shape(&v, (size_t)1 << 20, 8, 132); /* 1 MiB / 64 KiB per block */
  assert_int_equal(s.blocks, 16);
  s = ar_symm_shape(&v, (size_t)64 << 20, 8, 132);
  assert_int_equal(s.blocks, AR_SYMM_MAX_BLOCKS);
  s = ar_symm_shape(&v, (size_t)64 << 20, 8, 20); /* never more blocks than SMs */
  assert_int_equal(s.blocks, 20);
  v.algo = AR_CORE_TWOSHOT; /* each rank reduces 1/n */
  s = ar_symm_shape(&v, (size_t)1 << 20, 8, 132);
  assert_int_equal(s.blocks, 2);
  v.blocks = 7, v.threads = 128;
  s = ar_symm_shape(&v, 16, 2, 132);
  assert_int_equal(s.blocks, 7);
  assert_int_equal(s.threads, 128);
}

static void gate(int cuda, int nvcc, int header, int loaded, int want, const char *why) {
  char got[256] = "";
  assert_int_equal(ar_symm_gate(cuda, nvcc, header, loaded, got, sizeof got), want);
  if (why) assert_string_equal(got, why);
}

static void test_gate(void **st) {
  (void)st;
  gate(1, 1, 22809, 22809, AR_SYMM_READY, NULL);
  gate(1, 1, 22800, 0, AR_SYMM_READY, NULL);          /* build only */
  gate(1, 1, 22809, 22903, AR_SYMM_READY, NULL);      /* newer library: the API stays */
  gate(1, 1, 22605, 22605, AR_SYMM_NOT_COMPILED, "needs NCCL >= 2.28 headers (built with 2.26.5)");
  gate(1, 1, 22707, 22809, AR_SYMM_NOT_COMPILED, "needs NCCL >= 2.28 headers (built with 2.27.7)");
  gate(1, 1, 0, 0, AR_SYMM_NOT_COMPILED, "needs NCCL >= 2.28 headers (built without nccl.h)");
  gate(1, 1, 22809, 22605, AR_SYMM_UNAVAILABLE, "needs NCCL >= 2.28 (the loaded libnccl is 2.26.5; built with 2.28.9 headers)");
  gate(1, 1, 22809, 22799, AR_SYMM_UNAVAILABLE, "needs NCCL >= 2.28 (the loaded libnccl is 2.27.99; built with 2.28.9 headers)");
  gate(1, 1, 22809, 2708, AR_SYMM_UNAVAILABLE, "needs NCCL >= 2.28 (the loaded libnccl is 2.7.8; built with 2.28.9 headers)");
  gate(1, 0, 22809, 22809, AR_SYMM_NOT_COMPILED, "no nvcc in this stack");
  gate(1, 0, 22605, 0, AR_SYMM_NOT_COMPILED, "no nvcc in this stack; needs NCCL >= 2.28 headers (built with 2.26.5)");
  gate(0, 0, 0, 0, AR_SYMM_NOT_COMPILED, "built without CUDA");
}

/* The kernel's cover: one-shot, every rank's blocks cover [0, count) once; two-shot, the blocks of all
 * ranks together cover it once (each element reduced by exactly one rank, pushed to all); every part
 * begins 16-byte aligned. */
static void test_span(void **st) {
  (void)st;
  static unsigned char hits[70000];
  const size_t counts[] = {1, 7, 8, 1023, 4097, 65536 + 3};
  const int esizes[] = {2, 4}, ns[] = {1, 2, 3, 8}, nblocks[] = {1, 3, 32};
  for (int a = 0; a < 2; a++)
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
      for (int e = 0; e < 2; e++)
        for (int k = 0; k < 4; k++)
          for (int bl = 0; bl < 3; bl++) {
            int algo = a ? AR_CORE_TWOSHOT : AR_CORE_ONESHOT, n = ns[k], blocks = nblocks[bl];
            size_t count = counts[c], es = (size_t)esizes[e];
            memset(hits, 0, count);
            for (int r = 0; r < n; r++)
              for (int b = 0; b < blocks; b++) {
                struct ar_span s = ar_symm_span(algo, count, es, n, r, blocks, b);
                assert_true(s.begin <= s.end && s.end <= count);
                if (s.begin < s.end) assert_int_equal((s.begin * es) % AR_CORE_ALIGN, 0);
                for (size_t i = s.begin; i < s.end; i++) hits[i]++;
              }
            for (size_t i = 0; i < count; i++) assert_int_equal(hits[i], algo == AR_CORE_ONESHOT ? n : 1);
          }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_variant),
      cmocka_unit_test(test_variant_errors),
      cmocka_unit_test(test_shape),
      cmocka_unit_test(test_gate),
      cmocka_unit_test(test_span),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
