#!/bin/bash
# table.sh — `arbench table`: exact markdown and CSV for a fixture, pick marks and crossovers, the
# skip/error listing, a real mpirun run with a torn last line, an nccl-tests import; bad input.
. "$(dirname "$0")/common.sh"
T="$FIX/tune.jsonl"
"$ARBENCH" table --ranks 4 --busbw "$T" >"$TMP/t4" 2>"$TMP/e4" || check_fail "table exited $?"
check_eq "markdown, 4 ranks, with busbw" "## bfloat16, 4 ranks, out-of-place, sum

Method: buffers cold, timing iter, -a max. p50 is the median over each cell's runs.
p50 us / busbw GB/s (from that p50). **bold** = the pick.

| size | nccl | decision |
|---:|---:|---|
| 1K | **8.00** / 0.19 | clear |
| 4K | **9.00** / 0.68 | clear |
| 64K | **30.00** / 3.28 | clear |

Crossovers: none (nccl is the pick at every size)

Not measured (skip/error records):
- error: p2p-islands (8 ranks): timeout in pass 2" "$(cat "$TMP/t4")"
check_eq "csv, 4 ranks" "dtype,ranks,placement,op,size,config,p50_us,busbw_gbs,best,wrong,equivalent,p99_us,min_us,max_us,algbw_gbs,runs,unsafe,predicted,verdict,relation,runs_needed
bfloat16,4,out,sum,1024,nccl,8,0.192,1,0,0,8,8,8,0.128,1,0,0,clear,fastest,0
bfloat16,4,out,sum,4096,nccl,9,0.682667,1,0,0,9,9,9,0.455111,1,0,0,clear,fastest,0
bfloat16,4,out,sum,65536,nccl,30,3.2768,1,0,0,30,30,30,2.18453,1,0,0,clear,fastest,0" "$("$ARBENCH" table --ranks 4 --format csv "$T")"
"$ARBENCH" table --ranks 8 "$T" >"$TMP/t8"
check_eq "8 ranks header" "| size | nccl:algo=Tree,proto=LL,ctas=2 | nccl:algo=Ring,proto=LL128 (UNSAFE) | nccl:algo=Ring,proto=Simple | nccl | p2p-oneshot:pull | p2p-twoshot:flat | mpi | shm-oneshot | decision |" \
  "$(grep '^| size' "$TMP/t8")"
check_eq "8 ranks, 1K row" "| 1K | 10.00 | 14.00 | 20.00 | 25.00 | 5.00 | 12.00 | 3.00 | **1.00** | clear |" "$(grep '^| 1K ' "$TMP/t8")"
# 1M: Ring,Simple 100 and nccl 105 in one run each: 5% is within --drift, undecided; the fastest is the pick.
check_eq "8 ranks, 1M row" "| 1M | 330.0 | 130.0 | **100.0** ? | 105.0 ? | 300.0 | 110.0 | 200.0 | 320.0 | undecided: measure 2+ runs |" "$(grep '^| 1M ' "$TMP/t8")"
check_eq "one best per row" 11 "$(grep -c '^| [0-9].*\*\*' "$TMP/t8")"
# 64K: mpi and p2p-twoshot:flat have equal p50s (one run each): undecided; of equal p50s the simpler (mpi) is the
# fastest, so the pick.
check_eq "crossovers" "Crossovers: shm-oneshot -> mpi between 8K and 16K; mpi -> p2p-twoshot:flat between 64K and 128K (undecided at 64K); p2p-twoshot:flat -> nccl:algo=Ring,proto=Simple between 128K and 256K" \
  "$(grep '^Crossovers' "$TMP/t8")"
check_eq "csv best column: one per size" 11 "$("$ARBENCH" table --ranks 8 --format csv "$T" | awk -F, 'NR > 1 && $(NF-12) == 1' | wc -l)"
check_eq "64K undecided marked" "| 64K | 30.00 | 18.00 | 24.00 | 29.00 | 25.00 | 16.00 ? | **16.00** ? | 20.00 | undecided: measure 2+ runs |" "$(grep '^| 64K ' "$TMP/t8")"
check_eq "csv relation column: the two open at 64K" "p2p-twoshot:flat open;mpi fastest" \
  "$("$ARBENCH" table --ranks 8 --format csv "$T" | awk -F, '$5 == 65536 && ($(NF-1) == "open" || $(NF-1) == "fastest") { print $6, $(NF-1) }' | paste -sd';')"
check_eq "--backend filter" "| size | p2p-oneshot:pull | p2p-twoshot:flat | decision |" "$("$ARBENCH" table --backend p2p-oneshot,p2p-twoshot "$T" | grep '^| size')"
# Two stacks in one table: the configuration labels carry the stack.
check_eq "stacks in labels" "| size | nccl:algo=Ring,proto=LL [cuda12.8-nccl2.27] | mpi [cuda12.8-nccl2.27] | nccl-tests [cuda12.8-nccl2.27] | p2p-oneshot:pull [cuda12.8-nccl2.27] | nccl:algo=Ring,proto=LL [cuda13-nccl2.28] | mpi [cuda13-nccl2.28] | nccl-tests [cuda13-nccl2.28] | nccl:algo=Tree,proto=LL [cuda13-nccl2.28] | decision |" \
  "$("$ARBENCH" table "$FIX/a.jsonl" "$FIX/b.jsonl" 2>/dev/null | grep '^| size')"
# An imported nccl-tests log sits in the same format.
"$ARBENCH" import nccl-tests "$NT/pcie-2x2080ti.log" -J "$TMP/nt.jsonl" >/dev/null || check_fail "import exited $?"
check_eq "nccl-tests 1G in-place row" "| 1G | **268461** / 4.00 | clear |" "$("$ARBENCH" table --busbw --placement in "$TMP/nt.jsonl" | grep '^| 1G ')"
# Real results from mpirun, with a torn last line as a crash leaves it.
if command -v mpirun >/dev/null; then
  mpirun -np 2 "$ARBENCH" run --backend mpi -b 8 -e 4K -d float -n 20 -w 2 -J "$TMP/real.jsonl" >/dev/null 2>&1 ||
    check_fail "mpirun arbench run exited $?"
  printf '{"type":"result","run_id":"x","backend":"mp' >>"$TMP/real.jsonl"
  "$ARBENCH" table "$TMP/real.jsonl" >"$TMP/real.md" 2>"$TMP/real.err" || check_fail "table on real results exited $?"
  check_eq "real: 10 sizes, each with a best" 10 "$(grep -c '^| [0-9].*\*\*' "$TMP/real.md")"
  check_eq "real: torn line warned once" 1 "$(grep -c 'ignoring an incomplete last line' "$TMP/real.err")"
fi
check_bad "no files" "no results files given" "$ARBENCH" table
check_bad "unknown option" "unknown option '--frobnicate'" "$ARBENCH" table --frobnicate "$T"
check_bad "bad dtype" "--dtype float16: no such dtype in the results" "$ARBENCH" table --dtype float16 "$T"
check_bad "bad backend" "--backend ncll: no such backend in the results" "$ARBENCH" table --backend ncll "$T"
check_bad "bad ranks" "bad --ranks value 'two'" "$ARBENCH" table --ranks two "$T"
check_bad "bad placement" "bad --placement value 'both' (expected out or in)" "$ARBENCH" table --placement both "$T"
check_bad "bad point" "bad --point value 'NCCL_ALGO' (expected NAME=VALUE)" "$ARBENCH" table --point NCCL_ALGO "$T"
check_bad "absent point" "--point NCCL_ALGO=Ring: no result has that sweep point value" "$ARBENCH" table --point NCCL_ALGO=Ring "$T"
check_bad "bad format" "bad --format 'html' (expected markdown, csv or json)" "$ARBENCH" table --format html "$T"
check_bad "missing file" "cannot open results file '$TMP/none.jsonl'" "$ARBENCH" table "$TMP/none.jsonl"
printf '{"type":"run","run_id":"r"}\nnot json\n{"type":"run","run_id":"s"}\n' >"$TMP/mid.jsonl"
check_bad "malformed middle line" "mid.jsonl:2: not a JSON object" "$ARBENCH" table "$TMP/mid.jsonl"
check_eq "message names file and line" 1 "$(grep -c "mid.jsonl:2:" "$TMP/bad.err")"
printf '{"type":"result","backend":"mpi","dtype":"float","time_us":{}}\n' >"$TMP/nosize.jsonl"
check_bad "result without size" "nosize.jsonl:1: result record has no \"size\"" "$ARBENCH" table "$TMP/nosize.jsonl"
# Sweep reader rule: a record carrying a point counts only when a done point record lists its run_id.
cat >"$TMP/sweep.jsonl" <<'J'
{"type":"result","run_id":"aaaa","backend":"mpi","variant":"","spec":"mpi","dtype":"float","op":"sum","placement":"out","size":8,"count":2,"ranks":2,"time_us":{"p50":3.0},"point":{"np":2,"X":"1"}}
{"type":"point","sweep_id":"s","point":{"np":2,"X":"1"},"status":"done","run_ids":["aaaa"]}
{"type":"result","run_id":"bbbb","backend":"mpi","variant":"","spec":"mpi","dtype":"float","op":"sum","placement":"out","size":8,"count":2,"ranks":2,"time_us":{"p50":9.0},"point":{"np":2,"X":"2"}}
{"type":"point","sweep_id":"s","point":{"np":2,"X":"2"},"status":"timeout","run_ids":["bbbb"]}
{"type":"error","sweep_id":"s","point":{"np":2,"X":"2"},"status":"timeout","message":"point np=2 X=2: timed out after 5 s","run_ids":["bbbb"]}
J
"$ARBENCH" table --format csv "$TMP/sweep.jsonl" >"$TMP/sw.csv" 2>"$TMP/sw.err" || check_fail "table of a sweep exited $?"
check_eq "sweep rule: only the done point" "dtype,ranks,placement,op,size,config,p50_us,busbw_gbs,best,wrong,equivalent,p99_us,min_us,max_us,algbw_gbs,runs,unsafe,predicted,verdict,relation,runs_needed
float,2,out,sum,8,mpi,3,0.00266667,1,0,0,nan,nan,nan,0.00266667,1,0,0,clear,fastest,0" "$(cat "$TMP/sw.csv")"
check_eq "sweep rule: says what it ignored" 1 "$(grep -c 'ignored 1 records of sweep launches' "$TMP/sw.err")"
"$ARBENCH" table "$TMP/sweep.jsonl" >"$TMP/sw.md" 2>/dev/null || check_fail "markdown table of a sweep exited $?"
check_eq "sweep rule: the failed point is listed, bookkeeping is not" "Not measured (skip/error records):
- error: point np=2 X=2: timed out after 5 s" "$(sed -n '/^Not measured/,$p' "$TMP/sw.md")"
finish
