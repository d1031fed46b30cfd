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
# --smoke-timeout bounds a healthy smoke-test copy and each ping-pong flag wait; the stand-in's "GPU" is threads of
# this host, which a loaded host slows as it slows the ranks: the bound is a hang bound, scaled as meson's timeouts
# are (scripts/timeout-multiplier.sh; issue 50 item 12)
ST=${ARBENCH_TIMEOUT_MULTIPLIER:-1}
M=ce-read,ce-write,sm-read,sm-write
sm_kernels || M=ce-read,ce-write # no SM kernels in this build (no nvcc; p2p-* may still be NVRTC's)

# -w 0: the destinations (pure receivers under ce-write/sm-write) check right after the sources' held copies
expect_status 0 ar_mpirun 4 links --method "$M" -b 4K -e 64K -f 16 -n 3 -w 0 --repeat 2 --pattern pairs,to-one,all \
  --lat-iters 5 --smoke-timeout $((5 * ST)) -J "$TMP/w0.jsonl" -q
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

# A hold that ends before its release (a host slower to queue and meet than the hold waits: load, not the GPU) is
# measured again, then, still unheld after 3 tries, not measured: an error record and a line, the probe going on
# (issue 50 item 12). ARBENCH_INJECT_UNHELD=1:N: rank 1's first N held tries end unheld. With ce-write on 2 ranks
# rank 1 holds once per try for 1->0's bandwidth, then once per try of each small copy 1->0.
unheld() { # unheld N WANT_STATUS: the run, its records in $TMP/unheld-N.jsonl
  expect_status "$2" env ARBENCH_INJECT_UNHELD=1:$1 mpirun -q --oversubscribe -x ARBENCH_INJECT_UNHELD \
    -x ARBENCH_STANDIN_GPUS=2 -np 2 "$ARBENCH" links --method ce-write --direction uni --pattern pairs -b 64K -e 64K \
    -n 3 -w 0 --repeat 1 --lat-iters 3 -J "$TMP/unheld-$1.jsonl" -q
  ! grep -q "failed on a GPU" "$TMP/err" || { cat "$TMP/err"; fail "an unheld try called a GPU failure"; }
}
BW='ce-write uni pairs 1->0, 65536 bytes' LAT='small ce-write copies 1->0 (4 bytes)'
unheld 1 0 # bandwidth: try 1 unheld, try 2 measured
[ "$(grep -c "^arbench links: $BW: try 1 of 3 ended unheld (its hold waited up to 10 s; .*): measuring it again with a 20 s hold$" "$TMP/err")" = 1 ] &&
  [ "$(grep -c 'ended unheld' "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "not one retry line for 1->0's bandwidth"; }
unheld 4 1 # bandwidth: 3 tries unheld, not measured; then the first small copy: unheld once, measured
for n in 1 2; do
  grep -q "^arbench links: $BW: try $n of 3 ended unheld" "$TMP/err" || { cat "$TMP/err"; fail "retry $n of 1->0"; }
done
grep -q "^arbench links: $LAT: 1 held copy ended unheld (the host took up to .* s to queue one and release it, longer than its hold: a loaded host) and was measured again with a longer hold$" "$TMP/err" \
  || { cat "$TMP/err"; fail "the small copy's retry line"; }
grep -q "^arbench links: $BW: not measured: its copies could not be held in 3 tries (the last hold waited up to 40 s .*not a GPU fault" "$TMP/err" \
  && grep -qxF "arbench links: 1 measurement not made: its copies could not be held (a loaded host; error records name it)" "$TMP/err" \
  || { cat "$TMP/err"; fail "the unheld lines"; }
unheld 6 1 # and the small copies 1->0 too: 3 tries of the first
grep -q "^arbench links: $LAT: not measured: its copies could not be held in 3 tries" "$TMP/err" \
  && grep -qxF "arbench links: 2 measurements not made: their copies could not be held (a loaded host; error records name them)" "$TMP/err" \
  || { cat "$TMP/err"; fail "the small copies' unheld lines"; }
$PY - "$TMP" <<'PY'
import json, sys
def recs(n):
    return [json.loads(l) for l in open("%s/unheld-%d.jsonl" % (sys.argv[1], n))]
def got(rs):
    return sorted((r["direction"], r["src"], r["dst"]) for r in rs if r["type"] == "link" and r["method"] == "ce-write"
                  and ((r.get("gbs") or 0) > 0 or (r.get("us") or 0) > 0) and r["wrong"] == 0)
def errors(rs):
    return sorted((r["direction"], r["flows"], r["bytes"], r["unheld"]) for r in rs if r["type"] == "error")
everything = [("latency", 0, 1), ("latency", 1, 0), ("uni", 0, 1), ("uni", 1, 0)]
one, four, six = recs(1), recs(4), recs(6)
assert got(one) == everything and not errors(one), (got(one), errors(one))
assert all(r["timing"].startswith("held: ") for r in one if r["type"] == "link" and r["direction"] == "uni"), one
assert got(four) == [("latency", 0, 1), ("latency", 1, 0), ("uni", 0, 1)], got(four)
assert errors(four) == [("uni", [[1, 0]], 65536, True)], errors(four)
assert got(six) == [("latency", 0, 1), ("uni", 0, 1)], got(six)
assert errors(six) == [("latency", [[1, 0]], 4, True), ("uni", [[1, 0]], 65536, True)], errors(six)
msg = [r["message"] for r in six if r["type"] == "error"]
assert all("not measured: its copies could not be held in 3 tries" in m for m in msg), msg
print("unheld: retried, then error records; the probe went on")
PY

# rank 1's GPU never completes queued work: its first staging copy passes its 10 s bound, the GPU is stuck, its
# pairs skipped with one line naming it (no ACS/IOMMU line: no link was to blame), 0<->2 and 0<->3 measured
t0=$SECONDS
expect_status 1 timeout 120 env ARBENCH_EMU_HANG=1 mpirun -q --oversubscribe -x ARBENCH_EMU_HANG -x ARBENCH_STANDIN_GPUS \
  -np 4 "$ARBENCH" links --method ce-read,ce-write -b 4K -e 4K -n 2 -w 0 --repeat 1 --lat-iters 3 --smoke-timeout $((1 * ST)) \
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
