/* dtype.h — element conversions (fp16/bf16 on the host) and the host fill/check of the
 * exact-integer pattern of kernels/ar_pattern.h. */
#ifndef AR_DTYPE_H
#define AR_DTYPE_H

#include "ar.h"

uint16_t ar_float_to_half(float f); /* round to nearest even */
float ar_half_to_float(uint16_t h);
uint16_t ar_float_to_bf16(float f); /* round to nearest even */
float ar_bf16_to_float(uint16_t b);

/* Element i of a buffer as double / store a double (converted to the dtype). */
double ar_elem_get(const void *buf, enum ar_dtype dt, size_t i);
void ar_elem_set(void *buf, enum ar_dtype dt, size_t i, double v);

void ar_host_fill(void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int rank, int nranks);
/* Number of elements that differ bit for bit from the exact result. */
uint64_t ar_host_check(const void *buf, size_t count, enum ar_dtype dt, enum ar_op op, int nranks);

#endif
