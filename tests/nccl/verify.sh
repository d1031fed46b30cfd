#!/usr/bin/env bash
# verify.sh — `arbench tune --verify` end to end on the NCCL stand-in: decisions from `tune`, then default nccl
# and nccl:tuner= as separate interleaved mpirun launches (A B, B A), every tuned record saying the plugin ran, and
# a judgement per size with a verdict. Stand-in timings decide nothing real: this proves the path, not a speedup.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
np=2
need_standin "$np"
"$PY" "$(dirname "$0")/measured.py" "$TMP/measured.jsonl" "$np" 4096 524288
expect_status 0 "$ARBENCH" tune "$TMP/measured.jsonl" -o "$TMP/d"
expect_status 0 "$ARBENCH" tune --verify --tuner "$TMP/d/tuner.json" --repeats 2 "$TMP/measured.jsonl"
grep -c "^mpirun -np 2 .* run --backend nccl" "$TMP/out" | qgrep -qx 4 || { cat "$TMP/out"; fail "not 4 launches"; }
"$PY" - "$TMP/out" "$TMP/d/verify.jsonl" <<'PY' || { cat "$TMP/out" "$TMP/err"; fail "judgement"; }
import json, re, sys
out = open(sys.argv[1]).read()
rows = re.findall(r"^\| (\S+) \| [\d.]+ \| [\d.]+ \| [\d.]+ \| \[[\d.]+, [\d.]+\] \| (faster|same|slower) \|$", out, re.M)
assert [s for s, _ in rows] == ["4K", "512K"], rows
assert re.search(r"^verdict: (deploy|no gain|do not deploy)", out, re.M), out
recs = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
runs = [r for r in recs if r["type"] == "run"]
res = [r for r in recs if r["type"] == "result"]
tuned = [r for r in res if r["variant"].startswith("tuner=")]
assert len(runs) == 4 and len(res) == 8 and len(tuned) == 4, (len(runs), len(res), len(tuned))
assert all(r["nccl_tuner"]["ran"] and r["nccl_tuner"]["abi"] == "v5" for r in tuned), tuned[0]["nccl_tuner"]
assert all(r["wrong"] == 0 for r in res)
assert all("nccl_tuner" not in r for r in res if not r["variant"]), "a default launch loaded the plugin"
print("ok: %d launches judged: %s" % (len(runs), ", ".join("%s %s" % r for r in rows)))
PY
echo "verify: ok"
