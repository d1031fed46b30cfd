#!/usr/bin/env bash
# plot.sh — plots/arbench-plot's compare chart and topology picture (issue 42, item 9): the caption under the
# compare title never overlaps it, is one line (the whole text kept as the caption in plotted.json), the ratio axis has a labelled tick every
# step (not only at 1); the topology leaves a VM's virtio devices out (counted in the label) and says
# "1 package, 1 NUMA node".
source "$(dirname "$0")/../lib/common.sh"
ar_counting
PLOT="$ARBENCH_SRC/plots/arbench-plot"
PYM=""
for p in "${ARBENCH_PYTHON:-}" /usr/bin/python3 "$(command -v python3)"; do
  [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import matplotlib' 2>/dev/null && PYM=$p && break
done
[ -z "$PYM" ] && { echo "skipped: no python3 with matplotlib"; exit 77; }
# A compare of ratios 0.95 .. 1.06 with a caption long enough to have wrapped onto three lines.
"$PYM" - "$TMP/c.json" <<'PY'
import json, sys
m = lambda spec, size, r: {"backend": spec, "spec": spec, "point": "", "dtype": "float", "ranks": 2, "placement": "out",
                           "size": size, "ratio": r, "lo": r * 0.98, "hi": r * 1.02}
json.dump({"a": {"file": "a.jsonl"}, "b": {"file": "b.jsonl"}, "resamples": 2000,
           "correction": "Holm-Bonferroni over the 6 matches with samples (family-wise error 5%): " + "a long caption " * 25,
           "matches": [m("mpi", 8, 0.95), m("mpi", 1024, 1.02), m("mpi", 65536, 1.06),
                       m("shm-oneshot", 8, 0.97), m("shm-oneshot", 1024, 1.0), m("shm-oneshot", 65536, 1.04)]},
          open(sys.argv[1], "w"))
PY
"$PLOT" --compare-json "$TMP/c.json" -o "$TMP/p" --format png --arbench "$ARBENCH" >/dev/null 2>"$TMP/err"
check_eq "compare chart: exit 0" 0 $?
P="$TMP/p/plotted.json"
check_eq "caption below the title: no overlap (title bottom >= caption top)" true \
  "$(jq '.compare.boxes as $b | $b.title[1] >= $b.caption[3]' "$P")"
check_eq "subtitle on one line (issue 51: the details go to the caption)" true \
  "$(jq '.compare.boxes.caption as $c | ($c[3] - $c[1]) < 20' "$P")"
check_eq "the whole text kept as the chart's caption" true \
  "$(jq '.compare.caption | endswith("a long caption ")' "$P")"
check_eq "ratio axis: a labelled tick every 0.05 around 1" "0.95 1 1.05 1.1" \
  "$(jq -r '.compare.yticks | join(" ")' "$P")"
# Legends break lines between words, never inside one (issue 51: "n p=2"): the first steps' sweep, whose labels
# hold words longer than a legend line (OMPI_MCA_coll_tuned_use_dynamic_rules=1;).
# One label gets a 60-character word (longer than a legend line: the case that was cut).
"$ARBENCH" table --format json "$ARBENCH_SRC/tests/fixtures/report/firststeps-sweep.jsonl" |
  jq '.grids[0].configs[0].label = "mpi {OMPI_MCA_coll_tuned_" + ("x" * 35) + "=1} np=2"' >"$TMP/fs.json"
"$PLOT" --table-json "$TMP/fs.json" -o "$TMP/fs" --format svg --arbench "$ARBENCH" >/dev/null 2>&1
check_eq "legend: every entry is its label, lines broken at spaces only" "[]" "$(jq -c '[.[] | select(.legend) |
  (.legend | map(gsub("\n"; " ")) | map(select(startswith("link bound") | not))) - (.series | keys)] | add' \
  "$TMP/fs/plotted.json" 2>&1)"
check_eq "legend: long labels wrapped (several lines)" true \
  "$(jq '[.[] | select(.legend) | .legend[] | select(contains("\n"))] | length > 0' "$TMP/fs/plotted.json")"
# The topology picture: a VM's virtio devices are not drawn but counted; singular package and NUMA node.
X="$ARBENCH_SRC/tests/fixtures/topo"
"$ARBENCH" topo --xml "$X/vm-virtio.xml" --format dot >"$TMP/vm.dot"
check_eq "vm: no virtio node" 0 "$(grep -c '1af4:' "$TMP/vm.dot")"
check_eq "vm: counted in the label" 1 "$(grep -c '5 virtio devices of the hypervisor not drawn' "$TMP/vm.dot")"
check_eq "vm: 1 package, 1 NUMA node" 1 "$(grep -c 'label="Machine\\n1 package, 1 NUMA node"' "$TMP/vm.dot")"
check_eq "vm: the host bridge's only real device kept" 1 "$(grep -c '8086:0d57' "$TMP/vm.dot")"
"$ARBENCH" topo --xml "$X/2s8g.xml" --format dot >"$TMP/2s.dot"
check_eq "2s8g: plural, 8 GPUs, no virtio note" "1 8 0" \
  "$(grep -c '2 packages, 2 NUMA nodes' "$TMP/2s.dot") $(grep -c 'fillcolor="#76b900"' "$TMP/2s.dot") $(grep -c virtio "$TMP/2s.dot")"
if command -v dot >/dev/null; then
  "$PLOT" --topo-xml "$X/vm-virtio.xml" -o "$TMP/t" --format svg --arbench "$ARBENCH" >/dev/null 2>&1
  check_eq "topology.svg drawn without virtio" "1 0" \
    "$([ -s "$TMP/t/topology.svg" ] && echo 1 || echo 0) $(grep -c '1af4' "$TMP/t/topology.svg")"
fi
finish
