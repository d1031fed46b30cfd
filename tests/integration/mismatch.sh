#!/usr/bin/env bash
# mismatch.sh — ranks started with different options (MPMD mpirun) stop with an error naming the
# differing rank, exit status 2, before measuring anything.
source "$(dirname "$0")/../lib/common.sh"
expect_status 2 mpirun -q --oversubscribe -np 1 "$ARBENCH" run --backend mpi -b 8 -e 64 -n 5 \
  : -np 1 "$ARBENCH" run --backend mpi -b 8 -e 64 -n 6
grep -q "options differ between ranks: rank 1" "$TMP/err" || { cat "$TMP/err"; fail "no message naming rank 1"; }
grep -q "^ *8 " "$TMP/out" && fail "measured despite the mismatch"
expect_status 2 mpirun -q --oversubscribe -np 2 "$ARBENCH" run --backend mpi -b 8 -e 64 -n 5 \
  : -np 1 "$ARBENCH" run --backend mpi -b 8 -e 64 -n 5 -d half
grep -q "options differ between ranks: rank 2" "$TMP/err" || { cat "$TMP/err"; fail "no message naming rank 2"; }
# -o and -c differ: both change what is measured or checked.
for diff in "-o max" "-c 2"; do
  expect_status 2 timeout 60 mpirun -q --oversubscribe -np 1 "$ARBENCH" run --backend mpi -b 8 -e 8 -n 2 \
    : -np 1 "$ARBENCH" run --backend mpi -b 8 -e 8 -n 2 $diff
  grep -q "options differ between ranks: rank 1" "$TMP/err" || { cat "$TMP/err"; fail "'$diff' mismatch not named"; }
done
# --xml differs between ranks (e.g. a file present on one node only): an options mismatch, no hang.
expect_status 2 timeout 60 mpirun -q --oversubscribe -np 1 "$ARBENCH" run --backend mpi -b 8 -e 8 --xml /nonexistent.xml \
  : -np 1 "$ARBENCH" run --backend mpi -b 8 -e 8
grep -q "options differ between ranks: rank 1" "$TMP/err" || { cat "$TMP/err"; fail "--xml mismatch not named"; }
echo "mismatch: ok"
