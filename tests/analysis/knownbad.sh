#!/bin/bash
# knownbad.sh — the known-bad table (bench/knownbad.c) read by `import nccl-tests` and `report`: a log whose
# version and GPU lines say NCCL 2.26.2 on two RTX PRO 6000 (tests/fixtures/nccl-tests/edited/, a real log with
# those lines edited) gets the run's known_bad ["nccl-2418-rtxpro6000-512k"] and one warning line; the same log
# at 2.31.2 none; the "NCCL version 2.26.2+cuda12.8" line form too; two ranks on one GPU are not a pair; the
# report page's Skips and warnings names the entry with its symptom, what to do and its source.
. "$(dirname "$0")/common.sh"
LOG="$NT/edited/knownbad-2xrtxpro6000-nccl2.26.2.log"
ID=nccl-2418-rtxpro6000-512k
WARN="arbench import: warning: $LOG:5: known-bad stack: $ID (crash: illegal memory access in collectives of 512 KiB and more (all_reduce_perf fails at 524288 bytes); https://github.com/NVIDIA/nccl/issues/2418)"
kb() { jq -r 'select(.type=="run") | .known_bad | join(",")' "$1"; }

"$ARBENCH" import nccl-tests "$LOG" >"$TMP/a.jsonl" 2>"$TMP/a.err"
check_eq "2.26.2 on 2 RTX PRO 6000: exit 0" 0 $?
check_eq "2.26.2 on 2 RTX PRO 6000: the run's known_bad" "$ID" "$(kb "$TMP/a.jsonl")"
check_eq "2.26.2 on 2 RTX PRO 6000: one warning line" "$WARN" "$(cat "$TMP/a.err")"
check_eq "the stack read from the log" "nccl-2.26.2 (CUDA unknown)" "$(jq -r 'select(.type=="run") | .stack.name' "$TMP/a.jsonl")"

sed 's/nccl-library=22602/nccl-library=23102/' "$LOG" >"$TMP/fixed.log"
"$ARBENCH" import nccl-tests "$TMP/fixed.log" >"$TMP/b.jsonl" 2>"$TMP/b.err"
check_eq "2.31.2: not 2418 (2.29.0 and newer: the small-message entry)" "nccl-2094-small-allreduce-2.29" "$(kb "$TMP/b.jsonl")"
check_eq "2.31.2: no 2418 warning" 0 "$(grep -c "$ID" "$TMP/b.err")"
sed 's/nccl-library=22602/nccl-library=22601/' "$LOG" >"$TMP/older.log"
"$ARBENCH" import nccl-tests "$TMP/older.log" >"$TMP/c.jsonl" 2>"$TMP/c.err"
check_eq "2.26.1: known_bad empty" "" "$(kb "$TMP/c.jsonl")"
check_eq "2.26.1: no warning" "" "$(cat "$TMP/c.err")"

# The "NCCL version X+cudaY" line (NCCL INFO) in place of nccl-tests' version codes.
sed -e 's/ nccl-headers=22602 nccl-library=22602//' \
    -e '5a [1,0]<stdout>:lab:2994447:2994447 [0] NCCL INFO NCCL version 2.26.2+cuda12.8' "$LOG" >"$TMP/line.log"
"$ARBENCH" import nccl-tests "$TMP/line.log" >"$TMP/d.jsonl" 2>/dev/null
check_eq "NCCL version 2.26.2+cuda12.8 line: known_bad" "$ID nccl-2.26.2+cuda12.8" \
  "$(jq -r 'select(.type=="run") | "\(.known_bad | join(",")) \(.stack.name)"' "$TMP/d.jsonl")"

# Two ranks on one GPU (the published log the fixture was edited from shares bus 0000:02:00) are not a pair.
sed 's/lab device  1 \[0000:03:00\]/lab device  0 [0000:02:00]/' "$LOG" >"$TMP/onegpu.log"
"$ARBENCH" import nccl-tests "$TMP/onegpu.log" >"$TMP/e.jsonl" 2>/dev/null
check_eq "one GPU shared by two ranks: not dual RTX PRO 6000" "" "$(kb "$TMP/e.jsonl")"

# report: the page's Skips and warnings names the entry, what to do and a link to the source.
"$ARBENCH" report "$TMP/a.jsonl" -o "$TMP/p.html" >/dev/null 2>"$TMP/r.err"
check_eq "report: exit 0" 0 $?
RUN=$(jq -r 'select(.type=="run") | .run_id' "$TMP/a.jsonl")
LI="<li><span class=\"tag bad\">known-bad stack</span> run $RUN (stack nccl-2.26.2 (CUDA unknown)): $ID (crash): illegal memory access in collectives of 512 KiB and more (all_reduce_perf fails at 524288 bytes); what to do: use NCCL 2.31.2 or newer (e.g. the nvidia-nccl-cu12/-cu13 wheel, or LD_LIBRARY_PATH to a newer libnccl); the report&#39;s PyTorch 2.7.0+cu128 loaded 2.26.2; source <a href=\"https://github.com/NVIDIA/nccl/issues/2418\">https://github.com/NVIDIA/nccl/issues/2418</a></li>"
check_eq "report: the known-bad line under Skips and warnings" 1 \
  "$(sed -n '/<section id="skips">/,/<\/section>/p' "$TMP/p.html" | grep -cxF "$LI")"
"$ARBENCH" report "$TMP/c.jsonl" -o "$TMP/q.html" >/dev/null 2>&1
check_eq "report of 2.26.1: no known-bad line" 0 "$(grep -c 'known-bad stack' "$TMP/q.html")"
# A record naming an entry this arbench does not hold (a newer table) says so.
jq -c 'if .type=="run" then .known_bad=["from-a-newer-table"] else . end' "$TMP/a.jsonl" >"$TMP/n.jsonl"
"$ARBENCH" report "$TMP/n.jsonl" -o "$TMP/n.html" >/dev/null 2>&1
check_eq "report: unknown entry id" 1 "$(grep -c "from-a-newer-table (an entry this arbench&#39;s table does not hold)" "$TMP/n.html")"
finish
