#!/usr/bin/env bash
# kernel_report.sh — the per-stack kernel compile report: kernel-report.py reads ptxas logs exactly
# (fixtures: registers, spills, a failed arch), and this build's report has every kernel on every arch
# of cuda-archs with integer registers/spills, shown by `arbench version` and carried by run records.
source "$(dirname "$0")/../lib/common.sh"
R=$ARBENCH_SRC/scripts/kernel-report.py
"$PY" "$R" nvrtc --archs 90,100,120 --out "$TMP/r.json" "$(dirname "$0")"/fixtures/*.log || fail "kernel-report.py failed"
"$PY" - "$TMP/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["compiler"] == "nvrtc 12.8" and r["archs"] == ["sm_90", "sm_100", "sm_120"], r
got = [(e["source"], e["kernel"], e["arch"], e["compiled"], e.get("registers"), e.get("spill_stores"),
        e.get("spill_loads"), e.get("stack_bytes")) for e in r["kernels"]]
assert got == [
    ("ar_fill.cu", None, "sm_100", False, None, None, None, None),
    ("ar_fill.cu", "ar_fill_kernel", "sm_90", True, 26, 0, 0, 0),
    ("ar_p2p.cu", "ar_p2p::p2p_kernel<0>", "sm_120", True, 62, 0, 0, 1024),
    ("ar_p2p.cu", "ar_p2p::p2p_kernel<1>", "sm_120", True, 64, 12, 24, 1040)], got
assert r["kernels"][0]["error"].startswith("NVRTC_ERROR_INVALID_OPTION; nvrtc: error: invalid value"), r["kernels"][0]
PY
[ $? = 0 ] || fail "kernel-report.py misread the fixture logs"
# Registers against the largest block arbench launches each kernel with (standin/cudart/registers.tsv, whose
# nvcc 13.0.88 sm_120 rows the CUDA stand-in's launch checks): the fixtures' 62 and 64 fit 1024 threads; one more
# register does not (65 x 1024 > 65536: cudaErrorLaunchOutOfResources on a GPU).
TABLE=$ARBENCH_SRC/standin/cudart/registers.tsv
"$PY" "$R" registers-check "$TMP/r.json" "$TABLE" >"$TMP/rc.out" || { cat "$TMP/rc.out"; fail "registers-check refused the fixtures"; }
grep -qx "nvrtc 12.8: 3 kernel x arch entries fit their largest launch; 0 compared exactly with $TABLE" "$TMP/rc.out" \
  || { cat "$TMP/rc.out"; fail "registers-check's summary of the fixtures"; }
sed 's/"registers": 64/"registers": 65/' "$TMP/r.json" >"$TMP/r65.json"
"$PY" "$R" registers-check "$TMP/r65.json" "$TABLE" >"$TMP/rc.out" && { cat "$TMP/rc.out"; fail "65 registers x 1024 threads passed"; }
grep -qx "registers: nvrtc 12.8 sm_120 ar_p2p::p2p_kernel<1>: 65 registers fit 896 threads a block, arbench launches up to 1024" "$TMP/rc.out" \
  || { cat "$TMP/rc.out"; fail "registers-check did not name the kernel that no longer fits"; }
report=$(dirname "$ARBENCH")/kernels/kernels-report.json
[ -f "$report" ] || fail "no $report in this build"
"$ARBENCH" version >"$TMP/v" || fail "arbench version failed"
if "$PY" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["compiler"] is not None)' "$report"; then
  echo "skipped: this build compiled no kernels ($(grep '^kernel build' "$TMP/v"))"; exit 77
fi
symm=1; "$ARBENCH" list --wide | grep -E '^symm .*not compiled in' >/dev/null && symm=0 # symm: nvcc and NCCL >= 2.28 headers only
"$PY" - "$report" "$symm" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = {"ar_fill_kernel", "ar_check_kernel"} | {"ar_p2p::p2p_kernel<%d>" % d for d in range(4)}
want |= {"ar_p2p::fused_kernel<0>", "ar_p2p::fused_kernel<1>"}
want |= {"ar_links_copy_kernel", "ar_links_pingpong_kernel", "ar_links_hold_kernel"}  # bench/links/links_cuda.cu
if sys.argv[2] == "1":
    want |= {"ar_symm::symm_kernel<%d>" % d for d in range(4)}
assert r["archs"], r
for arch in r["archs"]:
    es = [e for e in r["kernels"] if e["arch"] == arch]
    bad = [e for e in es if not e["compiled"]]
    assert not bad, "%s does not compile for %s: %s" % (r["compiler"], arch, bad)
    assert {e["kernel"] for e in es} == want and len(es) == len(want), (arch, es)
    for e in es:
        for k in ("registers", "spill_stores", "spill_loads", "stack_bytes"):
            assert type(e[k]) is int and e[k] >= 0, (k, e)
        assert 0 < e["registers"] <= 255, e
print("%s: %d kernels x %d archs" % (r["compiler"], len(want), len(r["archs"])))
PY
[ $? = 0 ] || fail "the build's kernel report is incomplete"
# This build's counts: every kernel fits its largest launch on every arch, and the table's rows of this compiler and
# arch (the stand-in's) are this build's exactly.
"$PY" "$R" registers-check "$report" "$TABLE" || fail "this build's registers disagree with $TABLE (see above)"
comp=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["compiler"])' "$report")
# `version` fits a screen: one summary line; `version --kernels` has the table (issue 24).
grep -q "^kernel build $comp, [0-9]* kernel x arch entries, [0-9]* spilling, [0-9]* failed (arbench version --kernels)$" "$TMP/v" \
  || { cat "$TMP/v"; fail "version does not summarise the kernel build"; }
[ "$(wc -l <"$TMP/v")" -le 12 ] || { cat "$TMP/v"; fail "version is $(wc -l <"$TMP/v") lines, not a screen"; }
! grep -q "p2p_kernel" "$TMP/v" || { cat "$TMP/v"; fail "plain version still prints the kernel table"; }
"$ARBENCH" version --kernels >"$TMP/vk" || fail "arbench version --kernels failed"
"$PY" - "$report" "$TMP/vk" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
i = next(k for k, l in enumerate(lines) if l.startswith("  kernel "))
head = lines[i]
archs = head.split()[1:]
assert archs == list(dict.fromkeys(e["arch"] for e in r["kernels"])), (archs, head)
rows = lines[i + 1:i + 1 + len({e["kernel"] for e in r["kernels"]})]
# aligned: every row as long as the header, every arch column right-aligned under its name
assert all(len(l) == len(head) for l in rows), "\n".join([head] + rows)
ends = [head.index(a) + len(a) for a in archs]
for e in r["kernels"]:
    row = next(l for l in rows if l.split()[0] == e["kernel"])
    c = archs.index(e["arch"])
    start = (ends[c - 1] if c else len(row.split()[0]) + 2)
    cell = row[start:ends[c]].strip()
    want = str(e["registers"]) if e["compiled"] else "error"
    if e["compiled"] and (e["spill_stores"] or e["spill_loads"]):
        want += " +s%d/%d" % (e["spill_stores"], e["spill_loads"])
    assert cell == want, (e, cell, row)
print("version --kernels: %d rows x %d archs aligned" % (len(rows), len(archs)))
PY
[ $? = 0 ] || { cat "$TMP/vk"; fail "version --kernels table does not match the kernel report"; }
ar_mpirun 1 run --backend mpi -b 8 -e 8 -n 2 -J "$TMP/run.jsonl" >/dev/null || fail "run failed"
"$PY" - "$TMP/run.jsonl" "$report" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
kb = [r["stack"]["kernel_build"] for r in recs if isinstance(r.get("stack"), dict)]
assert kb and kb[0] == json.load(open(sys.argv[2])), "the run record does not carry the kernel report"
PY
[ $? = 0 ] || fail "run record without the kernel report"
echo "stacks-kernel_report: ok"
