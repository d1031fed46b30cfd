/* serving_rules.c — vLLM's and SGLang's allreduce rules as data (read from their source at the commits named
 * below; docs/serving.md), and what an arbench configuration stands for in them. */
#include "analysis/serving.h"
#include "ar.h"
#include "backend.h"
#include "results.h"
#include <stdio.h>
#include <string.h>

/* ---- what arbench measured, as the engines' paths ---- */

static const char *const path_names[AR_SP_COUNT] = {
  "nccl", "nccl-symmetric-memory", "custom-1stage", "custom-2stage", "symmetric-memory", "fusion",
  "fusion-baseline", "none"};

const char *ar_spath_name(int p) { return p >= 0 && p < AR_SP_COUNT ? path_names[p] : "?"; }

/* "KEY=" with a value in a "k=v,k2=v2" variant: that value's first character, 0 when absent. */
static int variant_has(const char *variant, const char *kv) {
  size_t n = strlen(kv);
  for (const char *p = variant; p && *p;) {
    if (!strncmp(p, kv, n) && (p[n] == ',' || !p[n])) return 1;
    p = strchr(p, ',');
    p = p ? p + 1 : NULL;
  }
  return 0;
}

/* nccl:symm=1: the variant, or what the backend recorded it forced. */
static int nccl_symm(json_t *rec) {
  json_t *f = json_object_get(json_object_get(json_object_get(rec, "nccl"), "forced"), "symm");
  return variant_has(ar_rec_str(rec, "variant", ""), "symm=1") || json_is_true(f) ||
         (json_is_integer(f) && json_integer_value(f) > 0);
}

int ar_spath_of(json_t *rec) {
  unsigned flags;
  int fam = ar_backend_family(ar_rec_str(rec, "backend", ""), &flags);
  const char *impl = ar_rec_str(rec, "impl", "");
  switch (fam) {
  case AR_BE_FAM_NCCL: return nccl_symm(rec) ? AR_SP_NCCL_SYMM : AR_SP_NCCL;
  case AR_BE_FAM_SYMM: return AR_SP_SYMM_MEM;
  case AR_BE_FAM_FUSED:
    return !strcmp(ar_rec_str(json_object_get(rec, "fused"), "unfused", "no"), "no") &&
                   !strstr(ar_rec_str(rec, "variant", ""), "unfused=")
               ? AR_SP_FUSION
               : AR_SP_FUSION_BASE;
  case AR_BE_FAM_P2P: /* the engines' kernels read their peers' buffers (pull): a push has no engine path */
    if (variant_has(ar_rec_str(rec, "variant", ""), "mode=push")) return AR_SP_NONE;
    if (!strcmp(impl, "oneshot")) return AR_SP_CUSTOM_1STAGE;
    if (!strcmp(impl, "twoshot")) return AR_SP_CUSTOM_2STAGE;
    return AR_SP_NONE;
  default: return -1; /* host backends, unknown names */
  }
}

json_t *ar_spath_table(void) {
  static const char *const rows[][4] = {
    {"nccl", "nccl, nccl-tests", "NCCL through the engine's pynccl, with tune's NCCL decisions (libarbench-tuner.so)",
     "NCCL through its pynccl, with tune's NCCL decisions (libarbench-tuner.so)"},
    {"nccl-symmetric-memory", "nccl:symm=1", "VLLM_USE_NCCL_SYMM_MEM=1 (TP >= 4, its own size ranges)",
     "--enable-symm-mem (it sets NCCL_CUMEM_ENABLE=1, NCCL_NVLS_ENABLE=1)"},
    {"custom-1stage", "p2p-oneshot (mode=pull; reg=1: CUDA-graph buffers, reg=0: eager copy)",
     "custom allreduce, cross_device_reduce_1stage", "custom allreduce v1, cross_device_reduce_1stage"},
    {"custom-2stage", "p2p-twoshot", "custom allreduce, cross_device_reduce_2stage",
     "custom allreduce v1, cross_device_reduce_2stage"},
    {"symmetric-memory", "symm", "torch symmetric memory (VLLM_ALLREDUCE_USE_SYMM_MEM=1)",
     "--enable-torch-symm-mem"},
    {"fusion", "fused (unfused=no)", "FlashInfer allreduce+RMSNorm fusion (pass_config.fuse_allreduce_rms)",
     "FlashInfer allreduce+RMSNorm fusion (--flashinfer-allreduce-fusion-backend)"},
    {"fusion-baseline", "fused:unfused=p2p, fused:unfused=nccl", "the unfused allreduce then RMSNorm",
     "the unfused allreduce then RMSNorm"},
    {"none", "p2p-staged, p2p-islands, p2p-oneshot:mode=push", "no such kernel", "no such kernel"},
  };
  json_t *t = json_array();
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    json_array_append_new(t, json_pack("{s:s, s:s, s:s, s:s}", "path", rows[i][0], "arbench", rows[i][1], "vllm",
                                       rows[i][2], "sglang", rows[i][3]));
  return t;
}

/* ---- the engines ---- */

static const int vllm_worlds[] = {2, 4, 6, 8};   /* _SUPPORTED_WORLD_SIZES has 16 too, but should_custom_ar */
static const int sglang_worlds[] = {2, 4, 6, 8}; /* refuses world sizes above 8 */

static const struct ar_serving_engine engines[AR_SERVING_NENGINES] = {
  {"vllm", "vLLM", "vllm-project/vllm main c81093757 (2026-08-03; read at its mirror modal-projects/vllm)",
   "vllm serve MODEL", "--tensor-parallel-size", "--disable-custom-all-reduce", "VLLM_CUSTOM_ALLREDUCE_ALGO",
   "csrc/custom_all_reduce.cuh:271-310: 1stage|oneshot|2stage|twoshot for every size; unset: world size 2 one-stage",
   8u << 20, 0,
   "vllm/distributed/device_communicators/custom_all_reduce.py:74 (max_size=8192 * 1024), :353 (bytes % 16 == 0), "
   ":360 (inp_size < self.max_size)",
   vllm_worlds, 4,
   "custom_all_reduce.py:57 (_SUPPORTED_WORLD_SIZES), :349 (world_size > 8: never)",
   "custom_all_reduce.py:179-184 (same node, world_size > 2 and not fully connected over NVLink: disabled) and :359; "
   "no opt-in in main: VLLM_ALLOW_CUSTOM_ALLREDUCE_PCIE is only in open PR #47979",
   "torch symmetric memory needs the compute capability in SYMM_MEM_ALL_REDUCE_MAX_SIZES (9.0, 10.0, 10.3, 10.7; "
   "all_reduce_utils.py) and multicast (symm_mem.py:66,106): never on PCIe-only GPUs",
   "-cc '{\"pass_config\": {\"fuse_allreduce_rms\": true}}' (FlashInfer's kernel)",
   "vllm/config/vllm.py:155-175 enables fuse_allreduce_rms only on compute capability 9.0 and 10.x, and "
   "FI_ALLREDUCE_FUSION_MAX_SIZE_MB has entries for 90 and 100 only (compilation.py:161-215)"},
  {"sglang", "SGLang", "sgl-project/sglang main 8905cbd42f4a (2026-07-20; read at its mirror modal-projects/sglang)",
   "python3 -m sglang.launch_server --model-path MODEL", "--tp-size", "--disable-custom-all-reduce",
   "SGLANG_CUSTOM_ALLREDUCE_ALGO",
   "sgl-kernel/csrc/allreduce/custom_all_reduce.cuh:611-640 (an sgl-kernel build that has it): 1stage|oneshot|"
   "2stage|twoshot for every size; unset: world size 2 one-stage",
   8u << 20, 1,
   "python/sglang/srt/distributed/device_communicators/custom_all_reduce.py:42 (_MAX_CAR_SIZE = 8192 * 1024), "
   ":265 (bytes % 16 == 0), :272-273 (inp_size <= self.max_size); without NVLink v1 runs "
   "(custom_all_reduce_v2.py:410-420)",
   sglang_worlds, 4, "custom_all_reduce.py:41 (_SUPPORTED_WORLD_SIZES)",
   "custom_all_reduce_utils.py:465 (world_size > 2 and not full NVLink: disabled) and custom_all_reduce.py:272",
   "--enable-torch-symm-mem needs compute capability 9 or 10 and multicast (torch_symm_mem.py:47-86,116): never "
   "on PCIe-only GPUs",
   "--flashinfer-allreduce-fusion-backend auto (FlashInfer's kernel)",
   "python/sglang/srt/layers/flashinfer_comm_fusion.py:46-51: FlashInfer allreduce fusion requires SM90 or SM10X"},
};

const struct ar_serving_engine *ar_serving_engines(int *n) {
  *n = AR_SERVING_NENGINES;
  return engines;
}

const struct ar_serving_engine *ar_serving_engine_find(const char *name) {
  for (int i = 0; i < AR_SERVING_NENGINES; i++)
    if (!strcmp(engines[i].name, name)) return &engines[i];
  return NULL;
}

int ar_serving_custom_on(const struct ar_serving_engine *e, int ranks, int nodes, int nvlink, char *why, size_t len) {
  int world = 0;
  for (int i = 0; i < e->nworlds; i++) world |= e->worlds[i] == ranks;
  if (nodes > 1) snprintf(why, len, "%s turns custom allreduce off for a group spanning nodes", e->label);
  else if (!world) snprintf(why, len, "%s has no custom allreduce for %d GPUs (%s)", e->label, ranks, e->world_source);
  else if (ranks > 2 && !nvlink)
    snprintf(why, len, "%s turns custom allreduce off above 2 GPUs without NVLink (%s)", e->label, e->pcie_source);
  else return 1;
  return 0;
}

int ar_serving_custom_at(const struct ar_serving_engine *e, size_t bytes) {
  return bytes % 16 == 0 && (e->cap_inclusive ? bytes <= e->cap : bytes < e->cap);
}

int ar_serving_auto_kernel(int ranks, int nvlink, size_t bytes) {
  if (ranks == 2 || !nvlink) return AR_SP_CUSTOM_1STAGE;
  return (ranks <= 4 && bytes < (512u << 10)) || (ranks <= 8 && bytes < (256u << 10)) ? AR_SP_CUSTOM_1STAGE
                                                                                       : AR_SP_CUSTOM_2STAGE;
}

long long ar_serving_cap_value(const struct ar_serving_engine *e, size_t max_bytes) {
  return e->cap_inclusive ? (long long)max_bytes : (long long)max_bytes + 1;
}

static void add_option(json_t *out, const char *path, const char *how, const char *applies, const char *source) {
  json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:b}", "path", path, "how", how, "applies", applies,
                                       "source", source, "measured", 0));
}

/* NCCL from 2.29.2 runs its symmetric kernels only when every GPU pair is NVLink-connected (ncclSymkAvailable,
 * src/sym_kernels.cc:389 at v2.29.2-1, :593 at v2.30.7-1; no variable overrides it): on PCIe the engines' NCCL
 * symmetric-memory switch registers windows and NCCL runs its regular algorithms. 1 when that NCCL is known. */
int ar_serving_nccl_symm_off(int nccl_version, int nvlink) { return !nvlink && nccl_version >= 22902; }

json_t *ar_serving_options(const struct ar_serving_engine *e, int ranks, int nodes, const char *dtype, int nvlink,
                           const char *measured, int nccl_version) {
  json_t *out = json_array();
  int half = !strcmp(dtype, "bfloat16") || !strcmp(dtype, "half");
  int vllm = !strcmp(e->name, "vllm");
  /* vLLM's wrapper turns itself off without FlashInfer's PCIe-IPC workspace, for other world sizes and dtypes,
   * and for a group spanning nodes (flashinfer_pcie_ipc_all_reduce.py:29-30, :60-66, :72-85 at fcf933f4). */
  if (vllm && !nvlink && half && nodes == 1 && (ranks == 2 || ranks == 4 || ranks == 8))
    add_option(out, "flashinfer-pcie-ipc", "VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC=1",
               "TP 2, 4 or 8 on one PCIe-only node, bf16/fp16, [tokens, hidden] inputs up to the largest CUDA-graph "
               "capture size; it tunes its kernel once and caches it (pcie_ipc_allreduce_tp_<ranks>.json); needs a "
               "FlashInfer with PcieIpcAllReduceWorkspace (flashinfer-ai/flashinfer PR #4393, 299e6d11: in main "
               "fb28d724, in no release tag to v0.6.18rc7), else vLLM falls back; vLLM tries it before its custom "
               "allreduce, so the calls it takes leave the custom allreduce arbench measured; FlashInfer's kernel, "
               "not one arbench measured",
               "vllm/distributed/device_communicators/flashinfer_pcie_ipc_all_reduce.py at fcf933f4 (PR #53576, "
               "merged into vLLM main after c81093757)");
  int symm_off = ar_serving_nccl_symm_off(nccl_version, nvlink);
  if (!measured[AR_SP_NCCL_SYMM] && vllm && ranks >= 4 && !symm_off)
    add_option(out, "nccl-symmetric-memory", "VLLM_USE_NCCL_SYMM_MEM=1",
               "TP >= 4: NCCL's symmetric kernels below 16 KiB and from 512 KiB (TP 4) or 128 KiB (TP 8); measure it "
               "with arbench run --backend nccl:symm=1",
               "vllm/distributed/device_communicators/all_reduce_utils.py:100-145 at c81093757");
  if (!measured[AR_SP_NCCL_SYMM] && !vllm && !symm_off)
    add_option(out, "nccl-symmetric-memory", "--enable-symm-mem",
               "NCCL's symmetric kernels; SGLang then sets NCCL_CUMEM_ENABLE=1 and NCCL_NVLS_ENABLE=1; measure it "
               "with arbench run --backend nccl:symm=1",
               "python/sglang/srt/server_args.py:1586, entrypoints/engine.py:1258-1268 at 8905cbd42f4a");
  if (!vllm && (ranks == 8 || ranks == 16 || ranks == 32))
    add_option(out, "mscclpp", "--enable-mscclpp",
               "TP 8, 16 or 32: MSCCL++ kernels it tunes at start for small messages, NCCL for the rest; not arbench's "
               "kernels and not known to run on PCIe",
               "python/sglang/srt/distributed/device_communicators/pymscclpp.py:23,280 at 8905cbd42f4a");
  return out;
}
