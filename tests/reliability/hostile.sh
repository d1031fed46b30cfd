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

# A file that keeps growing while read: the reader stops at the size it had when opened.
grow() { # grow FILE LINE... : append the lines to FILE for ever (until killed)
  local f=$1; shift
  while :; do printf '%s\n' "$@"; done >>"$f" 2>/dev/null
}
cp "$EX" "$TMP/grow.jsonl"
grow "$TMP/grow.jsonl" "$(grep -m1 '"type": *"result"' "$EX")" &
GP=$!
got=0
timeout -s KILL "$BOUND" "$ARBENCH" table "$TMP/grow.jsonl" >"$TMP/out" 2>"$TMP/err" || got=$?
kill "$GP"; wait "$GP" 2>/dev/null || true
[ "$got" != 137 ] || fail "table of a growing results file: still running after ${BOUND}s"
[ "$got" = 0 ] || { cat "$TMP/err"; fail "table of a growing results file: exit $got"; }
grep -v 'ignoring an incomplete last line' "$TMP/err" | grep -q . && { cat "$TMP/err"; fail "table of a growing file: unexpected stderr"; }
echo "ok: a results file appended to while table reads it: read to its size at open, exit 0"
cp "$LOG" "$TMP/grow.log"
grow "$TMP/grow.log" "$(grep -m1 -E '^ +[0-9]+ +[0-9]+ +float' "$LOG")" &
GP=$!
got=0
timeout -s KILL "$BOUND" "$ARBENCH" import nccl-tests "$TMP/grow.log" -J "$TMP/g.jsonl" >"$TMP/out" 2>"$TMP/err" || got=$?
kill "$GP"; wait "$GP" 2>/dev/null || true
[ "$got" != 137 ] || fail "import of a growing log: still running after ${BOUND}s"
echo "ok: import of a log that keeps growing ends (exit $got: $(head -c 200 "$TMP/err"))"
