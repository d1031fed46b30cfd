#!/usr/bin/env bash
# launch.sh — `arbench run` outside mpirun (issue 24): --np N relaunches under mpirun with N ranks and prints
# the command, as root with Open MPI's root variables it adds itself; without a GPU and without --np it runs
# one rank after one line on how to run N CPU ranks; --no-launch runs one rank, silently.
source "$(dirname "$0")/../lib/common.sh"
RUN=(env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM "$ARBENCH" run --backend mpi -b 8 -e 64 -f 8 -n 2 -w 0)
ranks() { "$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["ranks"])' "$1"; }
expect_status 0 "${RUN[@]}" --np 2 -J "$TMP/np2.jsonl"
line=$(head -1 "$TMP/err")
exe=$(readlink -f "$ARBENCH")
root=""; [ "$(id -u)" = 0 ] && root="OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
want="arbench: not started by mpirun: running 2 ranks: ${root}mpirun -q -np 2 $exe run --backend mpi -b 8 -e 64 -f 8 -n 2 -w 0 -J $TMP/np2.jsonl   (--no-launch: one rank here)"
[ "$line" = "$want" ] || { cat "$TMP/err"; fail "relaunch line: got '$line', want '$want'"; }
[ "$(ranks "$TMP/np2.jsonl")" = 2 ] || fail "the relaunch did not run 2 ranks"
[ "$(grep -c '"type": *"result"' "$TMP/np2.jsonl")" = 2 ] || { cat "$TMP/np2.jsonl"; fail "expected 2 results (8, 64 B)"; }
expect_status 0 "${RUN[@]}" --no-launch --np 2 -J "$TMP/one.jsonl"
[ "$(ranks "$TMP/one.jsonl")" = 1 ] || fail "--no-launch did not run one rank"
! grep -q "mpirun" "$TMP/err" || { cat "$TMP/err"; fail "--no-launch still talks about mpirun"; }
# Under mpirun nothing changes: one line of output per rank count, no relaunch.
expect_status 0 ar_mpirun 2 run --backend mpi -b 8 -e 8 -n 2 -w 0 -J "$TMP/m.jsonl"
! grep -q "not started by mpirun" "$TMP/err" || fail "relaunch message under mpirun"
if "$ARBENCH" list --wide | qgrep -q '^GPUs visible: 0'; then
  expect_status 0 "${RUN[@]}" -J "$TMP/hint.jsonl"
  grep -q "^arbench: not started by mpirun and no GPU here: running 1 rank (busbw is 0 on one rank); for [2-8] CPU ranks on the host backends: arbench run --np [2-8] " "$TMP/err" \
    || { cat "$TMP/err"; fail "no hint for CPU ranks"; }
  [ "$(ranks "$TMP/hint.jsonl")" = 1 ] || fail "the hinted run is not one rank"
fi
# Errors of a relaunch are arbench's one line, never Open MPI's banner (issue 50 item 3): what can be
# checked before launching is (--format nccl-tests of two configurations: no relaunch line, nothing run);
# what fails inside the ranks (a fill that fails: ARBENCH_INJECT_FILL_FAIL) ends with the rank's line.
expect_one_line_error "--format nccl-tests writes one configuration per log, and this run has 2 (2 backends x 1 dtype)" \
  "$ARBENCH" run --np 2 --backend mpi,shm-oneshot --format nccl-tests -b 8 -e 64 -n 2 -w 1
[ ! -s "$TMP/out" ] || { cat "$TMP/out"; fail "--format nccl-tests: launched before the check"; }
expect_status 1 env ARBENCH_INJECT_FILL_FAIL=1:64 "${RUN[@]}" --np 2 -J "$TMP/fill.jsonl"
! grep -qiE "primary job|mpirun detected|^-----" "$TMP/err" || { cat "$TMP/err"; fail "Open MPI's banner after a failure in the ranks"; }
expect_eq "a failure inside the ranks: the relaunch line, then one error line" 2 "$(grep -c . "$TMP/err")"
grep -q "^arbench: error: mpi: " "$TMP/err" || { cat "$TMP/err"; fail "no error line from the rank"; }
grep -qx "# Nothing measured: 1 failure (see the error on stderr)" "$TMP/out" \
  || qgrep -q "^ *8 " "$TMP/out" || { cat "$TMP/out"; fail "stdout does not say the failure"; }
echo "launch: ok"
