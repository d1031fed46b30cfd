#!/usr/bin/env bash
# mpi_error.sh — what fails inside MPI itself ends with arbench's one line (bench/mpierr.c, issue 50 item 3): the rank,
# the call (MPI_Allreduce), its size and MPI's error class, exit status 1, and none of Open MPI's text when arbench is
# its own launcher (run's relaunch under `mpirun -q`, a sweep). Two ways in: Open MPI's allreduce cannot allocate its
# temporary buffer under `ulimit -v` while arbench's own buffers fit (both ranks fail: one reports), and a planted
# argument error on one rank alone (ARBENCH_INJECT_MPI_ERROR) while its peers wait inside the collective, and one in a
# call of arbench's own (the handler on every communicator of the run).
source "$(dirname "$0")/lib.sh"
banner='Primary job|MPI_ABORT|An error occurred in|MPI_ERRORS_ARE_FATAL|ORTE_ERROR_LOG|^-{20}'
no_banner() { ! grep -qE "$banner" "$TMP/err" || { cat "$TMP/err"; fail "$1: Open MPI's text after arbench's line"; }; }
relaunch_line() { # the relaunch's own line, then arbench's: exactly two lines
  expect_eq "$1: stderr lines" 2 "$(grep -c . "$TMP/err")"
  grep -q "^arbench: not started by mpirun: running $2 ranks" <(sed -n 1p "$TMP/err") || { cat "$TMP/err"; fail "$1: first line"; }
}

# 1. One rank's MPI_Allreduce fails (count -1: MPI's argument check), its two peers are inside the collective: the
# job ends at that call with the one line (not the watchdog's timeout: -T 120 never fires), the sizes before it stand.
want="arbench: rank 1: error: mpi: MPI_Allreduce of 1024 bytes (1 KiB: 256 x float, out-of-place) failed: MPI_ERR_COUNT: invalid count argument; ending the job"
expect_status 1 env ARBENCH_INJECT_MPI_ERROR=1:1024 timeout -s KILL 100 "$ARBENCH" run --np 3 --backend mpi -b 256 -e 4K \
  -n 2 -w 1 -c 1 -T 120 -J "$TMP/a.jsonl"
relaunch_line "planted, relaunch" 3
expect_eq "planted, relaunch: the one line" "$want" "$(sed -n 2p "$TMP/err")"
no_banner "planted, relaunch"
expect_eq "planted: the sizes measured before the failed call" "256 512" \
  "$($PY -c 'import json,sys; print(*[r["size"] for r in map(json.loads, open(sys.argv[1])) if r["type"] == "result"])' "$TMP/a.jsonl")"
# The same from a launcher of the user's own, quiet: the ranks' line alone.
expect_status 1 timeout -s KILL 100 mpirun -q --oversubscribe -np 3 -x ARBENCH_INJECT_MPI_ERROR=1:1024 "$ARBENCH" run \
  --backend mpi -b 1K -e 1K -n 2 -w 1 -c 1 -T 120
expect_eq "planted, mpirun -q: the one line" "$want" "$(cat "$TMP/err")"
# A sweep (its launcher is plain mpirun): the point's line carries arbench's.
expect_status 1 env ARBENCH_INJECT_MPI_ERROR=1:1024 timeout -s KILL 100 "$ARBENCH" sweep --np 3 -J "$TMP/sw.jsonl" -- \
  --backend mpi -b 1K -e 1K -n 2 -w 1 -c 1 -T 120
grep -qF "arbench sweep: [1/1] np=3: failed: exit status 1: ${want#arbench: } (" "$TMP/err" || { cat "$TMP/err"; fail "sweep: not arbench's line"; }
no_banner "sweep"
# An MPI error in a call of arbench's own (R:0: rank 2's backend init makes one on the run's communicator, its peers
# wait in the status exchange after init): the handler every communicator of the run inherits names the step.
expect_status 1 env ARBENCH_INJECT_MPI_ERROR=2:0 timeout -s KILL 100 "$ARBENCH" run --np 3 --backend mpi -b 8 -e 8 \
  -T 120 -J "$TMP/i.jsonl"
relaunch_line "arbench's own call" 3
expect_eq "arbench's own call: the one line" \
  "arbench: rank 2: error: an MPI call in backend mpi init failed: MPI_ERR_COUNT: invalid count argument; ending the job" \
  "$(sed -n 2p "$TMP/err")"
no_banner "arbench's own call"

# 2. ulimit -v: each rank's pool (2 x 256 MiB) fits under the limit with the ranks' own ~300 MB (Open MPI, threads'
# malloc arenas), Open MPI's temporary buffer of the message size does not (its malloc fails: MPI_ERR_INTERN). A box
# whose ranks hold more address space of their own fails arbench's own allocation first (its line names its buffers):
# then the next limit, 128 MiB up, is tried. AddressSanitizer reserves terabytes of address space, so a sanitizer build
# cannot run under ulimit -v at all.
if ldd "$ARBENCH" 2>/dev/null | qgrep -q libasan; then echo "mpi_error: ulimit -v case skipped under ASan"
else
  for limit_kb in 920000 1051072 1182144 1313216; do
    expect_status 1 timeout -s KILL 100 bash -c 'ulimit -v '$limit_kb'; exec "$@"' _ "$ARBENCH" run --np 2 --backend mpi \
      -b 256M -e 256M -n 1 -w 0 -c 1 -T 120
    grep -q "cannot allocate the send and receive buffers" "$TMP/err" || break
    echo "ulimit -v $limit_kb: arbench's own buffers did not fit beside this box's ranks; the next limit"
  done
  relaunch_line "ulimit -v" 2
  got=$(sed -n 2p "$TMP/err")
  # Both ranks fail in the same call and either may be the one that reports; the limit is the one tried, and how much
  # of the address space was in use varies with the libraries: the rest of the line is exact.
  norm=$(sed -E 's/^arbench: rank [01]: /arbench: rank R: /; s/limited to [0-9]+ bytes \([0-9.]+ [MG]iB, ulimit -v\)/limited to L bytes (L, ulimit -v)/; s/, [0-9]+ bytes \([0-9.]+ MiB\) of it in use;/, U bytes (U MiB) of it in use;/' <<<"$got")
  want="arbench: rank R: error: mpi: MPI_Allreduce of 268435456 bytes (256 MiB: 67108864 x float, out-of-place) failed: MPI_ERR_INTERN: internal error; MPI allocates temporary buffers inside the call (Open MPI's allreduce: up to the message size, 256 MiB); this rank's address space is limited to L bytes (L, ulimit -v), U bytes (U MiB) of it in use; ending the job"
  expect_eq "ulimit -v: the one line" "$want" "$norm"
  expect_eq "ulimit -v: the limit named" "$((limit_kb * 1024))" "$(sed -E 's/.*limited to ([0-9]+) bytes.*/\1/' <<<"$got")"
  [ "$limit_kb" != 920000 ] || expect_eq "ulimit -v: the limit in words" "898.4 MiB" "$(sed -E 's/.*limited to [0-9]+ bytes \(([^,]+), ulimit -v\).*/\1/' <<<"$got")"
  no_banner "ulimit -v"
  # The numbers it names are why: what was in use plus the message's temporary buffer is over the limit, and what was in
  # use holds arbench's own send and receive buffers.
  used=$(sed -E 's/.*, ([0-9]+) bytes \([0-9.]+ MiB\) of it in use;.*/\1/' <<<"$got")
  [ $((used + 268435456)) -gt $((limit_kb * 1024)) ] || fail "ulimit -v: $used in use + 256 MiB fits under the limit"
  [ "$used" -gt $((2 * 268435456)) ] || fail "ulimit -v: $used in use is less than arbench's own buffers"
fi
echo "mpi_error: ok"
