#!/bin/bash
# methodology.sh — --buffers and --timing change the numbers the way they should on CPU ranks (mpi):
# cold buffer sets read slower than one hot set at 1 MiB; a loop mean lies within the iteration spread.
. "$(dirname "$0")/../lib/common.sh"
J="$TMP/m.jsonl"
stat_of() { # stat_of BUFFERS TIMING STAT: that statistic of the 1 MiB mpi results in $J (min over launches)
  jq -s --arg b "$1" --arg t "$2" --arg q "$3" \
    '[.[] | select(.type=="result" and .buffers==$b and .timing==$t and .size==1048576) | .time_us[$q]] | min' "$J"
}
run() { ar_mpirun 2 run --backend mpi --sizes 1M -n "${N:-100}" -w 10 --quiet -J "$J" "$@" >/dev/null || fail "run $* exited $?"; }
# Defaults are nccl-tests': hot buffers, per-iteration timing, max over ranks; the record says so.
run
expect_eq "default method recorded" '"hot" "iter" "max" 1 0 1' \
  "$(jq -r 'select(.type=="result") | [.buffers, .timing, .average, .nsets, .repeat, .repeats] | map(tojson) | join(" ")' "$J")"
grep -q '^# buffers hot (one set reused), timing iter (per iteration), time = max over ranks (-a 3)$' \
  <(ar_mpirun 2 run --backend mpi --sizes 8 -n 5) || fail "table header does not state the method"
# Columns without data are left out: --timing loop has no p50/p99, an out-of-place run no in-place half.
ar_mpirun 2 run --backend mpi --sizes 8 -n 5 --timing loop >"$TMP/loop.txt" || fail "loop table run exited $?"
expect_eq "loop table: header without p50/p99 or in-place" "1 0 0" \
  "$(grep -c '^# *size' "$TMP/loop.txt") $(grep -c 'p50\|p99' "$TMP/loop.txt") $(grep -c 'in-place' "$TMP/loop.txt")"
expect_eq "loop table: header and row have the same number of fields" \
  "$(grep '^# *size' "$TMP/loop.txt" | awk '{print NF - 1}')" "$(grep -E '^ +8 ' "$TMP/loop.txt" | awk '{print NF}')"
# Hot against cold, interleaved launches; the fastest iteration of each mode (min over 1,000 iterations
# and two launches) is the least disturbed by other work: on a busy 2-core machine (load 16) hot read
# 236 us and cold 437 us, where the p50s of 100 iterations could not tell them apart. Up to 3 rounds.
ok=0
for round in 1 2 3; do
  rm -f "$J"
  for pair in 1 2; do N=1000 run --buffers hot; N=1000 run --buffers cold; done
  hot=$(stat_of hot iter min) cold=$(stat_of cold iter min)
  echo "round $round: 1 MiB mpi min hot $hot us, cold $cold us"
  if awk -v h="$hot" -v c="$cold" 'BEGIN { exit !(c > 1.15 * h) }'; then ok=1; break; fi
done
[ "$ok" = 1 ] || fail "cold buffers ($cold us) not slower than hot ($hot us) by 15% at 1 MiB in 3 rounds"
expect_eq "cold rotates sets past the cache" 1 "$(jq -s '[.[] | select(.type=="result" and .buffers=="cold") | .nsets > 1] | all | if . then 1 else 0 end' "$J")"
# --timing loop: one sample per record, the interval / iterations, inside the spread of iter timing.
# The two come from different launches, so a launch slowed by other work (one ASan run read a loop
# mean of 1135 us against an iter spread of 674..851 us) gets another round; up to 3 rounds.
ok=0
for round in 1 2 3; do
  rm -f "$J"
  run --timing iter
  run --timing loop --repeat 3
  expect_eq "loop: one sample per repeat" "1 1 1" "$(jq -r 'select(.type=="result" and .timing=="loop") | .samples_n' "$J" | paste -sd' ')"
  expect_eq "loop: repeats numbered" "0 1 2" "$(jq -r 'select(.type=="result" and .timing=="loop") | .repeat' "$J" | paste -sd' ')"
  lo=$(stat_of hot iter min) hi=$(stat_of hot iter max) inside=1
  for m in $(jq -r 'select(.type=="result" and .timing=="loop") | .time_us.mean' "$J"); do
    echo "round $round: loop mean $m us; iter spread $lo .. $hi us"
    awk -v m="$m" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(m >= 0.8 * lo && m <= 1.25 * hi) }' || inside=0
  done
  [ "$inside" = 1 ] && { ok=1; break; }
done
[ "$ok" = 1 ] || fail "loop mean $m us outside the iteration spread [$lo, $hi] us (with 20%/25% margins) in 3 rounds"
# -a: rank 0, average, min, max are recorded by name; bad values are one-line usage errors.
for a in 0 1 2 3; do run --timing loop -a $a; done
expect_eq "-a names" "rank0 mean min max" "$(jq -r 'select(.type=="result" and .timing=="loop") | .average' "$J" | tail -4 | paste -sd' ')"
expect_one_line_error "'warm' for --buffers (expected hot or cold)" ar_mpirun 1 run --buffers warm
expect_one_line_error "'each' for --timing (expected iter or loop)" ar_mpirun 1 run --timing each
expect_one_line_error "'4' for -a" ar_mpirun 1 run -a 4
expect_one_line_error "'0' for --repeat" ar_mpirun 1 run --repeat 0
echo "methodology: ok"
