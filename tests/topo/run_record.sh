#!/usr/bin/env bash
# run_record.sh — `arbench run` and the topology: the run record carries the same topology as
# `arbench topo` and one binding per rank; --no-bind leaves ranks unbound and says so; on a machine with
# two NUMA nodes (an hwloc synthetic topology of this machine's two PUs) ranks bind NUMA-balanced and
# shm-islands derives its islands from them.
source "$(dirname "$0")/../lib/common.sh"
rec() { # rec FILE PYTHON-EXPR-ON-run : prints the value
  "$PY" -c 'import json, sys
run = json.loads(open(sys.argv[1]).readline())
print(eval(sys.argv[2]))' "$1" "$2"
}
"$ARBENCH" topo --format json >"$TMP/topo.json" || fail "arbench topo exited $?"
want_digest=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["digest"])' "$TMP/topo.json")
ar_mpirun 2 run --backend mpi --counts 7 -n 1 -w 0 -J "$TMP/b.jsonl" >"$TMP/out" || fail "bound run exited $?"
[ "$(rec "$TMP/b.jsonl" 'run["topology"]["digest"]')" = "$want_digest" ] || fail "run record topology differs from arbench topo"
[ "$(rec "$TMP/b.jsonl" 'run["topology"]["source"]')" = live ] || fail "run record topology is not the live one"
[ "$(rec "$TMP/b.jsonl" 'len(run["binding"])')" = 2 ] || fail "run record does not have one binding per rank"
for r in 0 1; do
  b=$(rec "$TMP/b.jsonl" "run['binding'][$r]")
  [[ $b =~ "local rank $r of 2 -> PUs "[0-9] ]] || fail "rank $r binding '$b' does not name its PUs"
  grep -qF "# binding: $b" "$TMP/out" || fail "rank $r binding not printed"
done
ar_mpirun 2 run --backend mpi --counts 7 -n 1 -w 0 --no-bind -J "$TMP/n.jsonl" >/dev/null || fail "--no-bind run exited $?"
# Unbound ranks record the CPUs they were launched on (doctor --results checks them against the GPU's node).
for r in 0 1; do
  b=$(rec "$TMP/n.jsonl" "run['binding'][$r]")
  [[ $b =~ ^"rank $r: not bound (--no-bind) -> PUs "[0-9][0-9,-]*" (as launched)"$ ]] || fail "--no-bind: binding '$b'"
done
[ "$(rec "$TMP/n.jsonl" 'run["topology"]["digest"]')" = "$want_digest" ] || fail "--no-bind run lost the topology"
# Two NUMA nodes of one PU each: 4 ranks, two per node, islands [2, 2] from NUMA (no --islands).
SYN="pack:2 numa:1 pu:1"
mpirun -q --oversubscribe -np 4 -x HWLOC_SYNTHETIC="$SYN" -x HWLOC_THISSYSTEM=1 "$ARBENCH" run --backend shm-islands \
  --counts 7,1023 -n 1 -w 0 -J "$TMP/i.jsonl" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/out" "$TMP/err"; fail "islands run exited $?"; }
[ "$(rec "$TMP/i.jsonl" 'run["topology"]["numa_nodes"]')" = 2 ] || fail "synthetic topology not used"
for r in 0 1 2 3; do
  b=$(rec "$TMP/i.jsonl" "run['binding'][$r]")
  [[ $b == *"local rank $r of 4 -> PUs $((r / 2)) (NUMA $((r / 2))"* ]] || fail "rank $r binding '$b' is not NUMA-balanced"
done
"$PY" - "$TMP/i.jsonl" <<'PY' || fail "islands not derived from the two NUMA nodes"
import json, sys
res = [json.loads(l) for l in open(sys.argv[1]) if '"result"' in l]
assert len(res) == 2 and all(r["island_sizes"] == [2, 2] and r["wrong"] == 0 for r in res), res
PY
echo "run_record: ok"
