#!/usr/bin/env bash
# stress.sh — 10,000 back-to-back calls per algorithm without a barrier, counts changing every call
# (1 to 16 chunks of 1 KiB, so generations cross the 32-bit wrap), every output verified.
source "$(dirname "$0")/../lib/common.sh"
SHM_CHECK=${1:?usage: $0 PATH-OF-shm_check}
for np in 2 3; do
  for be in shm-oneshot shm-twoshot shm-staged shm-islands; do
    mpirun --oversubscribe -np $np "$SHM_CHECK" stress "$be:chunk=1K" 10000 >"$TMP/out" 2>"$TMP/err" \
      || { cat "$TMP/out" "$TMP/err"; fail "np=$np $be stress"; }
    grep -q "10000 back-to-back calls on $np ranks, every one verified" "$TMP/out" || { cat "$TMP/out"; fail "$be"; }
  done
done
echo "stress: ok"
