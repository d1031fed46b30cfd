#!/bin/bash
# appenders.sh — issue 28's done-when: 100 concurrent appenders to one file (95 writer processes
# through the real writer, some of records over 64 KB or paused mid-record, plus 4 runs and a sweep)
# leave a valid file with every record.
source "$(dirname "$0")/lib.sh"
F=$TMP/r.jsonl
RUN=(--backend mpi -b 8 -e 1K -n 3 -w 1 -c 1)
pids=()
for i in $(seq 0 94); do
  pad=3000 mode=plain
  [ $((i % 3)) = 0 ] && pad=70000
  [ $((i % 10)) = 5 ] && mode=slow
  "$APPENDER" "$F" "$i" 4 "$pad" "$mode" 2>>"$TMP/app.err" & pids+=($!)
done
for r in 1 2 3 4; do
  mpirun -q --oversubscribe -np 2 "$ARBENCH" run --quiet "${RUN[@]}" -J "$F" >/dev/null 2>>"$TMP/run.err" & pids+=($!)
done
"$ARBENCH" sweep --np 2 --env SIDE=A --launcher "mpirun -q --oversubscribe" -J "$F" -- "${RUN[@]}" \
  >/dev/null 2>>"$TMP/sweep.err" & pids+=($!)
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
[ "$bad" = 0 ] || { cat "$TMP"/*.err; fail "$bad of ${#pids[@]} appenders failed"; }
! grep -q "torn" "$TMP"/*.err || { cat "$TMP"/*.err; fail "a writer cut a live writer's line"; }
# 8 sizes per run (out of place); 5 runs (4 + the sweep's launch); one done point.
$CHECK_FILE "$F" --writers 95:4 --runs 5 --results-per-run 8 --points 1 || fail "file not whole"
expect_status 0 "$ARBENCH" table "$F"
echo "appenders: ok"
