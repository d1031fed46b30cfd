/* impact.h — `arbench impact`: what the allreduce costs a model per forward and per output token, from the
 * picks of the one decider (analysis/decide.c) and the engines' rules (analysis/serving_rules.c). */
#ifndef AR_IMPACT_H
#define AR_IMPACT_H

#include "analysis/analysis.h"
#include <stddef.h>

/* A dense decoder-only transformer as impact models it (model.c). */
struct ar_impact_model {
  char name[128];  /* the config file's name or "hidden=H,layers=L,dtype=D" */
  long hidden;     /* hidden_size: elements of one token's row */
  long layers;     /* num_hidden_layers */
  char dtype[16];  /* arbench's dtype name: bfloat16, half, float */
  int esize;       /* bytes per element */
};
/* --model: a Hugging Face config.json (a regular file, at most 1 MiB) or "hidden=H,layers=L,dtype=D". 0, or
 * -AR_EINVAL with one line in err naming the value and what is allowed (MoE, encoder-decoder, multimodal and
 * non-float dtypes are refused: impact cannot model them). */
int ar_impact_model_parse(const char *arg, struct ar_impact_model *m, char *err, size_t len);
/* Allreduces of one forward pass: two per layer (after the attention output projection and after the MLP down
 * projection) and one for the vocab-parallel embedding. */
long ar_impact_calls(const struct ar_impact_model *m);
/* Bytes of each of them at tokens tokens per forward: tokens x hidden x element size. */
size_t ar_impact_bytes(const struct ar_impact_model *m, long tokens);

/* One configuration's time at a message size (interp.c). */
struct ar_impact_time {
  double us, lo, hi; /* the cell's p50 (median over runs) and the lowest and highest run's p50 */
  int interpolated;  /* 1: between two measured sizes, log-log */
  size_t below, above; /* the measured sizes used (equal when measured at bytes) */
};
/* Column c of g at bytes: the measured cell, or log-log interpolation between the nearest measured sizes
 * below and above. 0; -1 when bytes is outside the column's measured sizes (then *below / *above name the
 * nearest measured size, 0 when none). */
int ar_impact_time_at(const struct ar_grid *g, int c, size_t bytes, struct ar_impact_time *t);
/* Log-log interpolation of (x0, y0), (x1, y1) at x (x0 < x < x1, every value > 0). */
double ar_impact_loglog(double x0, double y0, double x1, double y1, double x);
/* The size indices of g around bytes (*s0 == *s1 when measured there); -1 when outside the grid's sizes. */
int ar_impact_bracket(const struct ar_grid *g, size_t bytes, int *s0, int *s1);

#endif
