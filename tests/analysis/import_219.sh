#!/bin/bash
# import_219.sh — `arbench import nccl-tests` on nccl-tests 2.19 logs (tests/fixtures/nccl-tests/2.19: a real 2.19.4
# log and two logs constructed from v2.19.6's source, see its README): -I's i_min/i_max/i_p99/i_cv% of every row as
# the records' spread, -K from the Per-Iteration line, -z 3 (timing iter) from the Blocking line, -R/-D/-V of the
# command line, a headerless -I fragment, and bad -I columns refused in one line.
. "$(dirname "$0")/common.sh"
D="$NT/2.19"
imp() { "$ARBENCH" import nccl-tests "$@"; }

# Every row's -I columns, read off the log by awk (out-of-place: fields 10-13, in-place: 18-21), against the records.
every_row() { # every_row LOG: "size place min max p99 cv" per record, the log's and the import's
  awk '$1 ~ /^[0-9]+$/ && NF == 21 { print $1, "out", $10+0, $11+0, $12+0, $13+0; print $1, "in", $18+0, $19+0, $20+0, $21+0 }' \
    "$1" >"$TMP/log.txt"
  imp "$1" | jq -r 'select(.type=="result") | "\(.size) \(.placement) \(.time_us.min) \(.time_us.max) \(.time_us.p99) \(.per_iter.cv_pct)"' \
    >"$TMP/imp.txt"
  check_eq "$(basename "$1"): rows with -I columns" "$(wc -l <"$TMP/log.txt")" "$(wc -l <"$TMP/imp.txt")"
  check_eq "$(basename "$1"): every row's i_min i_max i_p99 i_cv% are the records' min max p99 cv_pct" "" \
    "$(diff "$TMP/log.txt" "$TMP/imp.txt")"
}

A="$D/constructed-2.19.6-I1-K2-z3-4gpu.log"
imp "$A" >"$TMP/a.jsonl" 2>"$TMP/a.err" || check_fail "A: import exited $?: $(cat "$TMP/a.err")"
j() { jq -rc "$1" "$TMP/a.jsonl"; }
check_eq "A: one test, 18 sizes x 2 records, no warning" "1 36 0" \
  "$(j 'select(.type=="run") | 1' | wc -l) $(j 'select(.type=="result") | 1' | wc -l) $(wc -c <"$TMP/a.err")"
check_eq "A: ranks, nccl-tests version, stack" "4|busbw/algbw|2.19.6|nccl-2.28.9 (CUDA unknown)" \
  "$(j 'select(.type=="run") | "\(.ranks)|\(.ranks_from)|\(.nccl_tests_version)|\(.stack.name)"')"
check_eq "A: -I 1, -K 2 (Per-Iteration line), -z 3 (Blocking line)" "1 2 3 true" \
  "$(j 'select(.type=="run") | .options | "\(.per_iter_timing) \(.per_iter_skip) \(.blocking_mode) \(.blocking)"')"
check_eq "A: -z 3's method: each iteration timed alone (iter), -a 1" \
  "iter|mean|nccl-tests -z 3 (each iteration timed alone), -a 1|iter mean" \
  "$(j 'select(.type=="run") | .method | "\(.timing)|\(.average)|\(.from)"')|$(j 'select(.type=="result") | "\(.timing) \(.average)"' | sort -u)"
check_eq "A: 8 B out of place: time, i_min i_max i_p99 i_cv%, 18 samples after -K 2" \
  '{"mean":11.46,"p50":11.46,"min":7.69,"max":14.03,"p99":14.03}|{"min_us":7.69,"max_us":14.03,"p99_us":14.03,"cv_pct":22.13,"skipped":2,"n":18}' \
  "$(j 'select(.type=="result" and .size==8 and .placement=="out") | "\(.time_us)|\(.per_iter | del(.from))"')"
check_eq "A: 4096 B in place" '{"mean":11.63,"p50":11.63,"min":7.87,"max":14.57,"p99":14.57} 17.74' \
  "$(j 'select(.type=="result" and .size==4096 and .placement=="in") | "\(.time_us) \(.per_iter.cv_pct)"')"
check_eq "A: 1 MiB out of place" '{"mean":69.34,"p50":69.34,"min":57.94,"max":106.53,"p99":106.53} 24.94 22.68' \
  "$(j 'select(.type=="result" and .size==1048576 and .placement=="out") | "\(.time_us) \(.per_iter.cv_pct) \(.busbw_gbs)"')"
every_row "$A"
sed 1d "$A" >"$TMP/nocmd.log" # without its command line: -K and -z from the header lines alone
check_eq "A without its command line: -K 2 and -z 3 from the Per-Iteration and Blocking lines" "2 3 iter|18 2" \
  "$(imp "$TMP/nocmd.log" | jq -r 'if .type=="run" then "\(.options.per_iter_skip) \(.options.blocking_mode) \(.method.timing)" else empty end, (select(.type=="result" and .size==8 and .placement=="out") | "\(.per_iter.n) \(.per_iter.skipped)")' | paste -sd'|')"

B="$D/constructed-2.19.6-I1-R2-D1-2gpu.log"
imp "$B" >"$TMP/b.jsonl" || check_fail "B: import exited $?"
j() { jq -rc "$1" "$TMP/b.jsonl"; }
check_eq "B: -R 2 -D 1 -V 16 -I 1 of the command line; nccl 2.29.3; 2 ranks" "2 1 16 1 null|2.29.3|2" \
  "$(j 'select(.type=="run") | .options | "\(.local_register) \(.device_implementation) \(.device_cta_count) \(.per_iter_timing) \(.blocking_mode)"')|$(j 'select(.type=="run") | "\(.stack.nccl_loaded)|\(.ranks)"')"
check_eq "B: no -z: nccl-tests' loop timing" "loop mean" "$(j 'select(.type=="result") | "\(.timing) \(.average)"' | sort -u)"
check_eq "B: 16 KiB out of place: 200 samples, i_p99 below i_max" \
  '{"mean":11.46,"p50":11.46,"min":8.31,"max":22.89,"p99":8.98} 11.99 200 0' \
  "$(j 'select(.type=="result" and .size==16384 and .placement=="out") | "\(.time_us) \(.per_iter.cv_pct) \(.per_iter.n) \(.per_iter.skipped)"')"
every_row "$B"

R="$D/real-2.19.4-8xA100-g8.log"
imp "$R" >"$TMP/r.jsonl" || check_fail "R: import exited $?"
j() { jq -rc "$1" "$TMP/r.jsonl"; }
check_eq "real 2.19.4: 1 test, 50 results, 8 ranks (one process, -g 8), nccl 2.19.3, version" "1 50 8|2.19.3|2.19.4|1" \
  "$(j 'select(.type=="run") | 1' | wc -l) $(j 'select(.type=="result") | 1' | wc -l) $(j 'select(.type=="run") | "\(.ranks)|\(.stack.nccl_loaded)|\(.nccl_tests_version)|\(.nodes)"')"
check_eq "real 2.19.4: 128 MiB rows, no -I: no spread" "1295.41 181.32 null null|1284.21 182.9 null null" \
  "$(j 'select(.type=="result" and .size==134217728) | "\(.time_us.mean) \(.busbw_gbs) \(.time_us.p99) \(.per_iter)"' | paste -sd'|')"

# A fragment of -I rows without their header: 21 columns are 2.19's -I layout.
grep -E '^ +[0-9]' "$A" >"$TMP/frag.log"
check_eq "headerless -I fragment: 36 records, the same spread" "36|$(jq -c 'select(.type=="result") | [.size, .time_us, .per_iter.cv_pct]' "$TMP/a.jsonl" | md5sum)" \
  "$(imp "$TMP/frag.log" | jq -c 'select(.type=="result") | [.size, .time_us, .per_iter.cv_pct]' | tee "$TMP/f.txt" | wc -l)|$(md5sum <"$TMP/f.txt")"

# Bad -I columns: one line, exit 2.
sed '0,/^           8 /s/^\(           8 .*\)    22\.13 /\1      x1  /' "$A" >"$TMP/badcv.log"
check_bad "a bad i_cv%" "bad number 'x1' in the i_cv% column" imp "$TMP/badcv.log"
awk '$1 == 16 && NF == 21 { $10 = "99.00" } { print }' "$A" >"$TMP/order.log"
check_bad "i_min above i_max" "i_min, i_p99 and i_max out of order (99.00 .. 14.03): not per-iteration statistics" imp "$TMP/order.log"
awk '$1 == 32 && NF == 21 { $12 = "-1.00" } { print }' "$A" >"$TMP/neg.log"
check_bad "a negative i_p99" "negative value '-1.00' in the i_p99 column" imp "$TMP/neg.log"
# The -J file of the same run (constructed from v2.19.6's writer): import nccl-tests-json gives the same records,
# its numbers rounding to the log's printed ones, with the p50/p95 and raw times only the file holds.
AJ="$D/constructed-2.19.6-I1-K2-z3-4gpu.json"
"$ARBENCH" import nccl-tests-json "$AJ" >"$TMP/j.jsonl" 2>"$TMP/j.err" || check_fail "json: import exited $?: $(cat "$TMP/j.err")"
j() { jq -rc "$1" "$TMP/j.jsonl"; }
check_eq "json: one run, 36 results; ranks from its 4 devices; version 3; -I -K -z 3 (config and args)" \
  "1 36|4 devices 1 3|1 2 3|iter mean|2.28.9" \
  "$(j 'select(.type=="run") | 1' | wc -l) $(j 'select(.type=="result") | 1' | wc -l)|$(j 'select(.type=="run") | "\(.ranks) \(.ranks_from) \(.nodes) \(.json_version)|\(.options.per_iter_timing) \(.options.per_iter_skip) \(.options.blocking_mode)|\(.method.timing) \(.method.average)|\(.stack.nccl_loaded)"')"
cols() { jq -r 'select(.type=="result") | [.size, .placement, .time_us.mean, .busbw_gbs, .time_us.min, .time_us.max,
  .time_us.p99, .per_iter.cv_pct] | @tsv' "$1" | awk '{ printf "%s %s %.2f %.2f %.2f %.2f %.2f %.2f\n", $1, $2, $3, $4, $5, $6, $7, $8 }'; }
same_as_log() { # same_as_log JSON LOG N: the file's records round to the log's printed columns
  "$ARBENCH" import nccl-tests-json "$1" >"$TMP/sj.jsonl" || check_fail "$(basename "$1"): import exited $?"
  imp "$2" >"$TMP/sl.jsonl"
  cols "$TMP/sj.jsonl" >"$TMP/jr.txt"
  cols "$TMP/sl.jsonl" >"$TMP/ar.txt"
  check_eq "$(basename "$1"): every record's time, busbw, min, max, p99, cv round to the log's printed columns" "$3|" \
    "$(wc -l <"$TMP/jr.txt")|$(diff "$TMP/ar.txt" "$TMP/jr.txt")"
}
same_as_log "$AJ" "$A" 36
same_as_log "$D/constructed-2.19.6-I1-R2-D1-2gpu.json" "$B" 14
check_eq "json: 8 B out of place: p50 and p95 (not printed), 20 raw times, 4 processes' rows, 18 in the summary" \
  "7.856792 14.029777 20 4x20 18 2" \
  "$(j 'select(.type=="result" and .size==8 and .placement=="out") | .per_iter | "\(.p50_us) \(.p95_us) \(.times_us | length) \(.per_process_max_times_us | length)x\(.per_process_max_times_us[0] | length) \(.n) \(.skipped)"')"
check_bad "json: a log is no JSON file" "real-2.19.4-8xA100-g8.log:1: not JSON" "$ARBENCH" import nccl-tests-json "$R"
jq -c '.args[0] = "./build/all_gather_perf"' "$AJ" >"$TMP/ag.json"
check_bad "json: another collective's file" "written by all_gather_perf, not all_reduce_perf" "$ARBENCH" import nccl-tests-json "$TMP/ag.json"
jq -c 'del(.results[3].in_place_per_iter.p99_us)' "$AJ" >"$TMP/nop99.json"
check_bad "json: a per-iteration object without p99_us" "results[3]: in_place_per_iter of 64 bytes without a number 'p99_us'" \
  "$ARBENCH" import nccl-tests-json "$TMP/nop99.json"
jq -c '.results[5].out_of_place_per_iter.min_us = 1000' "$AJ" >"$TMP/order.json"
check_bad "json: min_us above max_us" "results[5]: out_of_place_per_iter of 256 bytes: min_us, p99_us and max_us out of order" \
  "$ARBENCH" import nccl-tests-json "$TMP/order.json"
jq -c '.results[4].count = 8' "$AJ" >"$TMP/count.json"
check_bad "json: a count that is not size / 4 (reduce_scatter's)" "results[4]: 8 elements of float are not 128 bytes: not allreduce output" \
  "$ARBENCH" import nccl-tests-json "$TMP/count.json"
jq -c '.results[2] = 7' "$AJ" >"$TMP/notobj.json"
check_bad "json: a result that is no object" "results[2] is not an object" "$ARBENCH" import nccl-tests-json "$TMP/notobj.json"
jq -c 'del(.config.devices)' "$AJ" >"$TMP/nodev.json"
check_bad "json: no devices" "not an nccl-tests -J file" "$ARBENCH" import nccl-tests-json "$TMP/nodev.json"
finish
