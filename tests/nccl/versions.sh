#!/usr/bin/env bash
# versions.sh — the NCCL stand-in at each modelled release (ARBENCH_STANDIN_NCCL_VERSION) against the rule that
# release's source has, end to end through the nccl backend's records (docs/nccl-standin.md, "Per release"):
# symmetric kernels on a PCIe node (2.28.9: NCCL's kernel model picks one; 2.29.2 and later: none, NVLink only),
# the algorithm NCCL ran where a forced one was asked, the tuner ABI each release's loader finds first (v5 to
# 2.29.x, v6 from 2.30.3), the variables 2.30.7 stopped reading (read and said by 2.30.4, ignored and recorded by
# 2.30.7), and CTAs asked above NCCL's cap (clamped, recorded). Two ranks.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
np=2
need_standin "$np"
vrun() { # vrun VERSION NAME [mpirun -x NAME...] -- run args...
  local v=$1 name=$2; shift 2
  local xs=(-x ARBENCH_STANDIN_NCCL_VERSION)
  while [ "$1" != -- ]; do xs+=(-x "$1"); shift; done
  shift
  ARBENCH_STANDIN_NCCL_VERSION=$v mpirun -q --oversubscribe "${xs[@]}" -np "$np" "$ARBENCH" run "$@" -d float -n 2 \
    -w 1 -c 1 -T 60 -J "$TMP/$name.jsonl" >"$TMP/$name.out" 2>"$TMP/$name.err" ||
    { cat "$TMP/$name.err"; fail "$name (NCCL $v) exited $?"; }
}

# 1. symm=1 on the stand-in's PCIe node (every pair P2P: symmetricSupport): 2.28.9 runs NCCL's symmetric kernels,
# the one its model picks, also where NCCL_ALGO=Tree was asked (the record says NCCL fell back from it); a max is
# no symmetric kernel (sum only). 2.29.2 and 2.31.2: regular kernels, the forced Tree runs, the note says why.
for v in 2.28.9 2.29.2 2.31.2; do
  vrun "$v" "symm$v" -- --backend 'nccl:symm=1;nccl:symm=1,algo=Tree' --sizes 8,64K,512K
  vrun "$v" "symmax$v" -- --backend 'nccl:symm=1' --sizes 8 --op max
done
"$PY" - "$TMP" <<'PY' || fail "symmetric kernels per release"
import json, sys
def res(name):
    return [r for r in map(json.loads, open("%s/%s.jsonl" % (sys.argv[1], name))) if r["type"] == "result"]
# 2.28.9: ncclSymkPickKernel's model (src/sym_kernels.cc at v2.28.9-1, Blackwell constants, 2 ranks): the kernel and
# its blocks per size
want = {8: ("AllReduce_AGxLL_R", 1), 65536: ("AllReduce_AGxLL_R", 10), 524288: ("AllReduce_RSxLD_AGxST", 6)}
rs = res("symm2.28.9")
assert len(rs) == 6, len(rs)
for r in rs:
    n = r["nccl"]
    assert r["wrong"] == 0 and n["version"] == "2.28.9", r
    assert n["symmetric"] == {"ran": True, "note": "NCCL's symmetric kernel ran"}, n
    assert (r["nccl_algo"], n["kernel"], n["channels"]) == ("SYMMETRIC",) + want[r["size"]], (r["size"], n)
    if r["variant"] == "symm=1,algo=Tree":
        f = n["fallback"]
        assert (f["asked_algo"], f["ran_algo"]) == ("Tree", "SYMMETRIC"), f
        assert f["note"].startswith("NCCL ran its symmetric kernel, not the NCCL_ALGO=Tree asked"), f
    else:
        assert "fallback" not in n, n
for r in res("symmax2.28.9"):
    assert r["nccl"]["symmetric"]["ran"] is False and r["nccl_algo"] == "RING", r["nccl"]
    assert "a sum of a floating type" in r["nccl"]["symmetric"]["note"], r["nccl"]
for v in ("2.28.9", "2.29.2", "2.31.2"):  # the run record names the release the stand-in modelled
    run = [r for r in map(json.loads, open("%s/symm%s.jsonl" % (sys.argv[1], v))) if r["type"] == "run"][0]
    assert run["stack"]["standin"]["nccl"] == "nccl-standin (mimics %s)" % v, run["stack"]
    assert run["stack"]["nccl_loaded"] == v, run["stack"]
for v in ("2.29.2", "2.31.2"):
    rs = res("symm" + v) + res("symmax" + v)
    assert len(rs) == 7, len(rs)
    for r in rs:
        n = r["nccl"]
        assert r["wrong"] == 0 and n["version"] == v and "kernel" not in n and "fallback" not in n, n
        assert n["symmetric"]["ran"] is False, n
        assert n["symmetric"]["note"].startswith("NCCL ran its regular kernels: NCCL >= 2.29.2 runs symmetric kernels "
                                                 "only when every GPU pair is NVLink-connected (path PIX here)"), n
        assert r["nccl_algo"] == ("TREE" if "algo=Tree" in r["variant"] else "RING"), (r["variant"], r["nccl_algo"])
print("ok: symm=1 runs NCCL's symmetric kernels on 2.28.9 only (2.29.2 and 2.31.2: regular ones, said why)")
PY

# 2. The tuner plugin: 2.29.7's loader finds ncclTunerPlugin_v5 first, 2.30.3's ncclTunerPlugin_v6 (the plugin
# exports both); NCCL runs the decisions either way.
"$PY" "$(dirname "$0")/measured.py" "$TMP/measured.jsonl" "$np" $(for k in 0 1 2 3 4 5 6 7 8; do echo $((4096 << k)); done)
expect_status 0 "$ARBENCH" tune "$TMP/measured.jsonl" -o "$TMP/d"
for v in 2.29.7 2.30.3; do
  vrun "$v" "tuner$v" -- --backend "nccl:tuner=$TMP/d/tuner.json" --sizes 4K,512K
done
"$PY" - "$TMP" <<'PY' || fail "tuner ABI per release"
import json, sys
for v, abi in (("2.29.7", "v5"), ("2.30.3", "v6")):
    rs = [r for r in map(json.loads, open("%s/tuner%s.jsonl" % (sys.argv[1], v))) if r["type"] == "result"]
    assert len(rs) == 2, len(rs)
    for r in rs:
        t = r["nccl_tuner"]
        assert t["ran"] is True and t["abi"] == abi and t["match"] == "exact", (v, t)
        assert (r["nccl_algo"], r["nccl_proto"]) == ("RING", "LL" if r["size"] == 4096 else "SIMPLE"), (v, r["size"])
print("ok: the tuner ABI found first: v5 on 2.29.7, v6 on 2.30.3")
PY

# 3. The variables 2.30.7 stopped reading, on a pair without P2P (NCCL's SHM transport): 2.30.4 reads and says
# them, records nothing ignored; 2.30.7 reads none of them, and every record names them as ignored.
export ARBENCH_STANDIN_NO_P2P=0-1 NCCL_SHM_USE_CUDA_MEMCPY=1 NCCL_CREATE_THREAD_CONTEXT=0
for v in 2.30.4 2.30.7; do
  mkdir -p "$TMP/log$v"
  ARBENCH_NCCL_LOGDIR=$TMP/log$v vrun "$v" "gone$v" ARBENCH_STANDIN_NO_P2P NCCL_SHM_USE_CUDA_MEMCPY \
    NCCL_CREATE_THREAD_CONTEXT ARBENCH_NCCL_LOGDIR -- --backend nccl --sizes 8
done
unset ARBENCH_STANDIN_NO_P2P NCCL_SHM_USE_CUDA_MEMCPY NCCL_CREATE_THREAD_CONTEXT
expect_eq "2.30.4 reads NCCL_SHM_USE_CUDA_MEMCPY (both ranks)" 2 \
  "$(cat "$TMP"/log2.30.4/*.log | grep -c 'NCCL INFO NCCL_SHM_USE_CUDA_MEMCPY set by environment to 1\.$')"
expect_eq "2.30.4 reads NCCL_CREATE_THREAD_CONTEXT (both ranks)" 2 \
  "$(cat "$TMP"/log2.30.4/*.log | grep -c 'NCCL INFO NCCL_CREATE_THREAD_CONTEXT set by environment to 0\.$')"
expect_eq "2.30.7 reads neither" 0 "$(cat "$TMP"/log2.30.7/*.log | grep -c -E 'SHM_USE_CUDA_MEMCPY|THREAD_CONTEXT')"
"$PY" - "$TMP" <<'PY' || fail "ignored variables per release"
import json, sys
def res(v):
    return [r for r in map(json.loads, open("%s/gone%s.jsonl" % (sys.argv[1], v))) if r["type"] == "result"]
assert len(res("2.30.4")) == 1 and all("ignored_env" not in r["nccl"] for r in res("2.30.4")), res("2.30.4")
for r in res("2.30.7"):
    got = {e["name"]: e["why"] for e in r["nccl"]["ignored_env"]}
    assert got == {
        "NCCL_SHM_USE_CUDA_MEMCPY": "NCCL_SHM_USE_CUDA_MEMCPY=1: NCCL 2.30.7 does not read NCCL_SHM_USE_CUDA_MEMCPY: "
                                    "removed in 2.30.7 (last read by 2.30.4), it does nothing",
        "NCCL_CREATE_THREAD_CONTEXT": "NCCL_CREATE_THREAD_CONTEXT=0: NCCL 2.30.7 does not read "
                                      "NCCL_CREATE_THREAD_CONTEXT: removed in 2.30.7 (last read by 2.30.4), it does "
                                      "nothing"}, got
print("ok: 2.30.7's removed variables: read by 2.30.4, recorded as ignored by 2.30.7")
PY

# 4. CTAs: the user's NCCL_MIN_CTAS=100 (NCCL caps it at 64: src/init.cc) is recorded as clamped with what ran;
# ctas=4 ran as asked.
NCCL_MIN_CTAS=100 vrun 2.30.7 ctas NCCL_MIN_CTAS -- --backend 'nccl;nccl:ctas=4' --sizes 8
"$PY" - "$TMP/ctas.jsonl" <<'PY' || fail "ctas records"
import json, sys
rs = {r["variant"]: r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "result"}
c = rs[""]["nccl"]["ctas"]
assert (c["asked_min"], c["asked_max"], c["ran"], c["status"]) == (100, None, 64, "clamped"), c
assert c["note"].startswith("NCCL ran 64 channels where at least 100 were asked: it clamped the request"), c
c = rs["ctas=4"]["nccl"]["ctas"]
assert (c["asked_min"], c["asked_max"], c["ran"], c["status"]) == (4, 4, 4, "as asked"), c
print("ok: ctas above NCCL's cap recorded as clamped with what ran")
PY
echo "versions: ok"
