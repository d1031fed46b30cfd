#!/usr/bin/env bash
# bad_input.sh — every bad flag or value of `arbench run` (and of the CLI itself) is one line on
# stderr naming the bad value, with exit status 2, and no results file is half-written.
source "$(dirname "$0")/../lib/common.sh"
A=$ARBENCH
expect_one_line_error "8X" ar_mpirun 2 run -b 8X
expect_one_line_error "quad" ar_mpirun 2 run -d float,quad
expect_one_line_error "mean" ar_mpirun 2 run -o mean
expect_one_line_error "--frobnicate" ar_mpirun 2 run --frobnicate
expect_one_line_error "maybe" ar_mpirun 2 run --inplace maybe
expect_one_line_error "larger" ar_mpirun 2 run -b 1M -e 8
expect_one_line_error "6" ar_mpirun 2 run --sizes 6 -d float
expect_one_line_error "-n" ar_mpirun 2 run -n 0
expect_one_line_error "nosuch" ar_mpirun 2 run --backend mpi,nosuch -J "$TMP/never.jsonl"
grep -q "known: mpi" "$TMP/err" || fail "unknown backend error does not list the known ones"
[ ! -e "$TMP/never.jsonl" ] || fail "a results file was created by a run that never started"
expect_one_line_error "mpi:algo=Ring" ar_mpirun 2 run --backend mpi:algo=Ring -b 8 -e 8 -n 1
expect_one_line_error "/nonexistent/dir/r.jsonl" ar_mpirun 2 run --backend mpi -b 8 -e 8 -J /nonexistent/dir/r.jsonl
# A bad NCCL variant is a usage error even without a GPU (checked against the loaded NCCL first).
if "$A" list | grep '^nccl .*ncclAllReduce' | grep -vq 'not compiled in'; then # a build with NCCL in it
  expect_one_line_error "Bogus" ar_mpirun 2 run --backend 'nccl:algo=Bogus' -b 8 -e 8
  grep -q "allowed with NCCL" "$TMP/err" || fail "bad nccl algo error does not list the allowed ones"
  expect_one_line_error "proto=Fast" ar_mpirun 2 run --backend 'mpi;nccl:proto=Fast' -b 8 -e 8
fi
# Test hooks are parsed by one table (bench/run/fault.c): a bad value is a usage error, not a silent "off".
export ARBENCH_P2P_STALL=x
expect_one_line_error "bad ARBENCH_P2P_STALL 'x'" ar_mpirun 2 run --backend mpi -b 8 -e 8
unset ARBENCH_P2P_STALL
export ARBENCH_INJECT_FILL_FAIL=1
expect_one_line_error "bad ARBENCH_INJECT_FILL_FAIL '1' (allowed: RANK:BYTES" ar_mpirun 2 run --backend mpi -b 8 -e 8
unset ARBENCH_INJECT_FILL_FAIL
expect_one_line_error "frob" "$A" frob
expect_one_line_error "x" "$A" list x
expect_one_line_error "-J" ar_mpirun 2 run --backend mpi -J ''
expect_one_line_error "mpi;;shm-oneshot" ar_mpirun 2 run --backend 'mpi;;shm-oneshot'
expect_one_line_error "cannot be combined" ar_mpirun 2 run -b 8 -e 64 -f 4 -i 8
expect_one_line_error "[1]" ar_mpirun 2 run --backend mpi -b 8 -e 8 --point '[1]' -J "$TMP/p.jsonl"
[ ! -e "$TMP/p.jsonl" ] || fail "a bad --point left a results file behind"
# A results file that cannot be written fails the run (a lost record is never silent).
expect_status 1 ar_mpirun 1 run --backend mpi -b 8 -e 8 -n 2 -J /dev/full
grep -q "cannot write results file '/dev/full'" "$TMP/err" || fail "no message about the unwritable results file"
# nccl-tests' habits get one line mapping them; -G on host backends only is refused (issue 24).
expect_one_line_error "one rank per GPU" ar_mpirun 2 run -g 8 -b 8 -e 8
expect_one_line_error "use --repeat N" ar_mpirun 2 run -N 3 -b 8 -e 8
expect_one_line_error "none of the chosen backends (mpi, shm-oneshot) can be captured" \
  ar_mpirun 2 run --backend mpi,shm-oneshot -G 2 -n 4 -b 8 -e 8 -J "$TMP/g.jsonl"
[ ! -e "$TMP/g.jsonl" ] || fail "a run refused for -G left a results file behind"
# Single process (no mpirun) works the same way.
expect_one_line_error "8X" "$A" run -b 8X
# --help is not an error
expect_status 0 "$A" run --help
grep -q -- "--backend" "$TMP/out" || fail "run --help does not document --backend"
echo "bad_input: ok"
