/* ar_core_types.h — the fixed-width integers and memcpy the shared core uses: from the C library for cc
 * and nvcc, spelled out under NVRTC (which has no C library headers; size_t is built in there). */
#ifndef AR_CORE_TYPES_H
#define AR_CORE_TYPES_H

#if defined(__CUDACC_RTC__)
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned long long uintptr_t;
static __device__ __forceinline__ void *ar_rtc_memcpy(void *d, const void *s, size_t n) {
  char *dc = (char *)d;
  const char *sc = (const char *)s;
  for (size_t i = 0; i < n; i++) dc[i] = sc[i];
  return d;
}
#define memcpy ar_rtc_memcpy
#else
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#endif
