#!/usr/bin/env bash
# records.sh — `arbench report` on the records main's other commands write (issues 35, 41, 42): an nccl-tests log
# through `arbench import` (counted as an imported log, its run row naming the log, every size's pick and p50 as
# table's), a real sweep whose axis does not apply to a backend (the pooled column named as table names it), and
# `run --per-node` files of several hosts (the page says table pools their runs and points at arbench fleet).
source "$(dirname "$0")/../lib/common.sh"
ar_counting
export ARBENCH_PLOT=/nonexistent # charts are report-browser's; here the page's text
NT="$ARBENCH_SRC/tests/fixtures/nccl-tests"
page() { # page NAME FILES...: the page (exit 0, nothing on stderr) and its text without tags
  local name=$1 rc=0
  shift
  "$ARBENCH" report "$@" -o "$TMP/$name.html" >/dev/null 2>"$TMP/$name.err" || rc=$?
  check_eq "$name: exit 0" 0 "$rc"
  check_eq "$name: nothing on stderr" "" "$(cat "$TMP/$name.err")"
  sed 's/<[^>]*>//g' "$TMP/$name.html" >"$TMP/$name.txt"
}
# An imported nccl-tests log (8 x A100, superbench): one imported log, no measurement run, the log named.
"$ARBENCH" import nccl-tests "$NT/superbench-allreduce-8xA100.log" -J "$TMP/imp.jsonl" >/dev/null 2>&1
page imp "$TMP/imp.jsonl"
check_eq "import: counted as an imported log" 1 "$(grep -c '0 measurement runs, 0 links runs, 1 imported log, 2 tables' "$TMP/imp.txt")"
check_eq "import: the run row names the log" 1 "$(grep -c 'arbench import nccl-tests superbench-allreduce-8xA100.log' "$TMP/imp.txt")"
"$ARBENCH" table --format json "$TMP/imp.jsonl" >"$TMP/imp.json"
want=$(jq -r '.grids[] | .sizes | map(tostring) | join(" ")' "$TMP/imp.json" | paste -sd'/')
got=$(awk '/<table class="decide/{on=1; l=""} on && /<tr data-size=/{match($0, /data-size="[0-9]+"/); l=l (l ? " " : "") substr($0, RSTART + 11, RLENGTH - 12)}
  on && /<\/table>/{print l; on=0}' "$TMP/imp.html" | paste -sd'/')
check_eq "import: a decision row per size of each table, table's sizes" "$want" "$got"
# A real sweep over Open MPI's allreduce algorithm (an axis that applies to mpi only, the sweep records it):
# shm-oneshot's two points pooled into one column, named as table names it.
"$ARBENCH" sweep --np 2 --env OMPI_MCA_coll_tuned_use_dynamic_rules=1 --env OMPI_MCA_coll_tuned_allreduce_algorithm=1,2 \
  -J "$TMP/fold.jsonl" -- --backend mpi,shm-oneshot -b 8 -e 8 -n 2 -w 0 >/dev/null 2>"$TMP/sweep.err"
check_eq "sweep: exit 0" 0 $?
page fold "$TMP/fold.jsonl"
pooled="shm-oneshot pools its runs of the sweep points OMPI_MCA_coll_tuned_use_dynamic_rules=1; "
pooled+="OMPI_MCA_coll_tuned_allreduce_algorithm=1,2 (the sweep"
check_eq "folded sweep: the pooled column named as table names it" 1 "$(grep -cF "$pooled" "$TMP/fold.txt")"
check_eq "folded sweep: shm-oneshot one column, mpi one per algorithm" "mpi mpi shm-oneshot" \
  "$(grep -o '<th class="l label" data-cfg="[^"]*"' "$TMP/fold.html" | sed 's/.*data-cfg="//; s/[ "].*//' | sort | paste -sd' ')"
# run --per-node files of two hosts (fleet_gen.py, as fleet.sh makes them): table pools them, the page says so.
"$PY" "$ARBENCH_SRC/tests/analysis/fleet_gen.py" --out "$TMP/fleet" --boxes 2 --runs 2 --samples 5 --sizes 3 >/dev/null
page fleet "$TMP"/fleet/*.jsonl
check_eq "per-node files: both hosts named" 1 "$(grep -c 'Hosts: box00, box01\.' "$TMP/fleet.txt")"
check_eq "per-node files: the pooling said, fleet named" 1 "$(grep -c 'pool the runs of 2 hosts as arbench table does; arbench fleet' "$TMP/fleet.txt")"
page one "$TMP/fleet/box00.jsonl"
check_eq "one host: no pooling line" 0 "$(grep -c 'pool the runs of' "$TMP/one.txt")"
finish
