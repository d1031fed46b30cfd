/* ar_core.h — the custom allreduce algorithms written once: partition, pass schedules, islands,
 * generation flags and the shared-region layout, compiled by cc (C11, host) and nvcc (CUDA C++). */
#ifndef AR_CORE_H
#define AR_CORE_H

#include "ar_core_types.h"

#if defined(__CUDACC__)
#define AR_CORE_FN static __host__ __device__ __forceinline__
#else
#define AR_CORE_FN static inline
#endif
#define AR_CORE_RESTRICT __restrict__

#define AR_CORE_LINE 128      /* every flag owns a line of this many bytes */
#define AR_CORE_ALIGN 16      /* slices start on 16-byte boundaries (one vector load) */
#define AR_CORE_MAX_RANKS 64  /* ranks (GPUs or processes) that share one set of regions */
/* First generation: just below the 32-bit wrap, so every run crosses it early. */
#define AR_CORE_GEN0 (0u - 4096u)

/* Algorithms; numbers are stable (used in records and by the GPU side). */
enum ar_core_algo { AR_CORE_ONESHOT = 0, AR_CORE_TWOSHOT, AR_CORE_STAGED, AR_CORE_ISLANDS, AR_CORE_NALGOS };

/* Flags of one rank, each on its own line at the start of the rank's region. A rank writes only its
 * own flags and regions (plain stores, release); peers only read them (acquire). */
enum ar_core_flag {
  AR_FLAG_START = 0, /* my input of generation g is in my `in` region */
  AR_FLAG_MID,       /* (islands) my island partial of g is in my `part` region */
  AR_FLAG_END,       /* my reduced slice of g is in my `res` region */
  AR_FLAG_ABORT,     /* nonzero: I gave up (timeout); peers stop waiting for me */
  AR_FLAG_INLINE0,   /* (one-shot, small) generation g, and from byte AR_CORE_INLINE_OFF my input of g, */
  AR_FLAG_INLINE1,   /* for even and odd g: a peer gets flag and data in one line transfer */
  AR_CORE_NFLAGS
};
#define AR_CORE_INLINE_OFF 16
#define AR_CORE_INLINE_BYTES (AR_CORE_LINE - AR_CORE_INLINE_OFF)
/* A generation flag must be rewritten at least every 2^30 generations to stay inside the wrap-safe
 * window: a one-shot rank posts both START and its INLINE line of g on every chunk, used or not. */

/* ---- generations: 32-bit counters, one per chunk of a call, compared across the wrap ---- */

/* Has a flag holding `flag` reached generation `gen`? True for gen..gen+2^31-1. */
AR_CORE_FN int ar_gen_reached(uint32_t flag, uint32_t gen) { return (uint32_t)(flag - gen) < 0x80000000u; }

/* ---- memory-order hooks: release store / acquire load of a flag, system scope on the GPU ---- */

#if defined(__CUDA_ARCH__)
AR_CORE_FN void ar_flag_store(uint32_t *p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
AR_CORE_FN uint32_t ar_flag_load(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
#else
/* AR_CORE_FLAG_HOOK(): run before every host flag store and load; the CPU execution of the GPU kernels
 * (standin/kernels/) defines it to inject seeded random delays, everyone else gets nothing. */
#ifndef AR_CORE_FLAG_HOOK
#define AR_CORE_FLAG_HOOK()
#endif
AR_CORE_FN void ar_flag_store(uint32_t *p, uint32_t v) {
  AR_CORE_FLAG_HOOK();
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
AR_CORE_FN uint32_t ar_flag_load(const uint32_t *p) {
  AR_CORE_FLAG_HOOK();
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
#endif

/* ---- partition: slices of a chunk, 16-byte aligned, balanced to within one 16-byte unit ---- */

struct ar_span {
  size_t begin, end; /* elements, [begin, end) */
};

AR_CORE_FN size_t ar_core_unit(size_t esize) { return esize && esize < AR_CORE_ALIGN ? AR_CORE_ALIGN / esize : 1; }

/* Slice idx of nparts over count elements of esize bytes. Every slice begins on a 16-byte boundary
 * (relative to the chunk); slices are disjoint, ordered by idx and cover [0, count); when count has
 * fewer 16-byte units than nparts, the last slices are empty. */
AR_CORE_FN struct ar_span ar_part(size_t count, size_t esize, int nparts, int idx) {
  size_t unit = ar_core_unit(esize), units = (count + unit - 1) / unit;
  size_t n = nparts > 0 ? (size_t)nparts : 1, i = (size_t)idx;
  size_t base = units / n, extra = units % n;
  size_t b = (i * base + (i < extra ? i : extra)) * unit;
  size_t e = b + (base + (i < extra ? 1 : 0)) * unit;
  struct ar_span s;
  s.begin = b < count ? b : count;
  s.end = e < count ? e : count;
  return s;
}

/* Which of nparts slices holds element elem (elem < count); the inverse of ar_part. */
AR_CORE_FN int ar_part_owner(size_t count, size_t esize, int nparts, size_t elem) {
  size_t unit = ar_core_unit(esize), units = (count + unit - 1) / unit, u = elem / unit;
  size_t n = nparts > 0 ? (size_t)nparts : 1, base = units / n, extra = units % n;
  size_t big = extra * (base + 1); /* units held by the first `extra` slices */
  if (u < big) return (int)(u / (base + 1));
  return base ? (int)(extra + (u - big) / base) : (int)n - 1;
}

/* Elements per chunk for chunk_bytes of staging space: a whole number of 16-byte units, >= 1 unit. */
AR_CORE_FN size_t ar_chunk_count(size_t chunk_bytes, size_t esize) {
  size_t unit = ar_core_unit(esize), c = chunk_bytes / esize / unit * unit;
  return c ? c : unit;
}

/* ---- pass schedules ---- */

/* Staged two-shot: in pass p (0..n-2) rank r sends to (r+1+p) mod n and receives from (r-1-p) mod n,
 * so each rank has exactly one outbound and one inbound peer per pass. */
AR_CORE_FN int ar_staged_to(int n, int r, int p) { return (r + 1 + p) % n; }
AR_CORE_FN int ar_staged_from(int n, int r, int p) { return ((r - 1 - p) % n + n) % n; }

/* Passes of an algorithm, for progress and error messages. */
AR_CORE_FN int ar_core_npasses(int algo, int n) {
  switch (algo) {
  case AR_CORE_ONESHOT: return 1;
  case AR_CORE_TWOSHOT: return 2;
  case AR_CORE_STAGED: return n > 1 ? 2 * (n - 1) : 2;
  default: return 3;
  }
}

AR_CORE_FN const char *ar_core_algo_name(int algo) {
  switch (algo) {
  case AR_CORE_ONESHOT: return "oneshot";
  case AR_CORE_TWOSHOT: return "twoshot";
  case AR_CORE_STAGED: return "staged";
  case AR_CORE_ISLANDS: return "islands";
  default: return "?";
  }
}

/* ---- islands: two-level groups (one per NUMA node), ordered by their lowest rank ---- */

struct ar_islands {
  int n;                            /* islands */
  int nranks;
  int of[AR_CORE_MAX_RANKS];        /* island of each rank */
  int pos[AR_CORE_MAX_RANKS];       /* position of each rank inside its island */
  int size[AR_CORE_MAX_RANKS];      /* ranks per island */
  int first[AR_CORE_MAX_RANKS];     /* index into members[] of each island's first rank */
  int members[AR_CORE_MAX_RANKS];   /* ranks grouped by island, ascending inside each */
};

/* Group ranks by key (e.g. NUMA node; any int): ranks with equal keys form one island. Islands are
 * numbered by their lowest rank. Returns 0, or -1 when nranks is out of range. */
AR_CORE_FN int ar_islands_build(struct ar_islands *is, const int *key, int nranks) {
  if (nranks < 1 || nranks > AR_CORE_MAX_RANKS) return -1;
  int lead[AR_CORE_MAX_RANKS]; /* lowest rank of each island */
  is->n = 0;
  is->nranks = nranks;
  for (int r = 0; r < nranks; r++) {
    int i = 0;
    while (i < is->n && key[lead[i]] != key[r]) i++;
    if (i == is->n) {
      lead[i] = r;
      is->size[i] = 0;
      is->n++;
    }
    is->of[r] = i;
    is->pos[r] = is->size[i]++;
  }
  int at = 0;
  for (int i = 0; i < is->n; i++) {
    is->first[i] = at;
    at += is->size[i];
  }
  for (int r = 0; r < nranks; r++) is->members[is->first[is->of[r]] + is->pos[r]] = r;
  return 0;
}

/* Keys for n islands forced over nranks ranks: contiguous, sizes differing by at most one. */
AR_CORE_FN void ar_islands_even_keys(int *key, int nranks, int n) {
  for (int r = 0; r < nranks; r++) key[r] = (int)((long)r * n / nranks);
}

/* Rank at position pos of island i. */
AR_CORE_FN int ar_island_rank(const struct ar_islands *is, int i, int pos) { return is->members[is->first[i] + pos]; }

/* The slice of a chunk that rank r reduces inside its island. */
AR_CORE_FN struct ar_span ar_island_slice(const struct ar_islands *is, size_t count, size_t esize, int r) {
  return ar_part(count, esize, is->size[is->of[r]], is->pos[r]);
}

/* The rank of island i whose island slice holds element elem, and where that slice ends. */
AR_CORE_FN int ar_island_owner(const struct ar_islands *is, size_t count, size_t esize, int i, size_t elem,
                               size_t *slice_end) {
  int pos = ar_part_owner(count, esize, is->size[i], elem);
  *slice_end = ar_part(count, esize, is->size[i], pos).end;
  return ar_island_rank(is, i, pos);
}

/* ---- the region each rank shares: flags, then two parity slots of staging buffers ---- */

/* Buffers of one slot, each chunk_bytes: `in` (copy of my input), `part` (islands: my island
 * partial), `res` (my reduced slice). Generation g uses slot g & 1, so a rank may write slot s for
 * g+2 once it has seen every reader of slot s post a flag of generation g+1. */
struct ar_core_layout {
  size_t chunk_bytes;
  int nsets;                                 /* flag sets and slot sets (GPU: one each per block) */
  size_t set_stride;                         /* bytes of one slot set */
  size_t in_off[2], part_off[2], res_off[2]; /* byte offsets from the region base; 0 = unused */
  size_t region_bytes;
};

AR_CORE_FN size_t ar_core_round(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* The region: nsets flag sets (AR_CORE_NFLAGS lines each), then nsets private slot sets of
 * set_stride bytes (two parity slots each). The host runs one set. A GPU call runs its blocks side by
 * side, block b with flag set b and slot set b, so a block's slot parity rule involves only its own flags
 * and blocks never wait on each other, only on the same block of their peers; the offsets in in_off,
 * part_off and res_off are those of slot set 0 (add set * set_stride for set b). */
AR_CORE_FN void ar_core_layout_init_sets(struct ar_core_layout *l, int algo, size_t chunk_bytes, int nsets) {
  size_t cb = ar_core_round(chunk_bytes ? chunk_bytes : AR_CORE_ALIGN, AR_CORE_LINE);
  size_t flags = (size_t)(nsets > 0 ? nsets : 1) * AR_CORE_NFLAGS * AR_CORE_LINE, at = flags;
  l->nsets = nsets > 0 ? nsets : 1;
  l->chunk_bytes = cb;
  for (int s = 0; s < 2; s++) {
    l->in_off[s] = at;
    at += cb;
    l->part_off[s] = 0;
    if (algo == AR_CORE_ISLANDS) {
      l->part_off[s] = at;
      at += cb;
    }
    l->res_off[s] = 0;
    if (algo != AR_CORE_ONESHOT) {
      l->res_off[s] = at;
      at += cb;
    }
  }
  l->set_stride = at - flags;
  l->region_bytes = flags + (size_t)l->nsets * l->set_stride;
}

AR_CORE_FN void ar_core_layout_init(struct ar_core_layout *l, int algo, size_t chunk_bytes) {
  ar_core_layout_init_sets(l, algo, chunk_bytes, 1);
}

/* One-shot push: the receiver's `in` slot of each parity holds one sub-slot per sender, this many bytes
 * apart: a flag line (the generation that sender wrote last into this parity; only it writes the line),
 * then up to data_bytes of the sender's input. The `in` slot is nranks of them: chunk_bytes of the layout. */
AR_CORE_FN size_t ar_core_push_stride(size_t data_bytes) { return ar_core_round(data_bytes, AR_CORE_LINE) + AR_CORE_LINE; }

/* Flag `which` of flag set `set` (GPU block `set`). */
AR_CORE_FN uint32_t *ar_core_flag_of_set(void *region, int set, int which) {
  return (uint32_t *)((char *)region + ((size_t)set * AR_CORE_NFLAGS + (size_t)which) * AR_CORE_LINE);
}

AR_CORE_FN uint32_t *ar_core_flag(void *region, int which) { return ar_core_flag_of_set(region, 0, which); }

#include "ar_core_elem.h"
#include "ar_core_wait.h"

#endif
