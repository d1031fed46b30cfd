#!/bin/bash
# import.sh — `arbench import nccl-tests` on transcribed published logs (see
# tests/fixtures/nccl-tests/README.md): exact records, preamble facts, determinism; malformed logs (one line,
# exit 2) and layouts derived from them (per-iteration columns, cycles, #wrong in exponent form).
. "$(dirname "$0")/common.sh"
imp() { "$ARBENCH" import nccl-tests "$@"; }
# Old format: 'error' column, no 'root', no 'Group', an NCCL INFO line inside the table.
imp "$NT/old-error-column-4xK80.log" >"$TMP/k80.jsonl" || check_fail "import K80 exited $?"
k() { jq -r "$1" "$TMP/k80.jsonl"; }
check_eq "K80: records" "1 14" "$(k 'select(.type=="run") | 1' | wc -l) $(k 'select(.type=="result") | 1' | wc -l)"
check_eq "K80: run" "4 1 unknown Tesla K80 2.54225 20 5" \
  "$(k 'select(.type=="run") | "\(.ranks) \(.nodes) \(.stack.name) \(.gpus[0].name) \(.avg_busbw_gbs) \(.options.iters) \(.options.warmup)"')"
check_eq "K80: first row out" "out 33554432 8388608 float sum 19902 1.69 2.53 null 2e-07" \
  "$(k 'select(.type=="result") | "\(.placement) \(.size) \(.count) \(.dtype) \(.op) \(.time_us.mean) \(.algbw_gbs) \(.busbw_gbs) \(.wrong) \(.max_error)"' | head -1)"
check_eq "K80: 128M in-place busbw" 2.54 "$(k 'select(.type=="result" and .size==134217728 and .placement=="in") | .busbw_gbs')"
check_eq "K80: last row in" "in 2147483648 1258876 1258876 2.56" \
  "$(k 'select(.type=="result") | "\(.placement) \(.size) \(.time_us.mean) \(.time_us.p50) \(.busbw_gbs)"' | tail -1)"
# New format, PCIe 2x RTX 2080 Ti, 8 B .. 1 GiB.
imp "$NT/pcie-2x2080ti.log" >"$TMP/pcie.jsonl" || check_fail "import 2080 Ti exited $?"
p() { jq -r "$1" "$TMP/pcie.jsonl"; }
check_eq "2080Ti: 56 results" 56 "$(p 'select(.type=="result") | 1' | wc -l)"
check_eq "2080Ti: first record exact" '{"type":"result","dtype":"float","op":"sum","placement":"out","size":8,"count":2,"iters":20,"warmup":5,"graph":0,"samples_n":0,"source":"nccl-tests","checked":true,"wrong":0,"time_us":{"mean":12.25,"p50":12.25},"algbw_gbs":0,"busbw_gbs":0,"repeat":0,"log_line":11,"backend":"nccl-tests","variant":"","spec":"nccl-tests","ranks":2,"nodes":1,"buffers":"hot","timing":"loop","average":"mean","repeats":1}' \
  "$(p 'select(.type=="result")' | jq -c 'del(.run_id, .algbw_p50_gbs, .busbw_p50_gbs)' | head -1)"
check_eq "2080Ti: sizes 8 B .. 1 GiB sum" 2147483640 "$(p 'select(.type=="result" and .placement=="out") | .size' | paste -sd+ | bc)"
check_eq "2080Ti: 1G out/in time" "268588 268461" "$(p 'select(.type=="result" and .size==1073741824) | .time_us.mean' | paste -sd' ')"
check_eq "2080Ti: 32M out/in busbw" "3.99 4" "$(p 'select(.type=="result" and .size==33554432) | .busbw_gbs' | paste -sd' ')"
check_eq "2080Ti: devices" "0000:b4:00 NVIDIA GeForce RTX 2080 Ti|0000:b5:00 NVIDIA GeForce RTX 2080 Ti" \
  "$(p 'select(.type=="run") | [.gpus[] | "\(.busid) \(.name)"] | join("|")')"
check_eq "2080Ti: no wrong elements" 0 "$(p 'select(.type=="result") | .wrong' | paste -sd+ | bc)"
check_eq "deterministic (run_id from the log)" "" "$(imp "$NT/pcie-2x2080ti.log" | diff - "$TMP/pcie.jsonl")"
check_eq "--stack names the stack" "cuda12.4" "$(imp "$NT/pcie-2x2080ti.log" --stack cuda12.4 | jq -r 'select(.type=="run") | .stack.name')"
# Newest format behind mpirun --tag-output, with the nccl-tests version line.
imp "$NT/tagged-output-rtx5090.log" -J "$TMP/t.jsonl" >"$TMP/t.out" || check_fail "import 5090 exited $?"
check_eq "-J message" "imported 16 result records in 1 run from $NT/tagged-output-rtx5090.log into $TMP/t.jsonl" "$(cat "$TMP/t.out")"
t() { jq -r "$1" "$TMP/t.jsonl"; }
check_eq "5090: stack (no +cuda in its NCCL version line: said in the name)" "nccl-2.29.7 (CUDA unknown)|2.29.7|2.29.7|2.18.0" \
  "$(t 'select(.type=="run") | "\(.stack.name)|\(.stack.nccl_loaded)|\(.stack.nccl_compiled)|\(.nccl_tests_version)"')"
check_eq "the CUDA version of 'NCCL version 2.29.7+cuda12.9' names the stack" "nccl-2.29.7+cuda12.9" \
  "$(imp "$NT/phase0-1rank-rtx5090.log" | jq -r 'select(.type=="run") | .stack.name')"
check_eq "5090: 16M out/in" "7728.29 7659.38" "$(t 'select(.type=="result" and .size==16777216) | .time_us.mean' | paste -sd' ')"
check_eq "5090: iters/warmup" "50 10" "$(t 'select(.type=="result") | "\(.iters) \(.warmup)"' | head -1)"
imp "$NT/tagged-output-rtx5090.log" -J "$TMP/t.jsonl" >/dev/null
check_eq "-J appends" 34 "$(wc -l <"$TMP/t.jsonl")"
# No device lines: the rank count comes from busbw/algbw (2(n-1)/n), or --ranks.
grep -v '# *Rank' "$NT/old-error-column-4xK80.log" >"$TMP/norank.log"
check_eq "ranks inferred from busbw/algbw" 4 "$(imp "$TMP/norank.log" | jq -r 'select(.type=="run") | .ranks')"
# Malformed logs: one line naming the file (and line), exit 2.
sed '15s/ 0 *$//' "$NT/pcie-2x2080ti.log" >"$TMP/short.log"
check_bad "row with a missing column" "short.log:15: malformed all_reduce_perf row: expected 13 columns, found 12" imp "$TMP/short.log"
check_eq "names the line" 1 "$(grep -c 'short.log:15: malformed all_reduce_perf row: expected 13 columns, found 12' "$TMP/bad.err")"
# A header of one time group (a log cut to its out-of-place half): refused at the header, never read as two
# halves (fuzz_import found it reading before the row's first token).
awk 'NR == 9 { print "#", $2, $3, $4, $5, $6, $7, $8, $9, $10; next } /^ +[0-9]/ { print $1, $2, $3, $4, $5, $6, $7, $8, $9; next } 1' \
  "$NT/pcie-2x2080ti.log" >"$TMP/onehalf.log"
check_bad "one time group" "onehalf.log:9: header line with one time column: all_reduce_perf prints an out-of-place and an in-place group" imp "$TMP/onehalf.log"
sed '12s/11.77/11.x7/' "$NT/pcie-2x2080ti.log" >"$TMP/num.log"
check_bad "bad number" "num.log:12: bad number '11.x7' in the time column" imp "$TMP/num.log"
sed 's/sum      -1/sum       0/' "$NT/pcie-2x2080ti.log" >"$TMP/root.log"
check_bad "root is not -1 (reduce output)" "root.log:11: this row of an all_reduce_perf test is not allreduce output: root column 0" imp "$TMP/root.log"
sed 's/Collective test starting: all_reduce_perf_mpi/Collective test starting: all_gather_perf/' "$NT/tagged-output-rtx5090.log" >"$TMP/ag.log"
check_bad "all_gather log" "ag.log: no all_reduce_perf test in it, only all_gather_perf (line 5)" imp "$TMP/ag.log"
: >"$TMP/empty.log"
check_bad "empty log" "empty.log: no all_reduce_perf result rows found" imp "$TMP/empty.log"
check_bad "missing log" "cannot open nccl-tests log '$TMP/none.log'" imp "$TMP/none.log"
check_bad "unknown format" "unknown format 'osu-bench' (formats imported: nccl-tests LOG, nccl-tests-json FILE (all_reduce_perf -J), aiconfigurator)" "$ARBENCH" import osu-bench "$NT/pcie-2x2080ti.log"
check_bad "no log" "expected 'nccl-tests LOG'" "$ARBENCH" import nccl-tests
check_bad "unknown option" "unknown option '--bogus'" imp --bogus "$NT/pcie-2x2080ti.log"
check_bad "bad --ranks" "bad --ranks '0' (expected an integer from 1 to 10000000)" imp --ranks 0 "$NT/pcie-2x2080ti.log"
sed '12s/float/floatx/' "$NT/pcie-2x2080ti.log" >"$TMP/type.log"
check_bad "unknown data type" "type.log:12: unknown data type 'floatx'" imp "$TMP/type.log"
sed '11s/12.25/-12.25/' "$NT/pcie-2x2080ti.log" >"$TMP/neg.log"
check_bad "negative time" "neg.log:11: negative value '-12.25' in the time column" imp "$TMP/neg.log"
sed 's/ on autodl-container-xxxxx device/ device/' "$NT/pcie-2x2080ti.log" >"$TMP/dev.log"
check_bad "device line without its host" "dev.log:5: malformed device line" imp "$TMP/dev.log"
sed '9s/  time/  cputime/g' "$NT/pcie-2x2080ti.log" >"$TMP/cpu.log"
check_bad "cputime columns (-C): launch times" "cpu.log:9: 'cputime' columns (nccl-tests -C) time the launch, not the allreduce" imp "$TMP/cpu.log"
sed '11s/     0    12.00/  1e+06    12.00/' "$NT/pcie-2x2080ti.log" >"$TMP/wrong.log"
check_eq "a #wrong count in %g's exponent form" "1000000 true" \
  "$(imp "$TMP/wrong.log" | jq -r 'select(.type=="result" and .size==8 and .placement=="out") | "\(.wrong) \(.checked)"')"
# nccl-tests 2.19.3+ per-iteration columns (-z 3 / its per-iteration report): time, algbw, busbw, #wrong found by name.
{ sed -n '1,8p' "$NT/pcie-2x2080ti.log"
  echo "#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%"
  echo "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)     (us)     (us)      (%)     (us)  (GB/s)  (GB/s)             (us)     (us)     (us)      (%)"
  echo "     1048576        262144     float     sum      -1    279.5    3.75    3.75       0   270.10   290.20   289.90     1.20    280.2    3.74    3.74       0   271.00   291.00   290.50     1.10"
} >"$TMP/periter.log"
check_eq "per-iteration columns skipped by name" "279.5 3.75 0|280.2 3.74 0" \
  "$(imp "$TMP/periter.log" | jq -r 'select(.type=="result") | "\(.time_us.mean) \(.busbw_gbs) \(.wrong)"' | paste -sd'|')"
{ sed -n '1,19p' "$NT/pcie-2x2080ti.log"; sed -n '11,12p' "$NT/pcie-2x2080ti.log"; } >"$TMP/cycles.log"
check_eq "rows starting over (nccl-tests -N): the next cycle" "0 0 0 0 0 0 0 0 0 1 1" \
  "$(imp "$TMP/cycles.log" | jq -r 'select(.type=="result" and .placement=="out") | .repeat' | paste -sd' ')"
{ sed -n '1,12p' "$NT/pcie-2x2080ti.log"; echo '          32             2     float     sum      -1    12.86    0.00    0.00      0    11.59    0.00    0.00      0'; } >"$TMP/mixed.log"
check_bad "a table of two collectives" "mixed.log:13: this row of an all_reduce_perf test is not allreduce output: 2 elements of float are not 32 bytes" imp "$TMP/mixed.log"
finish
