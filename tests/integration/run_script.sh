#!/usr/bin/env bash
# run_script.sh — scripts/run.sh, the README's main job, on this machine's build and a few small sizes:
# it benchmarks on CPU ranks without a GPU, writes a results file with a checked result per backend and
# size, prints the table, writes the tuning files and (with matplotlib) the plots; exit 0.
source "$(dirname "$0")/../lib/common.sh"
# What a fresh build gets (issue 24): the archs of the GPUs the driver reports, or the host parts only.
# A stand-in nvidia-smi plays the driver.
mkdir -p "$TMP/bin"
fake_smi() { # fake_smi LIST-OUTPUT QUERY-OUTPUT [QUERY-STATUS]
  printf '#!/bin/sh\ncase "$*" in\n  -L) printf "%%b" "%s" ;;\n  *compute_cap*) printf "%%b" "%s"; exit %s ;;\nesac\n' \
    "$1" "$2" "${3:-0}" >"$TMP/bin/nvidia-smi"
  chmod +x "$TMP/bin/nvidia-smi"
}
choice() { env PATH="$TMP/bin:$PATH" BUILD_DIR="$TMP/nobuild" "$ARBENCH_SRC/scripts/run.sh" --print-build 2>"$TMP/cerr"; }
fake_smi "GPU 0: A\\nGPU 1: B\\nGPU 2: C\\n" "12.0\\n8.9\\n12.0\\n"
[ "$(choice)" = "MESON_OPTS=-Dcuda-archs=89,120" ] || { choice; cat "$TMP/cerr"; fail "three GPUs (12.0, 8.9, 12.0): not -Dcuda-archs=89,120"; }
grep -q "^run: GPUs of compute capability 89,120: building kernels for those archs only" "$TMP/cerr" || fail "arch choice not said"
fake_smi "" "" 0
[ "$(choice)" = "MESON_OPTS=-Dcuda=disabled" ] || { choice; fail "no GPU: not -Dcuda=disabled"; }
grep -q "^run: no GPU (nvidia-smi lists none): building the host parts only" "$TMP/cerr" || fail "host-only choice not said"
fake_smi "GPU 0: A\\n" "Field \\"compute_cap\\" is not a valid field\\n" 2
[ "$(choice)" = "MESON_OPTS=" ] || { choice; fail "a driver without compute_cap: not the default archs"; }
[ "$(MESON_OPTS=-Dcuda-archs=90 choice)" = "MESON_OPTS=-Dcuda-archs=90" ] || fail "MESON_OPTS does not override the choice"
expect_status 2 "$ARBENCH_SRC/scripts/run.sh" --frobnicate
command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | qgrep -q '^GPU' \
  && { echo "skipped: a GPU is present (run.sh would benchmark it for minutes)"; exit 77; }
R=$TMP/res
expect_status 0 env BUILD_DIR="$ARBENCH_BUILD" RESULTS_DIR="$R" ARBENCH_ARGS="--backend mpi,shm-oneshot -e 128 -n 2 -w 0" \
  "$ARBENCH_SRC/scripts/run.sh"
grep -q "^run: no usable GPU; [2-8] CPU ranks on the host backends$" "$TMP/err" || { cat "$TMP/err"; fail "no CPU-ranks line"; }
out=$(ls "$R"/run-*.jsonl) || fail "no results file in $R"
grep -qF "run: results in $out" "$TMP/err" || fail "results file not named"
# The console is short: one line per backend, no raw per-run table; those are in the log it names.
log=${out%.jsonl}.log
grep -qF "run: raw per-run tables: $log" "$TMP/err" || { cat "$TMP/err"; fail "raw log not named"; }
for b in mpi shm-oneshot; do
  grep -Eq "^run:   \[[12]\] $b, float: 9 measurements, 0 wrong, [0-9]+ s$" "$TMP/err" || { cat "$TMP/err"; fail "no progress line for $b"; }
done
! grep -q "#wrong\|^# backend" "$TMP/out" "$TMP/err" || { cat "$TMP/out"; fail "raw per-run tables on the console"; }
[ "$(grep -c '^# backend ' "$log")" = 2 ] && [ "$(grep -c '^ *128 ' "$log")" = 6 ] || { cat "$log"; fail "the log lacks the raw tables"; }
[ "$(wc -l <"$TMP/err")" -le 16 ] || { cat "$TMP/err"; fail "run.sh says more than 16 lines on stderr"; }
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
grep -q '^| size | mpi | shm-oneshot | decision |$' "$TMP/out" || { cat "$TMP/out"; fail "no table header naming both backends"; }
for s in 8 32 128; do
  grep -Eq "^\| $s \| .*\*\*.*\|$" "$TMP/out" || { cat "$TMP/out"; fail "table has no row with a best for $s"; }
done
ls "$R/tune"/* >/dev/null 2>&1 || fail "no tuning files in $R/tune"
grep -qF "run: tuning files in $R/tune" "$TMP/err" || fail "tuning files not named"
if python3 -c 'import matplotlib' 2>/dev/null; then
  ls "$R"/plots/latency_float_*r_out.png >/dev/null 2>&1 || fail "no latency plot in $R/plots"
fi
# The page to share, beside the results, its path the last line.
html=${out%.jsonl}.html
[ "$(tail -1 "$TMP/err")" = "run: report in $html" ] || { cat "$TMP/err"; fail "the report's path is not the last line"; }
grep -q '<table class="decide' "$html" || fail "the report $html has no decision table"
echo "run_script: ok"
