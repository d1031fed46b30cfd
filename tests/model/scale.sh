#!/usr/bin/env bash
# scale.sh — `arbench model` on 1000 GPUs x 28 sizes (8 B to 1 GiB) in seconds, with a progress line per step
# (issue 28 item 5), and every flow of a 128-GPU one-shot counted (a capped flow list once hid a slow uplink).
source "$ARBENCH_SRC/tests/lib/common.sh"
GEN="$PY $ARBENCH_SRC/tests/model/big_topo.py"
$GEN 1000 "$TMP/big.xml"
t0=$(date +%s%N)
expect_status 0 timeout 120 "$ARBENCH" model --xml "$TMP/big.xml" --np 1000 -b 8 -e 1G
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$(grep -c '^[0-9]' "$TMP/out")" = 28 ] || { cat "$TMP/out"; fail "not 28 sizes"; }
head -1 "$TMP/err" | qgrep -qE '^arbench model: 1000 GPUs: link graph of 4502 directed links and 999000 paths \([0-9.]+ s\)$' \
  || { cat "$TMP/err"; fail "no progress line for the graph"; }
[ "$(grep -cE '^arbench model: 1000 GPUs: [a-z-]+ costed \([1-9] of 9, [0-9.]+ s\)$' "$TMP/err")" = 9 ] \
  || { cat "$TMP/err"; fail "not one progress line per algorithm"; }
# Its speed is not asserted (a loaded box or a sanitizer build must pass): timeout 120 above is a hang
# bound; the progress lines and the flow count below are the mechanism. ~3 s here (24-33 s per size before).
echo "model --np 1000: $ms ms"
# Fewer GPUs than the threshold: no progress lines.
$GEN 16 "$TMP/small.xml"
expect_status 0 "$ARBENCH" model --xml "$TMP/small.xml"
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "progress lines on 16 GPUs"; }
# 128 GPUs, the 16th switch behind a Gen3 x16 uplink (15.753846 GB/s): one-shot push sends every GPU's
# message to every other, so 120 x 8 = 960 flows share that uplink into the switch: us per byte =
# 960 / (15.753846 x eff_gen3 x 1e3).
$GEN 256 "$TMP/slow.xml" --slow-last
expect_status 0 "$ARBENCH" model --xml "$TMP/slow.xml" --np 128 --algo oneshot-push -b 1M -e 1M --format json
$PY - "$TMP/out" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if '"prediction"' in l][0]["model"]
want = 960 / (15.753846 * r["params"]["eff_gen3"] * 1e3)
assert abs(r["us_per_byte"] / want - 1) < 1e-6, (r["us_per_byte"], want)
print("oneshot-push on 128 GPUs, slow uplink: %.6g us/B (960 flows on it)" % r["us_per_byte"])
PY
echo "scale: ok"
