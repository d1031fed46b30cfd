#!/bin/bash
# plot.sh — plots/arbench-plot renders every chart as valid, non-trivial PNG and SVG from fixtures,
# an nccl-tests import and a compare; bad input is one line, exit 2. Needs a python with matplotlib.
. "$(dirname "$0")/common.sh"
PLOT="$ARBENCH_SRC/plots/arbench-plot"
PY=""
for p in "${ARBENCH_PYTHON:-}" /usr/bin/python3 "$(command -v python3)"; do
  [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import matplotlib' 2>/dev/null && PY=$p && break
done
[ -z "$PY" ] && { echo "skipped: no python3 with matplotlib"; exit 77; }
echo "python with matplotlib: $PY"
"$ARBENCH" import nccl-tests "$NT/pcie-2x2080ti.log" -J "$TMP/nt.jsonl" >/dev/null || fail "import exited $?"
# Run it as a user would (its shebang's python3 may lack matplotlib: it re-runs itself with one that has it).
"$PLOT" "$FIX/tune.jsonl" "$TMP/nt.jsonl" -o "$TMP/p" --compare "$FIX/a.jsonl" "$FIX/b.jsonl" \
  --arbench "$ARBENCH" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "arbench-plot exited $?"; }
for n in latency_bfloat16_8r_out busbw_bfloat16_8r_out latency_bfloat16_4r_out latency_float_2r_in \
         busbw_float_2r_out best_map_bfloat16_out best_map_float_in compare; do
  png="$TMP/p/$n.png" svg="$TMP/p/$n.svg"
  eq "$n.png is a PNG" "89504e470d0a1a0a" "$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')"
  eq "$n.png is not trivial (> 15 kB)" 1 "$([ "$(stat -c %s "$png" 2>/dev/null || echo 0)" -gt 15000 ] && echo 1 || echo 0)"
  eq "$n.svg is an SVG" 1 "$(grep -c '<svg' "$svg" 2>/dev/null || echo 0)"
done
eq "every file reported" "$(ls "$TMP/p" | wc -l)" "$(grep -c '^wrote ' "$TMP/out")"
# The best map follows arbench table's noise rule: 8 tie cells in the noise fixture, margins elsewhere.
"$PLOT" "$FIX/noise.jsonl" -o "$TMP/n" --format svg --arbench "$ARBENCH" >/dev/null 2>&1 || fail "noise plot exited $?"
eq "best map: ties drawn as ties" 8 "$(grep -c '<!-- tie -->' "$TMP/n/best_map_float_out.svg")"
eq "best map: clear winners' margins" "+20% +23% +33%" \
  "$(grep -o '<!-- [+-][0-9]*% -->' "$TMP/n/best_map_float_out.svg" | cut -d' ' -f2 | sort | paste -sd' ')"
# The topology picture needs `arbench topo --format dot` and graphviz: drawn from an hwloc XML, or skipped
# with a message that says why.
XML=$(ls "${ARBENCH_SHARED:-/nonexistent}"/topologies/*.xml 2>/dev/null | head -1)
if [ -n "$XML" ]; then
  "$PLOT" --topo-xml "$XML" -o "$TMP/topo" --arbench "$ARBENCH" --format png >"$TMP/tout" 2>"$TMP/terr"
  if [ -f "$TMP/topo/topology.png" ]; then
    eq "topology.png is a PNG" "89504e47" "$(head -c 4 "$TMP/topo/topology.png" | od -An -tx1 | tr -d ' \n')"
  else
    eq "topology skipped with a reason" 1 "$(grep -c 'skipping the topology picture' "$TMP/terr")"
  fi
fi
bad "no -o" "$PLOT" "$FIX/tune.jsonl"
bad "missing file" "$PLOT" "$TMP/none.jsonl" -o "$TMP/x"
printf '{"type":"run","run_id":"r"}\nnot json\n{"type":"run"}\n' >"$TMP/mid.jsonl"
bad "malformed middle line" "$PLOT" "$TMP/mid.jsonl" -o "$TMP/x"
bad "bad format" "$PLOT" "$FIX/tune.jsonl" -o "$TMP/x" --format gif
bad "unknown option" "$PLOT" "$FIX/tune.jsonl" -o "$TMP/x" --frobnicate
bad "absent dtype" "$PLOT" "$FIX/tune.jsonl" -o "$TMP/x" --dtype half
finish
