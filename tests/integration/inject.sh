#!/usr/bin/env bash
# inject.sh — the check reads every element of every rank: ARBENCH_INJECT_FAULT=R:POS,... corrupts
# chosen elements (first, mid, last, an index) on several ranks, and each one is counted exactly.
source "$(dirname "$0")/../lib/common.sh"
wrongs() { # [BE=BACKENDS] [N=ITERS] wrongs FAULT NP RUN-ARGS... : prints "dtype:count:wrong" per result
  local fault=$1 np=$2; shift 2
  expect_status 1 env ARBENCH_INJECT_FAULT="$fault" mpirun -q --oversubscribe -x ARBENCH_INJECT_FAULT -np "$np" \
    "$ARBENCH" run --backend "${BE:-mpi}" -n "${N:-1}" -w 0 -J "$TMP/w.jsonl" "$@"
  "$PY" -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "result": print("%s:%d:%d" % (r["dtype"], r["count"], r["wrong"]))' "$TMP/w.jsonl"
  rm -f "$TMP/w.jsonl"
}
want() { [ "$1" = "$2" ] || fail "$3: got [$1], want [$2]"; }
# Three ranks, three positions (first element of rank 0, last of rank 1, middle of rank 2), two checked
# calls: 3 wrong elements per call, 6 per result, whatever the count (1 and 2 included) and dtype.
got=$(wrongs 0:first,1:last,2:mid 3 --counts 1,2,7,1023 -d float,half -c 2 | paste -sd' ')
want "$got" "float:1:6 float:2:6 float:7:6 float:1023:6 half:1:6 half:2:6 half:7:6 half:1023:6" "three ranks"
grep -q "Out of bounds values : 48 FAILED" "$TMP/out" || { cat "$TMP/out"; fail "footer does not count 48"; }
# Indices on one rank: 5 and 1022 of 1023, an index past the end is the last element (count 3: 2 and
# the last are the same element, counted once), in the second half only (the first half is right).
got=$(wrongs 1:5,1:1022,1:2 2 --counts 3,1023 -d int32 -c 1 | paste -sd' ')
want "$got" "int32:3:1 int32:1023:3" "indices on rank 1"
got=$(wrongs 0:last 2 --counts 4096 -d bfloat16 -c 3 --inplace both | paste -sd' ')
want "$got" "bfloat16:4096:3 bfloat16:4096:3" "last element, in-place and out-of-place"
# A backend that leaves its output unwritten (R:unwritten: rank R's result goes elsewhere) is caught on
# every element, even where the output buffer already holds the right answer: the second repeat of the
# size reuses the buffers the first one's timed loop filled with correct sums (only the poison written
# before each checked call tells them apart). In-place: the input is left, not the sum.
got=$(BE=mpi,shm-oneshot N=2 wrongs 1:unwritten 2 --counts 7 --repeat 2 -c 2 | paste -sd' ')
want "$got" "float:7:14 float:7:14 float:7:14 float:7:14" "output left unwritten"
got=$(wrongs 0:unwritten,1:3 3 --counts 1023 -c 1 --inplace yes | paste -sd' ')
want "$got" "float:1023:1024" "in-place output left unwritten, and one element on another rank"
# The old form R means element 0 of rank R.
got=$(wrongs 1 2 --counts 7 -c 1 | paste -sd' ')
want "$got" "float:7:1" "old form R"
# No fault: nothing wrong, exit 0.
expect_status 0 env ARBENCH_INJECT_FAULT= mpirun -q --oversubscribe -x ARBENCH_INJECT_FAULT -np 2 "$ARBENCH" \
  run --backend mpi --counts 7 -n 1 -w 0
# Bad values: one line naming the value, exit 2, before anything runs.
for bad in x 2:0 0: 0:-1 0:abc 0:1, 0:1,,1:0 -1 0:unwritten, 0:unwrittenx; do
  expect_one_line_error "ARBENCH_INJECT_FAULT '$bad'" env ARBENCH_INJECT_FAULT="$bad" mpirun -q --oversubscribe \
    -x ARBENCH_INJECT_FAULT -np 2 "$ARBENCH" run --backend mpi --counts 7 -n 1
done
for bad in 1 1:0 1:abc 2:5 1:5x; do
  expect_one_line_error "ARBENCH_INJECT_DELAY '$bad'" env ARBENCH_INJECT_DELAY="$bad" mpirun -q --oversubscribe \
    -x ARBENCH_INJECT_DELAY -np 2 "$ARBENCH" run --backend mpi --counts 7 -n 1
done
echo "inject: ok"
