#!/bin/bash
# inputs.sh — every variant and option is checked before anything runs (issue 28 items 10-12): a bad shm-*
# variant after a good backend, an empty variant, a key given twice, an option given twice, a size from
# the -b/-e/-f series that no element divides: one line, exit 2, no result written.
source "$(dirname "$0")/../lib/common.sh"
case_() { # case_ NEEDLE RUN-ARGS...
  local needle=$1; shift
  rm -f "$TMP/r.jsonl"
  expect_status 2 mpirun -q --oversubscribe -np 2 "$ARBENCH" run -b 8 -e 64 -n 2 -w 1 -J "$TMP/r.jsonl" "$@"
  [ "$(grep -c . "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "'$*': not one line on stderr"; }
  grep -qF -- "$needle" "$TMP/err" || { cat "$TMP/err"; fail "'$*': no '$needle'"; }
  [ ! -s "$TMP/r.jsonl" ] || fail "'$*': something was written before the check"
  [ ! -s "$TMP/out" ] || { cat "$TMP/out"; fail "'$*': something was measured before the check"; }
}
case_ "unknown variant 'shm-oneshot:foo=1' (allowed: shm-oneshot:chunk=SIZE,stream=SIZE" --backend 'mpi;shm-oneshot:foo=1'
case_ "empty variant in 'shm-oneshot:' (write shm-oneshot, or shm-oneshot:KEY=VALUE)" --backend 'mpi;shm-oneshot:'
case_ "chunk given twice in 'shm-twoshot:chunk=64K,chunk=4K' (give each key once)" --backend 'shm-twoshot:chunk=64K,chunk=4K'
case_ "option -d given twice (give it once; the later would silently win)" --backend mpi -d float -d half
rm -f "$TMP/r.jsonl"
expect_status 2 mpirun -q --oversubscribe -np 2 "$ARBENCH" run --backend mpi -b 8 -e 1M -f 1.5 -n 2 -w 1 -J "$TMP/r.jsonl"
grep -qF "size 18, term 3 of -b 8 -e 1048576 -f 1.5 is not a multiple of the float element size 4" "$TMP/err" \
  || { cat "$TMP/err"; fail "the -f term is not named"; }
echo "inputs: 5 cases"
