#!/usr/bin/env bash
# gpu_run.sh — nccl on one rank, every dtype, checked, plain and in a CUDA graph (-G), in- and
# out-of-place: no wrong element, real records. Without a GPU: the nccl skip record must say why,
# then 'skipped: no CUDA device' (exit 77).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
list=$("$ARBENCH" list --wide)
gpus=$(sed -n 's/^GPUs visible: \([0-9]*\).*/\1/p' <<<"$list")
if grep -q '^nccl .*not compiled in' <<<"$list"; then # the reason: no CUDA, or the stand-in build without NCCL
  why=$(sed -n 's/^nccl  *gpu  *\(not compiled in: .*\) ncclAllReduce$/\1/p' <<<"$list")
  case $why in
    *stand-in*) echo "skipped: nccl $why" ;;
    *) echo "skipped: no CUDA device (built without CUDA)" ;;
  esac
  exit 77
fi
run() { mpirun --oversubscribe -np 1 "$ARBENCH" run --backend nccl -b 8 -e 1M -f 16 -d float,half,bf16,int32 \
          -n 10 -w 2 -c 1 --inplace both "$@" >>"$tmp/out" 2>>"$tmp/err"; }
run -J "$tmp/plain.jsonl"; rc1=$?
if [ "${gpus:-0}" = 0 ]; then
  [ $rc1 = 3 ] || { echo "FAIL: run without GPU (every configuration skipped: status 3) exited $rc1"; cat "$tmp/err"; exit 1; }
  python3 - "$tmp/plain.jsonl" <<'PY' || exit 1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
skips = [r for r in recs if r.get("type") == "skip" and r.get("backend") == "nccl"]
assert skips and ("no CUDA device" in skips[0]["reason"] or "without CUDA" in skips[0]["reason"]), recs
assert not [r for r in recs if r.get("type") == "result"]
PY
  echo "skipped: no CUDA device"
  exit 77
fi
run -G 5 -J "$tmp/graph.jsonl"; rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] || { echo "FAIL: nccl runs exited $rc1/$rc2"; cat "$tmp/err"; exit 1; }
python3 - "$tmp/plain.jsonl" "$tmp/graph.jsonl" <<'PY' || exit 1
import json, sys
for path, graph in zip(sys.argv[1:], (0, 5)):
    res = [json.loads(l) for l in open(path) if '"result"' in l]
    res = [r for r in res if r["type"] == "result" and r["backend"] == "nccl"]
    assert len(res) == 4 * 5 * 2, (path, len(res))   # dtypes x sizes 8..512K x placements
    assert {r["dtype"] for r in res} == {"float", "half", "bfloat16", "int32"}
    assert all(r["checked"] and r["wrong"] == 0 for r in res), [r["wrong"] for r in res]
    assert all(r["graph"] == graph and r["samples_n"] == 10 // (graph or 1) for r in res)
    # One rank: NCCL returns at once for in-place (nothing to do), so only out-of-place must take time.
    assert all((r["time_us"]["p50"] > 0 or r["placement"] == "in") and r["time_us"]["p50"] >= 0
               and r["nccl"]["version"] for r in res)
    print("ok:", path, len(res), "results, no wrong element")
PY
