#!/bin/bash
# sweep_failures.sh — a launch that hangs past --point-timeout, one that crashes (SIGSEGV) and one that
# fails (exit 3) are each recorded (error record with status, exit status/signal and stderr tail, plus
# a point record) and the sweep goes on to the end, exit 1; the hung process tree (mpirun, its ranks,
# and a stray process in its own session) is gone. --resume then has nothing to do; --retry-failed
# would rerun exactly the three failed points.
source "$(dirname "$0")/lib.sh"
J="$TMP/f.jsonl"
args=(--np 2 --env SWEEP_TEST_MODE=ok,hang,crash,fail --launcher "$HERE/launcher.sh" --point-timeout 15 -J "$J")
run=(-- --backend mpi -b 8 -e 1K -n 5 -w 1)
expect_status 1 "$ARBENCH" sweep "${args[@]}" "${run[@]}"
got=$($CHECK statuses "$J" | tr '\n' ';')
want='{"SWEEP_TEST_MODE": "ok", "np": 2} done;{"SWEEP_TEST_MODE": "hang", "np": 2} timeout;{"SWEEP_TEST_MODE": "crash", "np": 2} crashed;{"SWEEP_TEST_MODE": "fail", "np": 2} failed;'
[ "$got" = "$want" ] || fail "statuses: $got"
$PY - "$J" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
errs = {r["point"]["SWEEP_TEST_MODE"]: r for r in recs if r["type"] == "error"}
assert sorted(errs) == ["crash", "fail", "hang"], errs.keys()
assert errs["hang"]["status"] == "timeout" and "timed out after 15 s" in errs["hang"]["message"], errs["hang"]
assert "hanging on purpose" in errs["hang"]["stderr_tail"], errs["hang"]
assert errs["crash"]["status"] == "crashed" and errs["crash"]["signal"] == 11, errs["crash"]
assert "crashing on purpose" in errs["crash"]["stderr_tail"], errs["crash"]
assert errs["fail"]["status"] == "failed" and errs["fail"]["exit_status"] == 3, errs["fail"]
assert errs["fail"]["stderr_tail"] == "launcher: failing on purpose\n", errs["fail"]
hang = [r for r in recs if r["type"] == "point" and r["status"] == "timeout"][0]
assert hang["elapsed_s"] >= 15, hang
PY
[ "$(count 'timed out after 15 s' "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "progress does not report the timeout"; }
wait_for 10 no_procs "sleep 617"
wait_for 10 no_procs "sleep 619"
$CHECK done "$J" 1 mpi=8
sum=$(md5sum <"$J")
expect_status 0 "$ARBENCH" sweep "${args[@]}" --resume "${run[@]}"
grep -qF "nothing to do" "$TMP/err" || { cat "$TMP/err"; fail "--resume should have nothing to do"; }
[ "$(md5sum <"$J")" = "$sum" ] || fail "--resume with nothing to do changed the file"
expect_status 0 "$ARBENCH" sweep "${args[@]}" --retry-failed --dry-run "${run[@]}"
[ "$(wc -l <"$TMP/out")" = 3 ] && ! grep -qF '"ok"' "$TMP/out" || { cat "$TMP/out"; fail "--retry-failed should rerun the 3 failed points"; }
echo "ok: failures recorded"
