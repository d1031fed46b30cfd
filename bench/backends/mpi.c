/* mpi.c — the `mpi` backend: MPI_Allreduce on host buffers, on its own communicator whose errors return, so a
 * failed call is arbench's one line (bench/mpierr.c). fp16/bf16 travel as 16-bit words, reduced by user-defined ops. */
#include "backend.h"
#include "dtype.h"
#include "mpierr.h"
#include "run/fault.h"
#include "run/memcheck.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

struct mpi_state {
  MPI_Comm comm; /* a duplicate of the run's, MPI_ERRORS_RETURN: every call's status is checked here */
  MPI_Op half_ops[4], bf16_ops[4]; /* sum, prod, max, min */
  struct ar_watchdog *dog;         /* ends the job on a failed call (one rank per node reports) */
  int err_rank;                    /* ARBENCH_INJECT_MPI_ERROR=R:B (run/fault.h): -1 = none */
  size_t err_bytes;
  int err_here;                    /* this rank is R of ARBENCH_INJECT_MPI_ERROR=R:B, B > 0: set at init, off the timed path */
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
  s->dog = env->dog;
  s->err_rank = env->fault ? env->fault->mpi_error_rank : -1;
  s->err_bytes = env->fault ? env->fault->mpi_error_bytes : 0;
  s->err_here = s->err_rank == env->rank && s->err_bytes;
  MPI_User_function *h[4] = {half_sum, half_prod, half_max, half_min};
  MPI_User_function *b[4] = {bf16_sum, bf16_prod, bf16_max, bf16_min};
  for (int i = 0; i < 4; i++) {
    MPI_Op_create(h[i], 1, &s->half_ops[i]);
    MPI_Op_create(b[i], 1, &s->bf16_ops[i]);
  }
  if (s->err_rank == env->rank && !s->err_bytes) { /* ARBENCH_INJECT_MPI_ERROR=R:0: on the run's communicator */
    int v = 0;
    MPI_Bcast(&v, -1, MPI_INT, 0, env->comm);
  }
  MPI_Comm_dup(env->comm, &s->comm);
  MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
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

/* Why MPI may have failed inside the call: Open MPI's allreduce algorithms allocate their temporary buffers there
 * (recursive doubling: one of the message's size; ring: two of a segment; ompi/mca/coll/base/coll_base_allreduce.c),
 * and a failed malloc is returned as OMPI_ERROR, MPI_ERR_INTERN. What this rank's address space had left. */
static void alloc_hint(int code, size_t bytes, char *buf, size_t len) {
  int cls = code;
  struct rlimit rl;
  *buf = 0;
  if (MPI_Error_class(code, &cls) != MPI_SUCCESS || (cls != MPI_ERR_INTERN && cls != MPI_ERR_NO_MEM)) return;
  char hb[32], hl[32], hu[32];
  ar_human_bytes(bytes, hb, sizeof hb);
  size_t k = (size_t)snprintf(buf, len, "MPI allocates temporary buffers inside the call (Open MPI's allreduce: up to "
                                        "the message size, %s)", hb);
  if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY || k >= len) return;
  unsigned long long kb = 0;
  char line[256];
  FILE *f = fopen("/proc/self/status", "r");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmSize: %llu kB", &kb) == 1) break;
  if (f) fclose(f);
  ar_human_bytes((size_t)rl.rlim_cur, hl, sizeof hl);
  ar_human_bytes((size_t)kb * 1024, hu, sizeof hu);
  k += (size_t)snprintf(buf + k, len - k, "; this rank's address space is limited to %llu bytes (%s, ulimit -v)",
                        (unsigned long long)rl.rlim_cur, hl);
  if (kb && k < len) snprintf(buf + k, len - k, ", %llu bytes (%s) of it in use", kb * 1024, hu);
}

/* A call failed on this rank (its peers may be waiting inside it, so there is no status exchange to return to): the
 * one line naming the call, its size and MPI's class; the job ends with status 1 (bench/mpierr.c). */
static _Noreturn void failed(const struct mpi_state *s, int code, size_t bytes, size_t count, enum ar_dtype dt,
                             int inplace) {
  char what[256], hb[32], hint[512];
  ar_human_bytes(bytes, hb, sizeof hb);
  snprintf(what, sizeof what, "mpi: MPI_Allreduce of %zu bytes (%s: %zu x %s, %s)", bytes, hb, count,
           ar_dtype_name(dt), inplace ? "in-place" : "out-of-place");
  alloc_hint(code, bytes, hint, sizeof hint);
  ar_mpi_fail(s->dog, code, what, hint);
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
  int planted = s->err_here && s->err_bytes == count * esize;
  for (size_t off = 0; off < count; off += (size_t)INT_MAX) {
    size_t n = count - off < (size_t)INT_MAX ? count - off : (size_t)INT_MAX;
    const char *src = in == out ? MPI_IN_PLACE : (const char *)in + off * esize;
    int rc = MPI_Allreduce(src, (char *)out + off * esize, planted ? -1 : (int)n, type, mop, s->comm);
    if (rc != MPI_SUCCESS) failed(s, rc, n * esize, n, dt, in == out);
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
  if (s->comm != MPI_COMM_NULL) MPI_Comm_free(&s->comm);
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
