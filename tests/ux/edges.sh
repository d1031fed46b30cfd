#!/bin/bash
# edges.sh — the smaller frictions of issue 50: a backend given twice, a bad -o, compare of the same launches,
# table's help and method line, report/model -o never renamed over a device or written into a folder.
source "$(dirname "$0")/../lib/common.sh"
EX="$ARBENCH_SRC/results/example-mpi-2ranks.jsonl"
# 4. a configuration given twice is an error before anything runs
expect_one_line_error "backend 'mpi' given twice (give each configuration once; --repeat N measures it N times)" \
  "$ARBENCH" run --no-launch --backend mpi,mpi -n 1
# 6. bad output paths: exit 2, one line, for every -o (and nothing replaced)
mkdir "$TMP/dir"
mkfifo "$TMP/fifo"
expect_one_line_error "-o '$TMP/dir' is a directory: give a new or regular file" "$ARBENCH" report "$EX" -o "$TMP/dir"
expect_one_line_error "-o '$TMP/fifo' is a FIFO (named pipe): give a new or regular file" "$ARBENCH" report "$EX" -o "$TMP/fifo"
[ -p "$TMP/fifo" ] || fail "report -o FIFO replaced the FIFO"
expect_one_line_error "-o '$TMP/no/page.html': its folder '$TMP/no' does not exist" "$ARBENCH" report "$EX" -o "$TMP/no/page.html"
# (no device here: a regression would rename the page over it, and tests run as root)
expect_one_line_error "-o '$TMP/dir' is a directory" "$ARBENCH" model --fit "$EX" -o "$TMP/dir"
expect_one_line_error "cannot create output directory '$TMP/no/a/b'" "$ARBENCH" tune "$EX" -o "$TMP/no/a/b"
# 10. the same launches on both sides: one warning
expect_status 0 "$ARBENCH" compare "$EX" "$EX"
expect_eq "compare X X: one warning" "arbench compare: warning: both sides are the same launches (1 run in $EX and $EX): every ratio is 1 by construction, not a measurement of a difference" "$(cat "$TMP/err")"
# 11. a one-record file names no empty sweep point; table --help lists --drift once
{ head -1 "$EX"; grep -m1 '"type": *"result"' "$EX"; } >"$TMP/one.jsonl"
expect_status 0 "$ARBENCH" table "$TMP/one.jsonl"
grep -q '^Method: buffers cold, timing iter, -a max\. p50' "$TMP/out" || { cat "$TMP/out"; fail "method line"; }
! grep -q 'sweep point \.' "$TMP/out" || fail "an empty sweep point is named"
expect_eq "table --help: --drift once" 1 "$("$ARBENCH" table --help | grep -c -- '--drift')"
# 7. scripts/test.sh --help: its own usage at once, no setup, no build
expect_status 0 env BUILD_DIR="$TMP/nobuild" "$ARBENCH_SRC/scripts/test.sh" --help
grep -q '^usage: scripts/test.sh \[MESON-TEST-ARGS...\]$' "$TMP/out" || { cat "$TMP/out"; fail "no usage"; }
[ ! -e "$TMP/nobuild" ] || fail "scripts/test.sh --help set up a build"
echo "edges: ok"
