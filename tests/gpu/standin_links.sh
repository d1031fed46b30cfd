#!/usr/bin/env bash
# standin_links.sh — `arbench links` on GPUs in the -Dcuda-emu=true build (the CUDA stand-in, issue 37), where its
# GPU host code runs on CPU ranks: ce-write and sm-write with -w 0 check what arrived only after the sources'
# copies ended (no corruption reported that did not happen, issue 39 item 2); the timed copies are held
# (records say so); a GPU whose work never completes (ARBENCH_EMU_HANG) is marked stuck, its pairs skipped with
# one line naming the rank, the rest measured, the probe ended within its bound (item 1). Elsewhere: skipped.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
need_standin
export ARBENCH_STANDIN_GPUS=4
M=ce-read,ce-write,sm-read,sm-write
sm_kernels || M=ce-read,ce-write # no SM kernels in this build (no nvcc; p2p-* may still be NVRTC's)

# -w 0: the destinations (pure receivers under ce-write/sm-write) check right after the sources' held copies
expect_status 0 ar_mpirun 4 links --method "$M" -b 4K -e 64K -f 16 -n 3 -w 0 --repeat 2 --pattern pairs,to-one,all \
  --lat-iters 5 --smoke-timeout 5 -J "$TMP/w0.jsonl" -q
$PY - "$TMP/w0.jsonl" "$M" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
links = [r for r in recs if r["type"] == "link"]
assert not [r for r in recs if r["type"] == "skip"], "a pair skipped"
for m in sys.argv[2].split(","):
    bw = [r for r in links if r["method"] == m and r["direction"] in ("uni", "bi")]
    assert bw and all(r["wrong"] == 0 for r in bw), (m, [r for r in bw if r["wrong"]])
    assert all(r["gbs"] > 0 and r["timing"].startswith("held: ") for r in bw), bw[0]
lat = [r for r in links if r["direction"] == "latency"]
assert lat and all(r["us"] > 0 and r["timing"].startswith("each copy alone") for r in lat), lat
print("w0: %d link records, 0 wrong" % len(links))
PY

# rank 1's GPU never completes queued work: its first staging copy passes its 10 s bound, the GPU is stuck, its
# pairs skipped with one line naming it (no ACS/IOMMU line: no link was to blame), 0<->2 and 0<->3 measured
t0=$SECONDS
expect_status 1 timeout 120 env ARBENCH_EMU_HANG=1 mpirun -q --oversubscribe -x ARBENCH_EMU_HANG -x ARBENCH_STANDIN_GPUS \
  -np 4 "$ARBENCH" links --method ce-read,ce-write -b 4K -e 4K -n 2 -w 0 --repeat 1 --lat-iters 3 --smoke-timeout 1 \
  -T 60 -J "$TMP/hang.jsonl" -q
took=$((SECONDS - t0))
# Ended by the GPU's own bound (10 s of staging: the line below), not by -T 60's watchdog (no timeout line) nor the hang
# bound (124): how long it took is start-up on a loaded box too, said, not asserted (issue 50 item 12).
! grep -q "made no progress" "$TMP/err" || { cat "$TMP/err"; fail "a hung GPU ended by the watchdog, not its own bound"; }
[ "$(grep -c 'GPU of rank 1 (' "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "not one line naming rank 1"; }
grep -q "GPU of rank 1 (.*): work queued on it did not end within its bound .*its 6 untested pairs skipped" "$TMP/err" \
  || { cat "$TMP/err"; fail "the stuck line"; }
! grep -q "PCIe ACS" "$TMP/err" || { cat "$TMP/err"; fail "an ACS/IOMMU line for a GPU that hung"; }
grep -qxF "arbench links: 6 pairs skipped: 0 failed the smoke test, 6 of a stuck GPU not tested" "$TMP/err" \
  || { cat "$TMP/err"; fail "the summary line"; }
$PY - "$TMP/hang.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
skips = sorted((r["src"], r["dst"], r["smoke"]) for r in recs if r["type"] == "skip")
assert skips == [(0, 1, "stuck"), (1, 0, "stuck"), (1, 2, "stuck"), (1, 3, "stuck"), (2, 1, "stuck"), (3, 1, "stuck")], skips
links = [r for r in recs if r["type"] == "link"]
assert links and all(1 not in (r["src"], r["dst"]) and r["wrong"] == 0 for r in links), links
alone = {(r["src"], r["dst"]) for r in links if r["pattern"] == "pairs" and r["direction"] == "uni"}
assert alone == {(0, 2), (2, 0), (0, 3), (3, 0), (2, 3), (3, 2)}, alone
PY
echo "ok: hung GPU ended in $took s"
