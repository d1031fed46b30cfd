#!/usr/bin/env bash
# variants.sh NP — the nccl backend end to end on NP CPU ranks over the NCCL stand-in (-Dcuda-emu=true): default
# NCCL and two forced variants, every size checked bit-exact (0 wrong), each record's nccl_algo/nccl_proto read
# from NCCL's own tuning lines equal to what the variant forced, the run marked as the stand-in's.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
np=${1:?usage: variants.sh NP}
need_standin "$np"
dtypes=float,bf16
[ "$np" = 2 ] || dtypes=float # 4 and 8 ranks share 2 cores in CI: one dtype there (ops.sh has them all)
ar_mpirun "$np" run --backend 'nccl;nccl:algo=Ring,proto=LL;nccl:algo=Tree,proto=Simple' --sizes 8,64K,512K \
  -d "$dtypes" -n 3 -w 1 -c 1 -J "$TMP/r.jsonl" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "run exited $?"; }
"$PY" - "$TMP/r.jsonl" "$np" "$dtypes" <<'PY' || fail "records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
np = int(sys.argv[2])
run = [r for r in recs if r["type"] == "run"][0]
assert run["stack"]["standin"]["nccl"] == "nccl-standin (mimics 2.28.9)", run["stack"]
res = [r for r in recs if r["type"] == "result"]
want = {"": None, "algo=Ring,proto=LL": ("RING", "LL"), "algo=Tree,proto=Simple": ("TREE", "SIMPLE")}
assert len(res) == 3 * 3 * len(sys.argv[3].split(",")), (len(res), [r["type"] for r in recs])
for r in res:
    got = (r.get("nccl_algo"), r.get("nccl_proto"))
    assert r["checked"] and r["wrong"] == 0 and r["ranks"] == np, r
    assert r["nccl"]["version"] == "2.28.9", r["nccl"]
    if want[r["variant"]]:
        assert got == want[r["variant"]], (r["variant"], r["size"], got)
    else:  # NCCL's own choice on the stand-in's PCIe model: LL for small messages, Simple for large
        assert got == (("RING", "LL") if r["size"] <= 65536 else ("RING", "SIMPLE")), (r["size"], got)
    assert 1 <= r["nccl_channels"] <= r["nccl"]["coll_channels"], r
    assert r["nccl_transport"] == "P2P" and r["nccl"]["path"] == "PIX", r["nccl"]
print("ok: %d records, 0 wrong, forced variants ran what they forced" % len(res))
PY
[ "$np" = 2 ] || { echo "variants: ok ($np ranks)"; exit 0; }
# Two ranks also: registered buffers (ncclMemAlloc + ncclCommRegister / ncclCommWindowRegister) and ctas= (ncclConfig_t).
ar_mpirun "$np" run --backend 'nccl:reg=1;nccl:symm=1;nccl:ctas=4' --sizes 8,512K -d float --inplace both -n 3 -w 1 -c 1 \
  -J "$TMP/reg.jsonl" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "reg/symm/ctas run exited $?"; }
"$PY" - "$TMP/reg.jsonl" <<'PY' || fail "reg/symm/ctas records"
import json, sys
res = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "result"]
assert len(res) == 3 * 2 * 2, len(res)
for r in res:
    f = r["nccl"]["forced"]
    assert r["wrong"] == 0 and r["checked"], r
    assert (f["reg"], f["symm"], f["ctas"]) == {"reg=1": (True, False, 0), "symm=1": (False, True, 0),
                                                "ctas=4": (False, False, 4)}[r["variant"]], f
    assert r["nccl"]["coll_channels"] == (4 if r["variant"] == "ctas=4" else 2), r["nccl"]
    if r["variant"] == "symm=1":  # 2.28.9 on an all-P2P node: NCCL's symmetric kernels (versions.sh: per release)
        assert r["nccl"]["symmetric"]["ran"] is True and r["nccl_algo"] == "SYMMETRIC", r["nccl"]
        assert r["nccl"]["kernel"] == ("AllReduce_AGxLL_R" if r["size"] == 8 else "AllReduce_RSxLD_AGxST"), r["nccl"]
print("ok: reg=1, symm=1, ctas=4: %d records, 0 wrong" % len(res))
PY
# What this machine cannot run, forced: NCCL's own error at the call (NVLS needs NVSwitch), a skip naming it.
expect_status 3 ar_mpirun "$np" run --backend 'nccl:algo=NVLS' --sizes 512K -d float -n 3 -c 1 -J "$TMP/nvls.jsonl"
"$PY" - "$TMP/nvls.jsonl" <<'PY' || fail "algo=NVLS skip"
import json, sys
recs = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] in ("skip", "result")]
assert len(recs) == 1 and recs[0]["type"] == "skip", recs
assert "cannot run the forced algorithm/protocol here: invalid usage" in recs[0]["reason"], recs[0]
assert "Error : no algorithm/protocol available for function AllReduce with datatype ncclFloat32. NCCL_ALGO was set to " \
       "NVLS." in recs[0]["reason"], recs[0]
print("ok: algo=NVLS refused with NCCL's error")
PY
echo "variants: ok ($np ranks)"
