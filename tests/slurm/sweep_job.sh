#!/usr/bin/env bash
# sweep_job.sh — `arbench sweep --launcher srun` inside real Slurm allocations (tests/slurm/cluster.sh): the
# single-node sweep of scripts/slurm/sweep.sbatch under sbatch (every point an srun step of the job, Open MPI started
# by Slurm's PMIx plugin), a point that hangs ended at --point-timeout, and Ctrl-C in the middle of a point, then
# --resume, under salloc: records with the job, step and node, 0 wrong, nothing left running on the nodes.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/cluster.sh"
slurm_start 2
W=$SL_DIR/work
left() { # nothing of a job may outlive it on the nodes: a step's teardown (slurmstepd) may take seconds on a loaded
  local l i # box, so wait for it up to 30 s (a hang bound, not a speed; issue 50 item 12: this was a sleep 1 before)
  for ((i = 0; i < 300; i++)); do l=$(sl_node_procs); [ -z "$l" ] && return 0; sleep 0.1; done
  fail "$1: processes left on the nodes 30 s after: $l"
}

# 1. sbatch: the sweep script, two points (an environment axis), each launched by srun in the allocation.
rc=0
sl_sbatch 120 -N 1 -n 2 -o "$W/sweep.out" -D "$W" "$ARBENCH_SRC/scripts/slurm/sweep.sbatch" \
  "$W/sweep.jsonl" --env ARB_X=1,2 -- --backend mpi -b 8 -e 1K -f 8 -n 5 || rc=$?
[ $rc = 0 ] || { cat "$W/sweep.out"; fail "the sweep job exited $rc"; }
job=$SL_JOB
"$PY" - "$W/sweep.jsonl" "$job" <<'PY' || { cat "$W/sweep.out"; fail "sweep records"; }
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
job = sys.argv[2]
sweep = [r for r in recs if r["type"] == "sweep"]
assert len(sweep) == 1 and sweep[0]["launcher"][0] == "srun" and sweep[0]["slurm"]["job_id"] == job, sweep
points = [r for r in recs if r["type"] == "point"]
assert sorted((p["point"]["ARB_X"], p["status"]) for p in points) == [("1", "done"), ("2", "done")], points
runs = [r for r in recs if r["type"] == "run"]
assert sorted(r["slurm"]["step_id"] for r in runs) == ["0", "1"], [r["slurm"] for r in runs]  # one srun step a point
for r in runs:
    assert r["slurm"]["job_id"] == job and r["slurm"]["node"] == "arbsl1" and r["hosts"] == ["arbsl1"], r["slurm"]
    assert r["ranks"] == 2 and r["point"]["ARB_X"] in ("1", "2"), (r["ranks"], r["point"])
res = [r for r in recs if r["type"] == "result"]
assert len(res) == 2 * 3 and all(r["wrong"] == 0 and r["checked"] is True for r in res), len(res)
print("sbatch sweep %s: 2 points done, steps 0 and 1 on arbsl1, 6 results correct" % job)
PY
left "the sbatch sweep"

echo "[${SECONDS}s] part 2"
# 2. A point that hangs (rank 1 stops itself before the option check; -T 0: no watchdog) ends at --point-timeout.
rc=0
on_head env ARBENCH_INJECT_STALL=1:options timeout 60 salloc -N 1 -n 2 "$ARBENCH" sweep --np 2 \
  --launcher "srun --mpi=pmix" --point-timeout 4 -J "$W/hang.jsonl" -- --backend mpi -b 8 -e 8 -T 0 \
  >"$TMP/hang.out" 2>&1 || rc=$?
[ $rc = 1 ] || { cat "$TMP/hang.out"; fail "the hanging sweep exited $rc, expected 1 (a point failed)"; }
grep -q "timed out after 4 s (--point-timeout)" "$TMP/hang.out" || fail "no timeout line: $(cat "$TMP/hang.out")"
"$PY" - "$W/hang.jsonl" <<'PY' || fail "timeout records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert [r["status"] for r in recs if r["type"] == "point"] == ["timeout"], recs
assert any(r["type"] == "error" and "timed out" in r["message"] for r in recs), recs
assert not [r for r in recs if r["type"] == "result"], recs
print("hanging point: ended at --point-timeout, recorded as timeout")
PY
left "the hanging point"

echo "[${SECONDS}s] part 3"
# 3. Ctrl-C during a point: the sweep ends it (exit 130), drops its partial records; --resume completes the rest.
# The point holds still after its records (rank 1 stops itself before MPI_Finalize, -T 0: no watchdog), so the
# interrupt lands while it runs, whatever the machine's load.
(sl_node_cmd 1 && exec "${SL_CMD[@]}" env ARBENCH_INJECT_STALL=1:finalize timeout 120 salloc -N 1 -n 2 "$ARBENCH" sweep \
  --np 2 --launcher "srun --mpi=pmix" --env ARB_X=1,2 -J "$W/int.jsonl" -- --backend mpi -b 8 -e 64K -f 8 -n 5 \
  --repeat 2 -T 0 >"$TMP/int.out" 2>&1) &
bg=$!
for ((i = 0; i < 600; i++)); do # the first point's last result: that launch holds still in its teardown
  [ "$(grep -c '"type":"result"' "$W/int.jsonl" 2>/dev/null)" = 10 ] && break
  sleep 0.1
done
salloc=$(pgrep -P "$bg" -x salloc || true) # $bg is the timeout command (each step of the node command execs)
sweep=$([ -n "$salloc" ] && pgrep -P "$salloc" || true)
[ -n "$sweep" ] || fail "no sweep process under salloc ($salloc): $(cat "$TMP/int.out")"
kill -INT "$sweep"
rc=0
wait "$bg" || rc=$?
[ $rc = 130 ] || { cat "$TMP/int.out"; fail "the interrupted sweep exited $rc, expected 130"; }
grep -q "interrupted by Interrupt during np=2 ARB_X=1 (its partial records removed)" "$TMP/int.out" \
  || fail "no interrupt line: $(cat "$TMP/int.out")"
grep -q '"type":"run"' "$W/int.jsonl" && fail "the interrupted launch's records are still in the file"
left "the interrupted sweep"
echo "[${SECONDS}s] resume"
on_head timeout 120 salloc -N 1 -n 2 "$ARBENCH" sweep --np 2 --launcher "srun --mpi=pmix" --env ARB_X=1,2 --resume \
  -J "$W/int.jsonl" -- --backend mpi -b 8 -e 64K -f 8 -n 5 --repeat 2 -T 0 >"$TMP/resume.out" 2>&1 \
  || { cat "$TMP/resume.out"; fail "--resume after Ctrl-C"; }
"$PY" - "$W/int.jsonl" <<'PY' || fail "resumed records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
done = sorted(p["point"]["ARB_X"] for p in recs if p["type"] == "point" and p["status"] == "done")
assert done == ["1", "2"], [(p["point"], p["status"]) for p in recs if p["type"] == "point"]
runs = [r for r in recs if r["type"] == "run"]
assert len(runs) == 2 and all(r["slurm"]["node"] == "arbsl1" for r in runs), [r.get("slurm") for r in runs]
res = [r for r in recs if r["type"] == "result"]
assert len(res) == 2 * 5 * 2 and all(r["wrong"] == 0 for r in res), len(res)
print("Ctrl-C then --resume: each point once, 20 results correct")
PY
left "the resumed sweep"
echo "sweep_job: ok (srun --mpi=pmix points inside sbatch and salloc allocations)"
