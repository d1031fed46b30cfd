#!/usr/bin/env bash
# fleet_job.sh — scripts/slurm/fleet.sbatch submitted with sbatch to a real Slurm (tests/slurm/cluster.sh: munged,
# slurmctld and three slurmd, each node a network and UTS namespace), its steps launched by srun with Slurm's
# PMIx plugin straight into Open MPI (no mpirun). Node arbsl3 is made slow (ARBENCH_INJECT_DELAY on it only):
# every node's run and links records must carry its host and the job's ids, nothing may be wrong, and
# `arbench fleet` must name arbsl3 and no other box (exit 4). Every daemon ends with the test.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/cluster.sh"
slurm_start 3
W=$SL_DIR/work
# The slow box: node arbsl3's rank 0 sleeps 2 ms after every other timed call (bench/run/fault.c's hook).
cat >"$W/slow-arbsl3.sh" <<EOF
#!/bin/sh
[ "\$(hostname)" = arbsl3 ] && export ARBENCH_INJECT_DELAY=0:2
exec "$ARBENCH" "\$@"
EOF
chmod +x "$W/slow-arbsl3.sh"
# --margin 300 and no flag latency: on these oversubscribed cores (six ranks, three nodes, two cores) the healthy
# nodes share the CPU unevenly for a whole launch (a ping-pong between two ranks of one node read 4x another's);
# the planted slowness is three orders of magnitude. The crafted-file tests (tests/analysis/fleet.sh) hold the
# 10% default.
rc=0
sl_sbatch 170 -N 3 --ntasks-per-node=2 -o "$W/fleet.out" -D "$W" \
  --export=ALL,ARBENCH="$W/slow-arbsl3.sh",ARBENCH_MARGIN=300 "$ARBENCH_SRC/scripts/slurm/fleet.sbatch" "$W/out" \
  --backend mpi,shm-oneshot -b 1K -e 16K -f 4 -n 20 --repeat 3 \
  --links -b 64K -e 256K --pattern pairs --direction uni --lat-iters 0 || rc=$?
[ $rc = 4 ] || { cat "$W/fleet.out"; fail "the fleet job exited $rc, expected 4 (fleet flagged a box)"; }
jobid=$SL_JOB
"$PY" - "$W/out" "$jobid" <<'PY' || { cat "$W/fleet.out"; fail "records"; }
import json, sys
out, job = sys.argv[1], sys.argv[2]
hosts = {"arbsl1", "arbsl2", "arbsl3"}
for name, rec_type, step in (("run.jsonl", "result", "0"), ("links.jsonl", "link", "1")):
    recs = [json.loads(l) for l in open(f"{out}/{name}")]
    runs = [r for r in recs if r["type"] == "run"]
    assert sorted(r["host"] for r in runs) == sorted(hosts), (name, [r.get("host") for r in runs])
    assert len({r["per_node"]["job"] for r in runs}) == 1 and all(r["per_node"]["nodes"] == 3 for r in runs), runs
    assert sorted(r["per_node"]["node"] for r in runs) == [0, 1, 2], [r["per_node"] for r in runs]
    for r in runs:  # each node's run: its own two ranks, its hostname, Slurm's node name, the job and the step
        assert r["ranks"] == 2 and r["nodes"] == 1 and r["hosts"] == [r["host"]], r
        s = r["slurm"]
        assert s["job_id"] == job and s["step_id"] == step and s["node"] == r["host"], s
        assert s["job_nodelist"] == "arbsl[1-3]", s
    meas = [r for r in recs if r["type"] == rec_type]
    per_host = {h: 0 for h in hosts}
    for r in meas:
        assert r["host"] in hosts and r["slurm"] == {"job_id": job, "step_id": step, "node": r["host"]}, r
        assert r["wrong"] == 0, r
        per_host[r["host"]] += 1
    assert len(set(per_host.values())) == 1 and min(per_host.values()) > 0, (name, per_host)
    if rec_type == "result":
        assert all(r["checked"] is True and r["ranks"] == 2 and r["nodes"] == 1 for r in meas)
        # 2 backends x 3 sizes x 3 repeats on each node
        assert per_host["arbsl1"] == 18, per_host
slow = [r for r in (json.loads(l) for l in open(f"{out}/run.jsonl")) if r["type"] == "run" and r["host"] == "arbsl3"]
assert slow[0]["env"].get("ARBENCH_INJECT_DELAY") == "0:2", slow[0]["env"]  # the planted slowness is on record
verdict = json.load(open(f"{out}/fleet.json"))
flagged = [b["host"] for g in verdict["groups"] for b in g["boxes"] if b["verdict"] != "equivalent" and b["verdict"] != "undecided"]
assert flagged == ["arbsl3"], [(b["host"], b["verdict"]) for g in verdict["groups"] for b in g["boxes"]]
assert verdict["flagged"] == 1 and [f["host"] for f in verdict["findings"]] == ["arbsl3"], verdict["findings"]
assert "shm-oneshot" in verdict["findings"][0]["text"], verdict["findings"]
assert verdict["boxes"] == 3 and len(verdict["groups"]) == 1, verdict["groups"]
print("fleet job %s: 3 nodes x (run, links) records with host, job and step; 0 wrong; fleet names arbsl3 only" % job)
PY
grep -q "^arbsl3: .*shm-oneshot" "$W/out/fleet.txt" || fail "fleet.txt has no arbsl3 finding: $(cat "$W/out/fleet.txt")"
for ((i = 0; i < 300; i++)); do left=$(sl_node_procs); [ -z "$left" ] && break; sleep 0.1; done # steps' teardown: a hang bound
[ -z "$left" ] || fail "processes left on the nodes 30 s after the job: $left"
echo "fleet_job: ok (srun --mpi=pmix: Open MPI started by Slurm's PMIx plugin)"
