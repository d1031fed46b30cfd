#!/usr/bin/env bash
# sweep_dryrun_root.sh — `arbench sweep --dry-run` pasted into a root shell runs as the sweep would (issue 42,
# item 4): its lines carry the allow-run-as-root variables the sweep adds itself, and running them writes the
# point's results. Not root: the lines carry no such variables.
source "$(dirname "$0")/../lib/common.sh"
ar_counting
U=(env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM)
J="$TMP/d.jsonl"
"${U[@]}" "$ARBENCH" sweep --dry-run --np 2 --env A=1,2 -J "$J" -- --backend mpi -b 8 -e 8 -n 2 -w 0 >"$TMP/lines" 2>/dev/null
check_eq "dry run: exit 0" 0 $?
check_eq "dry run: two lines" 2 "$(wc -l <"$TMP/lines")"
if [ "$(id -u)" != 0 ]; then
  check_eq "not root: no root variables" 0 "$(grep -c OMPI_ALLOW_RUN_AS_ROOT "$TMP/lines")"
  finish
fi
check_eq "root: every line starts with the root variables" 2 \
  "$(grep -c '^OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 A=[12] mpirun -np 2 ' "$TMP/lines")"
"${U[@]}" bash -c "$(head -1 "$TMP/lines")" >/dev/null 2>"$TMP/err"
check_eq "the first line pasted as root: exit 0" 0 $?
check_eq "it wrote the point's results (8 B)" 1 "$(jq -c 'select(.type == "result") | [.backend, .size, .point.A]' "$J" | grep -c '\["mpi",8,"1"\]')"
# With the variables already set the sweep adds nothing, and the line does not repeat them.
"$ARBENCH" sweep --dry-run --np 2 -J "$J" -- --backend mpi >"$TMP/set" 2>/dev/null
check_eq "variables already set: not added" 0 "$(grep -c OMPI_ALLOW_RUN_AS_ROOT "$TMP/set")"
finish
