#!/usr/bin/env bash
# watchdog.sh — `arbench links -T` (bench/links/watch.c): a rank stopped (SIGSTOP, ARBENCH_INJECT_STALL) in the
# middle of the probe, in its start-up or its teardown ends the job by -T's watchdog (exit 1), with one line
# naming the phase, -T and the stopped rank; no process is left behind; -T 0 and bad values are refused as run's.
source "$(dirname "$0")/../lib/common.sh"
T=5
SMALL=(-b 4K -e 4K -n 2 -w 1 --repeat 1 --lat-iters 3 -q)
case_() { # case_ WHERE LINE : LINE is the whole expected watchdog line of a live rank (rank N), pids as PID
  local where=$1 want=$2 rc=0 tag="$TMP/links-stall-$1.jsonl" t0
  t0=$(date +%s%N)
  ARBENCH_INJECT_STALL=1:$where timeout -k 5 60 mpirun -x ARBENCH_INJECT_STALL -q --oversubscribe -np 3 \
    "$ARBENCH" links "${SMALL[@]}" -T $T -J "$tag" >"$TMP/out" 2>"$TMP/err" || rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  # At finalize the live ranks leave before PMIx_Finalize; the launcher (PRRTE) then sometimes segfaults in its
  # PMIx event loop (openpmix/prrte#1065; seen once in CI under load): the launcher's crash, not arbench's, and
  # the job still ended; everything below is checked as for exit 1.
  [ "$rc" = 1 ] || { [ "$where" = finalize ] && [ "$rc" = 139 ] && grep -q "libpmix" "$TMP/err"; } ||
    { cat "$TMP/err"; fail "$where: exit $rc, expected 1 from the watchdog (124: it hung)"; }
  grep -qxF "arbench: rank 1: ARBENCH_INJECT_STALL: stopping at $where" "$TMP/err" || { cat "$TMP/err"; fail "$where: not planted"; }
  local got
  got=$(grep -F ": timeout:" "$TMP/err" | sed -E 's/pid [0-9]+/pid PID/; s/^arbench: rank [02]: /arbench: rank N: /')
  grep -qxF -- "$want" <<<"$got" || { cat "$TMP/err"; fail "$where: watchdog line
  got:  $got
  want: $want"; }
  # Ended by the watchdog (its line, with -T's bound; exit 1, not the hang bound's 124): how long start-up and
  # teardown took on a loaded box is said, not asserted (issue 50 item 12).
  ar_procs_gone 30 "$tag" || fail "$where: processes left behind"
  echo "$where: ended in $ms ms: $want"
}
STOPPED="rank 1 (pid PID) is stopped"
# In the probe: rank 1 stops after the smoke test; the others wait for it in the first measurement's barrier.
# At MPI_Finalize every live rank ends itself (no MPI_Abort there): one of them names the stopped rank.
case_ probe "arbench: rank N: timeout: links: read uni pairs instance 0, 4096 B made no progress for 5 s (-T 5); $STOPPED; aborting"
case_ topology "arbench: rank N: timeout: start-up: topology and binding made no progress for 5 s (-T 5); $STOPPED; aborting"
case_ finalize "arbench: rank N: timeout: teardown: MPI_Finalize made no progress for 5 s (-T 5); $STOPPED; ending the job"
# -T's value: as run's (a number from 0, 0 = off), one line and exit 2 before anything runs.
expect_one_line_error "bad -T 'soon' (allowed: a number from 0 to 1e+06)" ar_mpirun 2 links -T soon
expect_one_line_error "bad ARBENCH_INJECT_STALL point 'nowhere'" \
  env ARBENCH_INJECT_STALL=1:nowhere mpirun -q --oversubscribe -x ARBENCH_INJECT_STALL -np 2 "$ARBENCH" links
expect_status 0 ar_mpirun 2 links "${SMALL[@]}" -T 0
grep -q -- "-T, --timeout SECS" <("$ARBENCH" links --help) || fail "links --help does not list -T"
echo ok
