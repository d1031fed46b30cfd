#!/bin/bash
# sweep_env.sh — swept variables really reach the ranks: Open MPI's allreduce algorithm swept through a
# launcher whose mpirun starts with an EMPTY environment, so only the sweep's -x NAME=V flags carry it;
# rank 0's run record (its `env` object) must show each point's value. Control: with --forward-env none
# the same check must fail (the values are gone), so the check can fail.
source "$(dirname "$0")/lib.sh"
J="$TMP/e.jsonl"
axes=(--np 2 --env OMPI_MCA_coll_tuned_use_dynamic_rules=1 --env OMPI_MCA_coll_tuned_allreduce_algorithm=2,4
      --launcher "$HERE/envi_launcher.sh")
run=(-- --backend mpi -b 8 -e 1K -n 5 -w 1)
expect_status 0 "$ARBENCH" sweep "${axes[@]}" --forward-env x -J "$J" "${run[@]}"
$CHECK done "$J" 2 mpi=8

J2="$TMP/e2.jsonl"
expect_status 0 "$ARBENCH" sweep "${axes[@]}" --forward-env none -J "$J2" "${run[@]}"
if $CHECK done "$J2" 2 mpi=8 2>"$TMP/check.err"; then fail "values reached the ranks without -x: the control is broken"; fi
grep -qF "rank 0 saw OMPI_MCA_coll_tuned_use_dynamic_rules=None" "$TMP/check.err" || { cat "$TMP/check.err"; fail "control failed for another reason"; }
echo "ok: env reaches the ranks"
