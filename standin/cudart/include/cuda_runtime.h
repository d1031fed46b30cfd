/* cuda_runtime.h — the CPU stand-in's cuda_runtime.h for .cu files built by the host C++ compiler: the runtime
 * API, the device side of standin/kernels/ar_emu_cuda.h, and the launch that cu2cc.py puts where `<<<...>>>` was. */
#ifndef AR_STANDIN_CUDA_RUNTIME_H
#define AR_STANDIN_CUDA_RUNTIME_H

#include "cuda_runtime_api.h"

#ifdef __cplusplus
#include "ar_emu_cuda.h"
#include <initializer_list>
#include <new>
#include <stdio.h>
#include <stdlib.h>
#include <tuple>
#include <type_traits>
#include <utility>

extern "C" cudaError_t ar_standin_launch_job(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                             unsigned bz, size_t shmem, cudaStream_t stream, void (*run)(void *),
                                             void *(*clone)(const void *), void (*release)(void *), void *job,
                                             const char *name);

extern "C" cudaError_t ar_standin_launch_job_regs(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                                  unsigned bz, size_t shmem, cudaStream_t stream, void (*run)(void *),
                                                  void *(*clone)(const void *), void (*release)(void *), void *job,
                                                  const char *name, int regs);

extern "C" const char *ar_standin_kname_intern(const char *name);

/* `base<v1, v2>`: a template kernel's name as c++filt prints the instance ptxas compiled (int arguments by value),
 * the key of its register count (launch.c); cu2cc.py writes the call. The text lives as long as the process. */
static inline const char *ar_standin_kname(const char *base, std::initializer_list<long long> vals) {
  char buf[256];
  int n = snprintf(buf, sizeof buf, "%s<", base);
  const char *sep = "";
  for (long long v : vals) {
    if (n > 0 && (size_t)n < sizeof buf) n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%lld", sep, v);
    sep = ", ";
  }
  if (n > 0 && (size_t)n < sizeof buf) snprintf(buf + n, sizeof buf - (size_t)n, ">");
  return ar_standin_kname_intern(buf);
}

/* One launch: the kernel and a copy of its arguments converted to its parameter types at the launch (what CUDA
 * copies into the kernel's parameter space); every GPU thread calls the kernel with its own copy of them. */
template <class F, class Args> struct ar_standin_job {
  F fn;
  Args args;
  static void run(void *p) {
    ar_standin_job *j = (ar_standin_job *)p;
    std::apply(j->fn, j->args);
  }
  static void *clone(const void *p) {
    void *m = malloc(sizeof(ar_standin_job));
    return m ? new (m) ar_standin_job(*(const ar_standin_job *)p) : NULL;
  }
  static void release(void *p) {
    ((ar_standin_job *)p)->~ar_standin_job();
    free(p);
  }
};

/* kernel<<<grid, block, shmem, stream>>>(args...) becomes ar_standin_launch("kernel", grid, block, shmem, stream,
 * kernel, args...) (standin/cudart/cu2cc.py). Returns the launch's error, which is also the last error. */
static inline dim3 ar_standin_dim(dim3 d) { return d; }
static inline dim3 ar_standin_dim(unsigned x) { return dim3{x, 1, 1}; }

/* regs: the registers a thread of the image uses (the driver stand-in's cuLaunchKernel reads them from the cubin), or
 * -1 for registers.tsv's count of name (the nvcc path). */
template <class G, class B, class... P, class... A>
static inline cudaError_t ar_standin_launch_regs(int regs, const char *name, G g, B b, size_t shmem,
                                                 cudaStream_t stream, void (*k)(P...), A &&...a) {
  dim3 grid = ar_standin_dim(g), block = ar_standin_dim(b);
  typedef std::tuple<typename std::decay<P>::type...> Args;
  typedef ar_standin_job<void (*)(P...), Args> J;
  void *m = malloc(sizeof(J));
  J *j = m ? new (m) J{k, Args(std::forward<A>(a)...)} : NULL;
  return ar_standin_launch_job_regs(grid.x, grid.y, grid.z, block.x, block.y, block.z, shmem, stream, J::run,
                                    J::clone, J::release, j, name, regs);
}

template <class G, class B, class... P, class... A>
static inline cudaError_t ar_standin_launch(const char *name, G g, B b, size_t shmem, cudaStream_t stream,
                                            void (*k)(P...), A &&...a) {
  return ar_standin_launch_regs(-1, name, g, b, shmem, stream, k, std::forward<A>(a)...);
}

/* CUDA's C++ overload: the kernel's address as the entry. */
template <class T> static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, T *entry) {
  return cudaFuncGetAttributes(attr, (const void *)entry);
}
#endif

#endif
