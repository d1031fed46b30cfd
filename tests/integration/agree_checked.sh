#!/usr/bin/env bash
# agree_checked.sh — a rank whose fill fails before a checked call (ARBENCH_INJECT_FILL_FAIL=R:BYTES)
# does not leave the others waiting in the collective: all ranks agree first, the size becomes one
# error record naming the rank, the other sizes are measured, exit 1, no hang (watchdog -T 20).
source "$(dirname "$0")/../lib/common.sh"
J=$TMP/a.jsonl
expect_status 1 timeout 120 env ARBENCH_INJECT_FILL_FAIL=1:4096 mpirun -q --oversubscribe -x ARBENCH_INJECT_FILL_FAIL \
  -np 3 "$ARBENCH" run --backend mpi --sizes 8,4096,65536 -d float -c 3 -n 3 -w 1 -T 20 -J "$J"
grep -q "made no progress" "$TMP/err" && { cat "$TMP/err"; fail "the watchdog had to end a hang"; }
"$PY" - "$J" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
res = sorted(r["size"] for r in recs if r["type"] == "result")
errs = [r for r in recs if r["type"] == "error"]
assert res == [8, 65536], res
assert len(errs) == 1 and errs[0]["size"] == 4096, errs
assert "rank 1" in errs[0]["message"] and "filling the buffers failed" in errs[0]["message"], errs[0]
assert all(r["wrong"] == 0 and r["checked"] for r in recs if r["type"] == "result")
PY
echo "agree_checked: ok"
