/* opts.h — the options of `arbench run`: parsing, validation and the cross-rank hash.
 * Parsing is pure (no MPI) so the unit tests drive it directly. */
#ifndef AR_OPTS_H
#define AR_OPTS_H

#include "ar.h"
#include <stdbool.h>
#include <stdio.h>

#define AR_MAX_SIZES 256
#define AR_MAX_BACKENDS 64
#define AR_NAMELEN 256

enum ar_placement { AR_PLACE_OUT = 1, AR_PLACE_IN = 2, AR_PLACE_BOTH = 3 };
/* --buffers: one buffer set reused (nccl-tests, OSU) or sets rotated past the LLC / GPU L2. */
enum ar_buffers { AR_BUF_HOT = 0, AR_BUF_COLD = 1 };
/* --timing: one time per iteration (the distribution) or one interval around the timed loop. */
enum ar_timing { AR_TIME_ITER = 0, AR_TIME_LOOP = 1 };
/* -a: how ranks' times combine, nccl-tests' numbering. */
enum ar_average { AR_AVG_RANK0 = 0, AR_AVG_MEAN = 1, AR_AVG_MIN = 2, AR_AVG_MAX = 3 };
/* --format: stdout in arbench's table, or in nccl-tests' all_reduce_perf layout (bench/run/nt_log.c). */
enum ar_format { AR_FMT_TABLE = 0, AR_FMT_NCCL_TESTS = 1 };

struct ar_opts {
  size_t sizes[AR_MAX_SIZES]; /* bytes (or element counts when by_count), in the order given */
  bool by_count;              /* --counts: sizes[] are element counts */
  int nsizes;
  char backends[AR_MAX_BACKENDS][AR_NAMELEN]; /* "name" or "name:key=val,..." */
  int nbackends;
  enum ar_dtype dtypes[AR_NDTYPES];
  int ndtypes;
  enum ar_op op;
  int iters;      /* -n */
  int warmup;     /* -w */
  int check;      /* -c: check iterations, 0 = off */
  int graph;      /* -G: iterations per CUDA graph, 0 = off */
  double timeout; /* -T seconds, 0 = off */
  int placement;  /* enum ar_placement bits */
  bool quiet;
  bool bind;      /* false with --no-bind */
  bool shared_gpu;
  int islands;    /* --islands N, 0 = from topology */
  char json[AR_NAMELEN];    /* -J */
  char devices[AR_NAMELEN]; /* --devices LIST, "" = by local rank */
  char xml[AR_NAMELEN];     /* --xml topology file, "" = live */
  char point[4096];         /* --point JSON object from sweep, "" = none */
  int max_samples;          /* samples stored per result record */
  int buffers;              /* enum ar_buffers, default hot */
  int timing;               /* enum ar_timing, default iter */
  int average;              /* -a, enum ar_average, default max */
  int repeat;               /* --repeat N: measure every (dtype, size, placement) N times */
  int np;                   /* --np N: ranks when arbench launches mpirun itself (0 = one per GPU) */
  bool no_launch;           /* --no-launch: outside mpirun, run as this one process */
  bool no_mem_check;        /* --no-mem-check: relaunch without checking the ranks' host memory first */
  char as[32];              /* --as ENGINE: the engine's NCCL/CUDA environment (runas.h), "" = none */
  int format;               /* enum ar_format; nccl-tests sets its method as defaults: --buffers hot
                               --timing loop -a 1 --inplace both */
  char nt_dir[AR_NAMELEN];  /* --nccl-tests-dir: one nccl-tests log per configuration there */
  int nt_layout;            /* the nccl-tests release whose layout the logs follow: 218 (2.18.5, --format
                               nccl-tests) or 219 (2.19.6, --format nccl-tests-2.19: -I's columns with --timing iter) */
  bool per_node;            /* --per-node: every node measures alone and at once (bench/run/pernode.h) */
  bool allow_unknown_env;   /* --allow-unknown-env: a near-miss NCCL_* name is a warning (ncclenv.h) */
};

const char *ar_buffers_name(int b);  /* "hot", "cold" */
const char *ar_timing_name(int t);   /* "iter", "loop" */
const char *ar_average_name(int a);  /* "rank0", "mean", "min", "max" */

void ar_opts_defaults(struct ar_opts *o);
/* Parse argv (argv[0] is the subcommand name). On error writes one line to err, returns -AR_EINVAL. */
int ar_opts_parse(struct ar_opts *o, int argc, char **argv, char *err, size_t errlen);
/* Canonical text of every option that must agree across ranks, and its 64-bit FNV-1a hash. */
int ar_opts_canon(const struct ar_opts *o, char *buf, size_t len);
uint64_t ar_opts_hash(const struct ar_opts *o);
void ar_opts_usage(FILE *f);
/* Options that do nothing for the chosen backends (-G on backends without CUDA graphs): -AR_EINVAL with one
 * line in err when no chosen backend uses it; one warning line in warn when only some do ("" otherwise). */
int ar_opts_check_backends(const struct ar_opts *o, char *warn, size_t wlen, char *err, size_t errlen);

/* Size parsing: "8", "4K", "1M", "2G" (binary), optional trailing B. */
int ar_size_parse(const char *s, size_t *out, char *err, size_t errlen);
/* Format bytes as the shortest exact K/M/G form ("1M", "1536K", "7"). */
void ar_size_format(size_t bytes, char *buf, size_t len);
/* Geometric series min..max by factor (nccl-tests -b/-e/-f); returns count or -AR_EINVAL. */
int ar_size_series(size_t min, size_t max, double factor, size_t *out, int cap, char *err, size_t errlen);

#endif
