#!/usr/bin/env bash
# stall.sh — the last of 3 ranks stops (skips a call, or leaves after the first chunk of two): the others
# return a timeout within -T 2 instead of hanging, with one line naming rank, pass and peer.
source "$(dirname "$0")/../lib/common.sh"
SHM_CHECK=${1:?usage: $0 PATH-OF-shm_check}
stall() { # stall BACKEND MODE
  timeout 60 mpirun --oversubscribe -np 3 "$SHM_CHECK" stall "$1:chunk=1K" "$2" >"$TMP/out" 2>"$TMP/err" \
    || { cat "$TMP/out" "$TMP/err"; fail "$1 $2: status $?"; }
  grep -q "the other ranks timed out cleanly" "$TMP/out" || { cat "$TMP/out"; fail "$1 $2: no verdict"; }
  grep -Eq "^arbench: rank [01]: $1: timeout after 1.8 s in pass [a-z -]+ \(generation [0-9]+\) waiting for rank 2$" \
    "$TMP/err" || { cat "$TMP/err"; fail "$1 $2: no timeout line naming the stopped rank 2"; }
  local lines; lines=$(grep -c . "$TMP/err")
  [ "$lines" -le 2 ] || { cat "$TMP/err"; fail "$1 $2: $lines error lines, expected one per waiting rank"; }
}
stall shm-oneshot never
stall shm-twoshot mid
stall shm-staged mid
stall shm-islands mid
echo "stall: ok"
