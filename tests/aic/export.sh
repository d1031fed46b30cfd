#!/bin/bash
# export.sh — `arbench export aiconfigurator` (bench/aic/export.c, plots/arbench-aic) on the crafted 8-GPU file of the
# impact tests, loaded back by aiconfigurator-core's own loader (tests/aic/aic_load.py): every size's NCCL and custom
# allreduce time, in aiconfigurator's units (message_size in elements, latency in ms), and arbench's kernel named.
. "$(dirname "$0")/common.sh"
"$PY" "$ARBENCH_SRC/tests/fixtures/impact/make_impact.py" "$TMP/a.jsonl"
"$ARBENCH" export aiconfigurator "$TMP/a.jsonl" -o "$TMP/out" --framework vllm --version 0.24.0 >"$TMP/log" ||
  check_fail "export exited $?"
check_eq "export: the two tables and the counts" "8 NCCL rows (NCCL 2.28.9), 8 custom allreduce rows (vllm 0.24.0), system arbench_box" \
  "$(tail -1 "$TMP/log")"
"$PY" "$(dirname "$0")/aic_load.py" "$TMP/out" arbench_box vllm 0.24.0 2.28.9 2>"$TMP/load.err" >"$TMP/load.json" ||
  check_fail "aiconfigurator's loader failed: $(tail -3 "$TMP/load.err")"
check_eq "the loader read our files" "$TMP/out/data/arbench_box/comm/nccl/2.28.9/nccl_perf.parquet $TMP/out/data/arbench_box/comm/vllm/0.24.0/custom_allreduce_perf.parquet" \
  "$(jq -r '"\(.nccl_file) \(.custom_file)"' "$TMP/load.json")"
# The crafted levels (make_impact.py), nccl and p2p-oneshot per size in bytes; aiconfigurator keys elements (bf16: /2)
# and ms. The custom table holds the decider's pick among the custom kernels: p2p-oneshot, the only one here.
want_n='{"half/8/131072":0.044,"half/8/16384":0.024,"half/8/262144":0.06,"half/8/32768":0.03,"half/8/4096":0.02,"half/8/524288":0.09,"half/8/65536":0.036,"half/8/8192":0.02}'
want_c='{"half/8/AUTO/131072":0.06,"half/8/AUTO/16384":0.01,"half/8/AUTO/262144":0.04,"half/8/AUTO/32768":0.012,"half/8/AUTO/4096":0.008,"half/8/AUTO/524288":0.07,"half/8/AUTO/65536":0.02,"half/8/AUTO/8192":0.008}'
check_eq "aiconfigurator reads NCCL's p50 per size (elements, ms)" "$want_n" "$(jq -cS '.nccl | map_values(. * 1e9 | round / 1e9)' "$TMP/load.json")"
check_eq "aiconfigurator reads the custom kernel's p50 per size" "$want_c" "$(jq -cS '.custom | map_values(. * 1e9 | round / 1e9)' "$TMP/load.json")"
check_eq "kernel_source names arbench's kernel; framework, version, dtype half" "arbench_p2p-oneshot vllm 0.24.0 half" \
  "$("$PY" -c "
import pyarrow.parquet as pq
r = pq.read_table('$TMP/out/data/arbench_box/comm/vllm/0.24.0/custom_allreduce_perf.parquet').to_pylist()[0]
print(r['kernel_source'], r['framework'], r['version'], r['allreduce_dtype'])")"
check_eq "collection_meta.yaml: runtime and table" "vllm 0.24.0 complete" \
  "$("$PY" -c "
import yaml
m = yaml.safe_load(open('$TMP/out/data/arbench_box/comm/vllm/0.24.0/collection_meta.yaml'))
print(m['runtime']['framework'], m['runtime']['version'], m['tables']['custom_allreduce_perf']['status'])")"
# Round trip: importing the export gives the same times back.
"$ARBENCH" import aiconfigurator "$TMP/out" --system arbench_box -J "$TMP/back.jsonl" 2>/dev/null
check_eq "import of the export: NCCL at 16 KiB, 8 ranks, 20 us" 20 \
  "$(jq -r 'select(.type == "result" and .spec == "aiconfigurator:NCCL@nccl-2.28.9" and .size == 16384) | .time_us.p50' "$TMP/back.jsonl")"
check_bad "no --version" "expected 'aiconfigurator RESULTS.jsonl... -o DIR" "$ARBENCH" export aiconfigurator "$TMP/a.jsonl" -o "$TMP/x" --framework vllm
check_bad "bad --framework" "bad --framework 'tgi'" "$ARBENCH" export aiconfigurator "$TMP/a.jsonl" -o "$TMP/x" --framework tgi --version 1
check_bad "another format" "the only format exported is aiconfigurator's" "$ARBENCH" export csv "$TMP/a.jsonl" -o "$TMP/x" --framework vllm --version 1
"$PY" "$ARBENCH_SRC/tests/fixtures/impact/make_impact.py" "$TMP/b.jsonl" cu129-nccl2.27.7 0.5
check_bad "two stacks" "export one stack at a time" "$ARBENCH" export aiconfigurator "$TMP/a.jsonl" "$TMP/b.jsonl" -o "$TMP/x" --framework vllm --version 1
finish
