#!/usr/bin/env bash
# standin_timing_loop.sh — `run --timing loop` in the -Dcuda-emu=true build (the CUDA stand-in, issue 37): the
# heartbeat moves as units end on the GPU, not as they are queued (bench/device/platform_cuda.c), so a peer that
# never launches (ARBENCH_P2P_STALL) is named by the kernel's own timeout (0.9 x -T), not by the watchdog after
# a long queue. Elsewhere: skipped.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
need_standin
export ARBENCH_STANDIN_GPUS=2
expect_status 1 timeout 120 env ARBENCH_P2P_STALL=1 mpirun -q --oversubscribe -x ARBENCH_P2P_STALL -x ARBENCH_STANDIN_GPUS \
  -np 2 "$ARBENCH" run --backend p2p-oneshot --sizes 4K -d float -n 2000 -w 1 -c 0 --timing loop -T 8
grep -q "timeout after 7.2 s" "$TMP/err" && grep -q "waiting for rank 1" "$TMP/err" \
  || { cat "$TMP/err"; fail "the kernel's own timeout did not name rank 1"; }
# The kernel's timeout comes first. The watchdog may still fire after it, while rank 0 ends the run: at 0.9 x -T the
# rank has 0.8 s left, which a loaded host can take (a .ci/run beside another did), so only the order is the mechanism.
k=$(grep -n -m1 "timeout after 7.2 s" "$TMP/err" | cut -d: -f1)
w=$(grep -n -m1 "made no progress for" "$TMP/err" | cut -d: -f1 || true)
[ -z "$w" ] || [ "$w" -gt "$k" ] || { cat "$TMP/err"; fail "the watchdog fired before the kernel's timeout"; }
# and a healthy loop still times: one sample per repeat, 0 wrong
expect_status 0 ar_mpirun 2 run --backend p2p-oneshot --sizes 4K,64K -d float -n 200 -w 5 --timing loop -T 60 -J "$TMP/l.jsonl"
$PY - "$TMP/l.jsonl" <<'PY'
import json, sys
res = [json.loads(l) for l in open(sys.argv[1])]
res = [r for r in res if r["type"] == "result"]
assert len(res) == 2 and all(r["timing"] == "loop" and r["samples_n"] == 1 and r["wrong"] == 0 for r in res), res
PY
# a healthy queue longer than -T (40000 units of about 0.2 ms, 8 s or more, -T 4) is no stall: the heartbeat moves as
# units end, so the final wait for the last unit never goes -T without progress (moved at queue time, it trips the
# watchdog). -T 4 and 8 above, not 2 and 4: every healthy start-up phase must also end within -T on a loaded box
# (issue 50 item 12); a loaded box only lengthens the queue, so the planted bug still trips it.
expect_status 0 ar_mpirun 2 run --backend p2p-oneshot --sizes 4K -d float -n 40000 -w 5 --timing loop -T 4
echo ok
