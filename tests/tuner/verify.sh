#!/usr/bin/env bash
# verify.sh — `arbench tune --verify` without GPUs: the launch plan (--dry-run, exact, interleaved),
# exit 3 when the GPUs are missing, bad input exit 2, and the judgement of measurements (--judge) on
# fixtures with a known faster / same / slower size each.
set -u
fail=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
eq() { [ "$2" = "$3" ] || { printf 'FAIL: %s\n--- want\n%s\n--- got\n%s\n' "$1" "$2" "$3"; fail=1; }; }
T=$ARBENCH_SRC/tests/fixtures/analysis/tune.jsonl
"$ARBENCH" tune "$T" -o "$TMP/d" >/dev/null 2>&1 || { echo "FAIL: tune -o"; exit 1; }
D=$(cd "$TMP/d" && pwd -P)
S=1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576
A="mpirun -np 8 $ARBENCH_EXE run --backend nccl --sizes $S -d bfloat16 --inplace no -J $D/verify.jsonl"
B="mpirun -np 8 $ARBENCH_EXE run --backend nccl:tuner=$D/tuner.json --sizes $S -d bfloat16 --inplace no -J $D/verify.jsonl"
eq "dry run: A B, B A, A B" "$A
$B
$B
$A
$A
$B" "$("$ARBENCH" tune --verify --tuner "$TMP/d/tuner.json" --dry-run "$T" 2>/dev/null)"
eq "dry run --np 4 --repeats 2: the 4-rank sizes" "mpirun -np 4 $ARBENCH_EXE run --backend nccl --sizes 1024,4096,65536 -d bfloat16 --inplace no -J $TMP/v.jsonl" \
  "$("$ARBENCH" tune --verify --tuner "$TMP/d/tuner.json" --np 4 --repeats 2 --out "$TMP/v.jsonl" --dry-run "$T" 2>/dev/null | head -1)"
"$ARBENCH" tune --verify --tuner "$TMP/d/tuner.json" "$T" >/dev/null 2>"$TMP/e"
rc=$?
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" -lt 8 ]; then
  eq "without 8 GPUs: exit 3, said" "3 1" "$rc $(grep -c 'needs 8 GPUs on this node, found' "$TMP/e")"
  [ -e "$D/verify.jsonl" ] && { echo "FAIL: verify.jsonl written without GPUs"; fail=1; }
fi
chk() { # label, want-message, args...
  local label=$1 want=$2; shift 2
  "$ARBENCH" tune --verify "$@" >/dev/null 2>"$TMP/e"; local rc=$?
  eq "$label: exit 2" 2 "$rc"
  grep -qF -- "$want" "$TMP/e" || { echo "FAIL: $label: no '$want' in: $(cat "$TMP/e")"; fail=1; }
}
chk "no --tuner" "--tuner FILE is required" "$T"
echo '{"schema": "arbench.tuner", "version": 1, "groups": [{"collective": "allreduce", "nranks": 8, "nnodes": 1, "ranges": [{"min_bytes": -1, "max_bytes": 5, "algorithm": "ring", "protocol": "ll"}]}]}' >"$TMP/neg.json"
chk "negative size in the decisions" "groups[0].ranges[0].min_bytes = -1 is negative" --tuner "$TMP/neg.json" "$T"
chk "missing decisions" "No such file or directory: $TMP/none.json" --tuner "$TMP/none.json" "$T"
chk "bad --repeats" "bad --repeats (expected 2..50): 1" --tuner "$TMP/d/tuner.json" --repeats 1 "$T"
chk "no results at --np" "no nccl results at this many ranks in the results files (--np): 16" --tuner "$TMP/d/tuner.json" --np 16 "$T"

# Measurements as the launches would write them: 2 runs per side; at 1K the tuned side is 20% faster,
# at 4K the same, at 64K 20% slower.
python3 - "$TMP" <<'PY'
import json, sys
tmp = sys.argv[1]
def write(path, sizes, ran=True):
    with open(path, "w") as f:
        for k, (var, run) in enumerate([("", "a1"), ("tuner=/x/tuner.json", "b1"), ("tuner=/x/tuner.json", "b2"), ("", "a2")]):
            f.write(json.dumps({"type": "run", "run_id": run, "schema": 1, "ranks": 8, "nodes": 1, "stack": {"name": "s"}}) + "\n")
            for size, (ta, tb) in sizes.items():
                t = tb if var else ta
                s = [t * (1 + 0.01 * ((i * 7 + k) % 5 - 2)) for i in range(40)]
                s.sort()
                rec = {"type": "result", "run_id": run, "backend": "nccl", "variant": var, "spec": "nccl" + (":" + var if var else ""),
                       "dtype": "bfloat16", "op": "sum", "placement": "out", "size": size, "count": size // 2, "ranks": 8, "nodes": 1,
                       "iters": 40, "warmup": 5, "graph": 0, "samples_n": 40, "checked": True, "wrong": 0,
                       "time_us": {"min": s[0], "p50": s[20], "max": s[-1], "mean": sum(s) / 40}, "samples_us": s}
                if var: rec["nccl_tuner"] = {"file": "/x/tuner.json", "ran": ran}
                f.write(json.dumps(rec) + "\n")
write(tmp + "/mixed.jsonl", {1024: (10.0, 8.0), 4096: (10.0, 10.0), 65536: (20.0, 24.0)})
write(tmp + "/good.jsonl", {1024: (10.0, 8.0), 4096: (10.0, 10.0)})
write(tmp + "/notran.jsonl", {1024: (10.0, 8.0)}, ran=False)
PY
"$ARBENCH" tune --verify --judge "$TMP/mixed.jsonl" >"$TMP/o" 2>"$TMP/e"
eq "judge mixed: exit 0" 0 $?
eq "judge mixed: per size" "| 1K | 10.00 | 8.00 | 0.800 | faster |
| 4K | 10.00 | 10.00 | 1.000 | same |
| 64K | 20.00 | 24.00 | 1.200 | slower |" "$(grep -E '^\| [0-9]' "$TMP/o" | awk -F' [|] ' '{print "| " $1 " | " $2 " | " $3 " | " $4 " | " $6}' | sed 's/^| | /| /')"
eq "judge mixed: verdict" "verdict: do not deploy: the plugin is slower at 1 size (faster at 1, same at 1)" "$(grep '^verdict' "$TMP/o")"
"$ARBENCH" tune --verify --judge "$TMP/good.jsonl" >"$TMP/o" 2>"$TMP/e"
eq "judge good: verdict" "verdict: deploy: faster at 1 size, same at 1, slower at none (plugin ran in 4 records)" "$(grep '^verdict' "$TMP/o")"
"$ARBENCH" tune --verify --judge "$TMP/notran.jsonl" >"$TMP/o" 2>"$TMP/e"
eq "judge: plugin did not run: exit 1, said, no verdict" "1 1 0" "$? $(grep -c 'tuned records say the plugin did not run' "$TMP/e") $(grep -c '^verdict' "$TMP/o")"
[ $fail = 0 ] && echo "ok: tune --verify plan, exit 3 without GPUs, judgement"
exit $fail
