#!/usr/bin/env bash
# runas.sh — `arbench run --as ENGINE` (bench/runas.c): each rank holds the engine's NCCL/CUDA environment
# (SGLang's: NCCL_CUMEM_ENABLE and NCCL_NVLS_ENABLE unless the user set them, CUDA_DEVICE_MAX_CONNECTIONS and
# CUDA_MODULE_LOADING always), the records say "as", and analysis keeps such a configuration apart.
source "$(dirname "$0")/../lib/common.sh"
J=$TMP/as.jsonl
NCCL_CUMEM_ENABLE=1 CUDA_DEVICE_MAX_CONNECTIONS=4 ar_mpirun 2 run --as sglang --backend mpi --counts 7,64 -n 5 -w 1 \
  -J "$J" --quiet >"$TMP/t" 2>&1 || { cat "$TMP/t"; fail "run --as sglang failed"; }
expect_eq "run record: the engine's values, the user's NCCL_CUMEM_ENABLE kept" \
  '{"NCCL_CUMEM_ENABLE":"1","NCCL_NVLS_ENABLE":"0","CUDA_DEVICE_MAX_CONNECTIONS":"8","CUDA_MODULE_LOADING":"AUTO"} ["NCCL_CUMEM_ENABLE"]' \
  "$(jq -c 'select(.type=="run") | .as_env.env, .as_env.user_kept' "$J" | paste -sd' ')"
# What rank 0's process held (the run record's env lists NCCL_* and CUDA_*), not only what the plan says.
expect_eq "rank 0's environment" "1 0 8" \
  "$(jq -r 'select(.type=="run") | .env | "\(.NCCL_CUMEM_ENABLE) \(.NCCL_NVLS_ENABLE) \(.CUDA_DEVICE_MAX_CONNECTIONS)"' "$J")"
expect_eq "every record says as sglang" "sglang" "$(jq -r '.as' "$J" | sort -u)"
# Unset variables take SGLang's values.
J2=$TMP/as2.jsonl
env -u NCCL_CUMEM_ENABLE -u NCCL_NVLS_ENABLE -u CUDA_DEVICE_MAX_CONNECTIONS -u CUDA_MODULE_LOADING \
  "$(command -v mpirun)" -q --oversubscribe -np 2 "$ARBENCH" run --as sglang --backend mpi --counts 7 -n 3 -w 0 \
  -J "$J2" --quiet >/dev/null 2>&1 || fail "run --as sglang (unset environment) failed"
expect_eq "unset: SGLang's values, nothing kept" '{"NCCL_CUMEM_ENABLE":"0","NCCL_NVLS_ENABLE":"0","CUDA_DEVICE_MAX_CONNECTIONS":"8","CUDA_MODULE_LOADING":"AUTO"} []' \
  "$(jq -c 'select(.type=="run") | .as_env.env, .as_env.user_kept' "$J2" | paste -sd' ')"
# vLLM sets none: the record says so.
J3=$TMP/vllm.jsonl
ar_mpirun 2 run --as vllm --backend mpi --counts 7 -n 3 -w 0 -J "$J3" --quiet >/dev/null 2>&1 || fail "run --as vllm failed"
expect_eq "vllm: no variable" '{} vllm' "$(jq -r 'select(.type=="run") | (.as_env.env | tojson), .as' "$J3" | paste -sd' ')"
# Analysis: as=ENGINE is one more point pair, so the same backend with and without it are two configurations.
ar_mpirun 2 run --backend mpi --counts 7,64 -n 5 -w 1 -J "$J" --quiet >/dev/null 2>&1 || fail "plain run failed"
"$ARBENCH" table "$J" --format json >"$TMP/tj" 2>/dev/null || fail "table failed"
expect_eq "table: two configurations" '["mpi","mpi {as=sglang}"]' "$(jq -c '[.grids[].configs[].label] | unique' "$TMP/tj")"
expect_eq "--point as=sglang filters them" 1 \
  "$("$ARBENCH" table "$J" --point as=sglang 2>/dev/null | grep -c '^| size | mpi |')"
expect_one_line_error "unknown engine 'bogus' for --as (known: sglang, vllm)" "$ARBENCH" run --as bogus --no-launch
expect_one_line_error "option --as given twice" "$ARBENCH" run --as vllm --as sglang --no-launch
# A sweep passes it to every launch (run options after --).
"$ARBENCH" sweep --np 2 --dry-run -J "$TMP/s.jsonl" -- --as sglang --backend mpi --counts 7 >"$TMP/dry" 2>&1 \
  || { cat "$TMP/dry"; fail "sweep --dry-run failed"; }
grep -q -- '--as sglang' "$TMP/dry" || { cat "$TMP/dry"; fail "sweep does not pass --as"; }
echo "runas: ok"
