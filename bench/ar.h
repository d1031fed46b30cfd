/* ar.h — types shared by every part of arbench: error codes, dtypes, reduction ops.
 * Plain C11; no MPI, CUDA or jansson here so any file (and nvcc) can include it. */
#ifndef AR_H
#define AR_H

#include <stddef.h>
#include <stdint.h>

#define AR_VERSION_STRING "0.1.0"
#define AR_SCHEMA_VERSION 1

/* Error codes: functions return 0 or one of these (negated). */
enum ar_status {
  AR_OK = 0,
  AR_EINVAL = 2,   /* bad user input: exit status 2 */
  AR_ERUNTIME = 3, /* a backend or system call failed */
  AR_EWRONG = 4,   /* results were wrong */
  AR_ETIMEOUT = 5, /* a collective did not finish in time */
  AR_EUNAVAIL = 6, /* a backend cannot run here */
};

/* Process exit statuses. */
/* Exit statuses: 0 measured and checked; 1 wrong results or errors; 2 usage; 3 nothing measured
 * (`arbench run`: every configuration was skipped). */
enum ar_exit { AR_EXIT_OK = 0, AR_EXIT_FAIL = 1, AR_EXIT_USAGE = 2, AR_EXIT_NOTHING = 3 };

enum ar_dtype { AR_FLOAT = 0, AR_HALF, AR_BF16, AR_INT32, AR_NDTYPES };
enum ar_op { AR_SUM = 0, AR_PROD, AR_MAX, AR_MIN, AR_AVG, AR_NOPS };

const char *ar_status_name(int status); /* "timeout", "wrong results", ... for AR_E* (either sign) */
const char *ar_dtype_name(enum ar_dtype dt);
size_t ar_dtype_size(enum ar_dtype dt);
int ar_dtype_parse(const char *s, enum ar_dtype *out); /* 0 or -AR_EINVAL */
const char *ar_op_name(enum ar_op op);
int ar_op_parse(const char *s, enum ar_op *out);

/* Error message buffer convention: (char *err, size_t errlen). */
#define AR_ERRLEN 512

#endif
