#!/bin/bash
# import_logs.sh — `arbench import nccl-tests` on every published log of tests/fixtures/nccl-tests (SOURCES
# says where each was published): tests, records, rank counts and where they came from, values of rows read
# off the logs by hand, nccl-tests' method on every record, the tests left out, the logs refused.
. "$(dirname "$0")/common.sh"
imp() { "$ARBENCH" import nccl-tests "$@"; }

# Every log is listed in SOURCES with a repository, a path and a full commit.
for f in "$NT"/*.log; do
  b=$(basename "$f")
  check_eq "SOURCES lists $b" 1 "$(awk -F'\t' -v f="$b" '$1 == f && length($4) == 40 && $4 ~ /^[0-9a-f]+$/ && $2 ~ /\// && $3 != ""' \
    "$NT/SOURCES" | wc -l)"
done

# log | tests | result records | ranks | from | nodes | stack: read off each log (see the README's table).
while IFS='|' read -r log tests results ranks from nodes stack; do
  imp "$NT/$log" >"$TMP/o.jsonl" 2>"$TMP/e.txt" || check_fail "$log: import exited $? ($(cat "$TMP/e.txt"))"
  j() { jq -r "$1" "$TMP/o.jsonl"; }
  check_eq "$log: tests, results" "$tests $results" "$(j 'select(.type=="run") | 1' | wc -l) $(j 'select(.type=="result") | 1' | wc -l)"
  check_eq "$log: ranks, from, nodes, stack" "$ranks|$from|$nodes|$stack" \
    "$(j 'select(.type=="run") | "\(.ranks)|\(.ranks_from)|\(.nodes)|\(.stack.name)"' | sort -u | paste -sd' ')"
  check_eq "$log: results carry the runs' ranks and nccl-tests' method" "$ranks hot loop mean nccl-tests" \
    "$(j 'select(.type=="result") | "\(.ranks) \(.buffers) \(.timing) \(.average) \(.backend)"' | sort -u | paste -sd' ')"
done <<'T'
old-error-column-4xK80.log|1|14|4|busbw/algbw|1|unknown
pcie-2x2080ti.log|1|56|2|busbw/algbw|1|unknown
tagged-output-rtx5090.log|1|16|2|busbw/algbw|1|nccl-2.29.7 (CUDA unknown)
superbench-allreduce-8xA100.log|1|68|8|busbw/algbw|1|unknown
coreweave-mpijob-96.log|1|10|96|busbw/algbw|null|unknown
coreweave-gb200-rank71.log|1|10|72|busbw/algbw|null|unknown
coreweave-gb200-rank143.log|1|12|128|busbw/algbw|null|unknown
coreweave-gb200-rank1439.log|1|12|1440|Rank lines|null|unknown
aws-eks-tagged-indent-16xH100.log|1|14|16|busbw/algbw|null|unknown
aws-batch-tagged-8xH100.log|1|64|8|busbw/algbw|null|unknown
aws-topology-aware-128.log|1|6|128|busbw/algbw|null|unknown
aws-srun-label-2xp4de.log|1|58|16|busbw/algbw|null|unknown
aws-srun-label-2xp5.log|1|64|16|busbw/algbw|null|unknown
rccl-mi300x-8.log|1|62|8|busbw/algbw|1|unknown
rccl-mi300x-2node-16.log|1|64|16|busbw/algbw|2|rccl-2.22.3
rccl-mi355x-2node-16.log|1|62|16|busbw/algbw|2|rccl-2.26.6
a3mega-stripped-16xH100.log|1|62|16|busbw/algbw|2|unknown
phase0-1rank-rtx5090.log|1|24|1|busbw/algbw|1|nccl-2.29.7+cuda12.9
socket-threads-multi-collective.log|9|144|2|busbw/algbw|1|nccl-2.29.7 (CUDA unknown)
proto-mpmd-rtx5090.log|3|24|2|busbw/algbw|1|nccl-2.29.7 (CUDA unknown)
dstack-nebius-stripped-16.log|1|62|16|busbw/algbw|null|unknown
nccl-osx-five-collectives.log|1|50|2|busbw/algbw|1|unknown
nccl-osx-five-collectives-elided.log|1|12|2|busbw/algbw|null|unknown
T

# Rows read off the logs: size, placement -> time (us) and busbw (GB/s), #wrong or the old error column.
row() { # row LOG JQ-SELECT EXPECTED
  check_eq "$1: $2" "$3" "$(imp "$NT/$1" 2>/dev/null | jq -r "select(.type==\"result\" and $2) | \"\(.time_us.mean) \(.busbw_gbs) \(.wrong) \(.max_error) \(.checked)\"" | paste -sd'|')"
}
row superbench-allreduce-8xA100.log '.size==8589934592' '63896 235.26 null null false|63959 235.03 null null false'
row superbench-allreduce-8xA100.log '.size==0 and .placement=="out"' '35.2 0 null null false|34.18 0 null null false'
row coreweave-mpijob-96.log '.size==536870912 and .placement=="out"' '2984.6 356.01 0 null true'
row coreweave-gb200-rank71.log '.size==8589934592 and .placement=="in"' '20006 846.82 0 null true'
row coreweave-gb200-rank1439.log '.size==17179869184 and .placement=="out"' '84625 405.74 0 null true'
row aws-eks-tagged-indent-16xH100.log '.size==2147483648 and .placement=="out"' '9197.5 437.79 0 null true'
row aws-batch-tagged-8xH100.log '.size==17179869184 and .placement=="in"' '62200 483.35 0 null true'
row aws-topology-aware-128.log '.size==17179869184 and .placement=="out"' '92173 369.86 0 null true'
row aws-srun-label-2xp4de.log '.size==2147483648 and .placement=="out"' '51406 78.33 0 null true'
row aws-srun-label-2xp5.log '.size==17179869184 and .placement=="in"' '66109 487.26 0 null true'
row rccl-mi300x-8.log '.size==8589934592 and .placement=="out"' '47617 315.69 0 null true'
row rccl-mi300x-2node-16.log '.size==17179869184 and .placement=="out"' '90115 357.46 0 null true'
row rccl-mi355x-2node-16.log '.size==8589934592 and .placement=="in"' '43639 369.08 0 null true'
row a3mega-stripped-16xH100.log '.size==8589934592 and .placement=="out"' '47535 338.82 0 null true'
row phase0-1rank-rtx5090.log '.size==134217728' '176.33 0 0 null true|0.1 0 0 null true'
row proto-mpmd-rtx5090.log '.size==67108864 and .placement=="out"' '26331 2.55 0 null true|1118174 0.06 0 null true|65867.6 1.02 0 null true'
row dstack-nebius-stripped-16.log '.size==8589934592 and .placement=="out"' '34448.4 467.54 0 null true'
row nccl-osx-five-collectives.log '.size==134217728' '154639 0.87 null 0 true|157295 0.85 null 0 true'
row nccl-osx-five-collectives-elided.log '.size==33554432 and .placement=="out"' '39235 0.86 null 0 true'
check_eq "1 rank: the %e fallback of algbw (1e+06)" 1000000 \
  "$(imp "$NT/phase0-1rank-rtx5090.log" | jq -r 'select(.type=="result" and .size==134217728 and .placement=="in") | .algbw_gbs')"
check_eq "socket-threads: the 9 tests' 128 MiB out-of-place times, in log order" \
  "58479.5 58458.9 58468.9 63590.6 67765.9 64472 58356.8 59400.5 59351.9" \
  "$(imp "$NT/socket-threads-multi-collective.log" 2>/dev/null | jq -r 'select(.type=="result" and .size==134217728 and .placement=="out") | .time_us.mean' | paste -sd' ')"

# Header facts: hosts and devices from Rank lines (stripped of '#' or not), versions, the collective.
a() { imp "$NT/a3mega-stripped-16xH100.log" | jq -r "select(.type==\"run\") | $1"; }
check_eq "a3mega: hosts, 16 Rank lines, the first without its '#'" "ztan-mig-235z ztan-mig-gq73 16 0000:04:00" \
  "$(a '"\(.hosts | join(" ")) \(.rank_map | length) \(.gpus[0].busid)"')"
check_eq "a3mega: options of the '#'-stripped nThread line" "8 8589934592 20 5 1" \
  "$(a '"\(.options.minbytes) \(.options.maxbytes) \(.options.iters) \(.options.warmup) \(.options.validation)"')"
check_eq "a3mega: the collective from the quoted command line" all_reduce_perf "$(a .collective)"
check_eq "rccl MI355X: Rank lines without a device name" "0000:75:00|" \
  "$(imp "$NT/rccl-mi355x-2node-16.log" | jq -r 'select(.type=="run") | "\(.gpus[0].busid)|\(.gpus[0].name)"')"
check_eq "rccl MI300X 2 nodes: the rccl-tests version, RCCL's" "rccl-tests develop:448c4c7 2.22.3 rccl" \
  "$(imp "$NT/rccl-mi300x-2node-16.log" | jq -r 'select(.type=="run") | "\(.tool) \(.rccl_tests_version) \(.stack.nccl_loaded) \(.stack.library)"')"
check_eq "phase0: NCCL from its INFO line and the version line" "2.29.7 2.29.7 12.9 2.18.0 all_reduce_perf" \
  "$(imp "$NT/phase0-1rank-rtx5090.log" | jq -r 'select(.type=="run") | "\(.stack.nccl_loaded) \(.stack.nccl_compiled) \(.stack.nccl_cuda) \(.nccl_tests_version) \(.collective)"')"
check_eq "nebius: the '#'-stripped footer" "125.499 0" \
  "$(imp "$NT/dstack-nebius-stripped-16.log" | jq -r 'select(.type=="run") | "\(.avg_busbw_gbs) \(.out_of_bounds)"')"
check_eq "proto: 'Avg bus bandwidth : 2.494 GB/s' read as 2.494" "2.494 0.06 0.988" \
  "$(imp "$NT/proto-mpmd-rtx5090.log" | jq -r 'select(.type=="run") | .avg_busbw_gbs' | paste -sd' ')"
check_eq "superbench: two 0-byte rows are no second cycle" "0" \
  "$(imp "$NT/superbench-allreduce-8xA100.log" | jq -r 'select(.type=="result") | .repeat' | sort -u | paste -sd' ')"

# Rank counts: the evidence and its cross-check.
imp "$NT/coreweave-gb200-rank143.log" >"$TMP/r.jsonl" 2>"$TMP/r.err"
check_eq "rank143: one warning naming both counts" \
  "arbench import: warning: $NT/coreweave-gb200-rank143.log:1: rank count: busbw/algbw says 128; Rank lines end at rank 143 (1 line): using 128 (busbw/algbw)" \
  "$(cat "$TMP/r.err")"
check_eq "rank1439: no warning (1440 fits busbw/algbw's 1404..1472)" "" "$(imp "$NT/coreweave-gb200-rank1439.log" 2>&1 >/dev/null)"
check_eq "--ranks overrides, with the warning" "144 --ranks" \
  "$(imp "$NT/coreweave-gb200-rank143.log" --ranks 144 2>"$TMP/r.err" | jq -r 'select(.type=="run") | "\(.ranks) \(.ranks_from)"')"
check_eq "--ranks: the warning names what it overrode" 1 "$(grep -c -- '--ranks 144; busbw/algbw says 128' "$TMP/r.err")"
grep -v 'Rank' "$NT/coreweave-gb200-rank1439.log" >"$TMP/norank.log"
check_bad "1440 ranks without the Rank line: busbw/algbw cannot tell" \
  "cannot tell the number of ranks (busbw/algbw allows 1404..1472): pass --ranks N" imp "$TMP/norank.log"
check_eq "... and --ranks says it" 1440 "$(imp "$TMP/norank.log" --ranks 1440 | jq -r 'select(.type=="run") | .ranks')"
check_eq "rccl 2 nodes: launcher -np 16 agrees" "" "$(imp "$NT/rccl-mi300x-2node-16.log" 2>&1 >/dev/null)"
sed 's/-np 16 /-np 8 /' "$NT/rccl-mi300x-2node-16.log" >"$TMP/np8.log"
check_eq "a launcher line that disagrees: one warning" \
  "rank count: busbw/algbw says 16; Rank lines end at rank 15 (16 lines); launcher starts 8: using 16 (busbw/algbw)" \
  "$(imp "$TMP/np8.log" 2>&1 >/dev/null | sed 's/.*:[0-9]*: //')"
check_eq "MPMD launcher: -np 1 : -np 1 is 2 ranks" "" "$(imp "$NT/proto-mpmd-rtx5090.log" 2>&1 >/dev/null | grep -v ': known-bad stack: ')"
check_eq "known-bad: two ranks on one RTX 5090 are not a pair (NCCL 2.29.7's entry only)" "nccl-2094-small-allreduce-2.29" \
  "$(imp "$NT/proto-mpmd-rtx5090.log" 2>/dev/null | jq -r 'select(.type=="run") | .known_bad[]' | sort -u)"

# Tests of other collectives: left out and named in one line; alone, refused.
imp "$NT/nccl-osx-five-collectives.log" >/dev/null 2>"$TMP/s.err"
check_eq "five collectives: the four left out, in one line" \
  "arbench import: $NT/nccl-osx-five-collectives.log: left out 4 tests of other collectives or without results: all_gather_perf (line 41); broadcast_perf (line 80); reduce_perf (line 119); reduce_scatter_perf (line 158)" \
  "$(cat "$TMP/s.err")"
check_eq "socket-threads: six all_gather_perf_mpi tests left out" 6 \
  "$(imp "$NT/socket-threads-multi-collective.log" 2>&1 >/dev/null | grep -o 'all_gather_perf_mpi (line' | wc -l)"
check_bad "all_gather alone (old layout: no redop column)" "only another collective's table (line 17: no redop column" \
  imp "$NT/superbench-allgather-8xA100.log"
check_bad "reduce_scatter alone (sum, but count x 4 B is not the size)" \
  "(line 22: 1 elements of float are not 32 bytes: reduce_scatter or all_gather output)" imp "$NT/superbench-reducescatter-8xA100.log"
check_bad "all_gather alone, '#' stripped (redop none)" "(line 7: redop 'none'" imp "$NT/dstack-gcp-a3mega-allgather.log"
sed -n '1,39p;157,194p' "$NT/nccl-osx-five-collectives.log" | sed 's/===begin reduce_scatter_perf test===//' >"$TMP/ar_rs.log"
check_eq "an unnamed reduce_scatter table after all_reduce: left out by its rows" \
  "left out 1 test of other collectives or without results: another collective's table (line 50: 1 elements of float are not 8 bytes: reduce_scatter or all_gather output)" \
  "$(imp "$TMP/ar_rs.log" 2>&1 >/dev/null | sed 's/.*ar_rs.log: //')"

# compare matches an import (NCCL's defaults under nccl-tests) with arbench's nccl backend in nccl-tests' method
# (the B side here: the same records as arbench's nccl would write them, 10% slower); another method: no match.
imp "$NT/pcie-2x2080ti.log" >"$TMP/a.jsonl"
nccl_side() { jq -c --arg t "$1" 'if .type=="result" then .backend="nccl" | .spec="nccl" | .timing=$t | .run_id="0123456789abcdef"
  | .time_us.mean *= 1.1 | .time_us.p50 *= 1.1 elif .type=="run" then .run_id="0123456789abcdef" | .source="arbench" else . end' \
  "$TMP/a.jsonl"; }
nccl_side loop >"$TMP/b.jsonl"
check_eq "compare: import against nccl in nccl-tests' method: 56 matches, ratio 1.1, nothing unmatched" "56 1.100 0 0" \
  "$("$ARBENCH" compare "$TMP/a.jsonl" "$TMP/b.jsonl" --format json | jq -r '(.comparisons // [.])[0] |
    "\(.matches | length) \([.matches[].ratio * 1000 | round / 1000] | unique | map(tostring + "00") | .[0][0:5]) \(.only_a | length) \(.only_b | length)"')"
nccl_side iter >"$TMP/b.jsonl"
check_eq "compare: nccl timed per iteration is another method: no match" "0 56 56" \
  "$("$ARBENCH" compare "$TMP/a.jsonl" "$TMP/b.jsonl" --format json | jq -r '(.comparisons // [.])[0] |
    "\(.matches | length) \(.only_a | map(.sizes | length) | add) \(.only_b | map(.sizes | length) | add)"')"
finish
