/* driver.c — the CPU stand-in of the CUDA driver API calls of bench/backends/p2p/rtc.c (include/cuda.h): modules from
 * cubin (ELF) or PTX images checked against the device's compute capability, functions by their symbol, launches. */
#include "internal.h"
#include "cuda.h"
#include "driver.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SA_MAX_FUNCS 16

struct CUfunc_st {
  struct CUmod_st *mod;
  char name[256];
  const struct ar_standin_cpu_kernel *cpu;
  int regs;                       /* EIATTR_REGCOUNT of the cubin, -1 for PTX (registers.tsv's) */
  long param_off[2], param_size[2]; /* parameters 0 and 1 of the image; -1: none */
};

struct CUmod_st {
  int device;                     /* the visible device whose primary context holds it */
  int ptx, arch;
  const unsigned char *img;
  struct CUfunc_st fn[SA_MAX_FUNCS];
  int nfn;
};

static uint64_t rd(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* ---- cubins: ELF64 little-endian, e_machine EM_CUDA (190) ---- */
struct sa_elf {
  const unsigned char *img;
  uint64_t shoff, shentsize, shnum, shstrndx;
};

static const unsigned char *sec(const struct sa_elf *e, uint64_t i) { return e->img + e->shoff + i * e->shentsize; }
static const char *sec_name(const struct sa_elf *e, uint64_t i) {
  return (const char *)e->img + rd(sec(e, e->shstrndx) + 0x18, 8) + rd(sec(e, i), 4);
}

/* The SM arch a cubin was built for: ELF ABI version 8 and later (NVRTC/nvcc 12.8+, e.g. sm_120: e_flags 0x6007802)
 * keep it in e_flags bits 8-15, the older ABI (7) in bits 0-7 (as cuobjdump reads them). -1: not a cubin. */
static int elf_open(struct sa_elf *e, const unsigned char *img) {
  if (memcmp(img, "\x7f" "ELF", 4) || img[4] != 2 || img[5] != 1 || rd(img + 0x12, 2) != 190) return -1;
  e->img = img;
  e->shoff = rd(img + 0x28, 8), e->shentsize = rd(img + 0x3A, 2), e->shnum = rd(img + 0x3C, 2);
  e->shstrndx = rd(img + 0x3E, 2);
  if (e->shentsize < 64 || !e->shnum || e->shstrndx >= e->shnum || e->shoff > (1u << 30)) return -1;
  uint64_t flags = rd(img + 0x30, 4);
  return img[8] >= 8 ? (int)(flags >> 8 & 0xff) : (int)(flags & 0xff);
}

/* The symbol index of the kernel entry `name` (FUNC with STO_CUDA_ENTRY, 0x10, in st_other), 0 if none. */
static uint64_t elf_entry(const struct sa_elf *e, const char *name) {
  for (uint64_t s = 0; s < e->shnum; s++) {
    const unsigned char *sh = sec(e, s);
    if (rd(sh + 4, 4) != 2) continue; /* SHT_SYMTAB */
    uint64_t off = rd(sh + 0x18, 8), sz = rd(sh + 0x20, 8), ent = rd(sh + 0x38, 8);
    const char *str = (const char *)e->img + rd(sec(e, rd(sh + 0x28, 4)) + 0x18, 8);
    for (uint64_t i = 0; ent >= 24 && i * ent < sz; i++) {
      const unsigned char *sym = e->img + off + i * ent;
      if ((sym[4] & 0xf) == 2 && (sym[5] & 0x10) && !strcmp(str + rd(sym, 4), name)) return i;
    }
  }
  return 0;
}

/* The .nv.info attributes (format byte, attribute byte, value: EIFMT_NVAL none, BVAL/HVAL 2 bytes, SVAL u16 size + data)
 * of section s: fn(attr, value, size) for each SVAL. */
static void nv_info(const struct sa_elf *e, uint64_t s, void (*fn)(void *, int, const unsigned char *, uint64_t),
                    void *arg) {
  const unsigned char *p = e->img + rd(sec(e, s) + 0x18, 8);
  uint64_t n = rd(sec(e, s) + 0x20, 8);
  for (uint64_t i = 0; i + 2 <= n;) {
    int fmt = p[i], attr = p[i + 1];
    if (fmt == 4 && i + 4 <= n) {
      uint64_t sz = rd(p + i + 2, 2);
      if (i + 4 + sz > n) return;
      fn(arg, attr, p + i + 4, sz);
      i += 4 + sz;
    } else {
      i += fmt == 1 ? 2 : 4;
    }
  }
}

struct sa_fninfo {
  uint64_t sym;
  struct CUfunc_st *f;
};

static void regcount(void *arg, int attr, const unsigned char *v, uint64_t sz) { /* EIATTR_REGCOUNT: symbol, count */
  struct sa_fninfo *x = arg;
  if (attr == 0x2f && sz == 8 && rd(v, 4) == x->sym) x->f->regs = (int)rd(v + 4, 4);
}

static void kparam(void *arg, int attr, const unsigned char *v, uint64_t sz) { /* EIATTR_KPARAM_INFO */
  struct sa_fninfo *x = arg;
  if (attr != 0x17 || sz != 12) return;
  uint64_t ord = rd(v + 4, 2);
  if (ord < 2) x->f->param_off[ord] = (long)rd(v + 6, 2), x->f->param_size[ord] = (long)(rd(v + 8, 4) >> 18 & 0x3fff);
}

static int cubin_function(struct CUmod_st *m, struct CUfunc_st *f, const char *name) {
  struct sa_elf e;
  elf_open(&e, m->img);
  struct sa_fninfo x = {elf_entry(&e, name), f};
  if (!x.sym) return -1;
  char info[300];
  snprintf(info, sizeof info, ".nv.info.%s", name);
  for (uint64_t s = 0; s < e.shnum; s++) {
    if (!strcmp(sec_name(&e, s), ".nv.info")) nv_info(&e, s, regcount, &x);
    if (!strcmp(sec_name(&e, s), info)) nv_info(&e, s, kparam, &x);
  }
  return 0;
}

/* ---- PTX: `.target sm_NN`, `.entry NAME(` and its `.param ... NAME_param_K[BYTES]` ---- */
static int ptx_target(const char *ptx) {
  const char *t = strstr(ptx, "\n.target sm_");
  return t ? atoi(t + 12) : -1;
}

static int ptx_function(struct CUmod_st *m, struct CUfunc_st *f, const char *name) {
  const char *ptx = (const char *)m->img;
  size_t n = strlen(name);
  for (const char *p = strstr(ptx, ".entry "); p; p = strstr(p + 1, ".entry ")) {
    if (strncmp(p + 7, name, n) || p[7 + n] != '(') continue;
    const char *end = strchr(p, ')');
    long off = 0;
    for (int k = 0; k < 2; k++) {
      char pn[300];
      snprintf(pn, sizeof pn, "%s_param_%d[", name, k);
      const char *q = strstr(p, pn);
      if (!q || (end && q > end)) break;
      f->param_off[k] = off, f->param_size[k] = atol(q + strlen(pn)), off += f->param_size[k];
    }
    return 0;
  }
  return -1;
}

/* ---- the API (cuda.h) ---- */

/* cuda.h:7332-7365 cuModuleLoadData: "loads the corresponding module into the current context" (none current:
 * CUDA_ERROR_INVALID_CONTEXT, cuda.h:2617-2627); a cubin for another arch is CUDA_ERROR_NO_BINARY_FOR_GPU
 * (cuda.h:2659-2665: a cubin runs on its own major at an equal or higher minor), an image that is neither a cubin nor
 * PTX CUDA_ERROR_INVALID_IMAGE (cuda.h:2611-2615), PTX for a newer arch than the device's fails its JIT
 * (CUDA_ERROR_INVALID_PTX, cuda.h:2717). */
CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  sa_init();
  if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
  int dev = sa_context_device();
  if (dev < 0) return CUDA_ERROR_INVALID_CONTEXT;
  int cc_major = 0, cc_minor = 0;
  cudaError_t was = sa_last_error_swap(cudaSuccess);
  cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, dev);
  sa_last_error_swap(was);
  const unsigned char *img = image;
  struct sa_elf e;
  int arch = elf_open(&e, img), ptx = 0;
  if (arch < 0) {
    if (!memcmp(img, "\x7f" "ELF", 4)) return CUDA_ERROR_INVALID_IMAGE; /* an ELF, but no CUDA one */
    const char *t = image;
    if (!strstr(t, ".version ") || (arch = ptx_target(t)) < 0) return CUDA_ERROR_INVALID_IMAGE;
    if (arch > cc_major * 10 + cc_minor) return CUDA_ERROR_INVALID_PTX;
    ptx = 1;
  } else if (arch / 10 != cc_major || arch % 10 > cc_minor) {
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  struct CUmod_st *m = calloc(1, sizeof *m);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  m->device = dev, m->ptx = ptx, m->arch = arch, m->img = img;
  *module = m;
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule hmod) {
  if (!hmod) return CUDA_ERROR_INVALID_HANDLE;
  free(hmod);
  return CUDA_SUCCESS;
}

/* cuda.h:7505-7532 cuModuleGetFunction: "If no function of that name exists, ... returns CUDA_ERROR_NOT_FOUND": a
 * kernel entry of the image by its (mangled) symbol; its CPU execution is the same source's (driver_kernels.cc). */
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  if (!hfunc || !hmod || !name) return CUDA_ERROR_INVALID_VALUE;
  if (sa_context_device() < 0) return CUDA_ERROR_INVALID_CONTEXT;
  for (int i = 0; i < hmod->nfn; i++)
    if (!strcmp(hmod->fn[i].name, name)) return *hfunc = &hmod->fn[i], CUDA_SUCCESS;
  if (hmod->nfn == SA_MAX_FUNCS || strlen(name) >= sizeof hmod->fn[0].name) return CUDA_ERROR_OUT_OF_MEMORY;
  struct CUfunc_st *f = &hmod->fn[hmod->nfn];
  memset(f, 0, sizeof *f);
  f->mod = hmod, f->regs = -1;
  f->param_off[0] = f->param_off[1] = f->param_size[0] = f->param_size[1] = -1;
  snprintf(f->name, sizeof f->name, "%s", name);
  if ((hmod->ptx ? ptx_function(hmod, f, name) : cubin_function(hmod, f, name)) < 0) return CUDA_ERROR_NOT_FOUND;
  f->cpu = ar_standin_cpu_kernel ? ar_standin_cpu_kernel(name) : NULL;
  if (!f->cpu)
    ar_standin_violation("cuModuleGetFunction: kernel %s is in the image but has no CPU execution in this stand-in "
                         "(standin/cudart/driver_kernels.cc)", name);
  if (f->param_size[0] != (long)f->cpu->param_bytes)
    ar_standin_violation("kernel %s: the image's parameter 0 is %ld bytes, the host compiler's is %zu: the NVRTC build "
                         "and the host disagree on the layout", name, f->param_size[0], f->cpu->param_bytes);
  hmod->nfn++;
  *hfunc = f;
  return CUDA_SUCCESS;
}

/* cuda.h:17353-17374 cuFuncGetParamInfo: offset and size of parameter paramIndex (from the image's EIATTR_KPARAM_INFO
 * or the PTX .param list); CUDA_ERROR_INVALID_VALUE past the last one. */
CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize) {
  if (!func || !paramOffset || paramIndex >= 2 || func->param_size[paramIndex] < 0) return CUDA_ERROR_INVALID_VALUE;
  *paramOffset = (size_t)func->param_off[paramIndex];
  if (paramSize) *paramSize = (size_t)func->param_size[paramIndex];
  return CUDA_SUCCESS;
}

/* cuda.h:17419-17546 cuLaunchKernel: kernelParams holds N pointers for a function of N parameters, each read at the
 * launch (17429-17437); kernelParams and extra both given is CUDA_ERROR_INVALID_VALUE (17474-17475). The function runs in its
 * module's context, which must be current (another: CUDA_ERROR_INVALID_CONTEXT); the runtime stand-in's launch does
 * the rest as for a <<<>>> launch: the shape, the block against the image's registers, the stream's device, the
 * sticky error, peer memory. A driver call leaves the runtime's last error as it was. */
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shmem, CUstream stream, void **kernelParams, void **extra) {
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (kernelParams && extra) return CUDA_ERROR_INVALID_VALUE;
  if (extra || !kernelParams || !kernelParams[0])
    ar_standin_violation("cuLaunchKernel of %s without kernelParams: the stand-in models the kernelParams form only",
                         f->name);
  if (sa_context_device() != f->mod->device) return CUDA_ERROR_INVALID_CONTEXT;
  if (gy != 1 || gz != 1 || by != 1 || bz != 1)
    ar_standin_violation("cuLaunchKernel of %s with a %ux%ux%u grid of %ux%ux%u blocks: the stand-in runs 1-D grids only",
                         f->name, gx, gy, gz, bx, by, bz);
  struct ar_standin_klaunch l = {gx, bx, shmem, (cudaStream_t)stream, kernelParams, f->regs};
  cudaError_t was = sa_last_error_swap(cudaSuccess);
  cudaError_t e = f->cpu->launch(&l);
  sa_last_error_swap(was);
  /* the codes are the same but for a bad shape: the runtime's cudaErrorInvalidConfiguration, the driver's INVALID_VALUE */
  return e == cudaErrorInvalidConfiguration ? CUDA_ERROR_INVALID_VALUE : (CUresult)e;
}

CUresult cuCtxGetCurrent(CUcontext *pctx) {
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  int dev = sa_context_device();
  *pctx = dev < 0 ? NULL : (CUcontext)(uintptr_t)(dev + 1); /* a handle per primary context, never dereferenced */
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **pStr) {
  static const struct { CUresult e; const char *n; } names[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS"}, {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"}, {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"}, {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU"}, {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"}, {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"}, {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"}};
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].e == error) return *pStr = names[i].n, CUDA_SUCCESS;
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE; /* cuda.h:5152-5170: an unrecognised code */
}

/* cudaGetDriverEntryPoint's answer: the functions above where this build has CPU kernels for them (the NVRTC path,
 * -Dcuda-emu-nvcc=false); none elsewhere, as before. */
void *sa_driver_entry(const char *symbol) {
  static const struct { const char *name; void *fn; } fns[] = {
    {"cuGetErrorName", (void *)cuGetErrorName}, {"cuCtxGetCurrent", (void *)cuCtxGetCurrent},
    {"cuModuleLoadData", (void *)cuModuleLoadData}, {"cuModuleUnload", (void *)cuModuleUnload},
    {"cuModuleGetFunction", (void *)cuModuleGetFunction}, {"cuFuncGetParamInfo", (void *)cuFuncGetParamInfo},
    {"cuLaunchKernel", (void *)cuLaunchKernel}};
  if (!ar_standin_cpu_kernel) return NULL;
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!strcmp(fns[i].name, symbol)) return fns[i].fn;
  return NULL;
}
