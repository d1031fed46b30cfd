#!/usr/bin/env bash
# orphans.sh — after SIGKILL of mpirun its ranks die at once (the parent-death signal, bench/run/orphan.c):
# none lives on to measure or to append a record, and the results file stays whole.
source "$(dirname "$0")/lib.sh"
J=$TMP/orphans.jsonl
for cmd in run links; do
  rm -f "$J"
  if [ $cmd = run ]; then args=(run --backend mpi -b 64K -e 64K -n 10000000 --repeat 100 -w 0 -J "$J")
  else args=(links -b 4M -e 4M -n 100000 --repeat 50 --pattern pairs --method read --direction uni -J "$J" -q); fi
  mpirun -q --oversubscribe -np 2 "$ARBENCH" "${args[@]}" >"$TMP/out" 2>"$TMP/err" &
  launcher=$!
  for _ in $(seq 200); do [ -s "$J" ] && break; sleep 0.05; done # the run record: the ranks are measuring
  [ -s "$J" ] || { kill -KILL $launcher; cat "$TMP/err"; fail "$cmd: never started"; }
  sleep 0.3
  ranks=$(pgrep -f -- "$J" | grep -vx "$launcher" | tr '\n' ' ')
  [ -n "$ranks" ] || fail "$cmd: no rank processes found"
  kill -KILL $launcher
  t0=$(date +%s%N)
  wait $launcher 2>/dev/null || true
  left=""
  while :; do # at most 0.5 s: they go in 0.03-0.1 s; without the signal Open MPI's ranks lived 1.0-4 s
    left=""
    for p in $ranks; do
      st=""
      if [ -r /proc/$p/stat ]; then read -r _ _ st _ </proc/$p/stat 2>/dev/null || st=""; fi
      if [ -n "$st" ] && [ "$st" != Z ]; then left="$left $p"; fi
    done
    [ -z "$left" ] && break
    [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 500 ] || break
    sleep 0.01
  done
  [ -z "$left" ] || { pkill -KILL -f -- "$J"; fail "$cmd: ranks$left still alive 0.5 s after mpirun was killed"; }
  lines=$(wc -l <"$J")
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  sleep 4 # what an orphan used to have: 3-4 s to measure and append
  [ "$(wc -l <"$J")" = "$lines" ] || fail "$cmd: $(($(wc -l <"$J") - lines)) records appended after mpirun was killed"
  $CHECK_FILE "$J" || fail "$cmd: results file not whole"
  echo "$cmd: ranks $ranks gone ${ms} ms after SIGKILL of mpirun; $lines records, none after"
done
echo "orphans: ok"
