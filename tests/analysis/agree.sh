#!/bin/bash
# agree.sh — every output reads the one decider: on one fixture (make_decide.py agree: a GPU and a host group,
# equivalent sizes where the pick is not the fastest, an undecided size), table's json picks and verdicts equal
# its markdown bold and marks, its csv, its crossovers, tune's ranges, the tuner CSV and tuner.json (the decision
# among nccl configurations: table --backend nccl), thresholds.json (custom_max_bytes, use, win_ranges) and
# tuner.json's custom_beats_nccl, the plots' best map (plotted.json), the table scripts/run.sh prints (its
# Crossovers line), and compare: shm-twoshot's runs relabelled shm-oneshot and compared with shm-oneshot's
# (the same family of 5 comparisons as table --backend shm-oneshot,shm-twoshot) get the table's relations.
. "$(dirname "$0")/common.sh"
python3 "$FIX/make_decide.py" agree "$TMP" || check_fail "make_decide.py exited $?"
F="$TMP/agree.jsonl"
"$ARBENCH" table --format json "$F" >"$TMP/t.json" || check_fail "table json exited $?"
"$ARBENCH" table --backend nccl --format json "$F" >"$TMP/tn.json" || check_fail "table json (nccl) exited $?"
"$ARBENCH" table "$F" >"$TMP/t.md" || check_fail "table exited $?"
"$ARBENCH" table --format csv "$F" >"$TMP/t.csv" || check_fail "table csv exited $?"
"$ARBENCH" tune "$F" -o "$TMP/tune" >"$TMP/tune.md" 2>/dev/null || check_fail "tune exited $?"
# the table command scripts/run.sh prints (its "Crossovers:" line), as run.sh spells it
RUN_TABLE=$(grep -o '^"$A" table [^|]*"$out"' "$ARBENCH_SRC/scripts/run.sh") || check_fail "no table command in scripts/run.sh"
A=$ARBENCH out=$F
eval "$RUN_TABLE" >"$TMP/run.md" || check_fail "run.sh's table ($RUN_TABLE) exited $?"
# compare: one configuration's runs against another's, relabelled (A: shm-oneshot; B: shm-twoshot as shm-oneshot)
jq -c 'select(.type == "run" or .backend == "shm-oneshot")' "$F" >"$TMP/cmp_a.jsonl"
jq -c 'if .type == "run" then . elif .backend == "shm-twoshot" then .backend = "shm-oneshot" | .spec = "shm-oneshot"
       else empty end' "$F" >"$TMP/cmp_b.jsonl"
"$ARBENCH" compare "$TMP/cmp_a.jsonl" "$TMP/cmp_b.jsonl" --format json >"$TMP/cmp.json" || check_fail "compare exited $?"
"$ARBENCH" table --backend shm-oneshot,shm-twoshot --format json "$F" >"$TMP/t2.json" || check_fail "table (2) exited $?"
PY=""
for p in "${ARBENCH_PYTHON:-}" /usr/bin/python3 "$(command -v python3)"; do
  [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import matplotlib' 2>/dev/null && PY=$p && break
done
if [ -n "$PY" ]; then
  "$ARBENCH_SRC/plots/arbench-plot" "$F" -o "$TMP/plots" --format svg --arbench "$ARBENCH" >/dev/null 2>"$TMP/plot.err" ||
    check_fail "arbench-plot exited $?: $(cat "$TMP/plot.err")"
else
  echo "plots part skipped: no python3 with matplotlib"
fi
# The fixture's known picks (pick != fastest at 1K, 4K and 64K of the GPU group and 4K of the host group).
check_eq "gpu picks and verdicts" "1024 p2p-oneshot:pull equivalent;2048 p2p-oneshot:pull clear;4096 p2p-oneshot:pull equivalent;8192 p2p-twoshot:flat clear;16384 p2p-twoshot:flat equivalent;32768 nccl:algo=Tree,proto=LL clear;65536 nccl:algo=Tree,proto=LL equivalent;131072 nccl:algo=Ring,proto=Simple clear;262144 nccl:algo=Ring,proto=Simple undecided" \
  "$(jq -r '[.grids[] | select(.dtype == "bfloat16") | .decisions[] | "\(.size) \(.pick_label) \(.verdict)"] | join(";")' "$TMP/t.json")"
check_eq "pick is not the fastest at the equivalent sizes" "1024 4096 65536 4096" \
  "$(jq -r '[.grids[].decisions[] | select(.pick != .fastest) | .size] | join(" ")' "$TMP/t.json")"
check_eq "compare's verdicts, 1K .. 16K" "equivalent slower equivalent faster slower" \
  "$(jq -r '[.matches[] | .verdict] | join(" ")' "$TMP/cmp.json")"
python3 "$ARBENCH_SRC/tests/analysis/agree.py" "$TMP" >"$TMP/agree.out" 2>&1 || check_fail "outputs disagree: $(cat "$TMP/agree.out")"
cat "$TMP/agree.out"
finish
