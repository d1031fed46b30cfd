/* ar_nvrtc_build.c — build-time tool: compile one kernel source with the stack's NVRTC for one SM arch
 * into a cubin (or, ARCH compute_NN, into PTX), and write NVRTC's log (ptxas -v: registers and spills per
 * kernel) for kernel-report.py.
 * Usage: ar_nvrtc_build SRC ARCH OUT_CUBIN OUT_LOG [-Idir ...]   (exit 0 also when the compile fails:
 * the log's first line says "nvrtc MAJOR.MINOR ok" or "nvrtc MAJOR.MINOR error: WHAT", and the cubin is
 * empty; exit 1: the tool itself failed) */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { AR_NVRTC_MAX_OPTS = 32 };

static char *ar_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = n >= 0 ? calloc(1, (size_t)n + 1) : NULL;
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  fclose(f);
  return s;
}

/* The compiled image: the cubin, or (ptx) the PTX text with its terminating NUL. */
static int ar_write_image(nvrtcProgram p, const char *path, int ptx) {
  size_t n = 0;
  if ((ptx ? nvrtcGetPTXSize(p, &n) : nvrtcGetCUBINSize(p, &n)) != NVRTC_SUCCESS || n == 0) return -1;
  char *bin = malloc(n);
  if (!bin || (ptx ? nvrtcGetPTX(p, bin) : nvrtcGetCUBIN(p, bin)) != NVRTC_SUCCESS) {
    free(bin);
    return -1;
  }
  FILE *f = fopen(path, "wb");
  int rc = f && fwrite(bin, 1, n, f) == n ? 0 : -1;
  if (f && fclose(f)) rc = -1;
  free(bin);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 5 || argc - 5 > AR_NVRTC_MAX_OPTS - 3) {
    fprintf(stderr, "usage: %s SRC ARCH OUT_CUBIN OUT_LOG [-Idir ...]\n", argv[0]);
    return 1;
  }
  const char *src_path = argv[1], *cubin_path = argv[3], *log_path = argv[4];
  /* ARCH 90: a cubin for sm_90; compute_120: PTX for compute_120 (OUT_CUBIN gets the PTX text) */
  int ptx = !strncmp(argv[2], "compute_", 8);
  char arch[64];
  snprintf(arch, sizeof arch, "--gpu-architecture=%s%s", ptx ? "" : "sm_", argv[2]);
  /* No -lineinfo: the images of ar_p2p.cu are embedded in arbench (scripts/embed-cubins.py), and line info would
   * triple their size (same registers and spills either way). */
  const char *opts[AR_NVRTC_MAX_OPTS] = {arch, "-std=c++17", "--ptxas-options=-v"};
  int nopts = ptx ? 2 : 3;
  for (int i = 5; i < argc; i++) opts[nopts++] = argv[i];
  char *src = ar_read_file(src_path);
  if (!src) {
    fprintf(stderr, "ar_nvrtc_build: cannot read %s\n", src_path);
    return 1;
  }
  FILE *log = fopen(log_path, "w");
  if (!log) {
    fprintf(stderr, "ar_nvrtc_build: cannot write %s\n", log_path);
    return 1;
  }
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  nvrtcProgram p;
  nvrtcResult r = nvrtcCreateProgram(&p, src, src_path, 0, NULL, NULL);
  if (r == NVRTC_SUCCESS) {
    r = nvrtcCompileProgram(p, nopts, opts);
    size_t n = 0;
    nvrtcGetProgramLogSize(p, &n);
    char *text = calloc(1, n + 1);
    if (text) nvrtcGetProgramLog(p, text);
    if (r == NVRTC_SUCCESS && ar_write_image(p, cubin_path, ptx)) {
      fprintf(log, "nvrtc %d.%d error: no %s for %s%s\n%s\n", major, minor, ptx ? "PTX" : "cubin", ptx ? "" : "sm_",
              argv[2], text ? text : "");
    } else if (r == NVRTC_SUCCESS) {
      fprintf(log, "nvrtc %d.%d ok\n%s\n", major, minor, text ? text : "");
    } else {
      fprintf(log, "nvrtc %d.%d error: %s\n%s\n", major, minor, nvrtcGetErrorString(r), text ? text : "");
      FILE *empty = fopen(cubin_path, "wb"); /* an empty cubin: the build's output exists, the log says why */
      if (empty) fclose(empty);
    }
    free(text);
    nvrtcDestroyProgram(&p);
  } else {
    fprintf(log, "nvrtc %d.%d error: %s\n", major, minor, nvrtcGetErrorString(r));
  }
  free(src);
  return fclose(log) ? 1 : 0;
}
