#!/bin/bash
# noise.sh — decisions that ignore noise, on fixture records whose differences lie inside (2%) or
# outside (20%) the bootstrap interval: tune ranges, thresholds "use", table ties, the tie rules.
. "$(dirname "$0")/common.sh"
N="$FIX/noise.jsonl"
# --drift 0: the bootstrap interval alone decides (the drift allowance would also cover 2%).
"$ARBENCH" tune --drift 0 "$N" --thresholds "$TMP/thr.json" >"$TMP/tune" 2>/dev/null || check_fail "tune exited $?"
# Lowest p50 flips oneshot, twoshot, oneshot, twoshot, staged, staged, twoshot (six ranges); beyond
# the noise only 1K (oneshot) and 8K (twoshot) are decided, and the ties keep the previous choice.
check_eq "2 ranks: two ranges" "| 1K .. 4K | shm-oneshot | 10.00 .. 10.00 | shm-twoshot | -2% .. +20% | 2 |
| 8K .. 64K | shm-twoshot | 16.00 .. 130.0 | shm-staged | -2% .. +23% | 3 |" \
  "$(sed -n '/^## float, 2 ranks/,/^## float, 4/p' "$TMP/tune" | grep -E '^\| [0-9]')"
check_eq "thresholds use: two ranges" "shm-oneshot 0 4096;shm-twoshot 4097 65536" \
  "$(jq -r '[.groups[] | select(.ranks==2) | .use[] | "\(.config) \(.min_bytes) \(.max_bytes)"] | join(";")' "$TMP/thr.json")"
# 4 ranks: a tie at the first size has no previous choice and takes the next clear winner.
check_eq "4 ranks: first-size tie takes the next winner" "| 1K .. 4K | shm-twoshot | 10.10 .. 30.30 | shm-staged | -1% .. +33% | 2 |" \
  "$(sed -n '/^## float, 4 ranks/,/^## float, 8/p' "$TMP/tune" | grep -E '^\| [0-9]')"
# 8 ranks: one size, three tied: the simplest algorithm.
check_eq "8 ranks: simplest at a tie" "| 1K | shm-oneshot | 10.20 | shm-staged | -2% | 1 |" \
  "$(sed -n '/^## float, 8 ranks/,$p' "$TMP/tune" | grep -E '^\| [0-9]')"
check_eq "default drift: the same ranges" "$(grep -E '^\| [0-9]' "$TMP/tune")" "$("$ARBENCH" tune "$N" | grep -E '^\| [0-9]')"
"$ARBENCH" table --drift 0 --ranks 2 "$N" >"$TMP/table" 2>/dev/null || check_fail "table exited $?"
check_eq "table: tie row marked" "| 2K | **10.00** ~ | 9.80 ~ | 13.00 | 30.00 |" "$(grep '^| 2K ' "$TMP/table")"
check_eq "table: clear row unmarked" "| 8K | 20.00 | **16.00** | 19.70 | 50.00 |" "$(grep '^| 8K ' "$TMP/table")"
check_eq "table: one crossover" "Crossovers: shm-oneshot -> shm-twoshot between 4K and 8K" "$(grep '^Crossovers' "$TMP/table")"
check_eq "table: ties explained" 1 "$(grep -c '^~ = a tie' "$TMP/table")"
check_eq "csv: tie flags at 16K" "shm-oneshot 1;shm-twoshot 1;shm-staged 1;mpi 0" \
  "$("$ARBENCH" table --drift 0 --ranks 2 --format csv "$N" | awk -F, '$5 == 16384 { print $6, $(NF-7) }' | paste -sd';')"
# One run per side and a 9% difference with identical samples: decided with --drift 0 and 5, a tie
# with --drift 10 (the allowance for drift between runs that a single run cannot show).
check_eq "drift 10: 512K tie" "1" "$("$ARBENCH" table --drift 10 --ranks 8 --backend nccl --format csv "$FIX/tune.jsonl" | awk -F, '$5 == 524288 && $6 == "nccl" { print $(NF-7) }')"
check_eq "drift 5: 512K decided" "0" "$("$ARBENCH" table --ranks 8 --backend nccl --format csv "$FIX/tune.jsonl" | awk -F, '$5 == 524288 && $6 == "nccl" { print $(NF-7) }')"
check_bad "bad --drift" "bad --drift '200' (expected a percentage from 0 to 100" "$ARBENCH" tune --drift 200 "$N"
check_bad "bad --drift (table)" "bad --drift 'x' (expected a percentage from 0 to 100" "$ARBENCH" table --drift x "$N"
finish
