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
