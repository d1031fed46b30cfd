#!/bin/bash
# import.sh — `arbench import aiconfigurator` (bench/aic/import.c, plots/arbench-aic) on the tables aiconfigurator-core
# ships for rtx_pro_6000_server: every allreduce row becomes one record whose size, ranks and time equal the row read
# independently here with pyarrow (message_size in elements x element size; latency ms -> us), labelled with
# aiconfigurator's framework, version, kernel source and method; table sets NCCL 2.29.2 beside SGLang's kernel.
. "$(dirname "$0")/common.sh"
"$ARBENCH" import aiconfigurator "$RTX" -J "$TMP/aic.jsonl" --nccl-dtype bfloat16 2>"$TMP/err" || check_fail "import exited $?"
"$ARBENCH" import aiconfigurator "$RTX" -J "$TMP/half.jsonl" 2>/dev/null || check_fail "import (half) exited $?"
cat >"$TMP/check.py" <<'PY'
import glob, json, os, sys
import pyarrow.parquet as pq
comm, recs_path = sys.argv[1], sys.argv[2]
esize = {"half": 2, "bfloat16": 2, "float": 4, "float16": 2}
recs = {}
for line in open(recs_path):
    r = json.loads(line)
    if r["type"] == "result":
        recs[(r["spec"], r["ranks"], r["size"])] = r
rows = matched = 0
bad = []
for f in sorted(glob.glob(os.path.join(comm, "*", "*", "*.parquet"))):
    fw_dir, ver_dir = f.split(os.sep)[-3:-1]
    for row in pq.read_table(f).to_pylist():
        dt = row.get("nccl_dtype") or row.get("allreduce_dtype")
        if row["op_name"] != "all_reduce" or dt not in esize:
            continue
        rows += 1
        spec = "aiconfigurator:%s@%s-%s" % (row["kernel_source"], fw_dir, ver_dir)
        r = recs.get((spec, row["num_gpus"], row["message_size"] * esize[dt]))
        if r is None:
            bad.append("no record for %s %d GPUs %d elements" % (spec, row["num_gpus"], row["message_size"]))
            continue
        if abs(r["time_us"]["p50"] - row["latency"] * 1000) > 1e-9 * row["latency"] * 1000 or r["count"] != row["message_size"]:
            bad.append("%s %d: %r us vs %r ms" % (spec, row["message_size"], r["time_us"]["p50"], row["latency"]))
            continue
        matched += 1
print(rows, matched, len(recs), "; ".join(bad[:3]))
PY
check_eq "every allreduce row is one record with its size and time (shipped rtx_pro_6000_server)" "523 523 523 " \
  "$("$PY" "$TMP/check.py" "$RTX" "$TMP/aic.jsonl")"
rec() { jq -c "select(.type == \"result\" and .spec == \"$1\" and .ranks == $2 and .size == $3) | $4" "$TMP/aic.jsonl"; }
# One value read by hand from the parquet with pyarrow: SGLang 0.5.14's graph kernel, 8 GPUs, 8192 elements.
want=$("$PY" -c "
import pyarrow.parquet as pq
t = pq.read_table('$RTX/sglang/0.5.14/custom_allreduce_perf.parquet').to_pylist()
print(repr([r['latency'] for r in t if r['num_gpus'] == 8 and r['backend'] == 'sglang_graph' and r['message_size'] == 8192][0] * 1000))")
check_eq "SGLang graph, 8 GPUs, 16 KiB: the parquet's latency in us" "$want" \
  "$(rec 'aiconfigurator:SGLang_CustomAllReduce_graph@sglang-0.5.14' 8 16384 .time_us.p50 | "$PY" -c 'import sys; print(repr(float(sys.stdin.read())))')"
check_eq "its labels: aiconfigurator's framework, version, kernel source, the box" \
  '{"from":"aiconfigurator","system":"rtx_pro_6000_server","framework":"sglang","version":"0.5.14","kernel_source":"SGLang_CustomAllReduce_graph","table":"custom_allreduce_perf"}' \
  "$(rec 'aiconfigurator:SGLang_CustomAllReduce_graph@sglang-0.5.14' 8 16384 .imported)"
check_eq "custom allreduce method: rank 0, loop, graph of 100, unchecked" '["rank0","loop",100,false]' \
  "$(rec 'aiconfigurator:SGLang_CustomAllReduce_graph@sglang-0.5.14' 8 16384 '[.average, .timing, .graph, .checked]')"
check_eq "eager kernel: no graph" 0 "$(rec 'aiconfigurator:SGLang_CustomAllReduce_eager@sglang-0.5.14' 8 16384 .graph)"
check_eq "NCCL method: nccl-tests -a 1 mean, loop, half measured" '["mean","loop","half","bfloat16"]' \
  "$(rec 'aiconfigurator:NCCL@nccl-2.29.2' 8 16384 '[.average, .timing, .measured_dtype, .dtype]')"
check_eq "NCCL method sentence names its collector" 1 \
  "$(rec 'aiconfigurator:NCCL@nccl-2.29.2' 8 16384 .method | grep -c 'collect_nccl.py: nccl-tests all_reduce_perf')"
check_eq "without --nccl-dtype the NCCL rows stay half" '"half"' "$(jq -c 'select(.type == "result" and .spec == "aiconfigurator:NCCL@nccl-2.29.2" and .ranks == 8 and .size == 16384) | .dtype' "$TMP/half.jsonl")"
check_eq "run record: the reference box as host, stack aiconfigurator" '["rtx_pro_6000_server"] "aiconfigurator"' \
  "$(jq -r 'select(.type == "run" and (.run_id | contains("sglang-0.5.14"))) | "\(.hosts | tojson) \"\(.stack.name)\""' "$TMP/aic.jsonl")"
check_eq "the summary line counts the records and what was left out" 1 \
  "$(grep -c '523 allreduce records from .*left out: 441 rows' "$TMP/err")"
# table: NCCL 2.29.2 against SGLang's custom allreduce on that box, 8 GPUs bf16.
"$ARBENCH" table --ranks 8 --dtype bfloat16 --backend aiconfigurator "$TMP/aic.jsonl" >"$TMP/table.md"
check_eq "table shows NCCL 2.29.2 and SGLang's kernel side by side" 1 \
  "$(grep '^| size' "$TMP/table.md" | grep -c 'aiconfigurator:NCCL@nccl-2.29.2 (a=mean) | aiconfigurator:SGLang_CustomAllReduce_graph@sglang-0.5.14 (a=rank0)')"
nccl16=$("$PY" -c "
import pyarrow.parquet as pq
t = pq.read_table('$RTX/nccl/2.29.2/nccl_perf.parquet').to_pylist()
print('%.2f' % ([r['latency'] for r in t if r['num_gpus'] == 8 and r['op_name'] == 'all_reduce' and r['nccl_dtype'] == 'half' and r['message_size'] == 8192][0] * 1000))")
check_eq "table's 16K row has NCCL's time from the parquet" 1 "$(grep '^| 16K |' "$TMP/table.md" | grep -c "$nccl16")"
# One file rather than a folder: the NCCL table alone (21 sizes x 3 GPU counts in half).
"$ARBENCH" import aiconfigurator "$RTX/nccl/2.29.2/nccl_perf.parquet" -J "$TMP/one.jsonl" 2>/dev/null
check_eq "a file: NCCL's 63 allreduce rows in half" 63 "$(jq -c 'select(.type == "result")' "$TMP/one.jsonl" | wc -l)"
# Bad paths: one line, exit 2.
check_bad "missing path" "'/nonexistent' does not exist" "$ARBENCH" import aiconfigurator /nonexistent
mkfifo "$TMP/fifo" # the checks every file argument gets (bench/infile.c), before the Parquet reader is spawned
check_bad "a FIFO, without blocking" "'$TMP/fifo' is a FIFO (named pipe), not a comm table" timeout 10 "$ARBENCH" import aiconfigurator "$TMP/fifo"
check_bad "a /proc file" "'/proc/self/status' is a /proc file" "$ARBENCH" import aiconfigurator /proc/self/status
mkdir "$TMP/empty"
check_bad "a folder without tables" "no nccl_perf.parquet or custom_allreduce_perf.parquet under" "$ARBENCH" import aiconfigurator "$TMP/empty"
echo "not parquet" >"$TMP/empty/nccl_perf.parquet"
check_bad "not Parquet" "as Parquet" "$ARBENCH" import aiconfigurator "$TMP/empty/nccl_perf.parquet"
cp "$RTX/nccl/2.29.2/nccl_perf.parquet" "$TMP/other.parquet"
check_bad "another file name" "is not one of aiconfigurator's comm tables" "$ARBENCH" import aiconfigurator "$TMP/other.parquet"
check_bad "bad --nccl-dtype" "bad --nccl-dtype" "$ARBENCH" import aiconfigurator --nccl-dtype int8 "$RTX"
check_bad "two paths" "expected one PATH" "$ARBENCH" import aiconfigurator "$RTX" "$RTX"
finish
