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
"$ARBENCH" import nccl-tests "$NT/pcie-2x2080ti.log" -J "$TMP/nt.jsonl" >/dev/null || check_fail "import exited $?"
# Run it as a user would (its shebang's python3 may lack matplotlib: it re-runs itself with one that has it).
"$PLOT" "$FIX/tune.jsonl" "$TMP/nt.jsonl" -o "$TMP/p" --compare "$FIX/a.jsonl" "$FIX/b.jsonl" \
  --arbench "$ARBENCH" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; check_fail "arbench-plot exited $?"; }
for n in latency_bfloat16_8r_out busbw_bfloat16_8r_out latency_bfloat16_4r_out latency_float_2r_in \
         busbw_float_2r_out best_map_bfloat16_out best_map_float_in compare; do
  png="$TMP/p/$n.png" svg="$TMP/p/$n.svg"
  check_eq "$n.png is a PNG" "89504e470d0a1a0a" "$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')"
  check_eq "$n.png is not trivial (> 15 kB)" 1 "$([ "$(stat -c %s "$png" 2>/dev/null || echo 0)" -gt 15000 ] && echo 1 || echo 0)"
  check_eq "$n.svg is an SVG" 1 "$(grep -c '<svg' "$svg" 2>/dev/null || echo 0)"
done
check_eq "every file reported" "$(ls "$TMP/p" | wc -l)" "$(grep -c '^wrote ' "$TMP/out")"
# The best map draws arbench table's decisions: 8 undecided cells in the noise fixture ("?"), leads elsewhere.
"$PLOT" "$FIX/noise.jsonl" -o "$TMP/n" --format svg --arbench "$ARBENCH" >/dev/null 2>&1 || check_fail "noise plot exited $?"
check_eq "best map: undecided sizes drawn as such" 8 "$(grep -c '<!-- ? -->' "$TMP/n/best_map_float_out.svg")"
check_eq "best map: clear picks' leads" "+20% +23% +33%" \
  "$(grep -o '<!-- [+-][0-9]*% -->' "$TMP/n/best_map_float_out.svg" | cut -d' ' -f2 | sort | paste -sd' ')"
# The topology picture needs `arbench topo --format dot` and graphviz: drawn from an hwloc XML, or skipped
# with a message that says why.
XML=$(ls "${ARBENCH_SHARED:-/nonexistent}"/topologies/*.xml 2>/dev/null | head -1)
if [ -n "$XML" ]; then
  "$PLOT" --topo-xml "$XML" -o "$TMP/topo" --arbench "$ARBENCH" --format png >"$TMP/tout" 2>"$TMP/terr"
  if [ -f "$TMP/topo/topology.png" ]; then
    check_eq "topology.png is a PNG" "89504e47" "$(head -c 4 "$TMP/topo/topology.png" | od -An -tx1 | tr -d ' \n')"
  else
    check_eq "topology skipped with a reason" 1 "$(grep -c 'skipping the topology picture' "$TMP/terr")"
  fi
fi
# A run whose records carry a p10..p90 spread and a topology bottleneck (as `arbench run` writes it on a
# GPU box): the latency chart has the band (a filled polygon), the busbw chart the link bound line.
"$PY" - "$TMP/band.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"type": "run", "run_id": "rb", "schema": 1, "ranks": 4, "nodes": 1, "stack": {"name": "s"},
                        "topology": {"bottleneck_gbs": 26.0, "digest": "fnv1a64:0"}}) + "\n")
    for size, p in ((1024, 10.0), (65536, 20.0), (1048576, 90.0)):
        bw = size / (p * 1e3)
        f.write(json.dumps({"type": "result", "run_id": "rb", "backend": "mpi", "variant": "", "spec": "mpi",
                            "dtype": "float", "op": "sum", "placement": "out", "size": size, "count": size // 4,
                            "ranks": 4, "nodes": 1, "iters": 10, "samples_n": 10, "checked": True, "wrong": 0,
                            "time_us": {"min": p / 2, "p10": p * 0.7, "p50": p, "p90": p * 1.6, "p99": p * 2, "max": p * 2,
                                        "mean": p, "stddev": 1.0},
                            "algbw_gbs": bw, "busbw_gbs": bw * 1.5, "busbw_p50_gbs": bw * 1.5, "samples_us": [p] * 10}) + "\n")
PY
"$PLOT" "$TMP/band.jsonl" -o "$TMP/band" --format svg --arbench "$ARBENCH" >/dev/null 2>"$TMP/berr" || { cat "$TMP/berr"; check_fail "band plot exited $?"; }
check_eq "latency chart has the p10-p90 band" 1 "$(grep -c '<g id="PolyCollection_1"' "$TMP/band/latency_float_4r_out.svg" 2>/dev/null || echo 0)"
check_eq "busbw chart has the link bound from the topology" 1 \
  "$(grep -c '<!-- link bound 26.0 GB/s (topology bottleneck_gbs) -->' "$TMP/band/busbw_float_4r_out.svg" 2>/dev/null || echo 0)"
# The numbers a chart drew are arbench table's (plotted.json): three repeats whose last run is far from the
# median draw the median-derived p50 and busbw (the bug: the latest record, 400 us and 31.46 GB/s at 8M).
"$PLOT" "$FIX/median3.jsonl" -o "$TMP/m3" --format png --arbench "$ARBENCH" >/dev/null 2>"$TMP/m3err" || { cat "$TMP/m3err"; check_fail "median3 plot exited $?"; }
P3="$TMP/m3/plotted.json"
check_eq "latency: mpi 8M is the median of 1000, 1100, 400" 1000 "$(jq '.latency_float_4r_out.series.mpi[] | select(.[0] == 8388608) | .[1]' "$P3")"
check_eq "busbw: from that p50 (8 MiB / 1000 us x 1.5)" 12.582912 "$(jq '.busbw_float_4r_out.series.mpi[] | select(.[0] == 8388608) | .[1]' "$P3")"
check_eq "plot numbers = table json numbers" "$("$ARBENCH" table --format json "$FIX/median3.jsonl" | jq -c '[.grids[0].cells[] | select(.config == 1) | .busbw_gbs]')" \
  "$(jq -c '[.busbw_float_4r_out.series["shm-oneshot"][] | .[1]]' "$P3")"
# Methods are never pooled: hot, cold and loop runs of one backend are three lines, labelled by what differs.
"$PLOT" "$FIX/methods.jsonl" -o "$TMP/me" --format png --arbench "$ARBENCH" >/dev/null 2>&1 || check_fail "methods plot exited $?"
check_eq "methods: three series" "shm-oneshot (buffers=cold,timing=iter,a=max)=197.7;shm-oneshot (buffers=hot,timing=iter,a=max)=172.7;shm-oneshot (buffers=hot,timing=loop,a=mean)=504" \
  "$(jq -r '.latency_float_4r_out.series | to_entries | map("\(.key)=\(.value[0][1] * 10 | round / 10)") | join(";")' "$TMP/me/plotted.json")"
# A sweep-sized file (24 sizes x 10 configurations): every configuration its own colour and marker, the same
# in every chart; the best map holds all ten winners, each with its own colour and number.
"$PY" "$FIX/make_wide.py" "$TMP/wide.jsonl"
"$PLOT" "$TMP/wide.jsonl" -o "$TMP/w" --arbench "$ARBENCH" >/dev/null 2>"$TMP/werr" || { cat "$TMP/werr"; check_fail "wide plot exited $?"; }
PW="$TMP/w/plotted.json"
check_eq "wide: 10 configurations, 10 distinct colours" "10 10" "$(jq -r '.latency_float_4r_out.styles | "\(length) \([.[][0]] | unique | length)"' "$PW")"
check_eq "wide: 10 distinct (colour, marker) pairs" 10 "$(jq '.latency_float_4r_out.styles | [.[]] | unique | length' "$PW")"
check_eq "wide: the same style in every chart" "$(jq -c '.latency_float_2r_out.styles' "$PW")" "$(jq -c '.busbw_float_4r_out.styles' "$PW")"
check_eq "wide: best map, 48 cells, 10 winners, 10 colours, 10 numbers" "48 10 10 10" \
  "$(jq -r '.best_map_float_out.cells | [.[]] | "\(length) \(map(.best) | unique | length) \(map(.color) | unique | length) \(map(.number) | unique | length)"' "$PW")"
check_eq "wide: labels leave out what every configuration shares" 0 "$(jq -r '.latency_float_4r_out.styles | keys[]' "$PW" | grep -c 'buffers=hot')"
check_eq "wide: best map rendered (PNG > 60 kB)" 1 "$([ "$(stat -c %s "$TMP/w/best_map_float_out.png" 2>/dev/null || echo 0)" -gt 60000 ] && echo 1 || echo 0)"
check_bad "no -o" "-o DIR is required" "$PLOT" "$FIX/tune.jsonl"
check_bad "missing file" "cannot open results file '$TMP/none.jsonl'" "$PLOT" "$TMP/none.jsonl" -o "$TMP/x"
printf '{"type":"run","run_id":"r"}\nnot json\n{"type":"run"}\n' >"$TMP/mid.jsonl"
check_bad "malformed middle line" "mid.jsonl:2: not a JSON object" "$PLOT" "$TMP/mid.jsonl" -o "$TMP/x"
check_bad "bad format" "bad --format 'gif'" "$PLOT" "$FIX/tune.jsonl" -o "$TMP/x" --format gif
check_bad "unknown option" "unrecognized arguments: --frobnicate" "$PLOT" "$FIX/tune.jsonl" -o "$TMP/x" --frobnicate
check_bad "absent dtype" "--dtype half: no such dtype in the results (present: bfloat16)" "$PLOT" "$FIX/tune.jsonl" -o "$TMP/x" --dtype half
finish
