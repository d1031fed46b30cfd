/* serving.h — `arbench tune -o DIR`'s settings for serving engines (DIR/serving.json, DIR/vllm.sh,
 * DIR/sglang.sh): the engines' rules (serving_rules.c) and the groups built from tune's decisions (serving.c). */
#ifndef AR_SERVING_H
#define AR_SERVING_H

#include "analysis/analysis.h"

/* ---- from tune.c: thresholds.json's decision, the one serving.json reads ---- */

/* thresholds.json's group of g for family ("host", "gpu") over the columns of that family in mask (NULL:
 * all): custom_max_bytes, use, custom, baseline, from one ar_grid_decide. NULL when the columns hold no
 * custom allreduce or no baseline compared with one. */
json_t *ar_tune_custom_group(const struct ar_grid *g, const char *family, const char *mask, const struct ar_noise *nz);
/* The distinct "as" values of g's columns (run --as ENGINE; "" for none), "" first. */
json_t *ar_tune_as_values(const struct ar_grid *g);
/* Mask of g's columns measured with run --as engine ("": without). malloc'd. */
char *ar_tune_as_columns(const struct ar_grid *g, const char *engine);

/* ---- the engines' rules (serving_rules.c), read from their source at the commits named there ---- */

/* What an arbench configuration stands for in an engine. */
enum ar_spath {
  AR_SP_NCCL,           /* nccl, nccl-tests: the engine's NCCL (pynccl), tuned by libarbench-tuner.so */
  AR_SP_NCCL_SYMM,      /* nccl:symm=1: NCCL's symmetric-memory kernels */
  AR_SP_CUSTOM_1STAGE,  /* p2p-oneshot (pull): the engine's custom allreduce, one-stage kernel */
  AR_SP_CUSTOM_2STAGE,  /* p2p-twoshot: its two-stage kernel */
  AR_SP_SYMM_MEM,       /* symm: one-/two-shot kernels on symmetric memory (the engines': PyTorch's) */
  AR_SP_FUSION,         /* fused: allreduce + residual add + RMSNorm in one kernel */
  AR_SP_FUSION_BASE,    /* fused:unfused=p2p|nccl: the same work in two kernels (fusion's baselines) */
  AR_SP_NONE,           /* p2p-staged, p2p-islands, p2p-oneshot:mode=push: no engine has it */
  AR_SP_COUNT
};
/* The path of a result record, -1 when it is no GPU configuration (host backends, unknown names). */
int ar_spath_of(json_t *rec);
const char *ar_spath_name(int p);
/* The mapping table (serving.json "mapping", docs/serving.md): one object per path. */
json_t *ar_spath_table(void);

#define AR_SERVING_NENGINES 2
/* One engine's allreduce rules. */
struct ar_serving_engine {
  const char *name, *label; /* "vllm", "vLLM" */
  const char *source;       /* repository, commit and date the rules were read at */
  const char *serve;        /* the command line the .sh prints: "vllm serve MODEL" */
  const char *tp_flag;      /* "--tensor-parallel-size" */
  const char *disable_flag; /* "--disable-custom-all-reduce" */
  const char *algo_env;     /* forces the custom kernel for every size: "VLLM_CUSTOM_ALLREDUCE_ALGO" */
  const char *algo_source;
  size_t cap;               /* custom allreduce's hard-coded size bound, bytes */
  int cap_inclusive;        /* 1: bytes <= cap (SGLang); 0: bytes < cap (vLLM) */
  const char *cap_source;
  const int *worlds;        /* world sizes it supports */
  int nworlds;
  const char *world_source;
  const char *pcie_source;  /* custom allreduce off above 2 GPUs without NVLink: where */
  const char *symm_why;     /* why its symmetric-memory allreduce does not run here */
  const char *fusion_how, *fusion_why; /* its allreduce+RMSNorm fusion: how to turn it on; where it is off */
};
const struct ar_serving_engine *ar_serving_engines(int *n);
const struct ar_serving_engine *ar_serving_engine_find(const char *name);
/* Does the engine keep its custom allreduce on for ranks GPUs (nvlink: all pairs over NVLink)? 1, or 0 with
 * why (one sentence with its source). */
int ar_serving_custom_on(const struct ar_serving_engine *e, int ranks, int nodes, int nvlink, char *why, size_t len);
/* Would an enabled custom allreduce take a call of bytes (its cap; bytes % 16 == 0)? */
int ar_serving_custom_at(const struct ar_serving_engine *e, size_t bytes);
/* The kernel it picks by itself for bytes: AR_SP_CUSTOM_1STAGE or _2STAGE (csrc: ws 2 always one-stage;
 * NVLink: ws <= 4 and < 512 KiB, or ws <= 8 and < 256 KiB, one-stage). */
int ar_serving_auto_kernel(int ranks, int nvlink, size_t bytes);
/* The value of its cap that keeps custom allreduce at every size up to max_bytes and off above. */
long long ar_serving_cap_value(const struct ar_serving_engine *e, size_t max_bytes);
/* Engine paths arbench did not measure, to try (never measured settings): for ranks on nodes, dtype,
 * interconnect; measured[p] says which paths the group measured (those are left out); nccl_version (code, 0
 * unknown): NCCL's symmetric-memory path is not offered where that NCCL will not run it (ar_serving_nccl_symm_off). */
json_t *ar_serving_options(const struct ar_serving_engine *e, int ranks, int nodes, const char *dtype, int nvlink,
                           const char *measured, int nccl_version);
/* 1 where NCCL nccl_version (code) runs no symmetric kernel (>= 2.29.2 without NVLink between every pair). */
int ar_serving_nccl_symm_off(int nccl_version, int nvlink);

/* ---- the files (serving.c) ---- */

struct ar_serving_opts {
  long hidden;               /* --hidden H: elements per token row; 0 = not given */
  char engines[AR_SERVING_NENGINES][16]; /* --engines, in order */
  int nengines;
  const char *dir;           /* -o DIR: serving.json, vllm.sh, sglang.sh go there */
  const char *tuner_json;    /* the tuner.json tune wrote (deployed for the sizes NCCL keeps), NULL: none */
};
void ar_serving_defaults(struct ar_serving_opts *so);
/* --engines LIST and --hidden H: 0, or -AR_EINVAL with one line naming the value and what is allowed. */
int ar_serving_parse_engines(struct ar_serving_opts *so, const char *list, char *err, size_t len);
int ar_serving_parse_hidden(struct ar_serving_opts *so, const char *arg, char *err, size_t len);
/* --hidden against the GPU groups' dtypes (a token row must be a multiple of 16 bytes), before anything is
 * written: 0, or -AR_EINVAL with one line. */
int ar_serving_check(const struct ar_serving_opts *so, const struct ar_grid *g, int n, json_t *runs, char *err,
                     size_t len);
/* Write DIR/serving.json and one DIR/ENGINE.sh per engine. 0; 1 when there was no GPU group (the files say
 * none and why); -AR_EINVAL when a file cannot be written (said on stderr). */
int ar_serving_write(const struct ar_serving_opts *so, const struct ar_grid *g, int n, json_t *runs, char **files,
                     int nfiles, const struct ar_noise *nz);

#endif
