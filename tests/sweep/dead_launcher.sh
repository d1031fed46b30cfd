#!/bin/bash
# dead_launcher.sh — a sweep test launcher: runs mpirun "$@" and, when the launch's environment sets
# DEAD_RANK_SIGNAL to KILL or STOP (any other value: plain mpirun), sends it to rank 1 once the launch
# has added two result records to its -J file (in the middle of the run). Rank 0 sleeps 20 ms after every
# other timed call (ARBENCH_INJECT_DELAY) so that each size lasts seconds and the signal lands mid-run.
source "$(dirname "$0")/../lib/ranks.sh"
sig=${DEAD_RANK_SIGNAL:-none}
case "$sig" in KILL|STOP) ;; *) exec mpirun "$@" ;; esac
J=; prev=
for a in "$@"; do [ "$prev" = -J ] && J=$a; prev=$a; done
[ -n "$J" ] || { echo "dead_launcher: no -J FILE among the arguments" >&2; exit 3; }
n0=$(grep -c '"type":"result"' "$J" 2>/dev/null || true)
export ARBENCH_TEST_TAG="dl$$" ARBENCH_INJECT_DELAY=0:20
mpirun -x ARBENCH_TEST_TAG -x ARBENCH_INJECT_DELAY "$@" &
job=$!
poll 120 results_in "$J" $((${n0:-0} + 2))
kill "-$sig" "$(rank_pid "$ARBENCH_TEST_TAG" 1)"
wait "$job"
