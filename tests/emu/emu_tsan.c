/* emu_tsan.c — every rank's grid of the custom GPU kernels as threads of one process (built with
 * -fsanitize=thread): thousands of back-to-back calls per rank with no host barrier, checked bit for bit. */
#include "ar.h"
#include "ar_core.h"
#include "ar_pattern.h"
#include "backends/p2p/p2p_plan.h"
#include "dtype.h"
#include "ar_emu.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXR 8
#define STALL_S 1.0            /* the waits' bound (timeout) when a rank never launches */
#define THREADS 64
#define SMS 3                  /* emulated SMs: blocks per call 1..3 */
#define CHUNK 1024             /* staging bytes per block and generation: sizes span a few pieces */
#define MAXCOUNT (4 * CHUNK)   /* elements of the largest call (int32: 4 pieces of every block) */
#define GEN_START (0u - 9u)    /* flags start just below the 32-bit wrap: every set crosses it early */

struct spec {                  /* one case of the matrix */
  const char *name;
  int algo, push, reg, nranks, islands, fused;
};

struct world {
  const struct spec *sp;
  int n, calls, stall; /* stall: this rank never launches (-1: none) */
  pthread_barrier_t failed_all; /* stall: the live ranks, before the call queued behind the failed one */
  uint64_t seed;
  struct ar_core_layout lay;
  size_t push_stride;
  struct ar_islands isl;
  char *region[MAXR];
  char *pool[MAXR];    /* reg=1: each rank's in/out buffers, peers read them */
  void *acc[MAXR];
  struct ar_p2p_status status[MAXR][AR_P2P_MAX_BLOCKS];
  void *residual, *weight, *res_out[MAXR];
  struct ar_emu_dev *dev[MAXR];
  unsigned long long wrong[MAXR], bad[MAXR];
  char msg[MAXR][256];
};

struct call {
  int dt, op, inplace, blocks, misalign;
  size_t count;
  uint64_t salt;
};

static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* Call c of a case: the same on every rank (derived from the seed), varied in everything the kernels branch on. */
static struct call call_of(const struct world *w, int c) {
  struct call k;
  uint64_t h = mix(w->seed ^ mix((uint64_t)c));
  k.dt = w->sp->fused ? AR_BF16 : (int)(h % AR_NDTYPES);
  k.op = w->sp->fused ? AR_SUM : (int)((h >> 8) % AR_NOPS);
  k.inplace = (h >> 16 & 3) == 0;
  k.blocks = 1 + (int)((h >> 20) % SMS); /* the launch shape changes between calls */
  k.misalign = !w->sp->fused && (h >> 24 & 7) == 0; /* buffers off by one element: the scalar paths */
  size_t es = ar_core_esize(k.dt), most = (size_t)k.blocks * 3 * CHUNK / es;
  if (most > MAXCOUNT) most = MAXCOUNT;
  uint64_t r = h >> 32;
  if (w->sp->fused) { /* whole rows of 64: 1 to 20 rows */
    k.count = 64 * (1 + r % 20);
  } else {
    switch (r & 3) {
    case 0: k.count = 1 + (r >> 2) % 40; break;                  /* a few elements, odd tails */
    case 1: k.count = 1 + (r >> 2) % (CHUNK / es + 64); break;    /* around one piece */
    default: k.count = 1 + (r >> 2) % most; break;                /* several pieces per block */
    }
  }
  k.salt = w->sp->fused ? 0 : (h >> 5) % 100000; /* fused: ar_fused_check_host takes the unsalted pattern */
  return k;
}

struct rank_arg {
  struct world *w;
  int r;
};

/* The args as bench/backends/emu/emu.c (and p2p.c) build them. */
static void args_of(const struct world *w, int r, const struct call *k, const void *in, void *out, size_t off,
                    struct ar_p2p_args *a) {
  memset(a, 0, sizeof *a);
  size_t es = ar_core_esize(k->dt);
  for (int q = 0; q < w->n; q++) {
    a->region[q] = w->region[q];
    a->peer_in[q] = w->sp->reg ? w->pool[q] + off : NULL;
  }
  a->in = in;
  a->out = out;
  a->acc = w->acc[r];
  a->acc_stride = 2 * w->lay.chunk_bytes;
  a->status = (struct ar_p2p_status *)w->status[r];
  a->lay = w->lay;
  a->isl = w->isl;
  a->count = k->count;
  size_t piece = w->sp->push ? w->push_stride - AR_CORE_LINE : w->lay.chunk_bytes;
  a->chunk = ar_chunk_count(piece, es);
  a->push = w->sp->push;
  a->push_stride = w->push_stride;
  a->timeout_ns = (unsigned long long)((w->stall >= 0 ? STALL_S : 120.0) * 1e9);
  a->rank = r;
  a->n = w->n;
  a->algo = w->sp->algo;
  a->dtype = k->dt;
  a->op = k->op;
  a->reg = w->sp->reg;
  a->vec = !(((uintptr_t)in | (uintptr_t)out | off) % AR_CORE_ALIGN);
}

static int status_ok(struct world *w, int r, int c) {
  for (int b = 0; b < AR_P2P_MAX_BLOCKS; b++) {
    uint32_t code = __atomic_load_n(&w->status[r][b].code, __ATOMIC_ACQUIRE);
    if (code == AR_P2P_OK) continue;
    snprintf(w->msg[r], sizeof w->msg[r], "rank %d call %d block %d: status %u (peer %u, pass %u, gen %u)", r, c, b,
             code, w->status[r][b].peer, w->status[r][b].pass, w->status[r][b].gen);
    return 0;
  }
  return 1;
}

static void *rank_main(void *p) {
  struct rank_arg *ra = p;
  struct world *w = ra->w;
  int r = ra->r, n = w->n;
  size_t bufbytes = (size_t)(MAXCOUNT + 8) * 4;
  char *mem = w->sp->reg ? w->pool[r] : aligned_alloc(64, 2 * bufbytes);
  char *expect = malloc(bufbytes), *tmp = malloc(bufbytes);
  int queued = 0;
  for (int c = 0; c < w->calls && r != w->stall; c++) {
    struct call k = call_of(w, c);
    size_t es = ar_core_esize(k.dt), off = k.misalign ? es : 0;
    char *in = mem + off, *out = k.inplace ? in : mem + bufbytes + off;
    /* my input of this call: the pattern at element i + salt, so a stale read of an earlier call shows */
    for (size_t i = 0; i < k.count; i++)
      ar_elem_set(in, (enum ar_dtype)k.dt, i, (double)ar_pat_value(k.dt, k.op, r, n, i + k.salt));
    if (!k.inplace) memset(out, 0xff, k.count * es);
    memset(out + k.count * es, 0xa5, 16); /* a guard: nothing may be written past the call */
    struct ar_p2p_args a;
    args_of(w, r, &k, in, out, off, &a);
    struct ar_p2p_variant v = {w->sp->algo, w->sp->push, w->sp->reg, k.blocks, THREADS};
    size_t call = k.count * es < a.chunk * es ? k.count * es : a.chunk * es;
    struct ar_p2p_shape s = ar_p2p_shape(&v, call, n, SMS);
    int rc;
    if (w->sp->fused) {
      a.residual = w->residual;
      a.weight = w->weight;
      a.res_out = w->res_out[r];
      a.hidden = 64;
      a.eps = 1e-6f;
      size_t tokens = k.count / 64;
      rc = ar_emu_fused(w->dev[r], &a, 1, (size_t)s.blocks < tokens ? s.blocks : (int)tokens, s.threads);
    } else {
      rc = ar_emu_p2p(w->dev[r], &a, s.blocks, s.threads);
    }
    if (rc) {
      snprintf(w->msg[r], sizeof w->msg[r], "rank %d call %d: launch failed", r, c);
      w->bad[r]++;
      break;
    }
    if (!status_ok(w, r, c)) {
      w->bad[r]++;
      /* A GPU runs the kernel queued behind a failed one too: it must leave the first failure's record
       * as it is (the kernel claims a record only while its code is 0), so one more call runs. */
      if (w->stall >= 0 && !queued++) {
        pthread_barrier_wait(&w->failed_all); /* every live rank gave up: nothing of call c is read any more */
        continue;
      }
      break;
    }
    unsigned long long bad;
    if (w->sp->fused) {
      bad = ar_fused_check_host((const uint16_t *)out, w->res_out[r], k.count, 64, 1e-6, n);
    } else {
      for (size_t i = 0; i < k.count; i++)
        ar_elem_set(expect, (enum ar_dtype)k.dt, i, (double)ar_pat_expect(k.dt, k.op, n, i + k.salt));
      bad = 0;
      for (size_t i = 0; i < k.count; i++) bad += memcmp(out + i * es, expect + i * es, es) != 0;
    }
    for (size_t i = 0; i < 16; i++) bad += (unsigned char)out[k.count * es + i] != 0xa5;
    if (bad && !w->wrong[r])
      snprintf(w->msg[r], sizeof w->msg[r], "rank %d call %d (dtype %d op %d count %zu blocks %d%s%s): %llu wrong", r,
               c, k.dt, k.op, k.count, s.blocks, k.inplace ? " in place" : "", k.misalign ? " misaligned" : "", bad);
    w->wrong[r] += bad;
  }
  if (w->stall >= 0 && r != w->stall && !queued) pthread_barrier_wait(&w->failed_all); /* left early */
  if (!w->sp->reg) free(mem);
  free(expect);
  free(tmp);
  return NULL;
}

/* Regions and flags as the backends set them up, except that generations start just below the wrap. */
static int world_init(struct world *w) {
  const struct spec *sp = w->sp;
  size_t chunk = CHUNK;
  if (sp->push) {
    w->push_stride = ar_core_push_stride(chunk);
    chunk = (size_t)w->n * w->push_stride;
  }
  ar_core_layout_init_sets(&w->lay, sp->algo, chunk, SMS);
  int key[AR_CORE_MAX_RANKS];
  ar_islands_even_keys(key, w->n, sp->islands > 0 ? sp->islands : 1);
  ar_islands_build(&w->isl, key, w->n);
  size_t count = (size_t)64 * 20;
  if (sp->fused) {
    w->residual = aligned_alloc(64, count * 2);
    w->weight = aligned_alloc(64, 64 * 2);
    ar_host_fill(w->residual, count, AR_BF16, AR_SUM, AR_FUSED_RESIDUAL_RANK(w->n), w->n);
    ar_host_fill(w->weight, 64, AR_BF16, AR_PROD, AR_FUSED_WEIGHT_RANK(w->n), w->n);
  }
  for (int r = 0; r < w->n; r++) {
    w->region[r] = aligned_alloc(AR_CORE_LINE, ar_core_round(w->lay.region_bytes, AR_CORE_LINE));
    memset(w->region[r], 0, w->lay.region_bytes);
    for (int b = 0; b < w->lay.nsets; b++)
      for (int f = 0; f < AR_CORE_NFLAGS; f++)
        *ar_core_flag_of_set(w->region[r], b, f) = f == AR_FLAG_ABORT ? 0u : GEN_START;
    for (int b = 0; sp->push && b < w->lay.nsets; b++)
      for (int p = 0; p < 2; p++)
        for (int q = 0; q < w->n; q++)
          *(uint32_t *)(w->region[r] + w->lay.in_off[p] + (size_t)b * w->lay.set_stride + (size_t)q * w->push_stride) =
              GEN_START;
    w->acc[r] = aligned_alloc(64, SMS * 2 * w->lay.chunk_bytes);
    w->pool[r] = sp->reg ? aligned_alloc(64, 2 * (size_t)(MAXCOUNT + 8) * 4) : NULL;
    if (sp->fused) w->res_out[r] = aligned_alloc(64, count * 2);
    w->dev[r] = ar_emu_dev_open(r, w->seed ? mix(w->seed + (uint64_t)r) : 0, 16);
    if (!w->region[r] || !w->acc[r] || !w->dev[r]) return -1;
  }
  return 0;
}

static void world_fini(struct world *w) {
  for (int r = 0; r < w->n; r++) {
    ar_emu_dev_close(w->dev[r]);
    free(w->region[r]);
    free(w->acc[r]);
    free(w->pool[r]);
    free(w->res_out[r]);
  }
  free(w->residual);
  free(w->weight);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One case: n rank threads, calls each. Returns 0 when every call of every rank was right. */
static int run_case(const struct spec *sp, int n, int calls, uint64_t seed, int stall) {
  struct world *w = calloc(1, sizeof *w);
  w->sp = sp;
  w->n = n;
  w->calls = calls;
  w->seed = seed;
  w->stall = stall;
  if (world_init(w)) {
    fprintf(stderr, "emu_tsan: %s: out of memory\n", sp->name);
    return 1;
  }
  pthread_t t[MAXR];
  struct rank_arg ra[MAXR];
  if (stall >= 0) pthread_barrier_init(&w->failed_all, NULL, (unsigned)(n - 1));
  double t0 = now_s();
  for (int r = 0; r < n; r++) {
    ra[r].w = w, ra[r].r = r;
    pthread_create(&t[r], NULL, rank_main, &ra[r]);
  }
  for (int r = 0; r < n; r++) pthread_join(t[r], NULL);
  double took = now_s() - t0;
  if (stall >= 0) pthread_barrier_destroy(&w->failed_all);
  int rc = 0;
  if (stall >= 0) { /* every other rank ends in a timeout or a peer's abort, its abort flag raised on a timeout */
    for (int r = 0; r < n; r++) {
      if (r == stall) continue;
      /* A block that timed out names a peer, its pass and generation, and raised its set's abort flag; one that
       * gave up on a peer's abort names the aborter. Every waiting rank has at least one such block. */
      int seen = 0;
      for (int b = 0; b < AR_P2P_MAX_BLOCKS; b++) {
        const struct ar_p2p_status *st = &w->status[r][b];
        uint32_t abort_flag = *ar_core_flag_of_set(w->region[r], b, AR_FLAG_ABORT);
        if (st->code == AR_P2P_OK) continue;
        int good = st->code == AR_P2P_TIMEOUT ? abort_flag == 1u && st->peer < (uint32_t)n && st->peer != (uint32_t)r
                   : st->code == AR_P2P_PEER_ABORT ? st->aborter < (uint32_t)n && abort_flag == 0u
                                                    : 0;
        if (!good) {
          fprintf(stderr, "emu_tsan: %s: stall: rank %d block %d: status %u peer %u aborter %u, abort flag %u\n",
                  sp->name, r, b, st->code, st->peer, st->aborter, abort_flag);
          rc = 1;
        }
        seen = 1;
      }
      if (!seen) {
        fprintf(stderr, "emu_tsan: %s: stall: rank %d has no timeout or abort status (%s)\n", sp->name, r, w->msg[r]);
        rc = 1;
      }
    }
    /* One bounded wait (STALL_S) per rank: a hang detector, not a speed. A wait that never gives up hangs the join
     * (meson's timeout); 60 x STALL_S catches a bound tens of times too long, which no load on a 2-core box under
     * TSan adds (issue 50 item 12: this was STALL_S + 10 s). */
    if (took > 60 * STALL_S) {
      fprintf(stderr, "emu_tsan: %s: stall: the ranks took %.1f s, bound %.0f s\n", sp->name, took, 60 * STALL_S);
      rc = 1;
    }
    printf("%-22s n=%d stall rank %d: every other rank gave up in %.2f s%s\n", sp->name, n, stall, took,
           rc ? " (FAILED)" : "");
  } else {
    unsigned long long wrong = 0, bad = 0;
    for (int r = 0; r < n; r++) {
      wrong += w->wrong[r], bad += w->bad[r];
      if (w->msg[r][0]) fprintf(stderr, "emu_tsan: %s n=%d: %s\n", sp->name, n, w->msg[r]);
    }
    rc = wrong || bad;
    printf("%-22s n=%d: %d calls per rank in %.2f s, %llu wrong, %llu failed\n", sp->name, n, calls, took, wrong, bad);
  }
  fflush(stdout);
  world_fini(w);
  free(w);
  return rc;
}

/* kernels/ar_fill.cu on the emulated GPU: its fill is the host's bit for bit (every dtype and op, 1..1000
 * elements), its check finds 0 wrong in the exact result and exactly the elements planted wrong. */
static int fill_check(void) {
  struct ar_emu_dev *d = ar_emu_dev_open(0, 7, 16);
  size_t n = 1000;
  char *a = malloc(n * 4), *b = malloc(n * 4);
  int bad = 0;
  for (int dt = 0; dt < AR_NDTYPES && d && a && b; dt++)
    for (int op = 0; op < AR_NOPS; op++) {
      size_t cnt = 1 + (size_t)(dt * 5 + op) * 47 % n, es = ar_core_esize(dt);
      ar_emu_fill(d, a, cnt, dt, op, 2, 5);
      ar_host_fill(b, cnt, (enum ar_dtype)dt, (enum ar_op)op, 2, 5);
      bad += memcmp(a, b, cnt * es) != 0;
      for (size_t i = 0; i < cnt; i++)
        ar_elem_set(a, (enum ar_dtype)dt, i, (double)ar_pat_expect(dt, op, 5, i));
      unsigned long long wrong = 0, want = cnt > 2 ? 2 : 0;
      if (want) memset(a + es, 0x7f, es), memset(a + (cnt - 1) * es, 0x7f, es);
      ar_emu_check(d, a, cnt, dt, op, 5, &wrong);
      bad += wrong != want;
    }
  ar_emu_dev_close(d);
  free(a), free(b);
  printf("fill/check kernels: %s\n", bad || !d ? "FAILED" : "bit-exact fill, exact counts");
  return bad || !d;
}

static const struct spec SPECS[] = {
  {"oneshot-pull", AR_CORE_ONESHOT, 0, 0, 0, 0, 0},
  {"oneshot-pull-reg", AR_CORE_ONESHOT, 0, 1, 0, 0, 0},
  {"oneshot-push", AR_CORE_ONESHOT, 1, 0, 0, 0, 0},
  {"twoshot", AR_CORE_TWOSHOT, 0, 0, 0, 0, 0},
  {"twoshot-reg", AR_CORE_TWOSHOT, 0, 1, 0, 0, 0},
  {"staged", AR_CORE_STAGED, 0, 0, 0, 0, 0},
  {"staged-reg", AR_CORE_STAGED, 0, 1, 0, 0, 0},
  {"islands", AR_CORE_ISLANDS, 0, 0, 0, 2, 0},
  {"islands-reg", AR_CORE_ISLANDS, 0, 1, 0, 2, 0},
  {"fused", AR_CORE_ONESHOT, 0, 0, 0, 0, 1},
};
#define NSPECS (int)(sizeof SPECS / sizeof SPECS[0])

static void usage(void) {
  fprintf(stderr, "usage: emu_tsan [--calls N] [--seed N] [--ranks LIST] [--case NAME] [--stall]\n"
                  "  runs every case (or --case NAME) over every rank count of LIST (default 1,2,3,4,5,8): n ranks\n"
                  "  make 2N/(n+1) back-to-back calls each (default N 200); --stall: the last rank never launches,\n"
                  "  every other one must give up within the bound with its status and abort flag set\n");
}

int main(int argc, char **argv) {
  int calls = 200, stall = 0;
  uint64_t seed = 1;
  const char *only = NULL, *ranks = "1,2,3,4,5,8";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--calls") && i + 1 < argc) calls = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--ranks") && i + 1 < argc) ranks = argv[++i];
    else if (!strcmp(argv[i], "--case") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--stall")) stall = 1;
    else {
      usage();
      return 2;
    }
  }
  if (calls < 1) {
    fprintf(stderr, "emu_tsan: --calls %d: expected a positive number\n", calls);
    return 2;
  }
  int fails = only || stall ? 0 : fill_check(), cases = 0;
  for (int s = 0; s < NSPECS; s++) {
    if (only && strcmp(only, SPECS[s].name)) continue;
    char list[64];
    snprintf(list, sizeof list, "%s", ranks);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      int n = atoi(tok);
      if (n < 1 || n > MAXR) {
        fprintf(stderr, "emu_tsan: --ranks %s: expected rank counts in 1..%d\n", ranks, MAXR);
        return 2;
      }
      if (SPECS[s].islands > n) continue;
      if (stall && n < 2) continue;
      cases++;
      int k = calls * 2 / (n + 1) > 10 ? calls * 2 / (n + 1) : 10; /* n ranks cost about n times one */
      fails += run_case(&SPECS[s], n, stall ? 3 : k, seed + (uint64_t)s * 1000 + (uint64_t)n, stall ? n - 1 : -1);
    }
  }
  if (!cases) {
    fprintf(stderr, "emu_tsan: no case matches --case %s (known: oneshot-pull, ..., fused)\n", only ? only : "");
    return 2;
  }
  printf("emu_tsan: %d cases, %d failed\n", cases, fails);
  return fails ? 1 : 0;
}
