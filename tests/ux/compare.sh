#!/usr/bin/env bash
# compare.sh — `arbench compare` with nothing in common (issue 42, item 10): exit 3 (nothing to compare), one
# stderr line saying what a match needs; the unmatched lists still printed. With matches: exit 0, no such line.
. "$ARBENCH_SRC/tests/analysis/common.sh"
jq -c 'select(.type != "result" or .backend == "mpi")' "$FIX/a.jsonl" >"$TMP/mpi.jsonl"
jq -c 'select(.type != "result" or .backend != "mpi")' "$FIX/b.jsonl" >"$TMP/other.jsonl"
"$ARBENCH" compare "$TMP/mpi.jsonl" "$TMP/other.jsonl" >"$TMP/out" 2>"$TMP/err"
check_eq "no match: exit 3" 3 $?
check_eq "no match: one stderr line" \
  "arbench compare: no configuration of $TMP/mpi.jsonl matches one of $TMP/other.jsonl (a match has the same backend, variant, sweep point, dtype, ranks, placement, op and method): nothing to compare" \
  "$(cat "$TMP/err")"
check_eq "no match: the text says so" 1 "$(grep -c '^No matching configurations.$' "$TMP/out")"
check_eq "no match: only in A listed" 1 "$(grep -c '^Only in A' "$TMP/out")"
"$ARBENCH" compare --format json "$TMP/mpi.jsonl" "$TMP/other.jsonl" >"$TMP/j" 2>/dev/null
rc=$?
check_eq "no match, json: exit 3, empty matches" "3 0" "$rc $(jq '.matches | length' "$TMP/j")"
"$ARBENCH" compare "$FIX/a.jsonl" "$FIX/b.jsonl" >/dev/null 2>"$TMP/err"
check_eq "matches: exit 0" 0 $?
check_eq "matches: no nothing-to-compare line" 0 "$(grep -c 'nothing to compare' "$TMP/err")"
finish
