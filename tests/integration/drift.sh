#!/bin/bash
# drift.sh — two "sides" that are the same binary on the same host, launched interleaved three times
# each, compare as "same" at every size (runs resampled as well as iterations); with one launch per
# side a difference beyond the iteration interval is "unresolved", never a claimed winner.
. "$(dirname "$0")/../lib/common.sh"
eq() { [ "$2" = "$3" ] || fail "$1: expected [$2], got [$3]"; echo "ok: $1"; }
run() { ar_mpirun 2 run --backend mpi --sizes 8,4K,64K,1M -n 50 -w 5 --quiet -J "$1" >/dev/null || fail "run exited $?"; }
for i in 1 2 3; do run "$TMP/a.jsonl"; run "$TMP/b.jsonl"; done
"$ARBENCH" compare --format json "$TMP/a.jsonl" "$TMP/b.jsonl" >"$TMP/c.json" || fail "compare exited $?"
jq -r '.matches[] | "\(.size) B/A \(.ratio) [\(.lo), \(.hi)] \(.verdict)"' "$TMP/c.json"
eq "three runs per side" "3" "$(jq -r '[.matches[].runs_a, .matches[].runs_b] | unique | map(tostring) | join(" ")' "$TMP/c.json")"
eq "same at every size" "same same same same" "$(jq -r '[.matches[].verdict] | join(" ")' "$TMP/c.json")"
# One launch per side: whatever the intervals say, no size is called faster or slower.
for side in a b; do
  jq -c --arg id "$(jq -r 'select(.type=="run") | .run_id' "$TMP/$side.jsonl" | head -1)" 'select(.run_id == $id)' \
    "$TMP/$side.jsonl" >"$TMP/${side}1.jsonl"
done
"$ARBENCH" compare --format json "$TMP/a1.jsonl" "$TMP/b1.jsonl" >"$TMP/c1.json" || fail "compare of single runs exited $?"
eq "single runs: no faster/slower verdict" 0 "$(jq '[.matches[] | select(.verdict == "faster" or .verdict == "slower")] | length' "$TMP/c1.json")"
eq "single runs: 1 run per side" "1" "$(jq -r '[.matches[].runs_a, .matches[].runs_b] | unique | map(tostring) | join(" ")' "$TMP/c1.json")"
echo "drift: ok"
