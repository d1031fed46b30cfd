#!/usr/bin/env bash
# two_hosts.sh — arbench across two "hosts" on one machine: two network namespaces joined by a veth
# pair, each process tree in its own UTS namespace with its own hostname, Open MPI over TCP only. The
# run record shows 2 nodes and per-node local ranks; shm-* records 'ranks span 2 nodes'; mpi runs across
# both with correct results; then run --per-node over both (each host alone: shm-oneshot runs). Skipped (77) with
# the reason where namespaces cannot be made (not root).
source "$(dirname "$0")/../lib/common.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to create network namespaces (ip netns)"
command -v ip >/dev/null || skip "no ip command (iproute2)"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
N1=arbh1-$$ N2=arbh2-$$ V1=arbv1-$$ V2=arbv2-$$ H1=arbhost1 H2=arbhost2
A1=10.213.$(($$ % 200)).1 A2=10.213.$(($$ % 200)).2 NET=10.213.$(($$ % 200)).0/24
cleanup() { ip netns del "$N1" 2>/dev/null; ip netns del "$N2" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
ip netns add "$N1" 2>"$TMP/ns.err" || skip "cannot create a network namespace: $(head -1 "$TMP/ns.err")"
ip netns add "$N2" || fail "second namespace"
ip link add "$V1" type veth peer name "$V2" 2>"$TMP/ns.err" || skip "cannot create a veth pair: $(head -1 "$TMP/ns.err")"
ip link set "$V1" netns "$N1" && ip link set "$V2" netns "$N2" || fail "moving the veth ends"
ip -n "$N1" addr add "$A1/24" dev "$V1" && ip -n "$N2" addr add "$A2/24" dev "$V2" || fail "addresses"
for ns in "$N1" "$N2"; do ip -n "$ns" link set lo up; done
ip -n "$N1" link set "$V1" up && ip -n "$N2" link set "$V2" up || fail "links up"
printf '%s slots=2\n%s slots=2\n' "$H1" "$H2" >"$TMP/hosts"
# No name resolution is needed: mpirun knows host 1 is itself by its hostname, starts host 2's daemon
# through the agent (which maps the name to its namespace), and the wiring uses the veth subnet only.
export ARB_NS_MAP="$H1=$N1 $H2=$N2"
mpi=(mpirun -q --hostfile "$TMP/hosts" -np 4 --map-by node
     --mca plm_rsh_agent "$HERE/ns_agent.sh" --mca plm_rsh_no_tree_spawn 1 --mca btl tcp,self
     --mca btl_tcp_if_include "$NET" --mca oob_tcp_if_include "$NET" --mca pml ob1
     -x OMPI_ALLOW_RUN_AS_ROOT -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM)
J="$TMP/two.jsonl"
# mpirun itself runs on host 1 (its namespace and hostname); host 2's daemon starts through the agent.
launch() {
  ip netns exec "$N1" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$H1" \
    timeout 240 "${mpi[@]}" "$ARBENCH" run --backend mpi,shm-oneshot --counts 7,1023,65537 -d float,int32 \
    -n 5 -w 1 -T 60 -J "$J"
}
expect_status 0 launch
"$PY" - "$J" "$H1" "$H2" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
run = [r for r in recs if r["type"] == "run"][0]
assert run["nodes"] == 2 and run["ranks"] == 4, (run["nodes"], run["ranks"])
assert sorted(run["hosts"]) == sorted(sys.argv[2:]), run["hosts"]
per = {}
for m in run["rank_map"]:
    per.setdefault(m["host"], []).append(m["local_rank"])
assert {h: sorted(v) for h, v in per.items()} == {sys.argv[2]: [0, 1], sys.argv[3]: [0, 1]}, run["rank_map"]
skips = [r for r in recs if r["type"] == "skip"]
assert len(skips) == 1 and skips[0]["backend"] == "shm-oneshot" and "ranks span 2 nodes" in skips[0]["reason"], skips
res = [r for r in recs if r["type"] == "result"]
assert len(res) == 6 and all(r["backend"] == "mpi" and r["nodes"] == 2 and r["wrong"] == 0 and r["checked"] for r in res), res
print("two hosts: 2 nodes, local ranks 0,1 on each; mpi 6 results correct; shm-oneshot skipped (ranks span 2 nodes)")
PY
# --per-node over the same two hosts (mpirun -npernode 2): each host measures alone, shm-oneshot included.
J="$TMP/pernode.jsonl"
pernode() {
  ip netns exec "$N1" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$H1" \
    timeout 240 "${mpi[@]}" -npernode 2 "$ARBENCH" run --per-node --backend mpi,shm-oneshot --counts 7,65537 -d int32 \
    -n 5 -w 1 -T 60 -J "$J"
}
expect_status 0 pernode
# stdout: every node's header line, the first node's tables only (one per backend)
expect_eq "per-node header lines" 2 "$(grep -c '^# arbench .*: per node: arbhost[12], node [12] of 2, 2 ranks, run ' "$TMP/out")"
expect_eq "per-node tables" "1 1" "$(grep -c '^# backend mpi, int32, 2 ranks' "$TMP/out") $(grep -c '^# backend shm-oneshot, int32, 2 ranks' "$TMP/out")"
"$PY" - "$J" "$H1" "$H2" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
hosts = sorted(sys.argv[2:])
runs = [r for r in recs if r["type"] == "run"]
assert sorted(r["host"] for r in runs) == hosts and all(r["nodes"] == 1 and r["ranks"] == 2 for r in runs), runs
assert len({r["per_node"]["job"] for r in runs}) == 1 and sorted(r["per_node"]["node"] for r in runs) == [0, 1], runs
res = [r for r in recs if r["type"] == "result"]
for h in hosts:  # every host: both backends, both counts, its own 2 ranks, correct
    mine = sorted((r["backend"], r["count"]) for r in res if r["host"] == h)
    assert mine == [("mpi", 7), ("mpi", 65537), ("shm-oneshot", 7), ("shm-oneshot", 65537)], (h, mine)
assert all(r["ranks"] == 2 and r["nodes"] == 1 and r["wrong"] == 0 and r["checked"] for r in res), res
assert not [r for r in recs if r["type"] == "skip"], "nothing skipped per node"
print("per node: each host measured mpi and shm-oneshot on its own 2 ranks, records carry the host")
PY
echo "two_hosts: ok"
