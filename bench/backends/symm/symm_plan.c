/* symm_plan.c — variant parsing, launch shape and the NCCL version gate of the `symm` backend. Pure C
 * (no CUDA, no NCCL): built into every binary, so `arbench list` can say why symm is missing. */
#include "backends/symm/symm_plan.h"
#include "backends/p2p/variant.h"
#include "ar.h"
#include "ar_core.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYMM_KEYS "algo, blocks, threads"

static int symm_key(void *ctx, const char *key, const char *val, char *err, size_t len) {
  struct ar_symm_variant *v = ctx;
  if (!strcmp(key, "algo")) {
    if (!strcmp(val, "oneshot")) v->algo = AR_CORE_ONESHOT;
    else if (!strcmp(val, "twoshot")) v->algo = AR_CORE_TWOSHOT;
    else {
      snprintf(err, len, "symm variant algo=%s: expected oneshot or twoshot", val);
      return -AR_EINVAL;
    }
    return 0;
  }
  if (!strcmp(key, "blocks")) return ar_variant_int("symm", key, val, 1, AR_SYMM_MAX_BLOCKS, &v->blocks, err, len);
  if (!strcmp(key, "threads")) {
    int rc = ar_variant_int("symm", key, val, AR_SYMM_MIN_THREADS, AR_SYMM_MAX_THREADS, &v->threads, err, len);
    if (!rc && v->threads % 32) {
      snprintf(err, len, "symm variant threads=%s: expected a multiple of 32 in %d..%d", val, AR_SYMM_MIN_THREADS,
               AR_SYMM_MAX_THREADS);
      return -AR_EINVAL;
    }
    return rc;
  }
  snprintf(err, len, "symm variant: unknown key '%s' (known: " SYMM_KEYS ")", key);
  return -AR_EINVAL;
}

int ar_symm_variant_parse(const char *text, struct ar_symm_variant *v, char *err, size_t len) {
  memset(v, 0, sizeof *v);
  v->algo = AR_CORE_ONESHOT;
  return ar_variant_each("symm", SYMM_KEYS, text ? text : "", symm_key, v, err, len);
}

void ar_symm_variant_text(const struct ar_symm_variant *v, char *buf, size_t len) {
  char b[16] = "auto", t[16] = "auto";
  if (v->blocks) snprintf(b, sizeof b, "%d", v->blocks);
  if (v->threads) snprintf(t, sizeof t, "%d", v->threads);
  snprintf(buf, len, "algo=%s,blocks=%s,threads=%s", ar_core_algo_name(v->algo), b, t);
}

struct ar_symm_shape ar_symm_shape(const struct ar_symm_variant *v, size_t bytes, int nranks, int sm_count) {
  struct ar_symm_shape s;
  s.threads = v->threads ? v->threads : 512;
  size_t work = v->algo == AR_CORE_ONESHOT || nranks < 2 ? bytes : bytes / (size_t)nranks;
  size_t per_block = (size_t)s.threads * 16 * 8; /* 8 16-byte vectors per thread */
  size_t want = (work + per_block - 1) / per_block;
  if (want < 1) want = 1;
  if (want > AR_SYMM_MAX_BLOCKS) want = AR_SYMM_MAX_BLOCKS;
  s.blocks = v->blocks ? v->blocks : (int)want;
  if (sm_count > 0 && s.blocks > sm_count) s.blocks = sm_count;
  return s;
}

/* "2.28.9" from an NCCL_VERSION_CODE (the encoding changed at 2.9: X*1000+Y*100+Z before, X*10000+Y*100+Z
 * from then on). */
static void code_str(int code, char *buf, size_t len) {
  if (code >= 10000) snprintf(buf, len, "%d.%d.%d", code / 10000, code % 10000 / 100, code % 100);
  else snprintf(buf, len, "%d.%d.%d", code / 1000, code % 1000 / 100, code % 100);
}

int ar_symm_gate(int cuda, int nvcc, int header_code, int loaded_code, char *why, size_t len) {
  char h[32], l[32];
  code_str(header_code, h, sizeof h);
  code_str(loaded_code, l, sizeof l);
  if (!cuda) {
    snprintf(why, len, "built without CUDA");
    return AR_SYMM_NOT_COMPILED;
  }
  if (!nvcc || header_code < AR_SYMM_NCCL_MIN) { /* name both when both are missing (the cu128 wheels) */
    char hdr[96] = "";
    if (header_code < AR_SYMM_NCCL_MIN && header_code > 0)
      snprintf(hdr, sizeof hdr, "needs NCCL >= 2.28 headers (built with %s)", h);
    else if (header_code < AR_SYMM_NCCL_MIN)
      snprintf(hdr, sizeof hdr, "needs NCCL >= 2.28 headers (built without nccl.h)");
    snprintf(why, len, "%s%s%s", nvcc ? "" : "no nvcc in this stack", !nvcc && *hdr ? "; " : "", hdr);
    return AR_SYMM_NOT_COMPILED;
  }
  if (loaded_code && loaded_code < AR_SYMM_NCCL_MIN) {
    snprintf(why, len, "needs NCCL >= 2.28 (the loaded libnccl is %s; built with %s headers)", l, h);
    return AR_SYMM_UNAVAILABLE;
  }
  return AR_SYMM_READY;
}
