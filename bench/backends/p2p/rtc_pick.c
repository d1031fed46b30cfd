/* rtc_pick.c — pure-C choices of the NVRTC stacks' run-time kernel loading (bench/backends/p2p/rtc.c):
 * which embedded image a device runs, and whether an image's ELF symbol table has a kernel. No CUDA. */
#include "backends/p2p/rtc_pick.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int ar_rtc_pick(const struct ar_rtc_image *imgs, int n, int cc, char *why, size_t len) {
  int best = -1, ptx = -1;
  for (int i = 0; i < n; i++) {
    if (imgs[i].arch > cc) continue;
    if (imgs[i].ptx) {
      if (ptx < 0 || imgs[i].arch > imgs[ptx].arch) ptx = i;
    } else if (imgs[i].arch / 10 == cc / 10 && (best < 0 || imgs[i].arch > imgs[best].arch)) {
      best = i;
    }
  }
  if (best >= 0) return best;
  if (ptx >= 0) return ptx;
  int at = snprintf(why, len, "no cubin for sm_%d in this build (", cc);
  const char *sep = "cubins: ";
  for (int i = 0; i < n && at >= 0 && (size_t)at < len; i++) {
    at += snprintf(why + at, len - (size_t)at, "%s%s_%d", sep, imgs[i].ptx ? "compute" : "sm", imgs[i].arch);
    sep = ", ";
  }
  if (at >= 0 && (size_t)at < len) snprintf(why + at, len - (size_t)at, "%s)", n ? "" : "none compiled");
  return -1;
}

static uint64_t rd(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

int ar_rtc_elf_has_func(const unsigned char *img, size_t size, const char *name) {
  if (size < 64 || memcmp(img, "\x7f" "ELF", 4) || img[4] != 2 || img[5] != 1) return -1;
  uint64_t shoff = rd(img + 0x28, 8), shentsize = rd(img + 0x3A, 2), shnum = rd(img + 0x3C, 2);
  if (shentsize < 64 || shoff > size || shnum > (size - shoff) / shentsize) return -1;
  for (uint64_t s = 0; s < shnum; s++) {
    const unsigned char *sh = img + shoff + s * shentsize;
    if (rd(sh + 4, 4) != 2) continue; /* SHT_SYMTAB */
    uint64_t off = rd(sh + 0x18, 8), sz = rd(sh + 0x20, 8), link = rd(sh + 0x28, 4), ent = rd(sh + 0x38, 8);
    if (link >= shnum || ent < 24 || off > size || sz > size - off) return -1;
    const unsigned char *strh = img + shoff + link * shentsize;
    uint64_t stroff = rd(strh + 0x18, 8), strsz = rd(strh + 0x20, 8);
    if (stroff > size || strsz > size - stroff) return -1;
    for (uint64_t e = off; e + 24 <= off + sz; e += ent) {
      uint64_t nm = rd(img + e, 4);
      if ((img[e + 4] & 0xf) != 2 || nm >= strsz) continue; /* STT_FUNC */
      const char *sym = (const char *)img + stroff + nm;
      if (strnlen(sym, strsz - nm) < strsz - nm && !strcmp(sym, name)) return 1;
    }
  }
  return 0;
}
