#!/bin/bash
# methodology.sh — --buffers and --timing change the numbers the way they should on CPU ranks (mpi):
# cold buffer sets rotate past the cache; a loop sample is the interval over its iterations (mechanisms, not speeds).
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
# Hot against cold, by mechanism (a timing ratio is no test: ASan's instrumentation and a loaded box
# dilute the cache effect; its size is bench/perf's): a hot record reuses one set; a cold one rotates
# sets whose span reaches 2x the cache it records (cold_reached), and every timed iteration takes the
# next set (tests/unit/test_platform_host.c, the host loop the mpi backend runs in).
rm -f "$J"
run --buffers hot
run --buffers cold
expect_eq "hot: one set, its span one message pair" "1 2097152 false" \
  "$(jq -r 'select(.type=="result" and .buffers=="hot") | [.nsets, .rotation_bytes, .cold_reached] | map(tojson) | join(" ")' "$J")"
expect_eq "cold rotates sets past the cache" "1 1 1" "$(jq -r 'select(.type=="result" and .buffers=="cold")
  | [(.nsets > 1), (.rotation_bytes >= 2 * .cache_bytes), .cold_reached] | map(if . then 1 else 0 end) | join(" ")' "$J")"
expect_eq "cold: the span is its sets' message pairs" 1 \
  "$(jq -r 'select(.type=="result" and .buffers=="cold") | if .rotation_bytes == .nsets * 2097152 then 1 else 0 end' "$J")"
# --timing loop: one sample per record, the interval / iterations. By mechanism again: with rank 1
# sleeping D ms in every even timed iteration (ARBENCH_INJECT_DELAY, inside the timed interval), the
# loop mean is at least D/2 whatever the load (load only adds time); a loop that timed nothing, or
# divided by the wrong count, reads far less. Iteration timing shows the same sleep per even sample.
D=40
rm -f "$J"
expect_status 0 env ARBENCH_INJECT_DELAY=1:$D mpirun -q --oversubscribe -x ARBENCH_INJECT_DELAY -np 2 "$ARBENCH" \
  run --backend mpi --sizes 1M -n 4 -w 1 --quiet -J "$J" --timing loop --repeat 3
expect_eq "loop: one sample per repeat" "1 1 1" "$(jq -r 'select(.type=="result" and .timing=="loop") | .samples_n' "$J" | paste -sd' ')"
expect_eq "loop: repeats numbered" "0 1 2" "$(jq -r 'select(.type=="result" and .timing=="loop") | .repeat' "$J" | paste -sd' ')"
expect_eq "loop: mean holds the injected sleep (>= D/2 of every iteration)" "1 1 1" \
  "$(jq -r --argjson d "$D" 'select(.type=="result" and .timing=="loop") | if .time_us.mean >= $d * 500 then 1 else 0 end' "$J" | paste -sd' ')"
# -a: rank 0, average, min, max are recorded by name; bad values are one-line usage errors.
for a in 0 1 2 3; do run --timing loop -a $a; done
expect_eq "-a names" "rank0 mean min max" "$(jq -r 'select(.type=="result" and .timing=="loop") | .average' "$J" | tail -4 | paste -sd' ')"
expect_one_line_error "'warm' for --buffers (expected hot or cold)" ar_mpirun 1 run --buffers warm
expect_one_line_error "'each' for --timing (expected iter or loop)" ar_mpirun 1 run --timing each
expect_one_line_error "'4' for -a" ar_mpirun 1 run -a 4
expect_one_line_error "'0' for --repeat" ar_mpirun 1 run --repeat 0
echo "methodology: ok"
