#!/usr/bin/env bash
# plot.sh — plots/arbench-plot's link heatmaps: one per matrix, every plotted number and path class equal to
# `arbench table --format json`'s (and to the synthetic box's known values); links alone are enough to plot.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/synth.sh"
PYM=""
for p in "${ARBENCH_PYTHON:-}" /usr/bin/python3 python3; do
  [ -n "$p" ] && command -v "$p" >/dev/null && "$p" -c 'import matplotlib' 2>/dev/null && PYM=$p && break
done
[ -z "$PYM" ] && { echo "skipped: no python3 with matplotlib"; exit 77; }
synth "$TMP/a3.jsonl" a 3
expect_status 0 "$PYM" "$ARBENCH_SRC/plots/arbench-plot" "$TMP/a3.jsonl" -o "$TMP/p" --arbench "$ARBENCH" --format png
for m in read_uni write_uni flag_pingpong; do
  [ -s "$TMP/p/links_$m.png" ] || fail "no heatmap links_$m.png"
done
[ ! -e "$TMP/p/links_read_bi.png" ] || fail "a heatmap of a matrix that was not measured"
expect_status 0 "$ARBENCH" table --format json "$TMP/a3.jsonl"
$PY - "$TMP/p/plotted.json" "$TMP/out" <<'PY'
import json, sys
drawn = json.load(open(sys.argv[1]))
mats = json.load(open(sys.argv[2]))["links"]["matrices"]
assert sorted(k for k in drawn if k.startswith("links_")) == ["links_flag_pingpong", "links_read_uni", "links_write_uni"], drawn.keys()
for m in mats:
    d = drawn["links_%s_%s" % (m["method"], m["direction"])]
    assert d["values"] == m["values"] and d["path"] == m["path"] and d["bytes"] == m["bytes"], (m, d)
w = drawn["links_write_uni"]
# write NODE 2 us + 20 GB/s, SYS 3 us + 10 GB/s at 1M (tests/links/synth.sh)
assert abs(w["values"][0][1] - (1 << 20) / ((2 + (1 << 20) / 20e3) * 1e3)) < 1e-9 and w["path"][0][1] == "NODE", w
assert abs(w["values"][1][2] - (1 << 20) / ((3 + (1 << 20) / 10e3) * 1e3)) < 1e-9 and w["path"][1][2] == "SYS", w
print("ok: plotted link numbers are the table's")
PY
echo "all passed"
