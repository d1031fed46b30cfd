#!/bin/bash
# decide.sh — the decisions (bench/analysis/decide.c) on fixtures with a known truth (make_decide.py; each states
# its runs and run-to-run coefficient of variation, RCV): a 2.5x difference with 2 runs and RCV 25% never picks the
# slower; three configurations within 1% are equivalent and the preference picks among them, never one 10% slower;
# A/A tables (false clear sizes in at most 5% of tables), power (20% apart, 5 runs: clear), the runs a power
# calculation asks for deliver that power, and equivalence is not claimed on the margin.
. "$(dirname "$0")/common.sh"
MK="$FIX/make_decide.py"
# The issue's sweep on a 2-core box: 12 configurations (mpi, shm-oneshot x 6 values of an OMPI point), 14 sizes,
# 2 runs, RCV 25%, mpi 2.5x slower: a family of 154 comparisons cannot tell most apart, but every pick is a
# shm-oneshot configuration (the fastest), marked undecided; nothing calls an mpi configuration the pick.
python3 "$MK" gap "$TMP" && G="$TMP/gap.jsonl"
"$ARBENCH" table --format json "$G" >"$TMP/gap.json" || check_fail "table json exited $?"
check_eq "gap: every pick a shm-oneshot configuration" "14 14" \
  "$(jq -r '.grids[0].decisions as $d | "\($d | length) \([$d[] | select(.pick_label | startswith("shm-oneshot"))] | length)"' "$TMP/gap.json")"
check_eq "gap: every pick the fastest, undecided or clear" 0 \
  "$(jq '[.grids[0].decisions[] | select(.pick != .fastest or (.verdict != "undecided" and .verdict != "clear"))] | length' "$TMP/gap.json")"
check_eq "gap: undecided sizes say what would decide" 0 \
  "$(jq '[.grids[0].decisions[] | select(.verdict == "undecided" and ((.runs_needed | type) != "number" or .runs_needed < 2))] | length' "$TMP/gap.json")"
"$ARBENCH" tune "$G" -o "$TMP/gt" >"$TMP/gap.tune" 2>/dev/null || check_fail "tune exited $?"
check_eq "gap: tune picks no mpi configuration" 0 "$(grep -E '^\| [0-9]' "$TMP/gap.tune" | cut -d'|' -f3 | grep -c mpi)"
check_eq "gap: thresholds: the custom allreduce up to the largest size" 65536 "$(jq '.groups[0].custom_max_bytes' "$TMP/gt/thresholds.json")"
check_eq "gap: thresholds: every use range undecided, none on mpi" "0 undecided" \
  "$(jq -r '.groups[0].use as $u | "\([$u[] | select(.config | startswith("mpi"))] | length) \([$u[].verdict] | unique | join(","))"' "$TMP/gt/thresholds.json")"
# Three within 1% (shm-oneshot the fastest, shm-twoshot +0.5%, mpi +1%), 5 runs, RCV 1%, samples 2%: equivalent at
# 1K..8K, and the preference picks the simplest (mpi) and keeps it; at 16K mpi is 10% slower: the pick is the
# simplest of the two left equivalent (shm-oneshot), never mpi.
python3 "$MK" equiv "$TMP" && E="$TMP/equiv.jsonl"
"$ARBENCH" table --format json "$E" >"$TMP/eq.json" || check_fail "table json exited $?"
check_eq "equiv: picks, verdicts, equivalent sets" "1024 mpi equivalent 0,1,2;2048 mpi equivalent 0,1,2;4096 mpi equivalent 0,1,2;8192 mpi equivalent 0,1,2;16384 shm-oneshot equivalent 1,2" \
  "$(jq -r '[.grids[0].decisions[] | "\(.size) \(.pick_label) \(.verdict) \(.equivalent | map(tostring) | join(","))"] | join(";")' "$TMP/eq.json")"
check_eq "equiv: the margin and the lead stated" "0.05 0.093" \
  "$(jq -r '.grids[0].decisions[4] | "\(.margin) \(.lead * 1000 | round / 1000)"' "$TMP/eq.json")"
check_eq "equiv: table marks" "| 1K | **10.09** = | 10.00 = | 10.04 = | equivalent (3) |
| 16K | 55.04 | **50.34** = | 50.13 = | equivalent (2) |" "$("$ARBENCH" table "$E" | grep -E '^\| (1K|16K) ')"
# --margin 0.5: nothing is shown within 0.5%, so the fastest is the pick at every size.
check_eq "equiv --margin 0.5: the fastest everywhere" 0 \
  "$("$ARBENCH" table --margin 0.5 --format json "$E" | jq '[.grids[0].decisions[] | select(.pick != .fastest or .verdict == "equivalent")] | length')"
# A run killed mid-repeat: one cell with fewer runs says so.
jq -c 'select(.type != "result" or .run_id != "r4" or .size != 2048 or .backend != "mpi")' "$E" >"$TMP/killed.jsonl"
check_eq "fewer runs said" "| 2K | **20.13** = n=4 (fewer runs) | 19.87 = | 19.99 = | equivalent (3) |" "$("$ARBENCH" table "$TMP/killed.jsonl" | grep '^| 2K ')"
check_eq "--spread: runs and spread per cell" "| 1K | **10.09** = n=5 ±1% | 10.00 = n=5 ±1% | 10.04 = n=5 ±1% | equivalent (3) |" "$("$ARBENCH" table --spread "$E" | grep '^| 1K ')"

# Simulated tables: 8 sizes x 2 configurations (mpi FACTOR times shm-oneshot), 40 samples a run (CV 5%).
# verdicts DIR N: one line per table and size: table, size, the pick's config, verdict, runs_needed.
verdicts() {
  for k in $(seq 0 $(($2 - 1))); do
    "$ARBENCH" table --format csv "$1/t$k.jsonl" | awk -F, -v k="$k" 'NR > 1 && $(NF-12) == 1 { print k, $5, $6, $(NF-2), $NF }'
  done
}
# A/A: 100 tables, 3 runs, RCV 5%, one truth: at most 5 tables call any size clear.
mkdir -p "$TMP/aa" && python3 "$MK" tables "$TMP/aa" 100 3 0.05
verdicts "$TMP/aa" 100 >"$TMP/aa.v"
aa=$(awk '$4 == "clear" { t[$1] = 1 } END { print length(t) }' "$TMP/aa.v")
echo "A/A: $aa of 100 tables with a false clear size ($(awk '$4 == "clear"' "$TMP/aa.v" | wc -l) of 800 sizes)"
check_eq "A/A: false clear sizes in at most 5 of 100 tables" 1 "$([ "$aa" -le 5 ] && echo 1 || echo 0)"
# Power: 100 tables, 5 runs, RCV 5%, mpi 20% slower: at least 80% of the sizes clear, shm-oneshot the pick.
mkdir -p "$TMP/pw" && python3 "$MK" tables "$TMP/pw" 100 5 0.05 1.2
verdicts "$TMP/pw" 100 >"$TMP/pw.v"
pw=$(awk '$4 == "clear" && $3 == "shm-oneshot"' "$TMP/pw.v" | wc -l)
echo "power: $pw of 800 sizes clear (20% apart, 5 runs, RCV 5%)"
check_eq "power: at least 80% of the sizes clear" 1 "$([ "$pw" -ge 640 ] && echo 1 || echo 0)"
check_eq "power: never mpi" 0 "$(awk '$3 == "mpi"' "$TMP/pw.v" | wc -l)"
# The power calculation: 10% apart with 3 runs (RCV 5%) is mostly undecided, and runs_needed says 10 (median over
# the tables); 10 runs then decide at least 80% of the sizes.
mkdir -p "$TMP/n3" "$TMP/n10" && python3 "$MK" tables "$TMP/n3" 50 3 0.05 1.1 && python3 "$MK" tables "$TMP/n10" 50 10 0.05 1.1
verdicts "$TMP/n3" 50 >"$TMP/n3.v"
verdicts "$TMP/n10" 50 >"$TMP/n10.v"
need=$(awk '$4 == "undecided" { print $5 }' "$TMP/n3.v" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
got=$(awk '$4 == "clear"' "$TMP/n10.v" | wc -l)
echo "power calculation: 3 runs leave $(awk '$4 == "undecided"' "$TMP/n3.v" | wc -l) of 400 undecided, median runs_needed $need; 10 runs: $got of 400 clear"
check_eq "power calculation: 10 runs asked for" 10 "$need"
check_eq "power calculation: 10 runs decide at least 80%" 1 "$([ "$got" -ge 320 ] && echo 1 || echo 0)"
# Equivalence: 1% apart (5 runs, RCV 1%) is shown equivalent at 80% of the sizes or more; 5% apart, on the margin
# (5 runs, RCV 2%), is the worst case of a false equivalence: in at most 5% of tables.
mkdir -p "$TMP/e1" "$TMP/e5" && python3 "$MK" tables "$TMP/e1" 50 5 0.01 1.01 && python3 "$MK" tables "$TMP/e5" 50 5 0.02 1.05
verdicts "$TMP/e1" 50 >"$TMP/e1.v"
verdicts "$TMP/e5" 50 >"$TMP/e5.v"
e1=$(awk '$4 == "equivalent"' "$TMP/e1.v" | wc -l)
e5=$(awk '$4 == "equivalent" { t[$1] = 1 } END { print length(t) }' "$TMP/e5.v")
echo "equivalence: 1% apart: $e1 of 400 sizes equivalent; 5% apart: $e5 of 50 tables with a size called equivalent"
check_eq "equivalence: 1% apart shown at 80% of sizes or more" 1 "$([ "$e1" -ge 320 ] && echo 1 || echo 0)"
check_eq "equivalence: 5% apart (on the margin) in at most 5% of tables" 1 "$([ "$e5" -le 2 ] && echo 1 || echo 0)"
finish
