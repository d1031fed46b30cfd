/* serving_priv.h — what serving.c, serving_fusion.c and serving_files.c share: one group in the making. */
#ifndef AR_SERVING_PRIV_H
#define AR_SERVING_PRIV_H

#include "analysis/serving.h"

/* One engine's group for one grid. */
struct ar_sgroup {
  const struct ar_grid *g;
  json_t *runs;
  const struct ar_serving_engine *e;
  const struct ar_serving_opts *so;
  const struct ar_noise *nz;
  const char *as;     /* the run --as value of the columns used: the engine's name, or "" */
  char *cols;         /* the columns used: that "as", GPU configurations measured on GPUs (ar_serving_column) */
  char *compared;     /* per size: an NCCL column measured there (the engine decision's domain) */
  int nvlink;         /* 1 NVLink, 0 PCIe, -1 unknown (taken as PCIe) */
  char cc[16];        /* compute capability, "" unknown */
  int custom;         /* the engine's kernels win the smallest sizes */
  json_t *flags, *env, *patch, *fusion; /* the group's fields in the making */
  char runs_text[1100];                 /* what the engine does with these settings, unpatched */
};

int ar_serving_column(const struct ar_grid *g, json_t *runs, int c);
/* Indices (into g) of the grids that make groups; count. idx holds n entries. */
int ar_serving_grids(const struct ar_grid *g, int n, json_t *runs, int *idx);
/* One group as serving.json holds it (NULL: out of memory). */
json_t *ar_serving_group(const struct ar_grid *g, json_t *runs, const struct ar_serving_engine *e,
                         const struct ar_serving_opts *so, const struct ar_noise *nz);
json_t *ar_serving_tokens(const struct ar_sgroup *sg, long long bytes);
/* The fused columns' decision (serving_fusion.c): sg->fusion, and a patch where the engine has no fusion. */
void ar_serving_fusion(struct ar_sgroup *sg);
/* The command line with the group's flags (serving_files.c). */
json_t *ar_serving_command(const struct ar_sgroup *sg);
/* libarbench-tuner.so as nccl:tuner= finds it: ARBENCH_TUNER_PLUGIN, the build tree's, the installed one. 0. */
int ar_serving_tuner_lib(char *out, size_t len);

#endif
