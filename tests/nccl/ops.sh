#!/usr/bin/env bash
# ops.sh — every dtype and reduction op of the nccl backend on the NCCL stand-in, in and out of place, checked
# bit-exact by the engine (0 wrong): ncclProd/Max/Min, and ncclAvg as NCCL computes it (floats pre-multiplied by
# 1/nranks in the datatype, int32 divided after the sum). Sum: variants.sh.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
np=2
need_standin "$np"
for op in prod max min avg; do
  ar_mpirun "$np" run --backend nccl --sizes 8,4K,64K -d float,half,bf16,int32 -o "$op" --inplace both -n 2 -w 1 -c 1 \
    -J "$TMP/r.jsonl" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "$op: run exited $?"; }
done
"$PY" - "$TMP/r.jsonl" <<'PY' || fail "records"
import json, sys
res = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "result"]
seen = {(r["op"], r["dtype"], r["placement"]) for r in res}
assert len(res) == 4 * 3 * 4 * 2 and len(seen) == 4 * 4 * 2, (len(res), sorted(seen))
bad = [(r["op"], r["dtype"], r["placement"], r["size"], r["wrong"]) for r in res if not r["checked"] or r["wrong"]]
assert not bad, bad
print("ok: %d records (4 ops x 4 dtypes x in/out of place x 3 sizes), 0 wrong" % len(res))
PY
echo "ops: ok"
