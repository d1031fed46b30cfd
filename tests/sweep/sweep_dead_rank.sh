#!/bin/bash
# sweep_dead_rank.sh — a sweep whose second point loses rank 1 (SIGKILL) and whose third has it stopped
# (SIGSTOP, ended by the run's -T watchdog) records both points as failed with the message naming the
# rank in their stderr tails, finishes the other points, keeps the file valid, and exits 1.
source "$(dirname "$0")/lib.sh"
J="${KEEP_J:-$TMP/d.jsonl}"
args=(--np 3 --env DEAD_RANK_SIGNAL=before,KILL,STOP,after --launcher "$HERE/dead_launcher.sh" --point-timeout 120 -J "$J")
run=(-- --backend mpi -b 8 -e 1K -n 200 -w 1 -T 15) # the launcher slows rank 0 so each size lasts ~2 s
expect_status 1 "$ARBENCH" sweep "${args[@]}" "${run[@]}"
got=$($CHECK statuses "$J" | sed 's/{"DEAD_RANK_SIGNAL": "\([A-Za-z]*\)", "np": 3}/\1/' | tr '\n' ';')
# mpirun ends with 128+9 when a rank was killed: the sweep calls that "crashed".
[ "$got" = "before done;KILL crashed;STOP failed;after done;" ] || fail "statuses: $got"
$PY - "$J" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
errs = {r["point"]["DEAD_RANK_SIGNAL"]: r for r in recs if r["type"] == "error" and "stderr_tail" in r}
assert sorted(errs) == ["KILL", "STOP"], sorted(errs)
assert "rank 1 " in errs["KILL"]["stderr_tail"] and "signal 9" in errs["KILL"]["stderr_tail"], errs["KILL"]
assert "rank 1 (pid " in errs["STOP"]["stderr_tail"] and "is stopped; aborting" in errs["STOP"]["stderr_tail"], errs["STOP"]
done = [r for r in recs if r["type"] == "result" and r["point"]["DEAD_RANK_SIGNAL"] in ("before", "after")]
assert len(done) == 2 * 8, len(done)  # 2 points x 8 sizes
PY
echo "sweep_dead_rank: ok"
