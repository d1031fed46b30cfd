/* nvrtc_compile.c — the p2p and fused kernels (kernels/ar_p2p_kernel.cuh) compile with NVRTC, CUDA's runtime
 * compiler, as they do with nvcc: every instance for one arch, with ptxas' register/spill report.
 * Usage: nvrtc_compile KERNELS_DIR CUDA_INCLUDE ARCH   (prints one line per kernel; exit 1 on error or spill) */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const source =
    "#include \"ar_p2p_kernel.cuh\"\n"
    "template __global__ void ar_p2p::p2p_kernel<0>(const __grid_constant__ ar_p2p_args);\n"
    "template __global__ void ar_p2p::p2p_kernel<1>(const __grid_constant__ ar_p2p_args);\n"
    "template __global__ void ar_p2p::p2p_kernel<2>(const __grid_constant__ ar_p2p_args);\n"
    "template __global__ void ar_p2p::p2p_kernel<3>(const __grid_constant__ ar_p2p_args);\n"
    "template __global__ void ar_p2p::fused_kernel<0>(const __grid_constant__ ar_p2p_args);\n"
    "template __global__ void ar_p2p::fused_kernel<1>(const __grid_constant__ ar_p2p_args);\n";
#define NKERNELS 6 /* p2p_kernel per dtype, fused_kernel norm-only and fused */

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s KERNELS_DIR CUDA_INCLUDE ARCH\n", argv[0]);
    return 2;
  }
  char inc1[512], inc2[512], arch[64];
  snprintf(inc1, sizeof inc1, "-I%s", argv[1]);
  snprintf(inc2, sizeof inc2, "-I%s", argv[2]);
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%s", argv[3]);
  const char *opts[] = {arch, "-std=c++17", inc1, inc2, "--ptxas-options=-v"};
  nvrtcProgram p;
  if (nvrtcCreateProgram(&p, source, "p2p_nvrtc.cu", 0, NULL, NULL) != NVRTC_SUCCESS) return 1;
  nvrtcResult r = nvrtcCompileProgram(p, 5, opts);
  size_t n = 0;
  nvrtcGetProgramLogSize(p, &n);
  char *log = calloc(1, n + 1);
  nvrtcGetProgramLog(p, log);
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  int bad = r != NVRTC_SUCCESS, kernels = 0;
  if (bad) printf("NVRTC %d.%d sm_%s: %s\n%s\n", major, minor, argv[3], nvrtcGetErrorString(r), log);
  /* ptxas -v: "Compiling entry function 'NAME' ...", then "... N bytes spill stores ...", "Used R registers". */
  const char *name = "?", *kind = "?";
  for (char *line = strtok(log, "\n"); line && !bad; line = strtok(NULL, "\n")) {
    char *at = strstr(line, "p2p_kernelILi"), *fu = strstr(line, "fused_kernelILi");
    if (strstr(line, "Compiling entry function") && (at || fu)) {
      kind = at ? "p2p_kernel dtype" : "fused_kernel fused";
      name = at ? at + 13 : fu + 15;
    }
    int st = 0, ld = 0, regs = 0;
    const char *sp = strstr(line, "bytes spill stores");
    if (sp && sscanf(strstr(line, ",") ? strstr(line, ",") + 1 : line, " %d bytes spill stores, %d", &st, &ld) == 2 && (st || ld)) {
      printf("sm_%s %s %c: spills %d/%d bytes\n", argv[3], kind, *name, st, ld);
      bad = 1;
    }
    const char *u = strstr(line, "Used ");
    if (u && sscanf(u, "Used %d registers", &regs) == 1) {
      printf("NVRTC %d.%d sm_%s %s %c: %d registers, no spills\n", major, minor, argv[3], kind, *name, regs);
      kernels++;
    }
  }
  if (!bad && kernels != NKERNELS) {
    printf("expected a ptxas report for %d kernels, got %d:\n", NKERNELS, kernels);
    bad = 1;
  }
  free(log);
  nvrtcDestroyProgram(&p);
  return bad;
}
