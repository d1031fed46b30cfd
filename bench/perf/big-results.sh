#!/usr/bin/env bash
# big-results.sh — how `table`, `tune`, `compare` and the plots scale with a results file: writes N
# result records of S samples each (default 20,000 x 1,000, about 150 MB), runs each reader once and
# reports records/s and peak RSS (GNU time), with the file's size for scale; BEFORE= another arbench
# (and BEFORE_PLOT= its arbench-plot) runs side by side, with the ratios before/after.
# Usage: bench/perf/big-results.sh [N] [S] [ARBENCH]   (ARBENCH default: build/arbench)
#   LAYOUT=runs (default): 8 backends x VARIANTS (1) x 25 sizes measured over and over, each pass a
#     new run (a long repeated sweep: memory stays flat once a measurement has its 64 runs);
#   LAYOUT=cells: every record a measurement of its own (variant i/200: memory grows per record).
#   PLOTS=0 skips the plots; BIG_FILE=path keeps (or reuses) the generated file; TOOLS="table tune"
#   runs only those (TOOLS="" only writes the file).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
N=${1:-20000} S=${2:-1000} ARBENCH=${3:-$src/build/arbench}
LAYOUT=${LAYOUT:-runs} VARIANTS=${VARIANTS:-1} TOOLS=${TOOLS-"table tune compare plots"}
case $LAYOUT in runs | cells) ;; *) echo "big-results: bad LAYOUT '$LAYOUT' (expected runs or cells)" >&2; exit 2 ;; esac
command -v /usr/bin/time >/dev/null || { echo "big-results: needs GNU time (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/arbench-big.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
big=${BIG_FILE:-$tmp/big.jsonl}
[ -s "$big" ] || python3 - "$big" "$N" "$S" "$LAYOUT" "$VARIANTS" <<'PY'
import json, random, sys
path, n, s, layout, nvar = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
rng = random.Random(1)
sizes = [8 << k for k in range(25)]
pool = {}  # per size, 16 sample sets (as text) with their percentiles: fast to write, still real data
for size in sizes:
    base = 5 + size / 2e4
    for j in range(16):
        samples = [round(base * (1 + rng.random() * 0.1), 3) for _ in range(s)]
        qs = sorted(samples)
        q = lambda p: qs[min(len(qs) - 1, int(p * len(qs)))]
        t = {"min": qs[0], "p10": q(.1), "p50": q(.5), "p90": q(.9), "p99": q(.99), "max": qs[-1],
             "mean": sum(qs) / s, "stddev": 0.1}
        pool[size, j] = (json.dumps(t, separators=(",", ":")), ",".join(map(str, samples)), base)
cells = len(sizes) * 8 * nvar
with open(path, "w") as f:
    run = None
    for i in range(n):
        r = "big%d" % (i // cells) if layout == "runs" else "big"
        if r != run:
            run = r
            f.write(json.dumps({"type": "run", "run_id": r, "ranks": 8, "nodes": 1, "hosts": ["h"],
                                "stack": {"name": "big"}}) + "\n")
        size = sizes[i % len(sizes)]
        var = (i // (8 * len(sizes))) % nvar if layout == "runs" else i // (8 * len(sizes))
        t, smp, base = pool[size, (i * 7 + i // 25) % 16]
        head = json.dumps({"type": "result", "run_id": r, "backend": "b%d" % (i // len(sizes) % 8),
            "variant": "v%d" % var, "spec": "b%d:v%d" % (i // len(sizes) % 8, var), "dtype": "float", "op": "sum", "placement": "out",
            "size": size, "count": size // 4, "ranks": 8, "nodes": 1, "iters": s, "samples_n": s,
            "checked": True, "wrong": 0, "busbw_gbs": size / base / 1e3}, separators=(",", ":"))
        f.write(head[:-1] + ',"time_us":' + t + ',"samples_us":[' + smp + "]}\n")
PY
mb=$(( $(stat -c %s "$big") / 1048576 ))
echo "file: $N records x $S samples ($LAYOUT layout), $mb MB"
# run NAME CMD...: "secs kb" of one run, or "fail"
run() {
  local name=$1; shift
  if /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err"; then cat "$tmp/time"
  else sed "s/^/$name: /" "$tmp/err" | tail -3 >&2; echo fail; fi
}
line() { # NAME "secs kb" ["secs kb" of before]
  awk -v n="$1" -v a="$2" -v b="${3:-}" -v r="$N" -v mb="$mb" 'BEGIN {
    if (a == "fail") { printf "%-8s failed\n", n; exit }
    split(a, x, " "); s = x[1] > 0 ? x[1] : 0.01; m = x[2] / 1024
    printf "%-8s %7.2f s %8.0f rec/s %7.0f MB RSS (%.2fx file)", n, s, r / s, m, m / (mb > 0 ? mb : 1)
    if (b != "" && b != "fail") { split(b, y, " "); bs = y[1] > 0 ? y[1] : 0.01; bm = y[2] / 1024
      printf " | before %7.2f s %8.0f rec/s %7.0f MB | speedup %5.1fx, memory /%5.1f", bs, r / bs, bm, bs / s, bm / m }
    else if (b == "fail") printf " | before failed"
    printf "\n" }'
}
for t in $TOOLS; do
  case $t in
    table) cmd=(table "$big") ;;
    tune) cmd=(tune "$big" -o "$tmp/tune") ;;
    compare) cmd=(compare "$big" "$big") ;;
    plots) [ "${PLOTS:-1}" = 1 ] || continue
      a=$(run plots "$src/plots/arbench-plot" "$big" -o "$tmp/plots" --arbench "$ARBENCH")
      b=""; [ -n "${BEFORE_PLOT:-}" ] && b=$(run plots-before "$BEFORE_PLOT" "$big" -o "$tmp/plots0" --arbench "${BEFORE:-$ARBENCH}")
      line plots "$a" "$b"; continue ;;
    *) echo "big-results: unknown tool '$t' (expected table tune compare plots)" >&2; exit 2 ;;
  esac
  a=$(run "$t" "$ARBENCH" "${cmd[@]}")
  b=""; [ -n "${BEFORE:-}" ] && b=$(run "$t-before" "$BEFORE" "${cmd[@]}")
  line "$t" "$a" "$b"
done
