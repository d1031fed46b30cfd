#!/usr/bin/env bash
# collconfig.sh — how the nccl backend forces algo=/proto=, per NCCL version, on the NCCL stand-in: at 2.28.9
# NCCL_ALGO/NCCL_PROTO around the variant's communicator init (record nccl.forced.via "env"); at 2.31.2 per call through
# ncclAllReduceConfig's ncclCollConfig_t.algSelection, looked up at run time, with neither variable at init (the
# user's ones the variant overrides unset; via "collconfig", the selection recorded). Both ways run the same
# algorithm/protocol per size; a selection the machine cannot run (NVLS) is NCCL 2.31's error, a skip.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
np=2
need_standin "$np"
for ver in 2.28.9 2.31.2; do
  mkdir -p "$TMP/logs-$ver"
  env ARBENCH_STANDIN_NCCL_VERSION=$ver ARBENCH_NCCL_LOGDIR="$TMP/logs-$ver" NCCL_ALGO=Tree NCCL_PROTO=Simple \
    mpirun -q --oversubscribe -np "$np" "$ARBENCH" run --backend 'nccl;nccl:algo=Ring,proto=LL;nccl:algo=Tree' \
    --sizes 8,512K -d float -n 3 -w 1 -c 1 -J "$TMP/r-$ver.jsonl" >"$TMP/out" 2>"$TMP/err" \
    || { cat "$TMP/err"; fail "run at $ver exited $?"; }
done
"$PY" - "$TMP" <<'PY' || fail "records"
import glob, json, os, re, sys
tmp = sys.argv[1]
def recs(ver):
    return {(r["variant"], r["size"]): r for r in map(json.loads, open(os.path.join(tmp, "r-%s.jsonl" % ver)))
            if r["type"] == "result"}
old, new = recs("2.28.9"), recs("2.31.2")
assert len(old) == len(new) == 6, (len(old), len(new))
base = {"ctas": 0, "reg": False, "symm": False}
forced = {
    "2.28.9": {"": dict(base, algo=None, proto=None, via=None),
               "algo=Ring,proto=LL": dict(base, algo="Ring", proto="LL", via="env"),
               "algo=Tree": dict(base, algo="Tree", proto=None, via="env")},
    "2.31.2": {"": dict(base, algo=None, proto=None, via=None),
               "algo=Ring,proto=LL": dict(base, algo="Ring", proto="LL", via="collconfig",
                                          selection="RING_LL+^RING_LL128"),
               "algo=Tree": dict(base, algo="Tree", proto=None, via="collconfig",
                                 selection="TREE_LL+^TREE_LL128,TREE_LL128,TREE_SIMPLE")}}
ran = {"": ("TREE", "SIMPLE"), "algo=Ring,proto=LL": ("RING", "LL"), "algo=Tree": ("TREE", "SIMPLE")}
for ver, rs in (("2.28.9", old), ("2.31.2", new)):
    for (variant, size), r in rs.items():
        assert r["nccl"]["version"] == ver and r["wrong"] == 0 and r["checked"], r
        assert r["nccl"]["forced"] == forced[ver][variant], (ver, variant, r["nccl"]["forced"])
        assert (r["nccl_algo"], r["nccl_proto"]) == ran[variant], (ver, variant, size, r["nccl_algo"], r["nccl_proto"])
# What each rank-0 communicator saw at init, and NCCL's own line for the per-call pick.
for ver, want in (("2.28.9", [("Tree", "Simple"), ("Ring", "LL"), ("Tree", "Simple")]),
                  ("2.31.2", [("Tree", "Simple"), (None, None), (None, "Simple")])):
    logs = sorted(glob.glob(os.path.join(tmp, "logs-" + ver, "arbench-nccl-*-r0-*.log")),
                  key=lambda p: int(p.rsplit("-", 1)[1][:-4]))
    assert len(logs) == 3, logs
    for path, (algo, proto) in zip(logs, want):
        text = open(path).read()
        env = dict(re.findall(r"(\w+)(?:=| )(\S+)", re.findall(r"environment at init: (.*)", text)[0]))
        got = tuple(None if env.get(k) == "unset" else env.get(k) for k in ("NCCL_ALGO", "NCCL_PROTO"))
        assert got == (algo, proto), (ver, path, got, env)
    picked = [len(re.findall(r"algSelection: (\w+) picked within the selected set", open(p).read())) for p in logs]
    assert picked == ([0, 0, 0] if ver == "2.28.9" else [0, 2, 2]), (ver, picked)
print("ok: 2.28.9 forces through the environment, 2.31.2 per call; the same algorithm/protocol ran")
PY
# What this machine cannot run, per call: NCCL 2.31's own error at the call (NVLS needs NVSwitch), a skip naming it.
expect_status 3 env ARBENCH_STANDIN_NCCL_VERSION=2.31.2 mpirun -q --oversubscribe -np "$np" "$ARBENCH" run \
  --backend 'nccl:algo=NVLS' --sizes 512K -d float -n 3 -c 1 -J "$TMP/nvls.jsonl"
"$PY" - "$TMP/nvls.jsonl" <<'PY' || fail "algo=NVLS skip"
import json, sys
recs = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] in ("skip", "result")]
assert len(recs) == 1 and recs[0]["type"] == "skip", recs
why = recs[0]["reason"]
assert "ncclAllReduceConfig of 524288 bytes (float) cannot run the forced algorithm/protocol here: invalid argument" \
       in why, why
assert "algSelection: no algorithm in the selected set is available for AllReduce" in why, why
print("ok: algo=NVLS per call refused with NCCL 2.31's error")
PY
echo "collconfig: ok"
