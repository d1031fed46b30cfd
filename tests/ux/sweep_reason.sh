#!/usr/bin/env bash
# sweep_reason.sh — a failed sweep point says why (issue 42, item 3): the progress line, the error record's
# message and `table` carry the launch's own reason (Open MPI's "not enough slots" with the fix; arbench's
# error line), not only "failed: exit status 1".
source "$(dirname "$0")/../lib/common.sh"
ar_counting
unset OMPI_MCA_rmaps_base_oversubscribe # the sweep must meet Open MPI's slot limit
big=$(( $(nproc) + 1 ))
J="$TMP/s.jsonl"
"$ARBENCH" sweep --np "2,$big" -J "$J" -- --backend mpi -b 8 -e 8 -n 2 -w 0 >"$TMP/out" 2>"$TMP/err"
check_eq "sweep: exit 1 (a point failed)" 1 $?
slots="There are not enough slots available in the system to satisfy the $big slots that were requested by the application (more ranks than cores: add --oversubscribe to --launcher, or export OMPI_MCA_rmaps_base_oversubscribe=1)"
grep -qF "arbench sweep: [2/2] np=$big: failed: exit status 1: $slots (" "$TMP/err" && echo "ok: progress line says why" \
  || { cat "$TMP/err"; check_fail "progress line without the reason"; }
check_eq "error record message" "point np=$big: failed: exit status 1: $slots" \
  "$(jq -r 'select(.type == "error") | .message' "$J")"
"$ARBENCH" table "$J" >"$TMP/t" 2>"$TMP/terr"
check_eq "table: exit 0" 0 $?
grep -qF -- "- error: point np=$big: failed: exit status 1: $slots" "$TMP/t" && echo "ok: table lists the reason" \
  || { cat "$TMP/t"; check_fail "table does not list the reason"; }
# arbench's own error line, among mpirun's blocks; with nothing measured, table's one line quotes it (exit 3).
"$ARBENCH" sweep --np 2 -J "$TMP/v.jsonl" -- --backend shm-oneshot:foo=1 -b 8 -e 8 >/dev/null 2>"$TMP/verr"
check_eq "variant sweep: exit 1" 1 $?
want="point np=2: failed: exit status 2: unknown variant 'shm-oneshot:foo=1' (allowed: shm-oneshot:chunk=SIZE,stream=SIZE, e.g. chunk=64K)"
check_eq "variant: error record message" "$want" "$(jq -r 'select(.type == "error") | .message' "$TMP/v.jsonl")"
"$ARBENCH" table "$TMP/v.jsonl" >/dev/null 2>"$TMP/verr"
check_eq "table of nothing: exit 3" 3 $?
check_eq "table of nothing: one line quoting the error" \
  "arbench table: no result records in $TMP/v.jsonl (0 run records, 3 other): nothing to analyse; error: $want" "$(cat "$TMP/verr")"
finish
