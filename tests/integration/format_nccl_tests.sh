#!/bin/bash
# format_nccl_tests.sh — `arbench run --format nccl-tests` on 2 CPU ranks (mpi): stdout is nccl-tests 2.18's
# all_reduce_perf layout (header lines identical to a real 2.18 log's, rows in its columns), read exactly by
# the rules of three real parsers (nt_parsers.py) and by arbench's own importer (the round trip);
# --nccl-tests-dir writes one log per configuration; the format's method defaults; bad input.
. "$(dirname "$0")/../lib/common.sh"
ar_counting
NT="$ARBENCH_SRC/tests/fixtures/nccl-tests"
P() { $PY "$(dirname "$0")/nt_parsers.py" "$@"; }
J="$TMP/r.jsonl"
ar_mpirun 2 run --backend mpi --format nccl-tests -b 8 -e 1M -n 20 -J "$J" >"$TMP/log" 2>"$TMP/err" ||
  check_fail "run exited $?: $(cat "$TMP/err")"

# stdout: the log alone, first line to last; arbench's own lines went to stderr.
check_eq "first line: the version line naming arbench" \
  "# nccl-tests version 2.18.5 nccl-headers=$(jq -r 'select(.type=="run") | .stack.nccl_compiled // "0" | split(".") | if length == 3 then (.[0]|tonumber)*10000 + (.[1]|tonumber)*100 + (.[2]|tonumber) else 0 end' "$J") nccl-library=$(jq -r 'select(.type=="run") | .stack.nccl_loaded // "0" | split(".") | if length == 3 then (.[0]|tonumber)*10000 + (.[1]|tonumber)*100 + (.[2]|tonumber) else 0 end' "$J") arbench=$("$ARBENCH" version | awk 'NR==1 {print $2}')" \
  "$(head -1 "$TMP/log")"
check_eq "then the collective and the nThread line" \
  "# Collective test starting: all_reduce_perf|# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 10 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0" \
  "$(sed -n '2,3p' "$TMP/log" | paste -sd'|')"
check_eq "the configuration and method comments" "spec=mpi dtype=float op=sum ranks=2 nodes=1 placements=out,in|buffers=hot timing=loop average=mean" \
  "$(grep '^# arbench ' "$TMP/log" | grep -o 'spec=.*placements=[a-z,]*\|buffers=hot timing=loop average=mean' | head -2 | paste -sd'|')"
check_eq "one Rank line per rank: CPU ranks, device -1, no bus id" "2 2" \
  "$(grep -c '^#  Rank  [01] Group  0 Pid  *[0-9]* on  *[^ ]* device -1 CPU$' "$TMP/log") $(grep -c 'Rank' "$TMP/log")"
check_eq "every line is nccl-tests': '#' lines, 18 rows, one empty last line" "18 1" \
  "$(grep -cvE '^#|^$' "$TMP/log") $(tail -1 "$TMP/log" | grep -c '^$')"
check_eq "the footer" "# Out of bounds values : 0 OK|# Avg bus bandwidth    : |#|# Collective test concluded: all_reduce_perf|#" \
  "$(tail -6 "$TMP/log" | head -5 | sed 's/\(bandwidth    : \)[0-9.e+-]* $/\1/' | paste -sd'|')"
check_eq "stderr: arbench's start-up lines, none of the log's" "1 0" \
  "$(grep -c '^# arbench .*2 ranks on 1 node' "$TMP/err") $(grep -c 'out-of-place' "$TMP/err")"

# The layout of a real nccl-tests 2.18 log (tagged-output-rtx5090.log): the same three column-header lines,
# byte for byte, and every row's columns ending where the real rows' do.
real="$TMP/real"
sed -n 's/^\[1,0\]<stdout>://p' "$NT/tagged-output-rtx5090.log" >"$real"
check_eq "column header lines identical to nccl-tests 2.18's" "$(sed -n '/out-of-place/,/(B)/p' "$real")" \
  "$(sed -n '/out-of-place/,/(B)/p' "$TMP/log")"
ends() { grep -E '^ +[0-9]+ +[0-9]+ +float' "$1" | awk '{ s = $0; e = ""; p = 0;
  while (match(s, /[^ ]+/)) { p += RSTART + RLENGTH - 1; e = e " " p; s = substr(s, RSTART + RLENGTH) } print e }' | sort -u; }
check_eq "rows: the columns of nccl-tests 2.18's rows" "$(ends "$real")" "$(ends "$TMP/log")"

# Round trip: arbench import gives back the records (to the printed precision) and the configuration.
"$ARBENCH" import nccl-tests "$TMP/log" >"$TMP/back.jsonl" 2>"$TMP/imp.err" || check_fail "import exited $?: $(cat "$TMP/imp.err")"
check_eq "round trip: no warning" "" "$(cat "$TMP/imp.err")"
check_eq "round trip: run" "2 1 Rank lines|busbw/algbw $(jq -r 'select(.type=="run") | .run_id' "$J") $(jq -r 'select(.type=="run") | .stack.name' "$J")" \
  "$(jq -r 'select(.type=="run") | "\(.ranks) \(.nodes) \(.ranks_from) \(.written_by.run_id) \(.stack.name)"' "$TMP/back.jsonl" | sed 's/Rank lines\|busbw\/algbw/Rank lines|busbw\/algbw/')"
key='select(.type=="result") | "\(.backend)|\(.variant)|\(.spec)|\(.dtype)|\(.op)|\(.placement)|\(.size)|\(.count)|\(.ranks)|\(.buffers)|\(.timing)|\(.average)|\(.repeat)"'
check_eq "round trip: the same 36 records (configuration, size, placement, ranks, method)" \
  "$(jq -r "$key" "$J")" "$(jq -r "$key" "$TMP/back.jsonl")"
check_eq "round trip: 36 records" 36 "$(jq -r "$key" "$TMP/back.jsonl" | wc -l)"
# times and busbw within half a unit of the printed digit (nccl-tests' widths: time 7, busbw 6 characters)
check_eq "round trip: time and busbw equal to the printed precision" "" "$(jq -s -r '
  def half(v; w): if v == 0 then 0.005 else [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000] as $p
    | ([$p[] | select(. <= v)] | length) as $pw
    | if $pw < w - 2 then 0.005 elif $pw < w - 1 then 0.05 elif $pw < w + 1 then 0.5 else v * 0.05 end end;
  (map(select(.type=="result")) | group_by(.size, .placement))[] as $g
  | ($g[0]) as $a | ($g[1]) as $b | select($g | length != 2
    or (($a.time_us.mean - $b.time_us.mean) | fabs) > half($a.time_us.mean; 7) + 1e-9
    or (($a.busbw_gbs - $b.busbw_gbs) | fabs) > half($a.busbw_gbs; 6) + 1e-9) | "\($a.size) \($a.placement)"' "$J" "$TMP/back.jsonl")"

# The three parsers' rules (nt_parsers.py names the files and commits they come from).
want_out=$(jq -r 'select(.type=="result" and .placement=="out" and .size > 0) | "\(.size) \(.busbw_gbs)"' "$TMP/back.jsonl")
want_in=$(jq -r 'select(.type=="result" and .placement=="in" and .size > 0) | "\(.size) \(.busbw_gbs)"' "$TMP/back.jsonl")
check_eq "superbench nccl-bw: out-of-place busbw of every size" "$want_out" \
  "$(P superbench "$TMP/log" | jq -r '.rows | to_entries[] | "\(.key) \(.value.busbw)"')"
check_eq "superbench nccl-bw --in_place: in-place busbw of every size" "$want_in" \
  "$(P superbench "$TMP/log" in | jq -r '.rows | to_entries[] | "\(.key) \(.value.busbw)"')"
check_eq "superbench nccl-bw: times too" "$(jq -r 'select(.type=="result" and .placement=="out") | .time_us.mean' "$TMP/back.jsonl")" \
  "$(P superbench "$TMP/log" | jq -r '.rows[] | .time')"
check_eq "aws nccl_to_csv: every row, both groups" \
  "$(jq -r 'select(.type=="result") | "\(.size) \(.time_us.mean) \(.busbw_gbs) \(.wrong)"' "$TMP/back.jsonl")" \
  "$(P aws "$TMP/log" | jq -r '.rows[] | "\(.size) \(.out.time) \(.out.busbw) \(.out.wrong)", "\(.size) \(.in.time) \(.in.busbw) \(.in.wrong)"')"
avg=$(jq -r 'select(.type=="run") | .avg_busbw_gbs' "$TMP/back.jsonl")
check_eq "aws nccl_to_csv: the average bus bandwidth" "$avg" "$(P aws "$TMP/log" | jq -r .avg)"
check_eq "azure check_nccl_allreduce: field 5 of the first 'bandwidth' line, passes" "true $avg" \
  "$(P azure "$TMP/log" 0.000001 | jq -r '"\(.ok) \(.avg)"')"
check_eq "azure: fails when the average is below the expected one" false "$(P azure "$TMP/log" 1e9 | jq -r .ok)"

# The rules read real nccl-tests logs too (so they are the parsers' own, not fitted to arbench's output).
check_eq "superbench rule on superbench's own log: 8 GiB busbw" 235.26 \
  "$(P superbench "$NT/superbench-allreduce-8xA100.log" | jq -r '.rows["8589934592"].busbw')"
check_eq "aws rule on a real 2.x log: 28 rows, its average" "28 2.05774" \
  "$(P aws "$NT/pcie-2x2080ti.log" | jq -r '"\(.rows | length) \(.avg)"')"
check_eq "azure rule on a real log" "true 2.05774" "$(P azure "$NT/pcie-2x2080ti.log" 1 | jq -r '"\(.ok) \(.avg)"')"
check_eq "the old arbench table broke them: no aws rows in --format arbench --timing iter" 0 \
  "$(ar_mpirun 2 run --backend mpi -b 8 -e 64 -n 5 --inplace both >"$TMP/table" 2>/dev/null; P aws "$TMP/table" | jq -r '.rows | length')"

# Wrong results: nccl-tests' FAILED line, which the health check reads; the run fails.
rc=0
mpirun -q --oversubscribe -np 2 -x ARBENCH_INJECT_FAULT=1:first "$ARBENCH" run --backend mpi --format nccl-tests \
  --sizes 1K -n 5 >"$TMP/bad.log" 2>/dev/null || rc=$?
check_eq "injected fault: exit 1, the out-of-bounds line says FAILED" "1 # Out of bounds values : 2 FAILED" \
  "$rc $(grep 'Out of bounds' "$TMP/bad.log")"
check_eq "azure: fails on it" "false Out of bounds values failed" "$(P azure "$TMP/bad.log" 0 | jq -r '"\(.ok) \(.why)"')"

# --nccl-tests-dir: one complete log per configuration; stdout keeps arbench's table.
D="$TMP/logs"
ar_mpirun 2 run --backend mpi,shm-oneshot -d float,int32 --nccl-tests-dir "$D" -b 8 -e 4K -n 5 >"$TMP/table2" 2>&1 ||
  check_fail "--nccl-tests-dir run exited $?"
check_eq "four logs" "mpi-float.log mpi-int32.log shm-oneshot-float.log shm-oneshot-int32.log" "$(ls "$D" | paste -sd' ')"
check_eq "stdout: arbench's table with the format's method" 4 "$(grep -c '^# buffers hot (one set reused), timing loop (one interval / iterations), time = average over ranks (-a 1)$' "$TMP/table2")"
for f in "$D"/*.log; do
  b=$(basename "$f" .log)
  check_eq "$b: one test, its configuration" "1 ${b%-*} ${b##*-} 20" \
    "$("$ARBENCH" import nccl-tests "$f" | jq -r 'select(.type=="run") | .written_by' | jq -s -r '"\(length) \(.[0].spec) \(.[0].dtype)"') $("$ARBENCH" import nccl-tests "$f" | grep -c '"result"')"
  check_eq "$b: superbench and azure read it" "true true" "$(P superbench "$f" | jq -r .ok) $(P azure "$f" | jq -r .ok)"
done
check_eq "aws reads float rows; its type list has no int32 (nor bfloat16), as for nccl-tests' own logs" "10 0" \
  "$(P aws "$D/mpi-float.log" | jq -r '.rows | length') $(P aws "$D/mpi-int32.log" | jq -r '.rows | length')"

# --repeat: rows again in the same block, as nccl-tests -N prints cycles; read back as repeats.
ar_mpirun 2 run --backend mpi --format nccl-tests --sizes 8,64 -n 5 --repeat 2 >"$TMP/rep.log" 2>/dev/null
check_eq "--repeat 2: 4 rows, read back as repeat 0 and 1" "4 0 0 1 1" \
  "$(grep -cE '^ +[0-9]+ ' "$TMP/rep.log") $("$ARBENCH" import nccl-tests "$TMP/rep.log" | jq -r 'select(.type=="result" and .placement=="out") | .repeat' | paste -sd' ')"
# --inplace no: the in-place group left blank, read back as out-of-place only.
ar_mpirun 2 run --backend mpi --format nccl-tests --sizes 8 -n 5 --inplace no >"$TMP/out.log" 2>/dev/null
check_eq "--inplace no: a blank in-place group" 1 "$(grep -cE '^ +8 +2 +float +sum +-1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +0 {32}$' "$TMP/out.log")"
check_eq "--inplace no: read back as one out-of-place record" out \
  "$("$ARBENCH" import nccl-tests "$TMP/out.log" | jq -r 'select(.type=="result") | .placement')"
# The format's method defaults, and what is given instead.
ar_mpirun 2 run --backend mpi --format nccl-tests --sizes 8 -n 5 -a 3 --timing iter -J "$TMP/m.jsonl" >/dev/null 2>&1
check_eq "given -a 3 --timing iter: kept, recorded and stated" "iter max|buffers=hot timing=iter average=max" \
  "$(jq -r 'select(.type=="result") | "\(.timing) \(.average)"' "$TMP/m.jsonl" | sort -u)|$(ar_mpirun 2 run --backend mpi \
    --format nccl-tests --sizes 8 -n 5 -a 3 --timing iter 2>/dev/null | grep -o 'buffers=hot timing=iter average=max')"

# --format nccl-tests-2.19 (issue 49): nccl-tests 2.19.6's layout; with -I 1 (--timing iter) its per-iteration
# columns, whose header lines are those of the log constructed from v2.19.6's source, read back by the importer.
J2="$TMP/r219.jsonl"
ar_mpirun 2 run --backend mpi --format nccl-tests-2.19 -I 1 -b 8 -e 64K -n 20 -J "$J2" >"$TMP/log219" 2>"$TMP/err219" ||
  check_fail "2.19 run exited $?: $(cat "$TMP/err219")"
A219="$NT/2.19/constructed-2.19.6-I1-K2-z3-4gpu.log"
check_eq "2.19: the version line names 2.19.6" "# nccl-tests version 2.19.6" "$(head -1 "$TMP/log219" | cut -d' ' -f1-4)"
check_eq "2.19: column header lines identical to nccl-tests 2.19.6's with -I" "$(sed -n '/out-of-place/,/(B)/p' "$A219")" \
  "$(sed -n '/out-of-place/,/(B)/p' "$TMP/log219")"
check_eq "2.19: 14 rows of 21 columns, the columns ending where 2.19.6's do" "14|$(ends "$A219")" \
  "$(awk '$1 ~ /^[0-9]+$/ && NF == 21' "$TMP/log219" | wc -l)|$(ends "$TMP/log219")"
"$ARBENCH" import nccl-tests "$TMP/log219" >"$TMP/back219.jsonl" 2>"$TMP/imp219.err" || check_fail "2.19 import exited $?"
check_eq "2.19 round trip: 28 records, arbench's method back (iter, mean)" "28|iter mean" \
  "$(jq -r 'select(.type=="result") | 1' "$TMP/back219.jsonl" | wc -l)|$(jq -r 'select(.type=="result") | "\(.timing) \(.average)"' "$TMP/back219.jsonl" | sort -u)"
check_eq "2.19 round trip: i_min i_max i_p99 i_cv% are the run's min max p99 and stddev/mean to the printed precision" "" \
  "$(jq -s -r '
  def half(v; w): if v == 0 then 0.005 else [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000] as $p
    | ([$p[] | select(. <= v)] | length) as $pw
    | if $pw < w - 2 then 0.005 elif $pw < w - 1 then 0.05 elif $pw < w + 1 then 0.5 else v * 0.05 end end;
  def off(a; b): ((a - b) | fabs) > half(a; 7) + 1e-9;
  (map(select(.type=="result")) | group_by(.size, .placement))[] as $g
  | ($g[0]) as $a | ($g[1]) as $b | select($g | length != 2 or ($b.per_iter == null)
    or off($a.time_us.min; $b.time_us.min) or off($a.time_us.max; $b.time_us.max) or off($a.time_us.p99; $b.time_us.p99)
    or off($a.time_us.stddev / $a.time_us.mean * 100; $b.per_iter.cv_pct)) | "\($a.size) \($a.placement)"' "$J2" "$TMP/back219.jsonl")"
ar_mpirun 2 run --backend mpi --format nccl-tests-2.19 -b 8 -e 64 -n 5 >"$TMP/log219l" 2>/dev/null || check_fail "2.19 loop run failed"
check_eq "2.19 without -I: 2.19.6's version, the column header without per-iteration columns" \
  "# nccl-tests version 2.19.6|$(sed -n '/out-of-place/,/(B)/p' "$real")" \
  "$(head -1 "$TMP/log219l" | cut -d' ' -f1-4)|$(sed -n '/out-of-place/,/(B)/p' "$TMP/log219l")"

# Bad input: one line, exit 2, nothing on stdout, nothing written.
check_bad "several configurations without --nccl-tests-dir" \
  "--format nccl-tests writes one configuration per log, and this run has 2 (2 backends x 1 dtype)" \
  ar_mpirun 2 run --backend mpi,shm-oneshot --format nccl-tests --sizes 8
check_bad "an existing log is never overwritten" "$D/mpi-float.log exists" \
  ar_mpirun 2 run --backend mpi --nccl-tests-dir "$D" --sizes 8
check_bad "-I 1 in 2.18.5's layout" "-I 1: nccl-tests 2.18.5's layout (--format nccl-tests) has no per-iteration columns" \
  ar_mpirun 2 run --backend mpi --format nccl-tests -I 1 --sizes 8
check_bad "-z 1" "-z/--blocking 1 is an nccl-tests mode arbench does not take" ar_mpirun 2 run --backend mpi -z 1 --sizes 8
for f in "-K 2|-K/--per_iter_skip is an nccl-tests option" "-D 1|-D/--device_implementation is an nccl-tests option" \
  "-V 16|-V/--device_cta_count is an nccl-tests option"; do
  check_bad "${f%%|*}" "${f#*|}" ar_mpirun 2 run --backend mpi ${f%%|*} --sizes 8
done
check_bad "--format bogus" "bad value 'bogus' for --format (expected arbench, nccl-tests (2.18.5's layout), nccl-tests-2.18 or nccl-tests-2.19)" \
  ar_mpirun 2 run --backend mpi --format bogus --sizes 8
check_bad "--format arbench with --nccl-tests-dir" "--nccl-tests-dir writes nccl-tests logs: not with --format arbench" \
  ar_mpirun 2 run --backend mpi --format arbench --nccl-tests-dir "$TMP/x" --sizes 8
: >"$TMP/file"
check_bad "--nccl-tests-dir on a file" "is not a writable directory" ar_mpirun 2 run --backend mpi --nccl-tests-dir "$TMP/file" --sizes 8
finish
