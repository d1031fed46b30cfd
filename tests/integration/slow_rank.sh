#!/usr/bin/env bash
# slow_rank.sh — one slow rank (ARBENCH_INJECT_DELAY=R:MS sleeps MS after its call in even timed
# iterations): every iteration's time is the max over ranks; a stalled rank trips -T (the watchdog's line and status).
source "$(dirname "$0")/../lib/common.sh"
# Max over ranks: in even iterations rank 1's own time holds the whole sleep, so the max is >= D there, exactly (the
# sleep is inside rank 1's timing; load can only add to it), where the min over ranks or rank 0's time would be the
# call time. (The odd iterations, where the others wait for rank 1 in the collective, are MPI's doing and a matter of
# scheduling on a loaded box: not asserted, issue 50 item 12.)
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
    assert r["time_us"]["max"] >= d_us, r["time_us"]
print("max over ranks: ok", [[round(x) for x in r["samples_us"]] for r in res])
PY
# The watchdog: rank 1 stalls for 60 s in each even timed iteration (two of them: 120 s); -T 10 must end the run (status
# 1, one rank naming the phase and -T's bound) where the sleeps alone would end it only after timeout's 120 s (124).
# How long it took is start-up and teardown on a loaded box too: said, not asserted (issue 50 item 12).
T=10
t1=$(date +%s.%N)
expect_status 1 timeout 120 env ARBENCH_INJECT_DELAY=1:60000 mpirun -q --oversubscribe -x ARBENCH_INJECT_DELAY -np 2 \
  "$ARBENCH" run --backend mpi --counts 7 -n 4 -w 0 -T $T
echo "stalled run ended by the watchdog after $(echo "$(date +%s.%N) - $t1" | bc) s (-T $T)"
grep -Eq "^arbench: rank [01]: timeout: backend mpi float size 28 \(out-of-place\) timing made no progress for $T s \(-T $T\); [^;]+; aborting$" \
  "$TMP/err" || { cat "$TMP/err"; fail "no timeout line naming backend, size and phase"; }
echo "slow_rank: ok"
