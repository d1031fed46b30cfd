#!/bin/bash
# identity.sh — one identity per configuration across files (analysis.c fold_own): a sweep axis whose value is the
# record's own setting (np=2 on a 2-rank record) makes no other configuration. The README's first steps: run.jsonl
# (run --np 2: no point) and sweep.jsonl (sweep --np 2: point np=2, mpi also an Open MPI algorithm) in one table:
# shm-oneshot is one column with the runs of both; mpi at an algorithm stays its own configuration.
. "$(dirname "$0")/common.sh"
R="$FIX/runsh-host.jsonl"
jq -c 'if .type == "run" then .run_id = "sweep1" elif .backend == "shm-oneshot" then .run_id = "sweep1" | .point = {"np": 2}
       elif .backend == "mpi" then .run_id = "sweep1" | .point = {"np": 2, "OMPI_MCA_coll_tuned_allreduce_algorithm": "1"}
       else empty end' "$R" >"$TMP/sweep.jsonl"
"$ARBENCH" table --format json "$R" "$TMP/sweep.jsonl" >"$TMP/t.json" || check_fail "table exited $?"
check_eq "one shm-oneshot column; mpi's algorithm its own" \
  "mpi,shm-oneshot,shm-twoshot,shm-staged,shm-islands,mpi {OMPI_MCA_coll_tuned_allreduce_algorithm=1}" \
  "$(jq -r '[.grids[0].configs[].label] | join(",")' "$TMP/t.json")"
check_eq "shm-oneshot's cells hold the runs of both files (3 repeats each)" 6 \
  "$(jq '[.grids[0].cells[] | select(.config == 1)][0].runs' "$TMP/t.json")"
check_eq "--point np=2 still selects the sweep's records" "mpi {OMPI_MCA_coll_tuned_allreduce_algorithm=1},shm-oneshot" \
  "$("$ARBENCH" table --point np=2 --format json "$R" "$TMP/sweep.jsonl" | jq -r '[.grids[0].configs[].label] | join(",")')"
# np that is not the record's rank count (a 2-rank record at np=4: a mislabelled file) stays a point of its own.
jq -c 'if .point.np then .point.np = 4 else . end' "$TMP/sweep.jsonl" >"$TMP/sweep4.jsonl"
check_eq "np other than the rank count: its own configuration" 7 \
  "$("$ARBENCH" table --format json "$R" "$TMP/sweep4.jsonl" | jq '.grids[0].configs | length')"
finish
