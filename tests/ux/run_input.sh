#!/usr/bin/env bash
# run_input.sh — bad input to `arbench run` started outside mpirun (issue 42, item 11): exactly one line (the
# error, never the launch note before it), exit 2, nothing on stdout; the same when --np N relaunches (checked
# before mpirun starts). -T below 1 s (0 = off) is refused in one line. Good input still gets the note.
source "$(dirname "$0")/../lib/common.sh"
ar_counting
R=(env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -u OMPI_COMM_WORLD_SIZE "$ARBENCH" run -b 8 -e 8 -n 1 -w 0)
mkdir "$TMP/dir"
printf 'not xml\n' >"$TMP/bad.xml"
nogpu=0; "$ARBENCH" list --wide | qgrep -q '^GPUs visible: 0' && nogpu=1
cases=( # name | needle | options
  "unknown backend|unknown backend 'nosuch'|--backend nosuch"
  "unknown variant|unknown variant 'shm-oneshot:foo=1'|--backend shm-oneshot:foo=1"
  "bad variant value|shm-oneshot:chunk=|--backend shm-oneshot:chunk=x"
  "variant of a backend without variants|mpi:algo=1|--backend mpi:algo=1"
  "--point not JSON|bad --point 'notjson'|--backend mpi --point notjson"
  "--point an array|bad --point '[1]'|--backend mpi --point [1]"
  "--xml missing|/nonexistent/box.xml|--backend mpi --xml /nonexistent/box.xml"
  "--xml not XML|$TMP/bad.xml|--backend mpi --xml $TMP/bad.xml"
  "--devices on host backends|--devices: every chosen backend runs on the host|--backend mpi --devices 0,1"
  "--shared-gpu on host backends|--shared-gpu: every chosen backend runs on the host|--backend shm-oneshot --shared-gpu"
  "-J in a missing directory|cannot open results file '$TMP/none/r.jsonl'|--backend mpi -J $TMP/none/r.jsonl"
  "-J a directory|'$TMP/dir': it is a directory|--backend mpi -J $TMP/dir"
  "-G on host backends only|-G 1 captures CUDA graphs|--backend mpi -G 1"
  "-T far below 1 s|bad value '1e-300' for -T (expected 0 = off, or seconds from 1 to 1000000)|--backend mpi -T 1e-300"
  "-T half a second|bad value '0.5' for -T|--backend mpi -T 0.5"
  "-T negative|bad value '-1' for -T|--backend mpi -T -1"
)
[ "$nogpu" = 1 ] && cases+=("--devices with the default backends|--devices: every chosen backend runs on the host|--devices 0")
for c in "${cases[@]}"; do
  IFS='|' read -r name needle opts <<<"$c"
  read -r -a o <<<"$opts"
  check_bad "$name" "$needle" "${R[@]}" "${o[@]}"
  check_bad "$name, --np 2 (checked before the relaunch)" "$needle" "${R[@]}" --np 2 "${o[@]}"
done
[ -e "$TMP/none" ] && check_fail "a refused -J created its directory"
# Good input: -T 1 and -T 0 run; without a GPU the one-rank note comes once, after the checks passed.
"${R[@]}" --backend mpi -T 1 --quiet >"$TMP/out" 2>"$TMP/err"
check_eq "-T 1: exit 0" 0 $?
"${R[@]}" --backend mpi -T 0 --quiet >"$TMP/out" 2>"$TMP/err"
check_eq "-T 0 (off): exit 0" 0 $?
if [ "$nogpu" = 1 ]; then
  check_eq "the note, once" 1 "$(grep -c '^arbench: not started by mpirun and no GPU here: running 1 rank' "$TMP/err")"
  check_eq "nothing else on stderr" 1 "$(wc -l <"$TMP/err")"
fi
finish
