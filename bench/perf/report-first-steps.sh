#!/usr/bin/env bash
# report-first-steps.sh — `arbench report` on the README's first-steps files (run.jsonl, sweep.jsonl, links.jsonl)
# against plots/arbench-plot alone on the same files, side by side: median wall and CPU seconds of each, their ratio.
# usage: bench/perf/report-first-steps.sh [-a ARBENCH] [-r ROUNDS] [-i DIR_WITH_THE_3_FILES] [-o DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ARBENCH=${ARBENCH:-$here/../../build/arbench}
PLOT=$here/../../plots/arbench-plot
ROUNDS=3 IN= OUT=
while getopts "a:r:i:o:h" o; do
  case $o in
  a) ARBENCH=$OPTARG ;;
  r) ROUNDS=$OPTARG ;;
  i) IN=$OPTARG ;;
  o) OUT=$OPTARG ;;
  *) sed -n 2,4p "$0"; exit 2 ;;
  esac
done
[ -x "$ARBENCH" ] || { echo "report-first-steps.sh: no arbench binary at '$ARBENCH' (use -a PATH)" >&2; exit 2; }
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "report-first-steps.sh: bad -r '$ROUNDS' (a count, 1 or more)" >&2; exit 2; }
OUT=${OUT:-$(mktemp -d /tmp/report-first-steps.XXXXXX)}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ -z "$IN" ]; then # the README's first steps, as written there
  IN=$OUT/in
  mkdir -p "$IN"
  echo "# making the first-steps files in $IN (run, sweep, links: about a minute)" >&2
  "$ARBENCH" run --np 2 --backend mpi,shm-oneshot -b 8 -e 1M -f 4 --repeat 3 -J "$IN/run.jsonl" >/dev/null
  "$ARBENCH" sweep --np 2 --env OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
    --env OMPI_MCA_coll_tuned_allreduce_algorithm=1,2,3 --repeat 2 -J "$IN/sweep.jsonl" -- \
    --backend mpi,shm-oneshot -b 8 -e 64K >/dev/null
  "$ARBENCH" links --np 2 -J "$IN/links.jsonl" >/dev/null
fi
FILES=("$IN/run.jsonl" "$IN/sweep.jsonl" "$IN/links.jsonl")
for f in "${FILES[@]}"; do [ -s "$f" ] || { echo "report-first-steps.sh: no '$f'" >&2; exit 2; }; done

# one timed command: "wall cpu" (cpu = user + sys of it and its children, from bash's times)
timed() {
  local t0 c0 c1
  times >"$OUT/times0" # this shell's reaped children so far (times in a $(...) would count the subshell's own)
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>"$OUT/last.err" || { cat "$OUT/last.err" >&2; echo "report-first-steps.sh: '$1' failed" >&2; exit 1; }
  times >"$OUT/times1"
  c0=$(cpu_of "$OUT/times0") c1=$(cpu_of "$OUT/times1")
  echo "$(echo "$(date +%s.%N) - $t0" | bc -l) $(echo "$c1 - $c0" | bc -l)"
}
cpu_of() { # children's user + sys seconds of a `times` output (its second line: 0m1.234s 0m0.100s)
  awk 'NR == 2 { split($1, u, /m|s/); split($2, s, /m|s/); printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$OUT/report.t"
: >"$OUT/plot.t"
for ((i = 1; i <= ROUNDS; i++)); do # interleaved, so that both see the same load
  timed "$ARBENCH" report "${FILES[@]}" -o "$OUT/report.html" >>"$OUT/report.t"
  rm -rf "$OUT/plots"
  timed "$PLOT" "${FILES[@]}" --arbench "$ARBENCH" -o "$OUT/plots" >>"$OUT/plot.t"
  echo "# round $i/$ROUNDS: report $(tail -1 "$OUT/report.t"), arbench-plot $(tail -1 "$OUT/plot.t") (wall cpu s)" >&2
done
rw=$(cut -d' ' -f1 "$OUT/report.t" | median) rc=$(cut -d' ' -f2 "$OUT/report.t" | median)
pw=$(cut -d' ' -f1 "$OUT/plot.t" | median) pc=$(cut -d' ' -f2 "$OUT/plot.t" | median)
printf "files: %s (%s)\n" "${FILES[*]}" "$(du -ch "${FILES[@]}" | tail -1 | cut -f1)"
printf "load average at the end: %s\n" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-34s %8s %8s\n" "median of $ROUNDS" "wall s" "cpu s"
printf "%-34s %8.2f %8.2f\n" "arbench report (3 files)" "$rw" "$rc"
printf "%-34s %8.2f %8.2f\n" "plots/arbench-plot alone (png,svg)" "$pw" "$pc"
printf "ratio report / arbench-plot: wall %.2f, cpu %.2f\n" "$(echo "$rw / $pw" | bc -l)" "$(echo "$rc / ($pc + 0.0001)" | bc -l)"
printf "report within 5 s wall: %s\n" "$(echo "$rw <= 5" | bc -l | sed 's/1/yes/; s/0/no/')"
