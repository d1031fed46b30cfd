#!/usr/bin/env bash
# fleet-1000.sh — how `arbench fleet` scales with a fleet: writes N boxes' results files (default 1,000, about
# 95 MB: 2 backends x 13 sizes x 3 runs x 100 samples each, as run --per-node writes them; tests/analysis/fleet_gen.py),
# one of them 1.6x slower from 64K, runs fleet once and reports the seconds and the peak RSS (GNU time), and
# checks that exactly the slow box is named (the N - 1 healthy ones flag none). The issue's bar: 1,000 boxes'
# files in at most 30 s and 2 GB. BEFORE= another arbench runs side by side, with the ratio before/after.
# Usage: bench/perf/fleet-1000.sh [N] [ARBENCH]   (FLEET_DIR=path keeps, or reuses, the generated files)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
N=${1:-1000} ARBENCH=${2:-$src/build/arbench}
command -v /usr/bin/time >/dev/null || { echo "fleet-1000: needs GNU time (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/arbench-fleet.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dir=${FLEET_DIR:-$tmp/fleet}
slow=$(printf 'box%04d' $((N * 417 / 1000)))
[ -d "$dir" ] && [ -n "$(ls "$dir")" ] || python3 "$src/tests/analysis/fleet_gen.py" --out "$dir" --boxes "$N" \
  --slow "$slow:1.6:65536:p2p-oneshot" --seed 7
echo "fleet of $N boxes: $(ls "$dir" | wc -l) files, $(du -sh "$dir" | cut -f1), $(cat "$dir"/*.jsonl | wc -l) records"
measure() { # measure NAME ARBENCH: seconds and peak RSS of one fleet call, and its findings
  local rc=0
  /usr/bin/time -f "%e %M" -o "$tmp/$1.time" "$2" fleet --format json "$dir"/*.jsonl >"$tmp/$1.json" 2>"$tmp/$1.err" || rc=$?
  [ $rc = 4 ] || { cat "$tmp/$1.err"; echo "fleet-1000: $1: exit $rc, expected 4 (one box flagged)" >&2; exit 1; }
  read -r sec kb < <(tail -n 1 "$tmp/$1.time") # GNU time says "Command exited with non-zero status 4" first
  named=$(python3 -c 'import json,sys; print(" ".join(f["host"] for f in json.load(open(sys.argv[1]))["findings"]))' "$tmp/$1.json")
  [ "$named" = "$slow" ] || { echo "fleet-1000: $1 named [$named], expected [$slow]" >&2; exit 1; }
  printf '%-7s %8.2f s %8.1f MB peak RSS  named: %s (of %d boxes, %s tests)\n' "$1" "$sec" "$(echo "$kb / 1024" | bc -l)" \
    "$named" "$N" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["family"]["tests"])' "$tmp/$1.json")"
  eval "${1}_sec=$sec ${1}_kb=$kb"
}
[ -n "${BEFORE:-}" ] && measure before "$BEFORE"
measure after "$ARBENCH"
if [ -n "${BEFORE:-}" ]; then
  printf 'after/before: time %.2f, peak RSS %.2f\n' "$(echo "$after_sec / $before_sec" | bc -l)" "$(echo "$after_kb / $before_kb" | bc -l)"
fi
