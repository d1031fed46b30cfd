#!/bin/bash
# eligible.sh — eligibility (ar_grid_cell_eligible, the one rule): a configuration whose correctness check reported
# wrong elements at a size, in any run, is never the pick there (table's bold, its JSON, tune's files and exit status);
# a size where every configuration measured is wrong has "no valid configuration"; an imported nccl-tests log's
# #wrong counts the same. Fixtures: make_decide.py wrong (exact records), the published 2080 Ti log.
. "$(dirname "$0")/common.sh"
python3 "$FIX/make_decide.py" wrong "$TMP" && W="$TMP/wrong.jsonl"
"$ARBENCH" table --format json "$W" >"$TMP/w.json" || check_fail "table json exited $?"
# shm-oneshot (the fastest everywhere) is wrong at 2K in one run of three and at 8K in every run: shm-twoshot is the
# pick there; mpi's wrong 16K changes nothing; all three wrong at 32K: no pick.
check_eq "picks: never a wrong one; none where all are wrong" \
  "1024 shm-oneshot clear;2048 shm-twoshot clear;4096 shm-oneshot clear;8192 shm-twoshot clear;16384 shm-oneshot clear;32768 null null no valid configuration" \
  "$(jq -r '[.grids[0].decisions[] | "\(.size) \(.pick_label) \(if .pick == null then "null " else "" end)\(.verdict)"] | join(";")' "$TMP/w.json")"
check_eq "excluded: the wrong ones, with why" "2048:1;8192:1;16384:0;32768:0,1,2" \
  "$(jq -r '[.grids[0].decisions[] | select(.excluded | length > 0) | "\(.size):\([.excluded[].config] | join(","))"] | join(";")' "$TMP/w.json")"
check_eq "cells: best never on a wrong cell" 0 "$(jq '[.grids[0].cells[] | select(.best and .wrong > 0)] | length' "$TMP/w.json")"
check_eq "table: the rows" "| 2K | 8.92 | 4.32 ! | **6.68** | clear |
| 8K | 11.68 | 5.63 ! | **8.26** | clear |
| 32K | 21.48 ! | 10.95 ! | 16.36 ! | no valid configuration |" "$("$ARBENCH" table "$W" | grep -E '^\| (2K|8K|32K) ')"
check_eq "table: the verdict line" "Verdicts: 5 clear, 0 equivalent, 0 undecided, 1 with no valid configuration (every one measured there is wrong or unsafe)." \
  "$("$ARBENCH" table "$W" | grep '^Verdicts:')"
check_eq "csv: best column never on a wrong cell" 0 "$("$ARBENCH" table --format csv "$W" | awk -F, 'NR > 1 && $9 == 1 && $10 > 0' | wc -l)"
# tune: exit 1 (a size with nothing valid), the wrong ones named, 32K in no file, shm-oneshot not used at 2K or 8K.
"$ARBENCH" tune "$W" -o "$TMP/tw" >"$TMP/tw.out" 2>/dev/null
check_eq "tune exits 1: a size with no valid configuration" 1 "$?"
check_eq "tune names it" "No valid configuration at 32K: every configuration measured there computed wrong results or is unsafe; left out of every file written (tune exits 1)." \
  "$(grep '^No valid' "$TMP/tw.out")"
check_eq "tune: the wrong results listed" 3 "$(grep -c '^Wrong results: ' "$TMP/tw.out")"
check_eq "thresholds: use ranges skip the wrong picks; custom range ends before 32K" \
  "16384 shm-oneshot:0-1024,shm-twoshot:1025-2048,shm-oneshot:2049-4096,shm-twoshot:4097-8192,shm-oneshot:8193-16384" \
  "$(jq -r '.groups[0] | "\(.custom_max_bytes) \([.use[] | "\(.config):\(.min_bytes)-\(.max_bytes)"] | join(","))"' "$TMP/tw/thresholds.json")"
check_eq "thresholds: win ranges of shm-oneshot" "[[1024,1024],[4096,4096],[16384,16384]]" \
  "$(jq -c '.groups[0].custom[] | select(.config == "shm-oneshot") | .win_ranges' "$TMP/tw/thresholds.json")"
check_eq "tune table: no 32K row" 0 "$(grep -c '^| 32K' "$TMP/tw.out")"
# The issue's fault run: every configuration wrong everywhere: no pick anywhere, tune exits 1 and writes no range.
jq -c 'if .type == "result" then .wrong = 1 else . end' "$W" >"$TMP/allw.jsonl"
check_eq "all wrong: no pick at any size" "6 0" \
  "$("$ARBENCH" table --format json "$TMP/allw.jsonl" | jq -r '.grids[0].decisions | "\([.[] | select(.verdict == "no valid configuration" and .pick == null and .pick_label == null)] | length) \([.[] | select(.pick != null)] | length)"')"
"$ARBENCH" tune "$TMP/allw.jsonl" -o "$TMP/ta" >/dev/null 2>&1
check_eq "all wrong: tune exits 1, thresholds empty" "1 0" "$? $(jq '.groups | length' "$TMP/ta/thresholds.json")"
# (16K: its baseline mpi is wrong there, so shm-oneshot is the valid pick: a custom win.)
# Imported nccl-tests logs: the published 2080 Ti log (stack a) and the same log twice as fast with #wrong 3 at 4 KiB
# out-of-place (stack b): b is the pick except there.
awk '$1 ~ /^[0-9]+$/ && NF >= 13 { $6 = sprintf("%.2f", $6 / 2); if ($1 == 4096) $9 = 3 } { print }' \
  "$NT/pcie-2x2080ti.log" >"$TMP/fast.log"
"$ARBENCH" import nccl-tests "$NT/pcie-2x2080ti.log" --stack a >"$TMP/nt.jsonl" || check_fail "import a exited $?"
"$ARBENCH" import nccl-tests "$TMP/fast.log" --stack b >>"$TMP/nt.jsonl" || check_fail "import b exited $?"
"$ARBENCH" table --placement out --format json "$TMP/nt.jsonl" >"$TMP/nt.json" || check_fail "table nt exited $?"
check_eq "import #wrong: the log's wrong size picks the other stack" "2048 nccl-tests [b];4096 nccl-tests [a];8192 nccl-tests [b]" \
  "$(jq -r '[.grids[0].decisions[] | select(.size >= 2048 and .size <= 8192) | "\(.size) \(.pick_label)"] | join(";")' "$TMP/nt.json")"
check_eq "import #wrong: wrong counted in the cell" 3 \
  "$(jq '[.grids[0].cells[] | select(.size == 4096 and .config == 1) | .wrong][0]' "$TMP/nt.json")"
# Every output agrees with table's json on the wrong fixture (agree.py: markdown bold and decision column, csv,
# crossovers, tune's ranges and bounds, thresholds.json).
mkdir -p "$TMP/ag" && cp "$TMP/w.json" "$TMP/ag/t.json"
"$ARBENCH" table "$W" >"$TMP/ag/t.md"
"$ARBENCH" table --format csv "$W" >"$TMP/ag/t.csv"
"$ARBENCH" tune "$W" -o "$TMP/ag/tune" >"$TMP/ag/tune.md" 2>/dev/null
python3 "$ARBENCH_SRC/tests/analysis/agree.py" "$TMP/ag" >"$TMP/ag.out" 2>&1 || check_fail "outputs disagree: $(cat "$TMP/ag.out")"
cat "$TMP/ag.out"
# The same records as nccl settings (mpi: Ring/Simple, shm-oneshot: Tree/LL, shm-twoshot: Ring/LL), every one also
# wrong at 8K: the tuner CSV and tuner.json leave 8K and 32K out (no range spans them: Tree/LL at 4K and at 16K are
# two ranges), and agree with table --backend nccl; the environment file's single best setting is never one with
# wrong results at a size it covers.
jq -c 'if .type != "result" then . else (if .backend == "mpi" then "algo=Ring,proto=Simple" elif .backend == "shm-oneshot"
       then "algo=Tree,proto=LL" else "algo=Ring,proto=LL" end) as $v | .backend = "nccl" | .variant = $v |
       .spec = "nccl:" + $v | if .size == 8192 then .wrong = 3 else . end end' "$W" >"$TMP/wn.jsonl"
mkdir -p "$TMP/agn"
"$ARBENCH" table --format json "$TMP/wn.jsonl" >"$TMP/agn/t.json"
cp "$TMP/agn/t.json" "$TMP/agn/tn.json"
"$ARBENCH" table "$TMP/wn.jsonl" >"$TMP/agn/t.md"
"$ARBENCH" table --format csv "$TMP/wn.jsonl" >"$TMP/agn/t.csv"
"$ARBENCH" tune "$TMP/wn.jsonl" -o "$TMP/agn/tune" >"$TMP/agn/tune.md" 2>/dev/null
check_eq "nccl: tune exits 1" 1 "$?"
check_eq "tuner csv: ranges, 8K and 32K in none" "0-1024 tree ll;1025-2048 ring ll;2049-4096 tree ll;8193-16384 tree ll" \
  "$(grep -v '^#' "$TMP/agn/tune/nccl_tuner.conf" | awk -F, '{ printf "%s%s-%s %s %s", (NR > 1 ? ";" : ""), $2, $3, $4, $5 }')"
check_eq "env: no single setting (each is wrong at 8K and 32K)" "# no nccl results valid at every size for this group" \
  "$(grep '^# no nccl' "$TMP/agn/tune/nccl_env.sh")"
python3 "$ARBENCH_SRC/tests/analysis/agree.py" "$TMP/agn" >"$TMP/agn.out" 2>&1 || check_fail "nccl outputs disagree: $(cat "$TMP/agn.out")"
cat "$TMP/agn.out"
finish
