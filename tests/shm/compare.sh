#!/usr/bin/env bash
# compare.sh — every shm-* algorithm x dtype x count (1, 3, 7, 1023, 4097, 1M+3) x placement on 2, 3, 4
# and 8 ranks: bit for bit equal to the mpi backend and to the exact pattern, identical on every rank
# (also for random non-integer inputs). Other ops (prod/max/min/avg) on odd counts. Islands forced.
source "$(dirname "$0")/../lib/common.sh"
SHM_CHECK=${1:?usage: $0 PATH-OF-shm_check}
ALL=shm-oneshot,shm-twoshot,shm-staged,shm-islands
run() { # run NP ARGS...
  local np=$1; shift
  mpirun --oversubscribe -np "$np" "$SHM_CHECK" compare "$@" >"$TMP/out" 2>"$TMP/err" \
    || { cat "$TMP/out" "$TMP/err"; fail "np=$np compare $*"; }
  grep -q "agree with mpi" "$TMP/out" || { cat "$TMP/out"; fail "np=$np: no verdict"; }
  cat "$TMP/out"
}
run 2 "$ALL" 1,3,7,1023,4097,1048579 sum
run 3 "$ALL" 1,3,7,1023,4097,1048579 sum 2   # 2 islands of 2 and 1 ranks
run 2 "$ALL" 7,1023 prod,max,min,avg
run 1 "$ALL" 1,7,4097 sum,avg
run 4 "$ALL,shm-twoshot:chunk=1K" 1,7,4097 prod,max,min,avg 2
run 8 "$ALL" 1,3,7,1023,4097,1048579 sum 3   # 3 islands of 3, 3 and 2 ranks
echo "compare: ok"
