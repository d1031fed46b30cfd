#!/bin/bash
# sweep_kill.sh — SIGKILL a sweep midway: its running launch (mpirun and ranks) dies with it, the file
# stays readable; a rerun without --resume refuses (it would duplicate points); --resume marks the killed
# launch's partial run "interrupted", completes every point exactly once and keeps the points finished
# before the kill (same run_ids); another --resume has nothing to do and leaves the file unchanged.
source "$(dirname "$0")/lib.sh"
J="$TMP/k.jsonl"
sw=(--np 2,3 --env A=1,2 -J "$J")
run=(-- --backend mpi -b 8 -e 128K -n 20 -w 1) # with rank 0 slowed, each launch lasts ~3 s: long enough to be killed midway
export ARBENCH_INJECT_DELAY=0:20 # rank 0 sleeps 20 ms after every other timed call (the ranks inherit it)
"$ARBENCH" sweep "${sw[@]}" "${run[@]}" >/dev/null 2>"$TMP/k1.err" &
pid=$!
midway() { # a point is done and the next launch has written its run record but not finished
  [ -e "$J" ] || return 1
  local p r
  p=$(count '"type":"point"' "$J"); r=$(count '"type":"run"' "$J")
  [ "$p" -ge 1 ] && [ "$r" -gt "$p" ]
}
wait_for 240 midway
kill -KILL "$pid"
wait "$pid" && fail "the killed sweep exited 0" || true
wait_for 15 no_procs "$J"
partial=$($PY - "$J" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.endswith("\n")]
listed = {i for r in recs if r["type"] == "point" for i in r["run_ids"]}
print(len({r["run_id"] for r in recs if r["type"] == "run" and r["run_id"] not in listed}))
PY
)
[ "$partial" -ge 1 ] || echo "note: the kill landed between two launches; no partial run to mark"
before=$($CHECK done-runs "$J")
[ -n "$before" ] || fail "no point finished before the kill"

expect_status 2 "$ARBENCH" sweep "${sw[@]}" "${run[@]}"
grep -qF "add --resume" "$TMP/err" || { cat "$TMP/err"; fail "rerun without --resume should refuse"; }
expect_status 0 "$ARBENCH" sweep "${sw[@]}" --resume "${run[@]}"
grep -qF "resuming: $(wc -l <<<"$before") of 4 launches already in" "$TMP/err" || { cat "$TMP/err"; fail "resume count"; }
$CHECK done "$J" 4 mpi=15
after=$($CHECK done-runs "$J")
while read -r line; do
  grep -qxF -- "$line" <<<"$after" || fail "point finished before the kill was redone: $line"
done <<<"$before"
$PY - "$J" "$partial" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
done = {i for r in recs if r["type"] == "point" and r["status"] == "done" for i in r["run_ids"]}
marked = {i for r in recs if r["type"] == "point" and r["status"] == "interrupted" for i in r["run_ids"]}
runs = {r["run_id"] for r in recs if r["type"] == "run"}
assert len(marked) == int(sys.argv[2]), (marked, sys.argv[2])
assert runs == done | marked and not done & marked, (runs, done, marked)
PY
sum=$(md5sum <"$J")
expect_status 0 "$ARBENCH" sweep "${sw[@]}" --resume "${run[@]}"
grep -qF "nothing to do" "$TMP/err" || { cat "$TMP/err"; fail "second --resume should have nothing to do"; }
[ "$(md5sum <"$J")" = "$sum" ] || fail "second --resume changed the file"
echo "ok: SIGKILL and resume"
