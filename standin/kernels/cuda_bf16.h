/* cuda_bf16.h — the CPU execution's stand-in for CUDA's cuda_bf16.h: the half/bfloat16 types and conversions of
 * ar_emu_cuda.h (found first on the emu include path, never by nvcc or NVRTC). */
#include "ar_emu_cuda.h"
