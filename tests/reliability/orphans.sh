#!/usr/bin/env bash
# orphans.sh — after SIGKILL of mpirun its ranks die by the parent-death signal (bench/run/orphan.c), even stopped:
# none lives on to measure or to append a record, and the results file stays whole.
source "$(dirname "$0")/lib.sh"
J=$TMP/orphans.jsonl
for cmd in run links; do
  rm -f "$J"
  if [ $cmd = run ]; then args=(run --backend mpi -b 64K -e 64K -n 10000000 --repeat 100 -w 0 -J "$J")
  else args=(links -b 4M -e 4M -n 100000 --repeat 50 --pattern pairs --method read --direction uni -J "$J" -q); fi
  mpirun -q --oversubscribe -np 2 "$ARBENCH" "${args[@]}" >"$TMP/out" 2>"$TMP/err" &
  launcher=$!
  for _ in $(seq 600); do [ -s "$J" ] && break; sleep 0.05; done # the run record: the ranks are measuring (a hang bound)
  [ -s "$J" ] || { kill -KILL $launcher; cat "$TMP/err"; fail "$cmd: never started"; }
  ranks=$(pgrep -f -- "$J" | grep -vx "$launcher" | tr '\n' ' ')
  [ -n "$ranks" ] || fail "$cmd: no rank processes found"
  # Stop the ranks, then kill mpirun: a stopped rank cannot end itself or append a record, and only a signal
  # the kernel sends on its parent's death (PR_SET_PDEATHSIG, SIGKILL) ends it; without one it stays stopped for
  # ever (Open MPI's own way, noticing the lost launcher, needs the rank to run). How soon it goes is the
  # scheduler's (a loaded box: seconds), so the wait is a hang bound, not a speed (issue 50 item 12).
  kill -STOP $ranks
  lines=$(wc -l <"$J")
  kill -KILL $launcher
  wait $launcher 2>/dev/null || true
  left=""
  for ((i = 0; i < 300; i++)); do # up to 30 s
    left=""
    for p in $ranks; do
      st=""
      if [ -r /proc/$p/stat ]; then read -r _ _ st _ </proc/$p/stat 2>/dev/null || st=""; fi
      if [ -n "$st" ] && [ "$st" != Z ]; then left="$left $p"; fi
    done
    [ -z "$left" ] && break
    sleep 0.1
  done
  [ -z "$left" ] || { kill -KILL $left 2>/dev/null; fail "$cmd: ranks$left still alive (stopped) 30 s after mpirun was killed"; }
  [ "$(wc -l <"$J")" = "$lines" ] || fail "$cmd: $(($(wc -l <"$J") - lines)) records appended after mpirun was killed"
  $CHECK_FILE "$J" || fail "$cmd: results file not whole"
  echo "$cmd: ranks $ranks (stopped) gone after SIGKILL of mpirun; $lines records, none after"
done
echo "orphans: ok"
