/* cudaTypedefs.h — the CPU stand-in's driver entry point types (CUDA 13.0's cudaTypedefs.h) of the functions its
 * cuda.h declares: what cudaGetDriverEntryPoint hands rtc.c, by the ABI version each is asked for. */
#ifndef AR_STANDIN_CUDA_TYPEDEFS_H
#define AR_STANDIN_CUDA_TYPEDEFS_H

#include "cuda.h"

typedef CUresult(CUDAAPI *PFN_cuGetErrorName_v6000)(CUresult error, const char **pStr);
typedef CUresult(CUDAAPI *PFN_cuCtxGetCurrent_v4000)(CUcontext *pctx);
typedef CUresult(CUDAAPI *PFN_cuModuleLoadData_v2000)(CUmodule *module, const void *image);
typedef CUresult(CUDAAPI *PFN_cuModuleUnload_v2000)(CUmodule hmod);
typedef CUresult(CUDAAPI *PFN_cuModuleGetFunction_v2000)(CUfunction *hfunc, CUmodule hmod, const char *name);
typedef CUresult(CUDAAPI *PFN_cuFuncGetParamInfo_v12040)(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                                         size_t *paramSize);
typedef CUresult(CUDAAPI *PFN_cuLaunchKernel_v4000)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                                    unsigned int gridDimZ, unsigned int blockDimX,
                                                    unsigned int blockDimY, unsigned int blockDimZ,
                                                    unsigned int sharedMemBytes, CUstream hStream,
                                                    void **kernelParams, void **extra);
#endif
