#!/bin/bash
# writer.sh — the results writer keeps a file whole: a dead writer's torn tail is cut once, a live
# writer's half-written line never is; a disk that fills and frees loses nothing; one that stays full
# ends the writer with one line naming the file and record; `-J /dev/full` says so once, measures nothing.
source "$(dirname "$0")/lib.sh"
F=$TMP/r.jsonl
# 1. A torn tail left by a writer that died: the next writer cuts it (one warning) and appends.
printf '{"type":"append","writer":"dead","seq":0,"pad":"xx' >"$F"
expect_status 0 "$APPENDER" "$F" 0 3 100
[ "$(grep -c 'dropping a torn last line (.* bytes)' "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "torn tail not reported once"; }
$CHECK_FILE "$F" --writers 1:3 >/dev/null || fail "file not whole after the repair"
# 2. A live writer pauses in the middle of each record (half written): writers starting meanwhile
#    must neither cut its half line (as a torn tail) nor write into it.
rm -f "$F"
"$APPENDER" "$F" 0 8 30000 slow 2>"$TMP/slow.err" & slow=$!
pids=()
for i in $(seq 1 12); do
  sleep 0.1
  "$APPENDER" "$F" "$i" 2 5000 2>>"$TMP/others.err" & pids+=($!)
done
wait "$slow" || fail "slow writer failed: $(cat "$TMP/slow.err")"
for p in "${pids[@]}"; do wait "$p" || fail "a writer failed: $(cat "$TMP/others.err")"; done
! grep -q "torn" "$TMP/others.err" || { cat "$TMP/others.err"; fail "a writer took a live writer's line for a torn one"; }
$CHECK_FILE "$F" --writers 13:0 >/dev/null 2>&1 || true
"$PY" - "$F" <<'PY' || fail "records of the live-writer case lost or torn"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
seen = sorted((r["writer"], r["seq"]) for r in recs)
want = sorted([("0", s) for s in range(8)] + [(str(w), s) for w in range(1, 13) for s in range(2)])
assert seen == want, (len(seen), len(want))
PY
# 3. A disk that fills and frees: three tries write half a record and fail (ENOSPC); the half is
#    undone each time and the record goes out whole on the fourth.
rm -f "$F"
expect_status 0 "$APPENDER" "$F" 0 2 20000
expect_status 0 "$APPENDER" "$F" 1 2 20000 full:3
$CHECK_FILE "$F" --writers 2:2 >/dev/null || fail "file not whole after a transient ENOSPC"
# 4. A disk that stays full: one line naming the file and the record, exit 1, earlier records kept whole.
expect_status 1 "$APPENDER" "$F" 2 3 20000 full:-1
[ "$(grep -c . "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "expected one error line"; }
grep -qF "cannot write results file '$F': No space left on device (retried for" "$TMP/err" || { cat "$TMP/err"; fail "message"; }
grep -qF "record 1 (append) not written" "$TMP/err" || { cat "$TMP/err"; fail "message does not name the record"; }
$CHECK_FILE "$F" --writers 2:2 >/dev/null || fail "file not whole after a permanent ENOSPC"
# 5. -J /dev/full: one line, exit 1, nothing measured (the run record is the first that fails).
expect_status 1 ar_mpirun 2 run --backend mpi -b 8 -e 1K -n 3 -w 1 -J /dev/full
[ "$(grep -c "cannot write results file '/dev/full'" "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "/dev/full not said once"; }
grep -qF "record 1 (run) not written" "$TMP/err" || { cat "$TMP/err"; fail "/dev/full message does not name the run record"; }
! grep -Eq '^ +[0-9]+ ' "$TMP/out" || { cat "$TMP/out"; fail "measured with nowhere to save"; }
echo "writer: ok"
