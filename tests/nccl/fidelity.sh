#!/usr/bin/env bash
# fidelity.sh — where the NCCL stand-in fails as NCCL 2.28.9 does (issue 48; docs/nccl-standin.md): captured
# allreduces keep ncclCommFinalize waiting until their graphs are destroyed (src/init.cc commDestroySync), so
# `run -G` must destroy every graph before the communicator goes; symm=1 windows take NCCL's symmetric branch when
# every pair has CUDA P2P (cuMem memory, collective) and the local branch when a pair lacks it.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
need_standin 2

# -G: graphs on every size, then teardown within -T (a graph left alive holds Finalize until the watchdog's exit)
expect_status 0 ar_mpirun 2 run --backend nccl --sizes 8,64K -d float -G 4 -n 8 -w 2 -c 1 -T 20 -J "$TMP/g.jsonl"
! grep -q "waits for" "$TMP/err" || { cat "$TMP/err"; fail "NCCL teardown waited for live graphs"; }
"$PY" - "$TMP/g.jsonl" <<'PY' || fail "graph records"
import json, sys
res = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "result"]
assert len(res) == 2 and all(r["graph"] == 4 and r["wrong"] == 0 for r in res), res
print("ok: -G 4 on nccl, 2 sizes, teardown clean")
PY

# symm=1 and reg=1 on both branches: every pair P2P (symmetric windows), and a pair without (local registration)
for topo in "" "0-1"; do
  expect_status 0 env ARBENCH_STANDIN_NO_P2P="$topo" mpirun -q --oversubscribe -x ARBENCH_STANDIN_NO_P2P -np 2 \
    "$ARBENCH" run --backend 'nccl:symm=1;nccl:reg=1' --sizes 8,512K -d float -n 3 -w 1 -c 1 -T 30 -J "$TMP/s$topo.jsonl"
  "$PY" - "$TMP/s$topo.jsonl" <<'PY' || fail "symm/reg records (no P2P: '$topo')"
import json, sys
res = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "result"]
assert len(res) == 4 and all(r["wrong"] == 0 for r in res), res
PY
done
echo "ok: symm=1 windows on the symmetric and the local branch"

# NCCL's conf file (read once per process at NCCL's first environment read): every variant runs under it, not only
# the first one (arbench applies it before saving the environment, as NCCL would apply it)
printf '# site settings\nNCCL_ALGO=Tree\nNCCL_MIN_CTAS=4\n' >"$TMP/nccl.conf"
expect_status 0 env NCCL_CONF_FILE="$TMP/nccl.conf" mpirun -q --oversubscribe -x NCCL_CONF_FILE -np 2 "$ARBENCH" run \
  --backend 'nccl;nccl:proto=Simple;nccl:ctas=2' --sizes 512K -d float -n 2 -w 1 -c 1 -T 30 -J "$TMP/c.jsonl"
"$PY" - "$TMP/c.jsonl" <<'PY' || fail "variants under a conf file"
import json, sys
res = {r["variant"]: r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "result"}
got = {v: (r["nccl_algo"], r["nccl_proto"], r["nccl_channels"]) for v, r in res.items()}
assert got == {"": ("TREE", "SIMPLE", 4), "proto=Simple": ("TREE", "SIMPLE", 4), "ctas=2": ("TREE", "SIMPLE", 2)}, got
print("ok: the conf file's NCCL_ALGO and NCCL_MIN_CTAS rule every variant; ctas=2 still overrides its minimum")
PY
