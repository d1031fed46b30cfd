#!/usr/bin/env bash
# mpierr.sh — bench/mpierr.c across two real ranks (tests/unit/mpierr_job.c): an MPI error on a communicator made from
# the world's after arbench's handler was installed is one line naming the rank, the watchdog's phase and MPI's class
# (then the code's own words), and the job ends with status 1 while the other rank waits inside a collective; under
# `mpirun -q` (arbench's own launches) nothing of Open MPI's follows it.
source "$(dirname "$0")/../lib/common.sh"
JOB=${1:?usage: mpierr.sh MPIERR_JOB}
banner='Primary job|MPI_ABORT|An error occurred in|MPI_ERRORS_ARE_FATAL|^-{20}'
expect_status 0 mpirun -q -np 2 "$JOB" text
expect_eq "the class's words, then the code's own" "MPI_ERR_OTHER: known error not in list (the planted code's own words)" \
  "$(sed -n 1p "$TMP/out")"
expect_eq "a class alone" "MPI_ERR_COUNT: invalid count argument" "$(sed -n 2p "$TMP/out")"
expect_status 1 timeout -s KILL 100 mpirun -q -np 2 "$JOB" count
expect_eq "a call MPI fails: the one line" "arbench: rank 1: error: an MPI call in start-up: the test's step failed: MPI_ERR_COUNT: invalid count argument; ending the job" "$(cat "$TMP/err")"
! grep -qE "$banner" "$TMP/err" || fail "Open MPI's text after arbench's line"
expect_status 1 timeout -s KILL 100 mpirun -q -np 2 "$JOB" code
expect_eq "an error code of its own: the one line" "arbench: rank 1: error: an MPI call in start-up: the test's step failed: MPI_ERR_OTHER: known error not in list (the planted code's own words); ending the job" "$(cat "$TMP/err")"
echo "mpierr: ok"
