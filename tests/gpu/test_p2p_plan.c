/* test_p2p_plan.c — the custom GPU backends' pure-C decisions: variant text and its errors, launch
 * shapes per size, the peer-access verdict, fused rows and the fp64 fused reference with its tolerances. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ar_core.h"
#include "dtype.h"
#include "backends/p2p/p2p_plan.h"

static void test_variant_defaults(void **st) {
  (void)st;
  struct ar_p2p_variant v;
  char err[256] = "", txt[128];
  assert_int_equal(ar_p2p_variant_parse(AR_CORE_ONESHOT, "", &v, err, sizeof err), 0);
  assert_int_equal(v.push, 0);
  assert_int_equal(v.reg, 0);
  ar_p2p_variant_text(&v, txt, sizeof txt);
  assert_string_equal(txt, "mode=pull,reg=0,blocks=auto,threads=auto");
  assert_int_equal(ar_p2p_variant_parse(AR_CORE_ONESHOT, "mode=push,reg=1,blocks=8,threads=256", &v, err,
                                        sizeof err), 0);
  assert_int_equal(v.push, 1);
  assert_int_equal(v.reg, 1);
  assert_int_equal(v.blocks, 8);
  assert_int_equal(v.threads, 256);
  ar_p2p_variant_text(&v, txt, sizeof txt);
  assert_string_equal(txt, "mode=push,reg=1,blocks=8,threads=256");
  assert_int_equal(ar_p2p_variant_parse(AR_CORE_STAGED, "blocks=4", &v, err, sizeof err), 0);
  ar_p2p_variant_text(&v, txt, sizeof txt);
  assert_string_equal(txt, "reg=0,blocks=4,threads=auto");
}

static void bad(int algo, const char *text, const char *want) {
  struct ar_p2p_variant v;
  char err[256] = "";
  assert_int_equal(ar_p2p_variant_parse(algo, text, &v, err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, want);
}

static void test_variant_errors(void **st) {
  (void)st;
  bad(AR_CORE_TWOSHOT, "mode=push", "p2p-twoshot variant mode=push: only p2p-oneshot has a mode (pull|push)");
  bad(AR_CORE_ONESHOT, "mode=both", "p2p-oneshot variant mode=both: expected pull or push");
  bad(AR_CORE_ONESHOT, "threads=100", "p2p-oneshot variant threads=100: expected a multiple of 32 in 64..1024");
  bad(AR_CORE_ONESHOT, "threads=2048", "p2p-oneshot variant threads=2048: expected an integer 64..1024");
  bad(AR_CORE_ISLANDS, "blocks=65", "p2p-islands variant blocks=65: expected an integer 1..64");
  bad(AR_CORE_ISLANDS, "blocks=0", "p2p-islands variant blocks=0: expected an integer 1..64");
  bad(AR_CORE_ONESHOT, "reg=2", "p2p-oneshot variant reg=2: expected an integer 0..1");
  bad(AR_CORE_ONESHOT, "foo=1", "p2p-oneshot variant: unknown key 'foo' (known: mode, reg, blocks, threads)");
  bad(AR_CORE_TWOSHOT, "foo=1", "p2p-twoshot variant: unknown key 'foo' (known: reg, blocks, threads)");
  bad(AR_CORE_ONESHOT, "reg", "p2p-oneshot variant 'reg': expected key=value (keys: mode, reg, blocks, threads)");
  bad(AR_CORE_ONESHOT, "reg=1,", "p2p-oneshot variant 'reg=1,': empty key=value between commas");
  bad(AR_CORE_ONESHOT, "blocks=", "p2p-oneshot variant 'blocks=': expected key=value (keys: mode, reg, blocks, threads)");
}

static void test_shape(void **st) {
  (void)st;
  struct ar_p2p_variant one = {.algo = AR_CORE_ONESHOT}, two = {.algo = AR_CORE_TWOSHOT};
  struct ar_p2p_shape s = ar_p2p_shape(&one, 8, 8, 132);
  assert_int_equal(s.blocks, 1);
  assert_int_equal(s.threads, 512);
  s = ar_p2p_shape(&one, 1 << 20, 8, 132); /* 1 MiB / (512 threads * 16 B * 8) = 16 blocks */
  assert_int_equal(s.blocks, 16);
  s = ar_p2p_shape(&one, 64u << 20, 8, 132);
  assert_int_equal(s.blocks, 32);
  s = ar_p2p_shape(&one, 64u << 20, 8, 20); /* never more blocks than SMs */
  assert_int_equal(s.blocks, 20);
  s = ar_p2p_shape(&two, 1 << 20, 4, 132); /* two-shot reduces a quarter: 4 blocks */
  assert_int_equal(s.blocks, 4);
  two.blocks = 40;
  two.threads = 128;
  s = ar_p2p_shape(&two, 8, 4, 132);
  assert_int_equal(s.blocks, 40);
  assert_int_equal(s.threads, 128);
  s = ar_p2p_shape(&two, 8, 4, 24);
  assert_int_equal(s.blocks, 24);
}

/* The default launch of one call as the backends make it (ar_p2p_prepare): staging of a sweep whose largest
 * call is max_bytes, then ar_p2p_launch_of over the whole message; fused (bf16, hidden) limits it to rows. */
enum { FAM_PULL, FAM_PUSH, FAM_TWOSHOT, FAM_STAGED, FAM_ISLANDS, FAM_FUSED, NFAM };
static const char *const fam_name[NFAM] = {"p2p-oneshot", "p2p-oneshot:mode=push", "p2p-twoshot", "p2p-staged",
                                           "p2p-islands", "fused (hidden=4096)"};
#define TABLE_SMS 188       /* RTX PRO 6000 Blackwell; the defaults are the same on any GPU with >= 32 SMs */
#define TABLE_MAX ((size_t)256 << 20)

static struct ar_p2p_launch default_launch(int fam, size_t bytes, int n, size_t max_bytes, int sms) {
  static const int algo[NFAM] = {AR_CORE_ONESHOT, AR_CORE_ONESHOT, AR_CORE_TWOSHOT, AR_CORE_STAGED, AR_CORE_ISLANDS,
                                 AR_CORE_ONESHOT};
  struct ar_p2p_variant v = {.algo = algo[fam], .push = fam == FAM_PUSH};
  size_t es = fam == FAM_FUSED ? 2 : 4, count = bytes / es;
  struct ar_p2p_staging stg = ar_p2p_staging(&v, max_bytes, n);
  size_t chunk = ar_chunk_count(stg.piece_bytes, es);
  struct ar_p2p_launch l = ar_p2p_launch_of(&v, count, es, chunk, n, sms);
  if (fam == FAM_FUSED) l = ar_fused_launch(l, count / 4096, 4096, chunk);
  return l;
}

static void test_launch_whole_message(void **st) {
  (void)st;
  struct ar_p2p_launch l = default_launch(FAM_PULL, 1 << 20, 8, TABLE_MAX, 132); /* 16 blocks of 64 KiB */
  assert_int_equal(l.blocks, 16);
  assert_int_equal(l.threads, 512);
  assert_int_equal(l.pieces, 1);
  l = default_launch(FAM_PULL, 64u << 20, 8, TABLE_MAX, 132); /* 32 blocks of 2 MiB: 8 pieces of 256 KiB */
  assert_int_equal(l.blocks, 32);
  assert_int_equal(l.pieces, 8);
  l = default_launch(FAM_TWOSHOT, TABLE_MAX, 8, TABLE_MAX, 132); /* 32 MiB reduced per rank -> 32 blocks */
  assert_int_equal(l.blocks, 32);
  assert_int_equal(l.pieces, 32); /* 8 MiB per block / 256 KiB */
  l = default_launch(FAM_PUSH, TABLE_MAX, 8, TABLE_MAX, 132); /* 32,640-byte sub-slots: 8160 floats a piece */
  assert_int_equal(l.blocks, 32);
  assert_int_equal(l.pieces, (2097152 + 8159) / 8160);
  l = default_launch(FAM_STAGED, 1 << 20, 4, TABLE_MAX, 132); /* a quarter reduced: 4 blocks */
  assert_int_equal(l.blocks, 4);
  assert_int_equal(l.pieces, 1);
  l = default_launch(FAM_ISLANDS, 16u << 20, 8, TABLE_MAX, 20); /* never more blocks than SMs */
  assert_int_equal(l.blocks, 20);
  assert_int_equal(l.pieces, 4); /* 16 MiB / 20 blocks = 819.2 KiB: 4 pieces of 256 KiB */
  l = default_launch(FAM_FUSED, 1 << 20, 8, TABLE_MAX, 132); /* 128 rows of 8 KiB: 16 blocks of 8 rows */
  assert_int_equal(l.blocks, 16);
  assert_int_equal(l.pieces, 1);
  struct ar_p2p_launch eight = {8, 256, 1}; /* fused blocks=8 on 2 rows of 4096: a block per row */
  l = ar_fused_launch(eight, 2, 4096, 65536);
  assert_int_equal(l.blocks, 2);
  assert_int_equal(l.threads, 256);
  l = ar_fused_launch(eight, 100, 4096, 65536); /* 16 rows a piece; block 0 gets 13 rows: 1 piece */
  assert_int_equal(l.blocks, 8);
  assert_int_equal(l.pieces, 1);
  l = ar_fused_launch(eight, 1000, 4096, 65536); /* 125 rows a block: 8 pieces of 16 rows */
  assert_int_equal(l.pieces, 8);
  l = default_launch(FAM_PULL, 8, 8, 8, 132);
  assert_int_equal(l.blocks, 1);
  assert_int_equal(l.pieces, 1);
  /* A sweep whose largest call is small stages less: 64 KiB chunks, so 1 MiB would take 16 x 1 piece. */
  struct ar_p2p_variant pull = {.algo = AR_CORE_ONESHOT}, push = {.algo = AR_CORE_ONESHOT, .push = 1};
  struct ar_p2p_staging stg = ar_p2p_staging(&pull, 65536, 8);
  assert_int_equal(stg.chunk_bytes, 65536);
  assert_int_equal(stg.piece_bytes, 65536);
  stg = ar_p2p_staging(&push, TABLE_MAX, 8);
  assert_int_equal(stg.piece_bytes, 32640);
  assert_int_equal(stg.push_stride, 32768);
  assert_int_equal(stg.chunk_bytes, 8 * 32768);
  /* every default of the table: 1..32 blocks, 512 threads, the pieces cover the call, and from 64 MiB up
   * every family runs 32 blocks on every rank count (the bug: 1 to 4 blocks whatever the size) */
  for (int f = 0; f < NFAM; f++)
    for (int n = 2; n <= 8; n++)
      for (size_t b = 8; b <= TABLE_MAX; b *= 2) {
        if (f == FAM_FUSED && b < 8192) continue;
        struct ar_p2p_variant v = {.algo = f == FAM_TWOSHOT ? AR_CORE_TWOSHOT : AR_CORE_ONESHOT, .push = f == FAM_PUSH};
        size_t es = f == FAM_FUSED ? 2 : 4;
        size_t piece = ar_chunk_count(ar_p2p_staging(&v, TABLE_MAX, n).piece_bytes, es) * es;
        l = default_launch(f, b, n, TABLE_MAX, TABLE_SMS);
        assert_in_range(l.blocks, 1, 32);
        assert_int_equal(l.threads, 512);
        assert_true((size_t)l.blocks * l.pieces * piece >= b);
        if (b >= ((size_t)64 << 20)) assert_int_equal(l.blocks, 32);
      }
}

/* `test_p2p_plan --table`: the default launch of every family, rank count and size, as markdown. */
static int print_table(void) {
  printf("Default launch (blocks/pieces per block; 512 threads unless @T) of a float call (fused: bf16 rows of "
         "4096), sweep up to 256 MiB, %d SMs per GPU\n\n| family | size |", TABLE_SMS);
  for (int n = 2; n <= 8; n++) printf(" n=%d |", n);
  printf("\n|---|---:|");
  for (int n = 2; n <= 8; n++) printf("---:|");
  printf("\n");
  for (int f = 0; f < NFAM; f++)
    for (size_t b = 8; b <= TABLE_MAX; b *= 2) {
      if (b >= 1 << 20) printf("| %s | %zu MiB |", fam_name[f], b >> 20);
      else if (b >= 1024) printf("| %s | %zu KiB |", fam_name[f], b >> 10);
      else printf("| %s | %zu B |", fam_name[f], b);
      for (int n = 2; n <= 8; n++) {
        if (f == FAM_FUSED && b < 8192) {
          printf(" - |");
          continue;
        }
        struct ar_p2p_launch l = default_launch(f, b, n, TABLE_MAX, TABLE_SMS);
        printf(" %d/%zu", l.blocks, l.pieces);
        if (l.threads != 512) printf("@%d", l.threads);
        printf(" |");
      }
      printf("\n");
    }
  return 0;
}

/* The host reports the first failure of the kernel status: a timeout over the peer aborts it causes, then
 * the earliest generation, then the lowest block; a record still being written is not read. */
static void test_first_failure(void **st) {
  (void)st;
  struct ar_p2p_status s[AR_P2P_MAX_BLOCKS];
  memset(s, 0, sizeof s);
  assert_int_equal(ar_p2p_first_failure(s, AR_P2P_MAX_BLOCKS), -1);
  s[3] = (struct ar_p2p_status){.code = AR_P2P_PEER_ABORT, .peer = 2, .aborter = 1, .gen = 10};
  assert_int_equal(ar_p2p_first_failure(s, AR_P2P_MAX_BLOCKS), 3);
  s[5] = (struct ar_p2p_status){.code = AR_P2P_TIMEOUT, .peer = 1, .gen = 12};
  assert_int_equal(ar_p2p_first_failure(s, AR_P2P_MAX_BLOCKS), 5); /* the timeout, though later and higher */
  s[7] = (struct ar_p2p_status){.code = AR_P2P_TIMEOUT, .peer = 1, .gen = 11};
  assert_int_equal(ar_p2p_first_failure(s, AR_P2P_MAX_BLOCKS), 7); /* the earlier generation */
  s[6] = s[7];
  assert_int_equal(ar_p2p_first_failure(s, AR_P2P_MAX_BLOCKS), 6); /* equal: the lower block */
  assert_int_equal(ar_p2p_first_failure(s, 6), 5);                 /* only the blocks asked about */
  memset(s, 0, sizeof s);
  s[0].code = AR_P2P_WRITING; /* claimed, fields not yet written */
  s[0].gen = 1;
  assert_int_equal(ar_p2p_first_failure(s, AR_P2P_MAX_BLOCKS), -1);
  s[9] = (struct ar_p2p_status){.code = AR_P2P_PEER_ABORT, .peer = 0, .aborter = 3, .gen = 40};
  assert_int_equal(ar_p2p_first_failure(s, AR_P2P_MAX_BLOCKS), 9);
  memset(s, 0, sizeof s); /* generations wrap: 0xfffffffe came before 1 */
  s[0] = (struct ar_p2p_status){.code = AR_P2P_TIMEOUT, .gen = 1};
  s[1] = (struct ar_p2p_status){.code = AR_P2P_TIMEOUT, .gen = 0xfffffffeu};
  assert_int_equal(ar_p2p_first_failure(s, AR_P2P_MAX_BLOCKS), 1);
  char msg[256];
  s[1].peer = 3;
  s[1].pass = AR_P2P_PASS_GATHER;
  ar_p2p_failure_text(&s[1], 1, "p2p-twoshot:reg=0,blocks=auto,threads=auto float size 4096", 2, 13.5, msg, sizeof msg);
  assert_string_equal(msg, "p2p-twoshot:reg=0,blocks=auto,threads=auto float size 4096: rank 2: timeout after 13.5 s in "
                           "pass all-gather (generation 4294967294, block 1) waiting for rank 3");
  struct ar_p2p_status ab = {.code = AR_P2P_PEER_ABORT, .peer = 0, .aborter = 1, .gen = 7, .pass = AR_P2P_PASS_START};
  ar_p2p_failure_text(&ab, 4, "p2p-oneshot:mode=pull,reg=0,blocks=auto,threads=auto half size 8", 0, 13.5, msg,
                      sizeof msg);
  assert_string_equal(msg, "p2p-oneshot:mode=pull,reg=0,blocks=auto,threads=auto half size 8: rank 0: gave up in pass "
                           "start (generation 7, block 4) waiting for rank 0: rank 1 timed out");
}

static void test_access(void **st) {
  (void)st;
  int dev[4] = {0, 1, 2, 3}, acc[16];
  const char *bus[4] = {"0000:01:00.0", "0000:41:00.0", "0000:81:00.0", "0000:c1:00.0"};
  char why[256] = "";
  for (int i = 0; i < 16; i++) acc[i] = 1;
  assert_int_equal(ar_p2p_access_verdict(4, dev, bus, acc, why, sizeof why), 0);
  acc[1 * 4 + 3] = 0; /* GPU 1 cannot reach GPU 3 */
  assert_int_equal(ar_p2p_access_verdict(4, dev, bus, acc, why, sizeof why), -AR_EUNAVAIL);
  assert_string_equal(why, "no P2P between rank 1 (GPU 0000:41:00.0) and rank 3 (GPU 0000:c1:00.0)");
  acc[1 * 4 + 3] = 1;
  acc[2 * 4 + 0] = -1; /* rank 2 cannot see rank 0's GPU */
  assert_int_equal(ar_p2p_access_verdict(4, dev, bus, acc, why, sizeof why), -AR_EUNAVAIL);
  assert_string_equal(why, "cannot check P2P between rank 2 (GPU 0000:81:00.0) and rank 0 (GPU 0000:01:00.0): "
                           "rank 2 does not see that GPU (CUDA_VISIBLE_DEVICES per rank?)");
  int shared[2] = {0, 0}, none[4] = {1, 0, 0, 1}; /* two ranks on one GPU need no peer access */
  assert_int_equal(ar_p2p_access_verdict(2, shared, NULL, none, why, sizeof why), 0);
}

static void test_fused_variant(void **st) {
  (void)st;
  struct ar_fused_variant v;
  char err[256] = "";
  size_t t = 0;
  assert_int_equal(ar_fused_variant_parse("", &v, err, sizeof err), 0);
  assert_int_equal(v.hidden, 4096);
  assert_int_equal(v.unfused, AR_FUSED_FUSED);
  assert_int_equal(ar_fused_variant_parse("hidden=7168,unfused=nccl,eps=1e-5", &v, err, sizeof err), 0);
  assert_int_equal(v.hidden, 7168);
  assert_int_equal(v.unfused, AR_FUSED_NCCL);
  assert_true(v.eps == 1e-5);
  assert_int_equal(ar_fused_variant_parse("hidden=4100", &v, err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, "fused variant hidden=4100: expected a multiple of 8 (one 16-byte vector) in 8..65536");
  assert_int_equal(ar_fused_variant_parse("unfused=mpi", &v, err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, "fused variant unfused=mpi: expected nccl or p2p");
  assert_int_equal(ar_fused_variant_parse("eps=0", &v, err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, "fused variant eps=0: expected a number in (0, 1]");
  char inner[96];
  assert_int_equal(ar_fused_variant_parse("", &v, err, sizeof err), 0);
  assert_int_equal(ar_fused_inner_variant(&v, inner, sizeof inner), 0);
  assert_string_equal(inner, "mode=pull,reg=0");
  assert_int_equal(ar_fused_variant_parse("threads=256,unfused=p2p,blocks=12", &v, err, sizeof err), 0);
  assert_int_equal(v.blocks, 12);
  assert_int_equal(v.threads, 256);
  assert_int_equal(ar_fused_inner_variant(&v, inner, sizeof inner), 0);
  assert_string_equal(inner, "mode=pull,reg=0,blocks=12,threads=256");
  assert_int_equal(ar_fused_variant_parse("threads=100", &v, err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, "fused variant threads=100: expected a multiple of 32 in 64..1024");
  assert_int_equal(ar_fused_variant_parse("blocks=4,unfused=nccl", &v, err, sizeof err), -AR_EINVAL);
  assert_string_equal(err, "fused variant unfused=nccl takes no blocks= or threads= (NCCL picks its own launch; "
                           "they shape the one-shot of fused and unfused=p2p)");
  assert_int_equal(ar_fused_rows(3 * 4096 * 2, AR_BF16, 4096, &t, err, sizeof err), 0);
  assert_int_equal(t, 3);
  assert_int_equal(ar_fused_rows(4096, AR_BF16, 4096, &t, err, sizeof err), -AR_EUNAVAIL);
  assert_string_equal(err, "4096 bytes is not a whole number of rows of hidden=4096 bf16 (8192 bytes each)");
  assert_int_equal(ar_fused_rows(8192, AR_FLOAT, 4096, &t, err, sizeof err), -AR_EUNAVAIL);
  assert_string_equal(err, "fused works on bfloat16 only, not float");
}

#define BF(x) ar_core_f32_to_bf16((float)(x))

static void test_fused_reference(void **st) {
  (void)st;
  enum { H = 8, T = 2 };
  uint16_t x0[T * H], x1[T * H], res[T * H], w[H];
  double out[T * H], rout[T * H];
  for (int h = 0; h < H; h++) {
    w[h] = BF(h + 1);
    x0[h] = BF(1);        /* row 0: 1 + 2 + residual 1 = 4 everywhere: rms 4, out = w */
    x1[h] = BF(2);
    res[h] = BF(1);
    x0[H + h] = BF(h % 2 ? -3 : 3); /* row 1: +-3 + 0 + residual 0 = +-3: rms 3, out = +-w */
    x1[H + h] = BF(0);
    res[H + h] = BF(0);
  }
  const uint16_t *xs[2] = {x0, x1};
  ar_fused_reference(xs, 2, res, w, T, H, 0.0, out, rout);
  for (int h = 0; h < H; h++) {
    assert_true(rout[h] == 4.0);
    assert_true(out[h] == h + 1.0);
    assert_true(rout[H + h] == (h % 2 ? -3.0 : 3.0));
    assert_true(out[H + h] == (h % 2 ? -(h + 1.0) : h + 1.0));
  }
  /* eps enters under the root: row 0 with eps 9 gives rms 5, out = 0.8 w */
  ar_fused_reference(xs, 2, res, w, 1, H, 9.0, out, rout);
  assert_true(out[3] == 4.0 * 4.0 / 5.0);
}

static void test_fused_compare(void **st) {
  (void)st;
  enum { N = 4 };
  double ref_out[N] = {1.0, -2.5, 1e-3, 100.0}, ref_res[N] = {4.0, 4.0, -4.0, 0.5};
  uint16_t go[N], gr[N];
  for (int i = 0; i < N; i++) {
    go[i] = BF(ref_out[i]);
    gr[i] = BF(ref_res[i]);
  }
  assert_int_equal(ar_fused_compare(go, gr, ref_out, ref_res, N), 0);
  go[0] = (uint16_t)(go[0] + 1); /* one bf16 ulp at 1.0 is 2^-7: exactly the tolerance, accepted */
  assert_int_equal(ar_fused_compare(go, gr, ref_out, ref_res, N), 0);
  go[0] = (uint16_t)(go[0] + 1); /* two ulps: outside */
  assert_int_equal(ar_fused_compare(go, gr, ref_out, ref_res, N), 1);
  gr[2] = (uint16_t)(gr[2] + 1); /* residual -4 - 2^-5: relative 2^-7 > 2^-8 */
  assert_int_equal(ar_fused_compare(go, gr, ref_out, ref_res, N), 2);
}

/* RMSNorm by hand: row [1+2, 2+2] + residual 0 = [3, 4], mean square 12.5, out = [3, 4] * w / sqrt(12.5). */
static void test_fused_norm_by_hand(void **st) {
  (void)st;
  uint16_t x0[2] = {BF(1), BF(2)}, x1[2] = {BF(2), BF(2)}, res[2] = {BF(0), BF(0)}, w[2] = {BF(1), BF(2)};
  const uint16_t *xs[2] = {x0, x1};
  double out[2], rout[2];
  ar_fused_reference(xs, 2, res, w, 1, 2, 0.0, out, rout);
  assert_true(rout[0] == 3.0 && rout[1] == 4.0);
  assert_true(fabs(out[0] - 0.84852813742385702) < 1e-15); /* 3 / 3.5355339059327378 */
  assert_true(fabs(out[1] - 2.2627416997969521) < 1e-15);  /* 8 / 3.5355339059327378 */
  /* residual [-3, 0] cancels row 0: [0, 4], mean square 8, eps 1: out = [0, 8 / 3] */
  res[0] = BF(-3);
  ar_fused_reference(xs, 2, res, w, 1, 2, 1.0, out, rout);
  assert_true(rout[0] == 0.0 && out[0] == 0.0);
  assert_true(fabs(out[1] - 8.0 / 3.0) < 1e-15);
}

static uint16_t bf_up(uint16_t b, int ulps) { return (uint16_t)(b + ulps); } /* positive values */

/* The tolerances are the derivation's multiples of the bf16 unit roundoff u = 2^-9, a correctly rounded value
 * always passes, and one bf16 step past the bound fails: residual 1 ulp off (> 2u), normalised 2 ulps off
 * (> 4u), while 1 ulp of the normalised output (<= 4u) passes. */
static void test_fused_tolerance_derivation(void **st) {
  (void)st;
  const double u = 1.0 / 512.0;
  assert_true(AR_FUSED_TOL_RES == 2 * u);
  assert_true(AR_FUSED_TOL_OUT == 4 * u);
  for (int k = 0; k < 2000; k++) {
    double ref = (k + 1) * 0.3718 + (k % 7) * 1e-3; /* not bf16 values: the outputs are rounded */
    uint16_t r = BF(ref), one[1], two[1];
    double rr[1] = {ref}, ro[1] = {ref};
    assert_int_equal(ar_fused_compare(&r, &r, ro, rr, 1), 0);
    double v = ar_core_bf16_to_f32(r); /* an exact bf16 value as the reference */
    rr[0] = ro[0] = v;
    one[0] = bf_up(r, 1), two[0] = bf_up(r, 2);
    assert_int_equal(ar_fused_compare(one, &r, ro, rr, 1), 0); /* out 1 ulp: <= 4u */
    assert_int_equal(ar_fused_compare(two, &r, ro, rr, 1), 1); /* out 2 ulps: > 4u */
    assert_int_equal(ar_fused_compare(&r, one, ro, rr, 1), 1); /* res 1 ulp: > 2u */
  }
}

/* The backend's check: patterns of 2 ranks as inputs, residual = the sum pattern of rank 2, weight = the
 * product pattern of rank 3, built here by hand; the reference rounded to bf16 passes, a wrong element fails. */
static void test_fused_check_host(void **st) {
  (void)st;
  enum { H = 16, T = 3, N = H * T, R = 2 };
  uint16_t x[R][N], res[N], w[H], go[N], gr[N];
  for (int r = 0; r < R; r++) ar_host_fill(x[r], N, AR_BF16, AR_SUM, r, R);
  ar_host_fill(res, N, AR_BF16, AR_SUM, 2, R);
  ar_host_fill(w, H, AR_BF16, AR_PROD, 3, R);
  int neg = 0, two = 0;
  for (int h = 0; h < H; h++) neg += ar_core_bf16_to_f32(w[h]) == -1.0f, two += ar_core_bf16_to_f32(w[h]) == 2.0f;
  assert_true(neg + two > 0); /* the weight is not all ones */
  double out[H], rout[H];
  for (int t = 0; t < T; t++) {
    const uint16_t *xs[R] = {x[0] + t * H, x[1] + t * H};
    ar_fused_reference(xs, R, res + t * H, w, 1, H, 1e-6, out, rout);
    for (int h = 0; h < H; h++) go[t * H + h] = BF(out[h]), gr[t * H + h] = BF(rout[h]);
  }
  assert_int_equal(ar_fused_check_host(go, gr, N, H, 1e-6, R), 0);
  go[H + 5] ^= 0x8000; /* a sign flip in row 1 */
  assert_int_equal(ar_fused_check_host(go, gr, N, H, 1e-6, R), 1);
  go[H + 5] ^= 0x8000;
  gr[2 * H] = BF(ar_core_bf16_to_f32(gr[2 * H]) + 3.0f); /* residual output off by 3 */
  assert_int_equal(ar_fused_check_host(go, gr, N, H, 1e-6, R), 1);
  assert_true(ar_fused_check_host(go, gr, N, H, 1e-6, 65) == UINT64_MAX);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--table")) return print_table();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_variant_defaults), cmocka_unit_test(test_variant_errors),
      cmocka_unit_test(test_shape),            cmocka_unit_test(test_launch_whole_message),
      cmocka_unit_test(test_first_failure),    cmocka_unit_test(test_access),
      cmocka_unit_test(test_fused_variant),    cmocka_unit_test(test_fused_reference),
      cmocka_unit_test(test_fused_compare),    cmocka_unit_test(test_fused_norm_by_hand),
      cmocka_unit_test(test_fused_tolerance_derivation), cmocka_unit_test(test_fused_check_host),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
