#!/bin/bash
# compare.sh — `arbench compare` on two fixtures whose samples have known medians: exact ratios,
# degenerate (exact) intervals, verdicts, the launch shift, unmatched lists, per-backend geometric means; bad input.
. "$(dirname "$0")/common.sh"
A="$FIX/a.jsonl"; B="$FIX/b.jsonl"
"$ARBENCH" compare --format json "$A" "$B" >"$TMP/c.json" 2>"$TMP/c.err" || check_fail "compare exited $?"
q() { jq -r "$1" "$TMP/c.json"; }
m() { q ".matches[] | select(.backend==\"$1\" and .size==$2) | $3"; }
check_eq "matches" 5 "$(q '.matches|length')"
check_eq "nccl 8K ratio" 0.5 "$(m nccl 8192 .ratio)"
check_eq "nccl 8K interval" "0.5 0.5" "$(m nccl 8192 '"\(.lo) \(.hi)"')"
# One run per side: a difference beyond the interval may still be drift between runs (compare assumes none
# without --drift): undecided, and what would decide it is more runs.
check_eq "nccl 8K verdict (one run each)" undecided "$(m nccl 8192 .verdict)"
check_eq "nccl 8K: no runs_needed without a spread" null "$(m nccl 8192 .runs_needed)"
check_eq "nccl 8K runs" "1 1" "$(m nccl 8192 '"\(.runs_a) \(.runs_b)"')"
check_eq "nccl 64K ratio" 1.5 "$(m nccl 65536 .ratio)"
check_eq "nccl 64K verdict (one run each)" undecided "$(m nccl 65536 .verdict)"
check_eq "--drift 10: one run a side, 2x and 1.5x beyond it" "faster slower" \
  "$("$ARBENCH" compare --format json --drift 10 "$A" "$B" 2>/dev/null | jq -r '[.matches[] | select(.backend=="nccl") | .verdict] | join(" ")')"
check_eq "mpi 8K ratio (medians 7/6)" 1166667 "$(m mpi 8192 '.ratio*1e6|round')"
check_eq "mpi 8K interval contains 1" true "$(m mpi 8192 '.lo < 1 and .hi > 1')"
check_eq "mpi 8K verdict: not shown different, not shown equivalent" undecided "$(m mpi 8192 .verdict)"
check_eq "mpi 64K interval" "1 1" "$(m mpi 65536 '"\(.lo) \(.hi)"')"
check_eq "mpi 64K verdict: equal p50s of one run each are not shown equivalent" undecided "$(m mpi 65536 .verdict)"
check_eq "--drift 0: equal samples are shown equivalent" equivalent \
  "$("$ARBENCH" compare --format json --drift 0 "$A" "$B" 2>/dev/null | jq -r '.matches[] | select(.backend=="mpi" and .size==65536) | .verdict')"
check_eq "different stacks: the launch shift not removed" "false 2" "$(q '"\(.launch_shift.applied) \(.launch_shift.configurations)"')"
check_eq "nccl-tests ratio" 0.8 "$(m nccl-tests 1048576 .ratio)"
check_eq "nccl-tests no interval" "null no samples" "$(m nccl-tests 1048576 '"\(.lo) \(.verdict)"')"
check_eq "only in A" "p2p-oneshot:pull 8192,65536" "$(q '.only_a[] | "\(.spec) \(.sizes|join(","))"')"
check_eq "only in B" "nccl:algo=Tree,proto=LL 8192" "$(q '.only_b[] | "\(.spec) \(.sizes|join(","))"')"
check_eq "summary nccl" "nccl 2 866025 0 0 0 2 0" \
  "$(q '.summary[] | select(.backend=="nccl") | "\(.backend) \(.matches) \(.geomean_ratio*1e6|round) \(.faster) \(.slower) \(.equivalent) \(.undecided) \(.no_samples)"')"
check_eq "summary mpi" "mpi 2 1080123 0 0 0 2 0" \
  "$(q '.summary[] | select(.backend=="mpi") | "\(.backend) \(.matches) \(.geomean_ratio*1e6|round) \(.faster) \(.slower) \(.equivalent) \(.undecided) \(.no_samples)"')"
check_eq "stacks" "cuda12.8-nccl2.27 (NCCL 2.27.7) cuda13-nccl2.28 (NCCL 2.28.9)" "$(q '"\(.a.stacks[0]) \(.b.stacks[0])"')"
check_eq "torn last line of B: one warning" 1 "$(grep -c 'ignoring an incomplete last line' "$TMP/c.err")"
# Text output: reproducible (fixed seed), and says the direction.
"$ARBENCH" compare "$A" "$B" >"$TMP/t1" 2>/dev/null; "$ARBENCH" compare "$A" "$B" >"$TMP/t2" 2>/dev/null
check_eq "text output reproducible" "" "$(diff "$TMP/t1" "$TMP/t2")"
check_eq "text row nccl 8K" "| nccl | algo=Ring,proto=LL |  | bfloat16 | 8 | out | 8K | 1/1 | 20.00 | 10.00 | 0.500 | [0.500, 0.500] | undecided (one launch a side: append 2+ more launches to each file, A and B interleaved) |" \
  "$(grep '| 8K | 1/1 | 20.00' "$TMP/t1")"
check_eq "direction stated" 1 "$(grep -c 'below 1 means B is faster' "$TMP/t1")"
check_eq "undecided explained" 1 "$(grep -c 'a side with one run cannot separate the two sides from run-to-run' "$TMP/t1")"
check_eq "launch shift line" 1 "$(grep -c '^Launch shift: not removed (the sides differ in stack or hosts' "$TMP/t1")"
# Three runs per side (different run ids): runs are resampled as well as samples.
"$ARBENCH" compare --format json "$FIX/runs-a.jsonl" "$FIX/runs-b.jsonl" >"$TMP/r.json" 2>/dev/null || check_fail "compare of runs exited $?"
# mpi 1.02 with its runs' spread: neither shown different nor within 5%; 33 runs a side would decide it.
check_eq "runs: nccl faster, mpi undecided" "nccl 3 3 0.5 faster 0;mpi 3 3 1.02 undecided 33" \
  "$(jq -r '[.matches[] | "\(.backend) \(.runs_a) \(.runs_b) \(.ratio*1000|round/1000) \(.verdict) \(.runs_needed)"] | join(";")' "$TMP/r.json")"
check_eq "runs: the interval spans the runs' spread" true \
  "$(jq '.matches[] | select(.backend=="nccl") | .lo < 0.48 and .hi > 0.52' "$TMP/r.json")"
check_eq "skip record of A listed" 1 "$(grep -c 'skip: shm-oneshot (8 ranks): not built' "$TMP/t1")"
# Launch shift: an A/A pair (make_aa.py: 17 sizes x 2 backends, 3 runs, runs drift 2%) whose B launch ran 10% slower
# everywhere, but for shm-oneshot from 64K up, 12% faster. Same stack, same hosts: the shift common to every
# configuration (the median ratio) is the box, removed; only shm-oneshot's 9 sizes are called (faster).
python3 "$FIX/make_aa.py" "$TMP" 1
jq -c 'if .type == "result" then (if .backend == "shm-oneshot" and .size >= 65536 then 0.88 else 1.1 end) as $f
  | .time_us |= map_values(. * $f) | .samples_us |= map(. * $f) else . end' "$TMP/b0.jsonl" >"$TMP/b0s.jsonl"
"$ARBENCH" compare --format json "$TMP/a0.jsonl" "$TMP/b0s.jsonl" >"$TMP/ls.json" || check_fail "compare exited $?"
check_eq "launch shift: found and removed" "1.094 true 2 34" \
  "$(jq -r '.launch_shift | "\(.ratio * 1000 | round / 1000) \(.applied) \(.configurations) \(.matches)"' "$TMP/ls.json")"
check_eq "launch shift: only the real change is called" "shm-oneshot 65536 faster;shm-oneshot 131072 faster;shm-oneshot 262144 faster;shm-oneshot 524288 faster;shm-oneshot 1048576 faster;shm-oneshot 2097152 faster;shm-oneshot 4194304 faster;shm-oneshot 8388608 faster;shm-oneshot 16777216 faster" \
  "$(jq -r '[.matches[] | select(.verdict == "faster" or .verdict == "slower") | "\(.backend) \(.size) \(.verdict)"] | join(";")' "$TMP/ls.json")"
check_eq "launch shift: said in the text" 1 "$("$ARBENCH" compare "$TMP/a0.jsonl" "$TMP/b0s.jsonl" | grep -c '^Launch shift: B/A = 1.094 over all 2 configurations (the median of 34 matches): the box between the launches')"
check_eq "--shift off: the box's shift is called slower" 12 \
  "$("$ARBENCH" compare --format json --shift off "$TMP/a0.jsonl" "$TMP/b0s.jsonl" | jq '[.matches[] | select(.verdict == "slower")] | length')"
check_eq "one configuration: a shift cannot be told from a change" 1 \
  "$("$ARBENCH" compare --backend mpi "$TMP/a0.jsonl" "$TMP/b0s.jsonl" | grep -c '^Launch shift: one configuration: a shift of the whole box between the launches cannot be told from a change')"
# Filters apply to both sides.
check_eq "filter --backend mpi" 2 "$("$ARBENCH" compare --format json --backend mpi "$A" "$B" 2>/dev/null | jq '.matches|length')"
# --by stack on the two files (one stack each): the same matches, ratios and verdicts as A against B.
"$ARBENCH" compare --by stack --format json "$A" "$B" >"$TMP/by.json" 2>/dev/null || check_fail "compare --by stack exited $?"
check_eq "by stack: groups" "cuda12.8-nccl2.27 cuda13-nccl2.28 cuda12.8-nccl2.27" "$(jq -r '.groups + [.baseline] | join(" ")' "$TMP/by.json")"
check_eq "by stack: same matches as A B" "$(jq -c '[.matches[] | [.backend, .size, .ratio, .lo, .hi, .verdict]]' "$TMP/c.json")" \
  "$(jq -c '[.comparisons[0].matches[] | [.backend, .size, .ratio, .lo, .hi, .verdict]]' "$TMP/by.json")"
# Bad input: one line, exit 2.
check_bad "one file" "the files hold one stack (" "$ARBENCH" compare "$A"
check_bad "one file, what to give" "give two results files A and B, or files with two or more" "$ARBENCH" compare "$A"
check_bad "unknown baseline" "unknown --baseline 'zz' (the files' stack groups: " "$ARBENCH" compare --baseline zz "$A"
check_bad "bad --by" "bad --by 'a,b' (expected stack or a sweep point key" "$ARBENCH" compare --by a,b "$A"
check_bad "missing file" "cannot open results file '$TMP/none.jsonl'" "$ARBENCH" compare "$A" "$TMP/none.jsonl"
printf 'hello\nworld\n' >"$TMP/notjson"
check_bad "not results" "notjson:1: not a JSON object" "$ARBENCH" compare "$A" "$TMP/notjson"
check_bad "bad resamples" "bad --resamples '5' (expected an integer from 100 to 100000)" "$ARBENCH" compare --resamples 5 "$A" "$B"
check_bad "bad format" "bad --format 'xml' (expected text or json)" "$ARBENCH" compare --format xml "$A" "$B"
check_bad "bad shift" "bad --shift 'maybe' (expected auto, on or off)" "$ARBENCH" compare --shift maybe "$A" "$B"
check_bad "unknown option" "unknown option '--frobnicate'" "$ARBENCH" compare --frobnicate "$A" "$B"
check_bad "unknown dtype" "--dtype float: no such dtype in the results (present: bfloat16)" "$ARBENCH" compare --dtype float "$A" "$A"
finish
