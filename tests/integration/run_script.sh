#!/usr/bin/env bash
# run_script.sh — scripts/run.sh, the README's main job, on this machine's build and a few small sizes:
# it benchmarks on CPU ranks without a GPU, writes a results file with a checked result per backend and
# size, prints the table, writes the tuning files and (with matplotlib) the plots; exit 0.
source "$(dirname "$0")/../lib/common.sh"
command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU' \
  && { echo "skipped: a GPU is present (run.sh would benchmark it for minutes)"; exit 77; }
R=$TMP/res
expect_status 0 env BUILD_DIR="$ARBENCH_BUILD" RESULTS_DIR="$R" ARBENCH_ARGS="--backend mpi,shm-oneshot -e 128 -n 2 -w 0" \
  "$ARBENCH_SRC/scripts/run.sh"
grep -q "^run: no usable GPU; [2-8] CPU ranks on the host backends$" "$TMP/err" || { cat "$TMP/err"; fail "no CPU-ranks line"; }
out=$(ls "$R"/run-*.jsonl) || fail "no results file in $R"
grep -qF "run: results in $out" "$TMP/err" || fail "results file not named"
"$PY" - "$out" <<'PY' || fail "results file"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs[0]["type"] == "run" and 2 <= recs[0]["ranks"] <= 8, recs[0]
res = [r for r in recs if r["type"] == "result"]
got = sorted((r["backend"], r["size"], r["repeat"]) for r in res)  # run.sh measures 3 runs (--repeat 3)
assert got == sorted((b, s, k) for b in ("mpi", "shm-oneshot") for s in (8, 32, 128) for k in range(3)), got
assert all(r["checked"] and r["wrong"] == 0 and r["dtype"] == "float" for r in res), res
PY
# The table: the header names both backends, one row per size, one best (bold) per row.
grep -q '^| size | mpi | shm-oneshot |$' "$TMP/out" || { cat "$TMP/out"; fail "no table header naming both backends"; }
for s in 8 32 128; do
  grep -Eq "^\| $s \| .*\*\*.*\|$" "$TMP/out" || { cat "$TMP/out"; fail "table has no row with a best for $s"; }
done
ls "$R/tune"/* >/dev/null 2>&1 || fail "no tuning files in $R/tune"
grep -qF "run: tuning files in $R/tune" "$TMP/err" || fail "tuning files not named"
if python3 -c 'import matplotlib' 2>/dev/null; then
  ls "$R"/plots/latency_float_*r_out.png >/dev/null 2>&1 || fail "no latency plot in $R/plots"
fi
echo "run_script: ok"
