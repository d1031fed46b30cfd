#!/usr/bin/env bash
# standin_peer.sh — peer access per pair on the CUDA stand-in (issue 48; docs/emu.md "peer topology"): a pair that
# ACS breaks answers cudaDeviceCanAccessPeer 1 but loses its P2P traffic, so doctor's smoke test must enable peer
# access (copies are otherwise staged through the host and arrive) and report the pair; a pair without P2P is
# skipped, saying so; p2p-* skip such a pair with a record. Elsewhere: skipped.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
need_standin
export ARBENCH_STANDIN_GPUS=4 ARBENCH_STANDIN_ACS=0-1 ARBENCH_STANDIN_NO_P2P=2-3
"$ARBENCH" doctor >"$TMP/doc" 2>&1 && fail "doctor exited 0 with a pair failing its smoke test" || true
grep '^\[.*\] smoke:' "$TMP/doc" | sed 's/ ([0-9.]* s timeout)//' >"$TMP/smoke"
cat >"$TMP/want" <<'W'
[FAIL] smoke: CUDA 0 <-> 1: 1024 of 1024 words came back wrong
[ok  ] smoke: CUDA 0 <-> 2: 4096 bytes there and back, checked
[ok  ] smoke: CUDA 0 <-> 3: 4096 bytes there and back, checked
[ok  ] smoke: CUDA 1 <-> 2: 4096 bytes there and back, checked
[ok  ] smoke: CUDA 1 <-> 3: 4096 bytes there and back, checked
[skip] smoke: CUDA 2 <-> 3: not run: no P2P access between them (cudaDeviceCanAccessPeer: 0, 0)
W
diff "$TMP/want" "$TMP/smoke" || { cat "$TMP/doc"; fail "doctor's smoke test on the ACS/no-P2P topology"; }
echo "ok: the ACS-broken pair fails the smoke test, the pair without P2P is skipped"
# p2p-oneshot on ranks whose GPUs have no P2P: a skip record naming the pair, exit 3 (everything skipped)
expect_status 3 mpirun -q --oversubscribe -x ARBENCH_STANDIN_NO_P2P -x ARBENCH_STANDIN_GPUS -np 2 "$ARBENCH" run \
  --backend p2p-oneshot --devices 2,3 --sizes 8 -n 2 -T 20 -J "$TMP/p.jsonl"
grep -q '"reason":"no P2P between rank 0 (GPU FFFF:03:00.0) and rank 1 (GPU FFFF:04:00.0)"' "$TMP/p.jsonl" \
  || { cat "$TMP/p.jsonl" "$TMP/err"; fail "no skip record for the pair without P2P"; }
echo "ok: p2p-oneshot skips the pair without P2P"
# p2p-oneshot on the ACS-broken pair: cudaDeviceCanAccessPeer says 1 and the IPC mapping is made, but the kernel's first
# load or store through it faults (cudaErrorIllegalAddress, sticky: driver_types.h:763-775): every rank's checked call
# fails, the error record names the GPU's error, the run ends without waiting for -T
expect_status 1 mpirun -q --oversubscribe -x ARBENCH_STANDIN_ACS -x ARBENCH_STANDIN_GPUS -np 2 "$ARBENCH" run \
  --backend p2p-oneshot --devices 0,1 --sizes 4K -n 2 -T 60 -J "$TMP/acs.jsonl"
"$PY" - "$TMP/acs.jsonl" <<'PY' || { cat "$TMP/err"; fail "the kernel across the ACS pair: no error record naming the GPU's error"; }
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
got = [(r["type"], r.get("message")) for r in recs if r["type"] in ("result", "error", "skip")]
want = "checked call 0 failed: runtime error (the GPU reports cudaErrorIllegalAddress: an illegal memory access was encountered)"
assert got == [("error", want)], got
PY
for r in 0 1; do
  grep -q "^arbench cuda stand-in: rank $r: kernel ar_p2p::p2p_kernel<0> loaded or stored through peer memory its device cannot reach" \
    "$TMP/err" || { cat "$TMP/err"; fail "rank $r's kernel did not fault on the ACS pair"; }
done
echo "ok: p2p-oneshot's kernel across the ACS pair faults (cudaErrorIllegalAddress), the record says so"
M=ce-read,sm-read
sm_kernels || M=ce-read # no SM copy kernels without nvcc
# links on the same pair: copies through the IPC mapping are lost as the P2P path's are, so its smoke test skips the
# pair (both directions) before any timed copy or kernel uses it
expect_status 1 mpirun -q --oversubscribe -x ARBENCH_STANDIN_ACS -x ARBENCH_STANDIN_GPUS -np 2 "$ARBENCH" links \
  --devices 0,1 --method "$M" -T 60 -J "$TMP/links.jsonl"
for p in "0->1 (ffff:01:00.0 -> ffff:02:00.0)" "1->0 (ffff:02:00.0 -> ffff:01:00.0)"; do
  grep -qF "arbench links: GPU pair $p: the data arrived corrupted in the P2P smoke test" "$TMP/err" \
    || { cat "$TMP/err"; fail "links did not fail the ACS pair $p in its smoke test"; }
done
[ "$(grep -c '"type":"skip"' "$TMP/links.jsonl")" = 2 ] && ! grep -q '"type":"link"' "$TMP/links.jsonl" \
  || { cat "$TMP/links.jsonl"; fail "links measured the ACS pair"; }
echo "ok: links' smoke test skips the ACS pair (copies through the IPC mapping lost)"
