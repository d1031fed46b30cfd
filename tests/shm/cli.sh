#!/usr/bin/env bash
# cli.sh — the shm-* backends through `arbench run` on 3 ranks: every dtype, both placements, sum and avg;
# the engine's exact check finds 0 wrong elements in every result record, records carry what the backend
# did; bad variants and --islands beyond the rank count are one-line errors (exit 2); `list` shows them.
source "$(dirname "$0")/../lib/common.sh"
ALL=shm-oneshot,shm-twoshot,shm-staged,shm-islands
for op in sum avg; do
  J=$TMP/$op.jsonl
  ar_mpirun 3 run --backend $ALL --islands 2 --counts 1,7,1023 -d all -o $op --inplace both -n 2 -w 1 -c 2 \
    -J "$J" >"$TMP/t" 2>"$TMP/e" || { cat "$TMP/t" "$TMP/e"; fail "-o $op failed"; }
  "$PY" - "$J" $op <<'PY' || fail "-o $op: records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
res = [r for r in recs if r["type"] == "result"]
bad = [r for r in recs if r["type"] in ("skip", "error")]
assert not bad, bad
# 4 backends x 4 dtypes x 3 counts x 2 placements, all checked twice with 0 wrong elements
assert len(res) == 96, len(res)
assert all(r["wrong"] == 0 and r["checked"] and r["check_iters"] == 2 and r["op"] == sys.argv[2] for r in res)
impl = {r["backend"]: r["impl"] for r in res}
assert impl == {"shm-oneshot": "oneshot", "shm-twoshot": "twoshot", "shm-staged": "staged",
                "shm-islands": "islands"}, impl
assert all(r["island_sizes"] == [2, 1] for r in res if r["backend"] == "shm-islands")
assert sorted({(r["dtype"], r["count"], r["placement"]) for r in res}) == sorted(
    (d, c, p) for d in ("float", "half", "bfloat16", "int32") for c in (1, 7, 1023) for p in ("in", "out"))
PY
  grep -q "Out of bounds values : 0 OK" "$TMP/t" || { cat "$TMP/t"; fail "-o $op: table reports wrong values"; }
done
expect_one_line_error "shm-twoshot:chunk=SIZE,stream=SIZE" ar_mpirun 2 run --backend shm-twoshot:bogus=1 --sizes 8 -n 1
expect_one_line_error "bad size 'x' for chunk" ar_mpirun 2 run --backend shm-staged:chunk=x --sizes 8 -n 1
expect_one_line_error "--islands 3 exceeds the 2 ranks" ar_mpirun 2 run --backend shm-islands --islands 3 --sizes 8 -n 1
"$ARBENCH" list --wide >"$TMP/list" 2>&1 || true
for be in shm-oneshot shm-twoshot shm-staged shm-islands; do grep -q "$be" "$TMP/list" || fail "list lacks $be"; done
echo "cli: ok"
