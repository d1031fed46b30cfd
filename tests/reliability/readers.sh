#!/bin/bash
# readers.sh — the analysis commands say exactly what they found (issue 28 items 6-9, 13): an incomplete last
# line (no newline) is dropped with a warning; a complete malformed line, binary data, a directory, an
# unknown schema and impossible values are refused with file:line, exit 2; inputs with no result records
# exit 3 ("nothing to analyse") from table, compare and tune alike; import takes all_reduce_perf only.
source "$(dirname "$0")/../lib/common.sh"
EX="$ARBENCH_SRC/results/example-mpi-2ranks.jsonl"
RUN=$(head -1 "$EX")
RES=$(grep -m1 '"type": *"result"' "$EX")
[ -n "$RES" ] || fail "no result record in $EX"
one_line() { # one_line WANT_STATUS NEEDLE CMD... : that status, one stderr line holding NEEDLE
  local want=$1 needle=$2; shift 2
  expect_status "$want" "$@"
  [ "$(grep -c . "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "'$*': not one line on stderr"; }
  grep -qF -- "$needle" "$TMP/err" || { cat "$TMP/err"; fail "'$*': no '$needle'"; }
}
# 7. torn vs malformed vs binary
printf '%s\n%s\n{"type":"result","backend":"mpi","si' "$RUN" "$RES" >"$TMP/torn.jsonl"
expect_status 0 "$ARBENCH" table "$TMP/torn.jsonl"
grep -q 'torn.jsonl:3: ignoring an incomplete last line (36 bytes, no newline: its writer was interrupted or is still writing it)' "$TMP/err" \
  || { cat "$TMP/err"; fail "torn last line not reported"; }
printf '%s\n%s\n{"type":"result",\n' "$RUN" "$RES" >"$TMP/bad.jsonl"
one_line 2 "bad.jsonl:3: not a JSON object" "$ARBENCH" table "$TMP/bad.jsonl"
grep -qF 'in a complete last line (it ends with a newline: not a torn one)' "$TMP/err" || fail "complete bad line called torn"
{ printf '%s\n' "$RUN"; head -c 20000 /dev/zero | tr '\0' '\001'; } >"$TMP/bin.jsonl"
one_line 2 "bin.jsonl:2: binary data (20000 bytes), not a line of JSON" "$ARBENCH" table "$TMP/bin.jsonl"
mkdir -p "$TMP/dir"
one_line 2 "'$TMP/dir' is a directory, not a results file (give its files, e.g. $TMP/dir/*.jsonl)" "$ARBENCH" table "$TMP/dir"
# 8. nothing to analyse: exit 3, one line, the same for every analysis command
: >"$TMP/empty.jsonl"
printf '%s\n' "$RUN" >"$TMP/runonly.jsonl"
for cmd in table tune; do
  one_line 3 "arbench $cmd: no result records in $TMP/empty.jsonl (0 run records, 0 other): nothing to analyse" \
    "$ARBENCH" $cmd "$TMP/empty.jsonl"
  one_line 3 "arbench $cmd: no result records in $TMP/runonly.jsonl (1 run record, 0 other): nothing to analyse" \
    "$ARBENCH" $cmd "$TMP/runonly.jsonl"
done
one_line 3 "arbench compare: no result records in $TMP/empty.jsonl" "$ARBENCH" compare "$EX" "$TMP/empty.jsonl"
one_line 3 "arbench compare: no result records in $TMP/runonly.jsonl" "$ARBENCH" compare "$TMP/runonly.jsonl" "$EX"
expect_status 0 "$ARBENCH" table "$EX"
# 9. an unknown schema, alone or mixed with schema 1
sed 's/"schema": *1/"schema": 2/' <<<"$RUN" >"$TMP/s2.jsonl"
grep -q '"schema": *2' "$TMP/s2.jsonl" || fail "the example run record has no schema 1 to change"
printf '%s\n' "$RES" >>"$TMP/s2.jsonl"
one_line 2 "s2.jsonl:1: run record of schema 2; this arbench reads schema 1 (results/SCHEMA.md)" "$ARBENCH" table "$TMP/s2.jsonl"
{ cat "$EX"; cat "$TMP/s2.jsonl"; } >"$TMP/mixed.jsonl"
n=$(wc -l <"$EX")
one_line 2 "mixed.jsonl:$((n + 1)): run record of schema 2" "$ARBENCH" tune "$TMP/mixed.jsonl"
# 13. values no measurement has
imp() { # imp NAME JQ NEEDLE
  printf '%s\n' "$RUN" >"$TMP/$1.jsonl"
  jq -c "$2" <<<"$RES" >>"$TMP/$1.jsonl"
  one_line 2 "$1.jsonl:2: result record with an impossible $3: no measurement has one" "$ARBENCH" table "$TMP/$1.jsonl"
}
imp negsize '.size = -8' 'size (-8)'
imp zeroranks '.ranks = 0' 'ranks (0)'
imp negp50 '.time_us.p50 = -1.5' 'time_us.p50 (-1.5)'
imp strp50 '.time_us.p50 = "fast"' 'time_us.p50 (nan)'
# 6. import refuses other collectives and impossible numbers, with file:line
NTL="$ARBENCH_SRC/tests/fixtures/nccl-tests/pcie-2x2080ti.log"
first=$(grep -n -m1 ' float     sum ' "$NTL" | cut -d: -f1)
nti() { # nti NAME SED NEEDLE
  sed "${first}$2" "$NTL" >"$TMP/$1.log"
  one_line 2 "$1.log:$first: $3" "$ARBENCH" import nccl-tests "$TMP/$1.log"
}
nti gather 's/ sum / none /' "this row of an all_reduce_perf test is not allreduce output: redop 'none': all_gather, alltoall or sendrecv output"
nti huge 's/^ *8 / 1152921504606846976 /' "size 1152921504606846976 is out of range: no allreduce has one"
nti negtime 's/ 12\.25 / -12.25 /' "negative value '-12.25' in the time column: no measurement has one"
echo "readers: 22 cases"
