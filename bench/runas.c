/* runas.c — the environment each serving engine gives the NCCL it runs (read from the engines' source),
 * and `run --as ENGINE` applying it to this process before MPI, CUDA and NCCL start. */
#include "runas.h"
#include "ar.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SGLang main 8905cbd42f4a (2026-07-20), python/sglang/srt/entrypoints/engine.py:1258-1276,
 * _set_envs_and_config with the default server arguments (no --enable-symm-mem, --enable-nccl-nvls,
 * dcp_size 1): NCCL_CUMEM_ENABLE and NCCL_NVLS_ENABLE only when unset, CUDA_DEVICE_MAX_CONNECTIONS and
 * CUDA_MODULE_LOADING always. The scheduler processes it starts inherit them. */
static const struct ar_runas_var sglang_vars[] = {
  {"NCCL_CUMEM_ENABLE", "0", 0},
  {"NCCL_NVLS_ENABLE", "0", 0},
  {"CUDA_DEVICE_MAX_CONNECTIONS", "8", 1},
  {"CUDA_MODULE_LOADING", "AUTO", 1},
};

static const struct ar_runas engines[] = {
  {"sglang", "SGLang",
   "sgl-project/sglang main 8905cbd42f4a (2026-07-20), python/sglang/srt/entrypoints/engine.py:1258-1276 "
   "(_set_envs_and_config)",
   "with --enable-symm-mem SGLang sets NCCL_CUMEM_ENABLE=1 and NCCL_NVLS_ENABLE=1 instead, with "
   "--enable-nccl-nvls NCCL_NVLS_ENABLE=1; TRTLLM_ENABLE_PDL and CUTE_DSL_* touch no kernel arbench runs",
   sglang_vars, (int)(sizeof sglang_vars / sizeof sglang_vars[0])},
  /* vLLM main c81093757 (2026-08-03): no NCCL_ or CUDA_ variable outside batch-invariant mode
   * (vllm/model_executor/layers/batch_invariant.py:963-978, override_envs_for_invariance) and EPLB's
   * NCCL_MAX_CTAS=8 (vllm/distributed/eplb/eplb_utils.py:83-103: data parallel + EPLB + DeepGEMM mega MoE). */
  {"vllm", "vLLM",
   "vllm-project/vllm main c81093757 (2026-08-03): grep of vllm/ for NCCL_ and CUDA_ variables it sets",
   "vLLM leaves NCCL's environment to the user, except in batch-invariant mode (VLLM_BATCH_INVARIANT: "
   "NCCL_ALGO=allreduce:tree, NCCL_PROTO=Simple, one channel, ...) and with EPLB under data parallelism and "
   "DeepGEMM mega MoE (NCCL_MAX_CTAS=8): neither is modelled",
   NULL, 0},
};

const struct ar_runas *ar_runas_all(int *n) {
  *n = (int)(sizeof engines / sizeof engines[0]);
  return engines;
}

const struct ar_runas *ar_runas_find(const char *name) {
  for (size_t i = 0; name && i < sizeof engines / sizeof engines[0]; i++)
    if (!strcmp(engines[i].engine, name)) return &engines[i];
  return NULL;
}

int ar_runas_parse(const char *name, const struct ar_runas **out, char *err, size_t len) {
  *out = ar_runas_find(name);
  if (*out) return 0;
  snprintf(err, len, "unknown engine '%s' for --as (known: sglang, vllm)", name);
  return -AR_EINVAL;
}

void ar_runas_plan(const struct ar_runas *a, const char *(*get)(const char *), const char **value, int *set) {
  for (int i = 0; i < a->nvars; i++) {
    const struct ar_runas_var *v = &a->vars[i];
    const char *have = get(v->name);
    int take = v->force || !have;
    value[i] = take ? v->value : have;
    set[i] = take && (!have || strcmp(have, v->value));
  }
}

static const char *env_get(const char *name) { return getenv(name); }

int ar_runas_apply(const struct ar_runas *a, char *err, size_t len) {
  const char *value[AR_RUNAS_MAX_VARS];
  int set[AR_RUNAS_MAX_VARS];
  ar_runas_plan(a, env_get, value, set);
  for (int i = 0; i < a->nvars; i++) {
    if (!set[i] || !setenv(a->vars[i].name, value[i], 1)) continue;
    snprintf(err, len, "--as %s: cannot set %s=%s: %s", a->engine, a->vars[i].name, value[i], strerror(errno));
    return -AR_ERUNTIME;
  }
  return 0;
}

json_t *ar_runas_json(const struct ar_runas *a) {
  json_t *env = json_object(), *kept = json_array();
  for (int i = 0; i < a->nvars; i++) {
    const char *have = getenv(a->vars[i].name);
    json_object_set_new(env, a->vars[i].name, have ? json_string(have) : json_null());
    if (have && strcmp(have, a->vars[i].value)) json_array_append_new(kept, json_string(a->vars[i].name));
  }
  return json_pack("{s:s, s:s, s:o, s:o}", "engine", a->engine, "source", a->source, "env", env, "user_kept", kept);
}
