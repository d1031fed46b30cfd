#!/usr/bin/env bash
# wrong_results.sh — the check is live: a corrupted element (ARBENCH_INJECT_FAULT=rank) is counted
# in #wrong (once per checked call: -c 2 gives 2 per result), in the records and the footer; exit 1.
source "$(dirname "$0")/../lib/common.sh"
J=$TMP/w.jsonl
expect_status 1 env ARBENCH_INJECT_FAULT=1 mpirun -q --oversubscribe -x ARBENCH_INJECT_FAULT -np 3 "$ARBENCH" \
  run --backend mpi --counts 7,1023 -d float,int32 -c 2 -n 2 -w 0 -J "$J"
grep -q "Out of bounds values : 8 FAILED" "$TMP/out" || { cat "$TMP/out"; fail "footer does not count 8 wrong"; }
grep -q "8 wrong elements" "$TMP/err" || fail "no error line about wrong elements"
"$PY" - "$J" <<'PY'
import json, sys
res = [json.loads(l) for l in open(sys.argv[1]) if '"result"' in l]
assert len(res) == 4 and all(r["wrong"] == 2 for r in res), [r["wrong"] for r in res]
PY
# -c 0 turns the check off: nothing is counted, #wrong says N/A, exit 0.
expect_status 0 env ARBENCH_INJECT_FAULT=1 mpirun -q --oversubscribe -x ARBENCH_INJECT_FAULT -np 2 "$ARBENCH" \
  run --backend mpi --counts 7 -c 0 -n 2 -w 0
grep -q "N/A" "$TMP/out" || fail "#wrong is not N/A with -c 0"
echo "wrong_results: ok"
