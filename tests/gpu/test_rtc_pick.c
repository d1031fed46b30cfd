/* test_rtc_pick.c — NVRTC stacks' run-time kernel loading, pure parts: which embedded image a device of a
 * compute capability runs (cubin of its major, else PTX, else the reason), and the ELF symbol lookup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "backends/p2p/rtc_pick.h"

/* The generated table is not linked here (unit test of the pure code): a stand-in. */
const struct ar_rtc_image ar_rtc_images[] = {{0, 0, 0, 0}};
const int ar_rtc_nimages = 0;
const char *const ar_rtc_kernel_names[AR_RTC_NKERNELS] = {"", "", "", "", "", ""};

static const struct ar_rtc_image cubins[] = {{80, 0, 0, 0}, {86, 0, 0, 0}, {89, 0, 0, 0},
                                             {90, 0, 0, 0}, {100, 0, 0, 0}, {120, 0, 0, 0}};

static int arch_for(const struct ar_rtc_image *imgs, int n, int cc, char *why, size_t len) {
  int i = ar_rtc_pick(imgs, n, cc, why, len);
  return i < 0 ? -1 : imgs[i].arch;
}

static void test_pick_cubin(void **st) {
  (void)st;
  char why[256] = "";
  static const int cc[][2] = {{80, 80}, {86, 86}, {87, 86}, {89, 89}, {90, 90}, {100, 100},
                              {103, 100}, {120, 120}, {121, 120}};
  for (size_t i = 0; i < sizeof cc / sizeof cc[0]; i++) assert_int_equal(arch_for(cubins, 6, cc[i][0], why, sizeof why), cc[i][1]);
  /* other majors: a cubin never runs across majors (sm_90 is no sm_100 cubin) */
  assert_int_equal(ar_rtc_pick(cubins, 6, 75, why, sizeof why), -1);
  assert_string_equal(why, "no cubin for sm_75 in this build (cubins: sm_80, sm_86, sm_89, sm_90, sm_100, sm_120)");
  assert_int_equal(ar_rtc_pick(cubins, 4, 100, why, sizeof why), -1);
  assert_string_equal(why, "no cubin for sm_100 in this build (cubins: sm_80, sm_86, sm_89, sm_90)");
  assert_int_equal(ar_rtc_pick(cubins, 6, 110, why, sizeof why), -1);
  assert_int_equal(ar_rtc_pick(cubins, 0, 90, why, sizeof why), -1);
  assert_string_equal(why, "no cubin for sm_90 in this build (none compiled)");
}

static void test_pick_ptx(void **st) {
  (void)st;
  char why[256] = "";
  const struct ar_rtc_image imgs[] = {{80, 0, 0, 0}, {90, 1, 0, 0}, {86, 1, 0, 0}};
  assert_int_equal(ar_rtc_pick(imgs, 3, 86, why, sizeof why), 0);   /* its major's cubin before PTX */
  assert_int_equal(ar_rtc_pick(imgs, 3, 100, why, sizeof why), 1);  /* the newest PTX <= cc, JIT by the driver */
  assert_int_equal(ar_rtc_pick(imgs, 3, 89, why, sizeof why), 0);
  assert_int_equal(ar_rtc_pick(imgs, 3, 75, why, sizeof why), -1);  /* PTX newer than the GPU does not run */
  assert_string_equal(why, "no cubin for sm_75 in this build (cubins: sm_80, compute_90, compute_86)");
  char tiny[16];
  assert_int_equal(ar_rtc_pick(imgs, 3, 75, tiny, sizeof tiny), -1); /* truncated, still terminated */
  assert_string_equal(tiny, "no cubin for sm");
}

/* A minimal ELF64: header, sections [null, .symtab, .strtab], two symbols (a FUNC "k1", an OBJECT "d1"). */
static size_t make_elf(unsigned char *b) {
  memset(b, 0, 512);
  memcpy(b, "\x7f" "ELF\x02\x01", 6);
  const char str[] = "\0k1\0d1\0";
  size_t sym = 64, strt = sym + 3 * 24, sh = 256;
  b[sym + 24 + 0] = 1, b[sym + 24 + 4] = 0x12;     /* "k1": STB_GLOBAL | STT_FUNC */
  b[sym + 48 + 0] = 4, b[sym + 48 + 4] = 0x11;     /* "d1": STB_GLOBAL | STT_OBJECT */
  memcpy(b + strt, str, sizeof str);
  b[0x28] = (unsigned char)sh, b[0x29] = (unsigned char)(sh >> 8);
  b[0x3A] = 64, b[0x3C] = 3;
  unsigned char *s1 = b + sh + 64, *s2 = b + sh + 128;
  s1[4] = 2, s1[0x18] = (unsigned char)sym, s1[0x20] = 72, s1[0x28] = 2, s1[0x38] = 24; /* SHT_SYMTAB, link 2 */
  s2[4] = 3, s2[0x18] = (unsigned char)strt, s2[0x20] = sizeof str;                      /* SHT_STRTAB */
  return sh + 3 * 64;
}

static void test_elf(void **st) {
  (void)st;
  unsigned char b[512];
  size_t n = make_elf(b);
  assert_int_equal(ar_rtc_elf_has_func(b, n, "k1"), 1);
  assert_int_equal(ar_rtc_elf_has_func(b, n, "d1"), 0); /* not a function */
  assert_int_equal(ar_rtc_elf_has_func(b, n, "k2"), 0);
  assert_int_equal(ar_rtc_elf_has_func(b, n, "k"), 0);
  assert_int_equal(ar_rtc_elf_has_func(b, n - 64, "k1"), -1); /* section table runs past the image */
  b[4] = 1;
  assert_int_equal(ar_rtc_elf_has_func(b, n, "k1"), -1); /* ELF32 */
  assert_int_equal(ar_rtc_elf_has_func((const unsigned char *)"not an elf", 10, "k1"), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pick_cubin),
      cmocka_unit_test(test_pick_ptx),
      cmocka_unit_test(test_elf),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
