#!/bin/bash
# noise.sh — decisions on single-run fixture records whose differences lie inside (1-2%) or outside (20%)
# the noise of their samples (21 samples from 0.9x to 1.1x the median): clear where 20% apart; undecided
# where 2% apart, with the fastest as the pick (never the slower) and the ranges following it; --drift.
. "$(dirname "$0")/common.sh"
N="$FIX/noise.jsonl"
# --drift 0: the bootstrap interval alone decides (the drift allowance would also cover 2%). The samples
# scatter 10% either way, so a 2% difference is neither shown (difference) nor shown within 5% (equivalence).
"$ARBENCH" tune --drift 0 "$N" --thresholds "$TMP/thr.json" >"$TMP/tune" 2>/dev/null || check_fail "tune exited $?"
# Lowest p50 flips oneshot, twoshot, oneshot, twoshot, staged, staged, twoshot: 1K and 8K are clear; the
# undecided sizes keep their fastest (marked, with what would decide), so the ranges follow it.
check_eq "2 ranks: ranges follow the picks, verdicts said" "| 1K | shm-oneshot | clear | 10.00 | - | shm-twoshot | +20% |
| 2K | shm-twoshot | undecided (measure 2+ runs) | 9.80 | - | shm-oneshot | +2% |
| 4K | shm-oneshot | undecided (measure 2+ runs) | 10.00 | - | shm-twoshot | +2% |
| 8K | shm-twoshot | clear | 16.00 | - | shm-staged | +23% |
| 16K .. 32K | shm-staged | undecided (measure 2+ runs) | 39.00 .. 79.50 | - | shm-oneshot | +1% .. +1% |
| 64K | shm-twoshot | undecided (measure 2+ runs) | 130.0 | - | shm-staged | +1% |" \
  "$(sed -n '/^## float, 2 ranks/,/^## float, 4/p' "$TMP/tune" | grep -E '^\| [0-9]' | nobound)"
check_eq "thresholds use: the same picks, verdicts per range" \
  "shm-oneshot 0 1024 clear;shm-twoshot 1025 2048 undecided;shm-oneshot 2049 4096 undecided;shm-twoshot 4097 8192 clear;shm-staged 8193 32768 undecided;shm-twoshot 32769 65536 undecided" \
  "$(jq -r '[.groups[] | select(.ranks==2) | .use[] | "\(.config) \(.min_bytes) \(.max_bytes) \(.verdict)"] | join(";")' "$TMP/thr.json")"
# 4 ranks: an undecided first size is the fastest's, not the next clear winner's.
check_eq "4 ranks: undecided sizes keep the fastest" "| 1K | shm-staged | undecided (measure 2+ runs) | 10.00 | - | shm-twoshot | +1% |
| 2K | shm-twoshot | clear | 15.00 | - | shm-staged | +33% |
| 4K | shm-staged | undecided (measure 2+ runs) | 30.00 | - | shm-oneshot | +1% |" \
  "$(sed -n '/^## float, 4 ranks/,/^## float, 8/p' "$TMP/tune" | grep -E '^\| [0-9]' | nobound)"
# 8 ranks: one size, three within 2%: the fastest, not the simplest (nothing is shown equivalent).
check_eq "8 ranks: the fastest, not the simplest" "| 1K | shm-staged | undecided (measure 2+ runs) | 10.00 | - | shm-twoshot | +1% |" \
  "$(sed -n '/^## float, 8 ranks/,$p' "$TMP/tune" | grep -E '^\| [0-9]' | nobound)"
check_eq "default drift: the same picks" "$(grep -E '^\| [0-9]' "$TMP/tune" | cut -d'|' -f2-3)" \
  "$("$ARBENCH" tune "$N" | grep -E '^\| [0-9]' | cut -d'|' -f2-3)"
"$ARBENCH" table --drift 0 --ranks 2 "$N" >"$TMP/table" 2>/dev/null || check_fail "table exited $?"
check_eq "table: undecided row: the fastest bold, both marked ?" "| 2K | 10.00 ? | **9.80** ? | 13.00 | 30.00 | undecided: measure 2+ runs |" "$(grep '^| 2K ' "$TMP/table")"
check_eq "table: clear row unmarked" "| 8K | 20.00 | **16.00** | 19.70 | 50.00 | clear |" "$(grep '^| 8K ' "$TMP/table")"
check_eq "table: crossovers of the picks, undecided sizes named" "Crossovers: shm-oneshot -> shm-twoshot between 1K and 2K (undecided at 2K); shm-twoshot -> shm-oneshot between 2K and 4K (undecided at 2K and 4K); shm-oneshot -> shm-twoshot between 4K and 8K (undecided at 4K); shm-twoshot -> shm-staged between 8K and 16K (undecided at 16K); shm-staged -> shm-twoshot between 32K and 64K (undecided at 32K and 64K)" \
  "$(grep '^Crossovers' "$TMP/table")"
check_eq "table: verdicts counted" "Verdicts: 2 clear, 0 equivalent, 5 undecided; 5 with a single run a side need 2+ runs to measure their spread." "$(grep '^Verdicts' "$TMP/table")"
check_eq "table: one legend line" 1 "$(grep -c '^p50 us. \*\*bold\*\* = the pick; = shown within 5% of the fastest (equivalent); ? = not told apart from the fastest (21 comparisons, Holm at 5% family-wise).' "$TMP/table")"
check_eq "table: the statistics paragraph behind --explain, one line saying so" "0 1" \
  "$(grep -c '^Decisions: the pick at each size is the fastest' "$TMP/table") $(grep -c '^How the picks, verdicts and bounds are decided: arbench table --explain (docs/analysis.md#decisions).$' "$TMP/table")"
"$ARBENCH" table --explain --drift 0 --ranks 2 "$N" >"$TMP/table-x" 2>/dev/null || check_fail "table --explain exited $?"
check_eq "table --explain: the statistics paragraph once, in place of the line" "1 0" \
  "$(grep -c '^Decisions: the pick at each size is the fastest' "$TMP/table-x") $(grep -c '^How the picks' "$TMP/table-x")"
check_eq "table --explain: the same table otherwise" "$(grep -v '^How the picks' "$TMP/table")" "$(grep -v '^Decisions: ' "$TMP/table-x")"
"$ARBENCH" tune "$N" >"$TMP/tune-h" 2>/dev/null; "$ARBENCH" tune --explain "$N" >"$TMP/tune-x" 2>/dev/null
check_eq "tune: the paragraph behind --explain (one line without)" "0 1 1 0" \
  "$(grep -c '^Decisions: ' "$TMP/tune-h") $(grep -c '^How the picks, verdicts and bounds are decided: arbench tune --explain' "$TMP/tune-h") $(grep -c '^Decisions: ' "$TMP/tune-x") $(grep -c '^How the picks' "$TMP/tune-x")"
check_eq "csv: relations at 16K" "shm-oneshot open;shm-twoshot open;shm-staged fastest;mpi slower" \
  "$("$ARBENCH" table --drift 0 --ranks 2 --format csv "$N" | awk -F, '$5 == 16384 { print $6, $(NF-1) }' | paste -sd';')"
check_eq "csv: header" "dtype,ranks,placement,op,size,config,p50_us,busbw_gbs,best,wrong,equivalent,p99_us,min_us,max_us,algbw_gbs,runs,unsafe,predicted,verdict,relation,runs_needed" \
  "$("$ARBENCH" table --format csv "$N" | head -1)"
# One run per side and a 9% difference with identical samples: clear with --drift 5, undecided with
# --drift 10 (the allowance for drift between runs that a single run cannot show).
check_eq "drift 10: 512K undecided, nccl open" "undecided open" "$("$ARBENCH" table --drift 10 --ranks 8 --backend nccl --format csv "$FIX/tune.jsonl" | awk -F, '$5 == 524288 && $6 == "nccl" { print $(NF-2), $(NF-1) }')"
check_eq "drift 5: 512K clear, nccl slower" "clear slower" "$("$ARBENCH" table --ranks 8 --backend nccl --format csv "$FIX/tune.jsonl" | awk -F, '$5 == 524288 && $6 == "nccl" { print $(NF-2), $(NF-1) }')"
check_bad "bad --drift" "bad --drift '200' (expected a percentage from 0 to 100" "$ARBENCH" tune --drift 200 "$N"
check_bad "bad --drift (table)" "bad --drift 'x' (expected a percentage from 0 to 100" "$ARBENCH" table --drift x "$N"
check_bad "bad --margin" "bad --margin '0' (expected a percentage above 0 and at most 100, e.g. 5)" "$ARBENCH" table --margin 0 "$N"
check_bad "bad --margin (tune)" "bad --margin '5%' (expected a percentage above 0 and at most 100, e.g. 5)" "$ARBENCH" tune --margin 5% "$N"
check_bad "bad --margin (compare)" "bad --margin '-1' (expected a percentage above 0 and at most 100, e.g. 5)" "$ARBENCH" compare --margin -1 "$N" "$N"
finish
