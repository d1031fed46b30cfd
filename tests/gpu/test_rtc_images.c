/* test_rtc_images.c — NVRTC stacks, no GPU: each cubin embedded in arbench (one per arch of ARCHS, argv[1]) has every
 * kernel the launchers look up in its ELF symbol table, and the newest arch's PTX is a C string with their .entry. */
#include "backends/p2p/rtc_pick.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s ARCHS\n", argv[0]);
    return 2;
  }
  int fails = 0, want = 0, newest = 0;
  char archs[256];
  snprintf(archs, sizeof archs, "%s", argv[1]);
  for (char *a = strtok(archs, ", "); a; a = strtok(NULL, ", ")) {
    int found = 0;
    want++;
    newest = atoi(a) > newest ? atoi(a) : newest;
    for (int i = 0; i < ar_rtc_nimages; i++) found += !ar_rtc_images[i].ptx && ar_rtc_images[i].arch == atoi(a);
    if (found != 1) fprintf(stderr, "FAIL: sm_%s: %d embedded cubins (expected 1)\n", a, found), fails++;
  }
  int ptx = 0;
  for (int i = 0; i < ar_rtc_nimages; i++) ptx += ar_rtc_images[i].ptx && ar_rtc_images[i].arch == newest;
  if (ptx != 1) fprintf(stderr, "FAIL: %d PTX images for compute_%d (expected 1)\n", ptx, newest), fails++;
  if (ar_rtc_nimages != want + 1) fprintf(stderr, "FAIL: %d images for %d archs + PTX\n", ar_rtc_nimages, want), fails++;
  for (int i = 0; i < ar_rtc_nimages; i++) {
    const struct ar_rtc_image *im = &ar_rtc_images[i];
    if (im->ptx) { /* a C string (the driver reads it up to its NUL) with an .entry per kernel */
      if (!im->size || im->data[im->size - 1]) fprintf(stderr, "FAIL: compute_%d PTX not NUL-terminated\n", im->arch), fails++;
      for (int k = 0; k < AR_RTC_NKERNELS && im->size && !im->data[im->size - 1]; k++) {
        char entry[128];
        snprintf(entry, sizeof entry, ".entry %s(", ar_rtc_kernel_names[k]);
        if (!strstr((const char *)im->data, entry)) fprintf(stderr, "FAIL: compute_%d PTX: no '%s'\n", im->arch, entry), fails++;
      }
      continue;
    }
    for (int k = 0; k < AR_RTC_NKERNELS; k++) {
      int r = ar_rtc_elf_has_func(im->data, im->size, ar_rtc_kernel_names[k]);
      if (r != 1) fprintf(stderr, "FAIL: sm_%d: kernel %d '%s': %s\n", im->arch, k, ar_rtc_kernel_names[k],
                          r < 0 ? "not an ELF64 image" : "not in its symbol table"), fails++;
    }
    /* the slots are the launchers': p2p_kernel<dtype code>, then fused_kernel<0>, <1> */
    char want_name[96];
    for (int k = 0; k < AR_RTC_NKERNELS; k++) {
      if (k < AR_RTC_FUSED0) snprintf(want_name, sizeof want_name, "_ZN6ar_p2p10p2p_kernelILi%dEEEv11ar_p2p_args", k);
      else snprintf(want_name, sizeof want_name, "_ZN6ar_p2p12fused_kernelILi%dEEEv11ar_p2p_args", k - AR_RTC_FUSED0);
      if (strcmp(want_name, ar_rtc_kernel_names[k])) fprintf(stderr, "FAIL: slot %d is '%s', expected '%s'\n", k,
                                                              ar_rtc_kernel_names[k], want_name), fails++;
    }
    if (ar_rtc_elf_has_func(im->data, im->size, "_ZN6ar_p2p10p2p_kernelILi9EEEv11ar_p2p_args") != 0)
      fprintf(stderr, "FAIL: sm_%d: a kernel never instantiated resolves\n", im->arch), fails++;
  }
  if (fails) return 1;
  printf("rtc images: %d cubins + PTX, %d kernels each resolve\n", ar_rtc_nimages - 1, AR_RTC_NKERNELS);
  return 0;
}
