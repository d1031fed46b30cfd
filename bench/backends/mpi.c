/* mpi.c — the `mpi` backend: MPI_Allreduce on host buffers.
 * fp16/bf16 travel as 16-bit words and are reduced on the host through user-defined MPI ops. */
#include "backend.h"
#include "dtype.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

struct mpi_state {
  MPI_Comm comm;
  MPI_Op half_ops[4], bf16_ops[4]; /* sum, prod, max, min */
};

#define DEFINE_OP(NAME, TO, FROM, EXPR)                                                        \
  static void NAME(void *in, void *inout, int *len, MPI_Datatype *dt) {                       \
    (void)dt;                                                                                  \
    const uint16_t *a = in;                                                                    \
    uint16_t *b = inout;                                                                       \
    for (int i = 0; i < *len; i++) {                                                           \
      float x = TO(a[i]), y = TO(b[i]);                                                        \
      b[i] = FROM(EXPR);                                                                       \
    }                                                                                          \
  }
DEFINE_OP(half_sum, ar_half_to_float, ar_float_to_half, x + y)
DEFINE_OP(half_prod, ar_half_to_float, ar_float_to_half, x * y)
DEFINE_OP(half_max, ar_half_to_float, ar_float_to_half, x > y ? x : y)
DEFINE_OP(half_min, ar_half_to_float, ar_float_to_half, x < y ? x : y)
DEFINE_OP(bf16_sum, ar_bf16_to_float, ar_float_to_bf16, x + y)
DEFINE_OP(bf16_prod, ar_bf16_to_float, ar_float_to_bf16, x * y)
DEFINE_OP(bf16_max, ar_bf16_to_float, ar_float_to_bf16, x > y ? x : y)
DEFINE_OP(bf16_min, ar_bf16_to_float, ar_float_to_bf16, x < y ? x : y)

static int mpi_available(const struct ar_env *env, char *why, size_t len) {
  (void)env;
  (void)why;
  (void)len;
  return 0;
}

static int mpi_check_variant(const char *variant, char *err, size_t len) {
  if (!*variant) return 0;
  snprintf(err, len, "backend mpi has no variants (got 'mpi:%s'); tune Open MPI through "
                     "OMPI_MCA_* environment variables or `arbench sweep --env`", variant);
  return -AR_EINVAL;
}

static int mpi_init(const struct ar_env *env, const char *variant, void **state, char *err, size_t len) {
  int rc = mpi_check_variant(variant, err, len);
  if (rc) return rc;
  struct mpi_state *s = calloc(1, sizeof *s);
  if (!s) return -AR_ERUNTIME;
  MPI_User_function *h[4] = {half_sum, half_prod, half_max, half_min};
  MPI_User_function *b[4] = {bf16_sum, bf16_prod, bf16_max, bf16_min};
  for (int i = 0; i < 4; i++) {
    MPI_Op_create(h[i], 1, &s->half_ops[i]);
    MPI_Op_create(b[i], 1, &s->bf16_ops[i]);
  }
  s->comm = env->comm;
  *state = s;
  return 0;
}

static int mpi_setup(void *state, size_t max_bytes, char *err, size_t len) {
  (void)state;
  (void)max_bytes;
  (void)err;
  (void)len;
  return 0;
}

static int mpi_supports(void *state, enum ar_dtype dt, enum ar_op op, char *why, size_t len) {
  (void)state;
  (void)dt;
  if (op == AR_AVG) {
    snprintf(why, len, "MPI has no average reduction");
    return -AR_EUNAVAIL;
  }
  return 0;
}

static int mpi_allreduce(void *state, const void *in, void *out, size_t count, enum ar_dtype dt,
                         enum ar_op op, void *stream) {
  (void)stream;
  struct mpi_state *s = state;
  static const MPI_Op std_ops[4] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
  MPI_Datatype type = MPI_FLOAT;
  MPI_Op mop = std_ops[op];
  switch (dt) {
  case AR_HALF: type = MPI_UINT16_T; mop = s->half_ops[op]; break;
  case AR_BF16: type = MPI_UINT16_T; mop = s->bf16_ops[op]; break;
  case AR_INT32: type = MPI_INT32_T; break;
  default: break;
  }
  /* MPI counts are ints: larger messages go as consecutive calls of at most INT_MAX elements. */
  size_t esize = ar_dtype_size(dt);
  for (size_t off = 0; off < count; off += (size_t)INT_MAX) {
    size_t n = count - off < (size_t)INT_MAX ? count - off : (size_t)INT_MAX;
    const char *src = in == out ? MPI_IN_PLACE : (const char *)in + off * esize;
    if (MPI_Allreduce(src, (char *)out + off * esize, (int)n, type, mop, s->comm) != MPI_SUCCESS)
      return -AR_ERUNTIME;
  }
  return 0;
}

static int mpi_describe(void *state, json_t *rec) {
  (void)state;
  json_object_set_new(rec, "impl", json_string("MPI_Allreduce"));
  return 0;
}

static void mpi_fini(void *state) {
  struct mpi_state *s = state;
  if (!s) return;
  for (int i = 0; i < 4; i++) {
    MPI_Op_free(&s->half_ops[i]);
    MPI_Op_free(&s->bf16_ops[i]);
  }
  free(s);
}

const struct ar_backend ar_be_mpi = {
  .name = "mpi",
  .summary = "MPI_Allreduce on host buffers (Open MPI; algorithms via OMPI_MCA_coll_tuned_*)",
  .flags = AR_BE_HOST | AR_BE_BASELINE,
  .family = AR_BE_FAM_HOST,
  .check_variant = mpi_check_variant,
  .available = mpi_available,
  .init = mpi_init,
  .setup = mpi_setup,
  .supports = mpi_supports,
  .allreduce = mpi_allreduce,
  .describe = mpi_describe,
  .fini = mpi_fini,
};
