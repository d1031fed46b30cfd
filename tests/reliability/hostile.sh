#!/bin/bash
# hostile.sh — every file argument of every command against hostile files (issue 50 item 1): a character
# device that never ends (/dev/zero, /dev/urandom), a FIFO with no writer, /proc/self/mem, a sparse 8 GiB
# file and a directory each end in one line naming the file, exit 2, well inside a hang bound; a file that
# keeps growing while read (a results file, an nccl-tests log) is read up to its size at open and ends.
source "$(dirname "$0")/../lib/common.sh"
EX="$ARBENCH_SRC/results/example-mpi-2ranks.jsonl"
XML="$ARBENCH_SRC/tests/fixtures/model/sw2-8g-gen5.xml"
LOG="$ARBENCH_SRC/tests/fixtures/nccl-tests/phase0-1rank-rtx5090.log"
BOUND=${HOSTILE_BOUND_S:-30} # a hang detector, not a speed: each case takes milliseconds
mkfifo "$TMP/fifo"
truncate -s 8G "$TMP/sparse"
mkdir "$TMP/dir"
# one file argument per line; @F@ is the hostile file
CMDS=(
  "import nccl-tests @F@ -J $TMP/imp.jsonl"
  "table @F@"
  "table $EX @F@"
  "compare @F@ $EX"
  "compare $EX @F@"
  "tune @F@ -o $TMP/tune"
  "report @F@ -o $TMP/page.html"
  "fleet @F@"
  "model --xml @F@"
  "model --xml $XML --calib @F@"
  "model --against @F@ --xml $XML"
  "doctor --results @F@"
  "tune --verify --tuner @F@ $EX"
  "sweep --np 2 --dry-run --resume -J @F@ -- --backend mpi"
  "impact --tp 8 --model @F@ $EX"
)
n=0
for f in /dev/zero /dev/urandom "$TMP/fifo" /proc/self/mem "$TMP/sparse" "$TMP/dir"; do
  for c in "${CMDS[@]}"; do
    read -r -a argv <<<"${c//@F@/$f}"
    got=0
    timeout -s KILL "$BOUND" "$ARBENCH" "${argv[@]}" </dev/null >"$TMP/out" 2>"$TMP/err" || got=$?
    [ "$got" != 137 ] || fail "'${argv[*]}': still running after ${BOUND}s (killed)"
    [ "$got" = 2 ] || { cat "$TMP/err"; fail "'${argv[*]}': exit $got, expected 2"; }
    [ "$(grep -c . "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "'${argv[*]}': not one line on stderr"; }
    name="'$f'"; [ "$f" != /proc/self/mem ] || name="/mem'" # a command may resolve the link first
    grep -qF -- "$name" "$TMP/err" || { cat "$TMP/err"; fail "'${argv[*]}': the line does not name '$f'"; }
    [ ! -s "$TMP/out" ] || { cat "$TMP/out"; fail "'${argv[*]}': printed output"; }
    n=$((n + 1))
  done
done
echo "ok: $n hostile-file cases, one line and exit 2 each"

# A file that keeps growing while read: the reader stops at the size it had when opened. The writer appends
# a line every 10 ms, as a live job's log grows: a writer flat out fills the disk at 50 MB/s, and on a loaded
# CI machine the reader, started late, then had hundreds of MB to read before the hang bound (CI failed so).
grow() { # grow FILE LINE... : append the lines to FILE every 10 ms for ever (until killed)
  local f=$1; shift
  while :; do printf '%s\n' "$@"; sleep 0.01; done >>"$f" 2>/dev/null
}
grown() { # grown FILE SIZE: wait (up to the hang bound) until FILE is larger than SIZE: growing before it is read
  local i
  for ((i = 0; i < BOUND * 100; i++)); do [ "$(stat -c %s "$1")" -gt "$2" ] && return 0; sleep 0.01; done
  fail "$1 did not grow in ${BOUND}s"
}
cp "$EX" "$TMP/grow.jsonl"
grow "$TMP/grow.jsonl" "$(grep -m1 '"type": *"result"' "$EX")" &
GP=$!
grown "$TMP/grow.jsonl" "$(stat -c %s "$EX")"
got=0
timeout -s KILL "$BOUND" "$ARBENCH" table "$TMP/grow.jsonl" >"$TMP/out" 2>"$TMP/err" || got=$?
kill "$GP"; wait "$GP" 2>/dev/null || true
[ "$got" != 137 ] || fail "table of a growing results file: still running after ${BOUND}s"
[ "$got" = 0 ] || { cat "$TMP/err"; fail "table of a growing results file: exit $got"; }
grep -v 'ignoring an incomplete last line' "$TMP/err" | qgrep -q . && { cat "$TMP/err"; fail "table of a growing file: unexpected stderr"; }
echo "ok: a results file appended to while table reads it: read to its size at open, exit 0"
cp "$LOG" "$TMP/grow.log"
grow "$TMP/grow.log" "$(grep -m1 -E '^ +[0-9]+ +[0-9]+ +float' "$LOG")" &
GP=$!
grown "$TMP/grow.log" "$(stat -c %s "$LOG")"
got=0
timeout -s KILL "$BOUND" "$ARBENCH" import nccl-tests "$TMP/grow.log" -J "$TMP/g.jsonl" >"$TMP/out" 2>"$TMP/err" || got=$?
kill "$GP"; wait "$GP" 2>/dev/null || true
[ "$got" != 137 ] || fail "import of a growing log: still running after ${BOUND}s"
echo "ok: import of a log that keeps growing ends (exit $got: $(head -c 200 "$TMP/err"))"

# Truncated and concatenated logs (issue 50 item 2): a killed job's log, its last row torn (with or without
# the launcher's line after it), imports its complete rows with one warning naming the line; the same short
# row inside a log (a table goes on after it) stays an error; two logs end to end import as two runs.
{ head -69 "$LOG"; sed -n 70p "$LOG" | cut -c1-75; } >"$TMP/trunc.log"
{ cat "$TMP/trunc.log"; echo "mpirun noticed that process rank 0 with PID 0 on node lab exited on signal 9 (Killed)."; } >"$TMP/killed.log"
for f in trunc killed; do
  expect_status 0 "$ARBENCH" import nccl-tests "$TMP/$f.log" -J "$TMP/$f.jsonl"
  expect_eq "$f.log: one warning" "arbench import: warning: $TMP/$f.log:70: ignoring a torn last row (its job stopped while writing it; expected 13 columns, found 8); the complete rows before it are imported" "$(cat "$TMP/err")"
  expect_eq "$f.log: the 6 complete rows, both halves" 12 "$(grep -c '"type": *"result"' "$TMP/$f.jsonl")"
done
{ cat "$TMP/trunc.log"; sed -n '71,$p' "$LOG"; } >"$TMP/mid.log"
expect_one_line_error "mid.log:70: malformed all_reduce_perf row: expected 13 columns, found 8" \
  "$ARBENCH" import nccl-tests "$TMP/mid.log" -J "$TMP/mid.jsonl"
cat "$LOG" "$LOG" >"$TMP/cat.log"
expect_status 0 "$ARBENCH" import nccl-tests "$TMP/cat.log" -J "$TMP/cat.jsonl"
expect_eq "two logs end to end: two runs of 24 records" "2 48" \
  "$(grep -c '"type": *"run"' "$TMP/cat.jsonl") $(grep -c '"type": *"result"' "$TMP/cat.jsonl")"
