#!/usr/bin/env bash
# big-results.sh — how `table`, `tune`, `compare` and the plots scale with a results file: writes N
# result records of S samples each (default 20,000 x 1,000, about 150 MB), runs each reader once and
# reports records/s and peak RSS (GNU time), with the file's size for scale.
# Usage: bench/perf/big-results.sh [N] [S] [ARBENCH]   (ARBENCH default: build/arbench; PLOTS=0 skips
# the plots, BIG_FILE=path keeps the generated file for a side-by-side run of another binary)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
N=${1:-20000} S=${2:-1000} ARBENCH=${3:-$src/build/arbench}
command -v /usr/bin/time >/dev/null || { echo "big-results: needs GNU time (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/arbench-big.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
big=${BIG_FILE:-$tmp/big.jsonl}   # BIG_FILE=path: keep (or reuse) the generated file
[ -s "$big" ] || python3 - "$big" "$N" "$S" <<'PY'
import json, random, sys
path, n, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(1)
sizes = [8 << k for k in range(25)]
with open(path, "w") as f:
    f.write(json.dumps({"type": "run", "run_id": "big", "ranks": 8, "nodes": 1, "hosts": ["h"],
                        "stack": {"name": "big"}}) + "\n")
    for i in range(n):
        size = sizes[i % len(sizes)]
        base = 5 + size / 2e4
        samples = [round(base * (1 + rng.random() * 0.1), 3) for _ in range(s)]
        qs = sorted(samples)
        q = lambda p: qs[min(len(qs) - 1, int(p * len(qs)))]
        f.write(json.dumps({"type": "result", "run_id": "big", "backend": "b%d" % (i // len(sizes) % 8),
            "variant": "v%d" % (i // (8 * len(sizes))), "spec": "b", "dtype": "float", "op": "sum",
            "placement": "out", "size": size, "count": size // 4, "ranks": 8, "nodes": 1, "iters": s,
            "samples_n": s, "checked": True, "wrong": 0,
            "time_us": {"min": qs[0], "p10": q(.1), "p50": q(.5), "p90": q(.9), "p99": q(.99),
                        "max": qs[-1], "mean": sum(qs) / s, "stddev": 0.1},
            "busbw_gbs": size / base / 1e3, "samples_us": samples}, separators=(",", ":")) + "\n")
PY
mb=$(( $(stat -c %s "$big") / 1048576 ))
echo "file: $N records x $S samples, $mb MB"
measure() { # measure NAME CMD... : records/s and peak RSS of one run
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; echo "$name: failed"; return 0; }
  read -r secs kb <"$tmp/time"
  awk -v n="$name" -v r="$N" -v s="$secs" -v kb="$kb" -v mb="$mb" 'BEGIN {
    printf "%-8s %7.2f s  %9.0f records/s  peak RSS %6.0f MB (%.1fx the file)\n", n, s, r / (s > 0 ? s : 0.01), kb / 1024, kb / 1024 / (mb > 0 ? mb : 1) }'
}
measure table "$ARBENCH" table "$big"
measure tune "$ARBENCH" tune "$big" -o "$tmp/tune"
measure compare "$ARBENCH" compare "$big" "$big"
if [ "${PLOTS:-1}" = 1 ] && python3 -c 'import matplotlib' 2>/dev/null; then
  measure plots "$src/plots/arbench-plot" "$big" -o "$tmp/plots"
fi
