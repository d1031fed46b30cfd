#!/bin/bash
# sampleless.sh — records without samples decide (bench/analysis/noise.c: a side without samples is tested on its
# runs, each one launch): three nccl-tests logs a stack, made by make_logs.py from the published 2080 Ti log with
# that log's own noise (sd of log(out-of-place / in-place) / sqrt 2, also as a launch-wide factor); stack cu13 is
# 0.8x at 8 B .. 64 KiB, the same above. compare and table call the clear difference and nothing else; "runs
# needed" never asks for runs already there; no "repeat N" above the cap (50); the bound, the detectable ratio.
. "$(dirname "$0")/common.sh"
L="$NT/pcie-2x2080ti.log" MK="$FIX/make_logs.py"
mkdir -p "$TMP/a" "$TMP/b"
python3 "$MK" "$L" "$TMP/a" 3 1 >/dev/null && python3 "$MK" "$L" "$TMP/b" 3 2 0.8 65536 >/dev/null || check_fail "make_logs.py"
for k in 0 1 2; do
  "$ARBENCH" import nccl-tests "$TMP/a/log$k.log" --stack cu128 -J "$TMP/a.jsonl" >/dev/null || check_fail "import a$k"
  "$ARBENCH" import nccl-tests "$TMP/b/log$k.log" --stack cu13 -J "$TMP/b.jsonl" >/dev/null || check_fail "import b$k"
done
"$ARBENCH" compare --placement out --format json "$TMP/a.jsonl" "$TMP/b.jsonl" >"$TMP/c.json" || check_fail "compare json exited $?"
check_eq "compare: 28 matches tested, 3 launches a side, no samples" "28 28 3/3 false" \
  "$(jq -r '"\(.family) \([.comparisons[0].matches[] | select(.p != null)] | length) \(.comparisons[0].matches[0].runs_a)/\(.comparisons[0].matches[0].runs_b) \(.comparisons[0].matches[0].samples)"' "$TMP/c.json" 2>/dev/null || jq -r '"\(.family) \([.matches[] | select(.p != null)] | length) \(.matches[0].runs_a)/\(.matches[0].runs_b) \(.matches[0].samples)"' "$TMP/c.json")"
M='(.matches // .comparisons[0].matches)'
check_eq "compare: the 20% difference called at 13 of 14 sizes up to 64K, never the wrong way" "13 0" \
  "$(jq -r "[$M[] | select(.size <= 65536)] | \"\([.[] | select(.verdict == \"faster\")] | length) \([.[] | select(.verdict == \"slower\")] | length)\"" "$TMP/c.json")"
check_eq "compare: no false verdict above 64K (the same stack twice)" 0 \
  "$(jq "[$M[] | select(.size > 65536 and (.verdict == \"faster\" or .verdict == \"slower\"))] | length" "$TMP/c.json")"
check_eq "compare: runs needed never the runs already there" 0 \
  "$(jq "[$M[] | select(.runs_needed != null and .runs_needed != 0 and .runs_needed <= 3)] | length" "$TMP/c.json")"
check_eq "compare: every match has a detectable ratio above 1" 0 \
  "$(jq "[$M[] | select((.detectable_ratio | type) != \"number\" or .detectable_ratio <= 1)] | length" "$TMP/c.json")"
"$ARBENCH" compare --placement out "$TMP/a.jsonl" "$TMP/b.jsonl" >"$TMP/c.txt" || check_fail "compare exited $?"
check_eq "compare text: no repeat above the cap" 0 "$(grep -o 'repeat [0-9]*' "$TMP/c.txt" | awk '$2 > 50' | wc -l)"
check_eq "compare text: the sample-less matches said" 1 "$(grep -c '^28 matches without samples' "$TMP/c.txt")"
check_eq "compare text: the detectable ratio printed" 1 "$(grep -c '^Smallest ratio these data could detect' "$TMP/c.txt")"
# table over both files: the same verdicts from the one decider; bound and detectable ratio per decision.
"$ARBENCH" table --placement out --format json "$TMP/a.jsonl" "$TMP/b.jsonl" >"$TMP/t.json" || check_fail "table json exited $?"
check_eq "table: cu13 the clear pick at 13 sizes up to 64K" 13 \
  "$(jq '[.grids[0].decisions[] | select(.size <= 65536 and .verdict == "clear" and .pick_label == "nccl-tests [cu13]")] | length' "$TMP/t.json")"
check_eq "table: nothing clear above 64K" 0 "$(jq '[.grids[0].decisions[] | select(.size > 65536 and .verdict == "clear")] | length' "$TMP/t.json")"
check_eq "table: runs needed never the runs already there" 0 \
  "$(jq '[.grids[0].decisions[] | select(.runs_needed != null and .runs_needed != 0 and .runs_needed <= 3)] | length' "$TMP/t.json")"
check_eq "table: every decision has bound_pct, bound_vs and detectable_ratio" 0 \
  "$(jq '[.grids[0].decisions[] | select((.bound_pct | type) != "number" or (.bound_vs | type) != "string" or .detectable_ratio <= 1)] | length' "$TMP/t.json")"
check_eq "table: clear picks are faster than their alternative at 95% (negative bound)" 0 \
  "$(jq '[.grids[0].decisions[] | select(.verdict == "clear" and .bound_pct >= 0)] | length' "$TMP/t.json")"
"$ARBENCH" table --placement out "$TMP/a.jsonl" "$TMP/b.jsonl" >"$TMP/t.md" || check_fail "table exited $?"
check_eq "table: no repeat above the cap" 0 "$(grep -o 'repeat [0-9]*' "$TMP/t.md" | awk '$2 > 50' | wc -l)"
check_eq "table: a Bounds line" 1 "$(grep -c '^Bounds (95%' "$TMP/t.md")"
# One log a side: nothing to test between launches: undecided, and what would decide.
"$ARBENCH" import nccl-tests "$TMP/a/log0.log" --stack cu128 >"$TMP/a1.jsonl" 2>/dev/null
"$ARBENCH" import nccl-tests "$TMP/b/log0.log" --stack cu13 >"$TMP/b1.jsonl" 2>/dev/null
check_eq "one launch a side: compare says so" 28 \
  "$("$ARBENCH" compare --placement out "$TMP/a1.jsonl" "$TMP/b1.jsonl" | grep -c 'undecided (one launch a side')"
check_eq "one launch a side: table undecided, no bound" "28 28" \
  "$("$ARBENCH" table --placement out --format json "$TMP/a1.jsonl" "$TMP/b1.jsonl" | jq -r '[.grids[0].decisions[] | select(.verdict == "undecided")] as $u | "\($u | length) \([$u[] | select(.bound_pct == null and .runs_needed == null)] | length)"')"
# Runs needed is never the runs already there: two runs a side whose p50s do not vary (the runs' sd is 0: the power
# calculation's least, 2) but whose samples scatter too much for the bootstrap: undecided, and 3 runs would decide.
python3 - "$TMP/zs.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for r in ("r0", "r1"):
        f.write(json.dumps({"type": "run", "run_id": r, "ranks": 2, "nodes": 1, "hosts": ["h"], "stack": {"name": "s"}}) + "\n")
        for be, p in (("mpi", 11.0), ("shm-oneshot", 10.0)):
            smp = [p * 0.5, p * 0.8, p, p * 1.3, p * 1.9]
            f.write(json.dumps({"type": "result", "run_id": r, "backend": be, "variant": "", "spec": be, "dtype": "float",
                                "op": "sum", "placement": "out", "size": 1024, "count": 256, "ranks": 2, "nodes": 1,
                                "samples_n": 5, "time_us": {"p50": p, "min": smp[0], "max": smp[-1]},
                                "samples_us": smp}) + "\n")
PY
check_eq "table: 2 runs there, undecided: repeat 3, not 2" "undecided 3" \
  "$("$ARBENCH" table --format json "$TMP/zs.jsonl" | jq -r '.grids[0].decisions[0] | "\(.verdict) \(.runs_needed)"')"
jq -c 'select(.type == "run" or .backend == "mpi")' "$TMP/zs.jsonl" >"$TMP/zs_a.jsonl"
jq -c 'if .type == "run" then . elif .backend == "shm-oneshot" then .backend = "mpi" | .spec = "mpi" else empty end' "$TMP/zs.jsonl" >"$TMP/zs_b.jsonl"
check_eq "compare: 2 runs there, undecided: 3 runs needed, not 2" "undecided 3" \
  "$("$ARBENCH" compare --format json "$TMP/zs_a.jsonl" "$TMP/zs_b.jsonl" | jq -r '.matches[0] | "\(.verdict) \(.runs_needed)"')"
# Sample-less records measured side by side in the same launches (an imported or summary-only file): no bootstrap
# can be drawn, so the runs' t test alone decides (noise.c: runs_only). 4 launches, shm-oneshot 0.8x mpi, the
# launches' spread about 2%: the clear pick, and compare calls it faster.
python3 - "$TMP/sl.jsonl" <<'PY'
import json, sys
jit = (1.00, 1.02, 0.99, 1.01)
with open(sys.argv[1], "w") as f:
    for k, j in enumerate(jit):
        r = "L%d" % k
        f.write(json.dumps({"type": "run", "run_id": r, "ranks": 2, "nodes": 1, "hosts": ["h"], "stack": {"name": "s"}}) + "\n")
        for be, p in (("mpi", 10.0 * j), ("shm-oneshot", 8.0 * j * (1.01 if k % 2 else 0.99))):
            f.write(json.dumps({"type": "result", "run_id": r, "backend": be, "variant": "", "spec": be, "dtype": "float",
                                "op": "sum", "placement": "out", "size": 1024, "count": 256, "ranks": 2, "nodes": 1,
                                "time_us": {"p50": round(p, 4)}}) + "\n")
PY
check_eq "same launches, no samples: the runs' test picks shm-oneshot, clear" "clear shm-oneshot 4,4" \
  "$("$ARBENCH" table --format json "$TMP/sl.jsonl" | jq -r '.grids[0].decisions[0] | "\(.verdict) \(.pick_label) \(.runs | join(","))"')"
finish
