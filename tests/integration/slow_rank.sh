#!/usr/bin/env bash
# slow_rank.sh — one slow rank (ARBENCH_INJECT_DELAY=R:MS sleeps MS after its call in even timed
# iterations): every iteration's time is the max over ranks; a stalled rank trips -T within T + margin.
source "$(dirname "$0")/../lib/common.sh"
# Max over ranks: in even iterations rank 1's own time holds the whole sleep, in odd ones the others
# wait for it. The max is >= D in even iterations (exactly, the sleep is inside rank 1's timing) and
# well above the call time in all; the min over ranks would be the call time everywhere.
D=150
J=$TMP/slow.jsonl
expect_status 0 env ARBENCH_INJECT_DELAY=1:$D mpirun -q --oversubscribe -x ARBENCH_INJECT_DELAY -np 3 "$ARBENCH" \
  run --backend mpi,shm-oneshot --counts 7 -n 6 -w 2 -J "$J"
"$PY" - "$J" "$D" <<'PY' || fail "max over ranks"
import json, sys
d_us = float(sys.argv[2]) * 1e3
res = [json.loads(l) for l in open(sys.argv[1]) if '"result"' in l]
assert [r["backend"] for r in res] == ["mpi", "shm-oneshot"], [r["backend"] for r in res]
for r in res:
    s = r["samples_us"]
    assert len(s) == 6, s
    assert all(x >= d_us for x in s[0::2]), ("even iterations below the sleep", r["backend"], s)
    assert all(x >= d_us / 2 for x in s[1::2]), ("odd iterations do not wait for the slow rank", r["backend"], s)
    assert r["time_us"]["min"] >= d_us / 2 and r["time_us"]["p50"] >= d_us / 2, r["time_us"]
print("max over ranks: ok", [round(min(r["samples_us"])) for r in res])
PY
# The watchdog: rank 1 stalls for 60 s inside the timed loop; -T 5 must end the run (status 1, one
# rank naming the phase) before the stall itself would have ended.
T=5
t0=$(date +%s.%N)
expect_status 0 mpirun -q --oversubscribe -np 2 "$ARBENCH" run --backend mpi --counts 7 -n 4 -w 0 -T $T
t1=$(date +%s.%N)
expect_status 1 timeout 120 env ARBENCH_INJECT_DELAY=1:60000 mpirun -q --oversubscribe -x ARBENCH_INJECT_DELAY -np 2 \
  "$ARBENCH" run --backend mpi --counts 7 -n 4 -w 0 -T $T
t2=$(date +%s.%N)
"$PY" - "$t0" "$t1" "$t2" "$T" <<'PY' || fail "the stalled run did not end within -T plus margin"
import sys
t0, t1, t2, T = map(float, sys.argv[1:])
base, stalled = t1 - t0, t2 - t1
# The watchdog, not the sleep, ended it: before the first 60 s sleep could. No bound tighter than the
# stall itself: a loaded box or a sanitizer build stretches start-up and tear-down, not the mechanism.
limit = 60.0
print("run without stall %.1f s, stalled run %.1f s, limit %.1f s (the stall)" % (base, stalled, limit))
assert stalled < limit
PY
grep -Eq "^arbench: rank [01]: timeout: backend mpi float size 28 \(out-of-place\) timing made no progress for $T s \(-T $T\); [^;]+; aborting$" \
  "$TMP/err" || { cat "$TMP/err"; fail "no timeout line naming backend, size and phase"; }
echo "slow_rank: ok"
