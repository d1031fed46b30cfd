/* knownbad.c — known-bad stacks on the boxes arbench serves: each entry checked against the public report it
 * cites (the issue thread read, its URL, what it says, what was not verified), and the matching every command uses. */
#include "knownbad.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ranges are [min, max): max is the first version a source says works. Entries whose library is NULL are
 * conditions of the GPUs and their driver (no library version decides). Read 2026-12-06 from the threads
 * named; "verified" says what of each was read there and what was not. */
static const struct ar_knownbad table[] = {
  {"nccl-2418-rtxpro6000-512k", "nccl", "2.26.2", "2.26.3", "RTX PRO 6000", 2, AR_KB_CRASH,
   "collectives of 512 KiB and more, two or more GPUs, no NVLink",
   "illegal memory access in collectives of 512 KiB and more (all_reduce_perf fails at 524288 bytes)",
   "use NCCL 2.31.2 or newer (e.g. the nvidia-nccl-cu12/-cu13 wheel, or LD_LIBRARY_PATH to a newer libnccl); "
   "the report's PyTorch 2.7.0+cu128 loaded 2.26.2",
   "https://github.com/NVIDIA/nccl/issues/2418",
   "closed issue: 2x RTX PRO 6000 Blackwell Workstation Edition, driver 580.173.02, PyTorch 2.7.0+cu128, one node, "
   "no NVLink (topo NODE); NCCL 2.26.2+cuda12.2 fails reproducibly from 524288 bytes in all_reduce_perf -g 2; "
   "NCCL 2.31.2+cuda12.9 does not reproduce it",
   "2.26.2 failing and 2.31.2 working are in the report; the versions between them were not tested there, so the "
   "range is 2.26.2 alone (not flagged: 2.26.3 to 2.31.1, unknown); other RTX PRO 6000 editions were not reported"},
  {"nccl-2094-small-allreduce-2.29", "nccl", "2.29.0", NULL, NULL, 1, AR_KB_SLOW,
   "small messages (latency-bound sizes)",
   "all-reduce of small messages slower than with NCCL 2.28",
   "compare small sizes against a 2.28 stack before moving (arbench compare on two stacks' results); keep 2.28.x "
   "where small-message latency decides",
   "https://github.com/NVIDIA/nccl/issues/2094",
   "open issue titled 'Small shapes all-reduce performance regression between version 28 and 29 on H100 machine' "
   "(8 ranks, one node)",
   "the title, the open state and the 8-GPU H100 logs were read; the exact patch versions, sizes and the size of "
   "the regression were not, nor whether PCIe-only boxes see it; no fixed version is known (open)"},
  {"nccl-tests-287-sm120-smem", "nccl", "2.25.0", "2.26.2", "RTX 5090", 1, AR_KB_FAILS, "",
   "NCCL fails on RTX 5090 (log: 'ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856'); "
   "all_reduce_perf errors with more than one GPU",
   "use NCCL 2.26.2 or newer",
   "https://github.com/NVIDIA/nccl-tests/issues/287",
   "closed, labelled fixed: NCCL 2.25.1+cuda12.8 on 2x GeForce RTX 5090 logs the shared-memory line and "
   "all_reduce_perf fails with several GPUs; a maintainer pointed to 2.26.2 on 2025-03-13 and the reporter "
   "confirmed all_reduce_perf works with it",
   "only 2.25.1 was reported failing (2.25.0 is assumed to share it); only GeForce RTX 5090 was reported, though "
   "the message is about SM120's shared memory"},
  {"nccl-1852-5090d-shm-512k", "nccl", "2.27.5", "2.27.6", "RTX 5090 D", 2, AR_KB_CRASH,
   "the SHM transport (NCCL_P2P_DISABLE=1), messages of 512 KiB and more",
   "all-reduce fails over SHM from 512 KiB",
   "run with P2P enabled where the box allows it, or move to a newer NCCL and check with arbench run",
   "https://github.com/NVIDIA/nccl/issues/1852",
   "closed issue: 2 ranks on RTX 5090 D, driver 570.148.08, NCCL 2.27.5+cuda12.4, NCCL_P2P_DISABLE=1: "
   "all_reduce_perf -b 1K -e 512K crashes at 512K",
   "only 2.27.5 was reported (the range is that version alone); the fixed version was not found in the thread; "
   "the SHM condition is named here, not checked by the match"},
  {"gpu-rtx5090-p2p-gns", NULL, NULL, NULL, "RTX 5090", 2, AR_KB_SLOW,
   "stock NVIDIA driver (not a P2P-patched open kernel module)",
   "peer-to-peer between RTX 5090s refused: nvidia-smi topo -p2p shows GNS (GPU not supported); NCCL and the "
   "custom p2p-* kernels go through host memory",
   "check with arbench doctor (P2P access) and arbench links; expect NCCL over SHM and no p2p-* backends; only "
   "a P2P-enabled driver changes it",
   "https://github.com/noonghunna/club-3090/issues/1130",
   "a 2x RTX 5090 PCIe benchmark report whose nvidia-smi topo -p2p rw matrix reads GNS between the GPUs (also "
   "club-3090#1124); tinygrad/open-gpu-kernel-modules#29 asks for P2P on RTX 5090 because stock drivers lack it",
   "users' reports, not an NVIDIA statement; driver versions of the GNS reports were not read"},
  {"trtllm-16899-pcie-ipc", NULL, NULL, NULL, "RTX 6000D|RTX 5090", 2, AR_KB_FAILS,
   "PCIe only, no NVLink",
   "cudaIpcOpenMemHandle fails (cudaErrorInvalidDevice, 101): custom all-reduce over CUDA IPC cannot start "
   "(TensorRT-LLM crashes at engine init)",
   "use NCCL for all-reduce on these boxes; arbench's p2p-* and fused backends need CUDA IPC: check them with "
   "arbench doctor and arbench links before trusting a pick",
   "https://github.com/NVIDIA/TensorRT-LLM/issues/16899",
   "open issue on 8x RTX 6000D (Llama-3-70B BF16 fails); a comment of 2026-07-31 reproduces it on 8x RTX 5090 "
   "PCIe (driver 580.82.09, TRT-LLM 1.3.0rc22): cudaErrorInvalidDevice 101 from cudaIpcOpenMemHandle on all 8 "
   "ranks; PR #17034 falls back to NCCL",
   "the root cause is not established (PR #17034 says so); other drivers and boxes with P2P enabled were not "
   "reported"},
};

const struct ar_knownbad *ar_knownbad_table(size_t *n) {
  *n = sizeof table / sizeof table[0];
  return table;
}

const struct ar_knownbad *ar_knownbad_find(const char *id) {
  for (size_t i = 0; id && i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(table[i].id, id)) return &table[i];
  return NULL;
}

const char *ar_knownbad_severity_name(enum ar_kb_severity s) {
  return s == AR_KB_CRASH ? "crash" : s == AR_KB_FAILS ? "fails" : "slow";
}

long ar_knownbad_version(const char *s) {
  if (!s) return -1;
  const char *p = s;
  long v[3] = {0, 0, 0};
  int k = 0;
  while (k < 3) {
    if (!isdigit((unsigned char)*p)) return -1;
    char *end;
    v[k++] = strtol(p, &end, 10);
    p = end;
    if (*p != '.') break;
    p++;
  }
  if (*p && *p != '+' && *p != '-') return -1; /* "+cuda12.8", "-1" (a release tag) */
  if (k == 1) { /* NCCL_VERSION_CODE */
    long c = v[0];
    if (c >= 10000) return c;
    if (c >= 1000) return c / 1000 * 10000 + c % 1000 / 100 * 100 + c % 100;
    return -1;
  }
  if (v[1] > 99 || v[2] > 99) return -1;
  return v[0] * 10000 + v[1] * 100 + v[2];
}

static int has_ci(const char *hay, const char *needle, size_t n) {
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
    if (i == n) return 1;
  }
  return 0;
}

/* The GPU name matches one of the '|'-separated substrings. */
static int gpu_is(const char *list, const char *name) {
  for (const char *p = list; name && *p;) {
    size_t n = strcspn(p, "|");
    if (n && has_ci(name, p, n)) return 1;
    p += n + (p[n] == '|');
  }
  return 0;
}

static int entry_matches(const struct ar_knownbad *e, const char *library, long code, const char *const *gpus,
                         int ngpus) {
  if (e->library) {
    if (!library || strcmp(library, e->library) || code < 0) return 0;
    if (e->min && code < ar_knownbad_version(e->min)) return 0;
    if (e->max && code >= ar_knownbad_version(e->max)) return 0;
  }
  if (!e->gpus) return 1;
  int hit = 0;
  for (int i = 0; i < ngpus; i++) hit += gpu_is(e->gpus, gpus[i]);
  return hit >= e->min_gpus;
}

int ar_knownbad_match(const char *library, const char *version, const char *const *gpus, int ngpus,
                      const struct ar_knownbad **out, int max) {
  long code = ar_knownbad_version(version);
  int n = 0;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (entry_matches(&table[i], library, code, gpus, ngpus)) {
      if (n < max) out[n] = &table[i];
      n++;
    }
  return n < max ? n : max;
}

void ar_knownbad_scope(const struct ar_knownbad *e, char *buf, size_t len) {
  char ver[96] = "", gpu[160] = "";
  if (e->library && e->min && e->max && ar_knownbad_version(e->max) == ar_knownbad_version(e->min) + 1)
    snprintf(ver, sizeof ver, "NCCL %s", e->min); /* one version */
  else if (e->library && e->min && e->max)
    snprintf(ver, sizeof ver, "%s %s to before %s", "NCCL", e->min, e->max);
  else if (e->library && e->min) snprintf(ver, sizeof ver, "NCCL %s and newer", e->min);
  else if (e->library && e->max) snprintf(ver, sizeof ver, "NCCL before %s", e->max);
  if (e->gpus) {
    snprintf(gpu, sizeof gpu, "%s%s GPU%s named ", *ver ? " on " : "", e->min_gpus > 1 ? "2 or more" : "any",
             e->min_gpus > 1 ? "s" : "");
    for (const char *p = e->gpus; *p;) {
      size_t n = strcspn(p, "|"), at = strlen(gpu);
      snprintf(gpu + at, sizeof gpu - at, "%s%.*s", p == e->gpus ? "" : " or ", (int)n, p);
      p += n + (p[n] == '|');
    }
  }
  snprintf(buf, len, "%s%s", ver, gpu);
}

/* The host of a gpus[] entry that names its rank (an import: rank_map gives the host), "" otherwise. */
static const char *host_of(json_t *run, json_t *g) {
  json_t *r = json_object_get(g, "rank"), *m;
  size_t i;
  if (!json_is_integer(r)) return "";
  json_array_foreach(json_object_get(run, "rank_map"), i, m)
    if (json_integer_value(json_object_get(m, "rank")) == json_integer_value(r)) {
      const char *h = json_string_value(json_object_get(m, "host"));
      return h ? h : "";
    }
  return "";
}

int ar_knownbad_record(json_t *run, char *line, size_t len) {
  json_t *st = json_object_get(run, "stack"), *g, *ids = json_array();
  const char *lib = json_string_value(json_object_get(st, "library"));
  const char *ver = json_string_value(json_object_get(st, "nccl_loaded"));
  const char *names[256];
  char seen[256][96];
  int ng = 0;
  size_t i;
  json_array_foreach(json_object_get(run, "gpus"), i, g) { /* one per physical GPU: ranks sharing one count once */
    const char *nm = json_string_value(json_object_get(g, "name")), *bus = json_string_value(json_object_get(g, "busid"));
    if (!nm || ng >= 256) continue;
    *seen[ng] = 0;
    if (bus) snprintf(seen[ng], sizeof seen[ng], "%.40s@%.50s", bus, host_of(run, g));
    int dup = 0;
    for (int k = 0; k < ng && *seen[ng]; k++) dup |= !strcmp(seen[k], seen[ng]);
    if (!dup) names[ng++] = nm;
  }
  const struct ar_knownbad *hit[16];
  int n = ar_knownbad_match(lib ? lib : "nccl", ver, names, ng, hit, 16);
  for (int k = 0; k < n; k++) json_array_append_new(ids, json_string(hit[k]->id));
  json_object_set_new(run, "known_bad", ids);
  if (line && len) ar_knownbad_line(run, line, len);
  return n;
}

int ar_knownbad_line(json_t *run, char *line, size_t len) {
  json_t *x;
  size_t i;
  int n = 0;
  *line = 0;
  json_array_foreach(json_object_get(run, "known_bad"), i, x) {
    const struct ar_knownbad *e = ar_knownbad_find(json_string_value(x));
    if (e && e->severity == AR_KB_SLOW) continue; /* recorded, and shown by doctor and report: no warning line */
    size_t at = strlen(line);
    if (e) snprintf(line + at, len - at, "%s%s (%s: %s; %s)", n ? "; " : "known-bad stack: ", e->id,
                    ar_knownbad_severity_name(e->severity), e->symptom, e->source);
    else if (json_is_string(x)) snprintf(line + at, len - at, "%s%s", n ? "; " : "known-bad stack: ", json_string_value(x));
    n++;
  }
  return n;
}
