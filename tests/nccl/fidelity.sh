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
