#!/usr/bin/env bash
# measure.sh — bench/links/measure.c: the smoke test. A rank that never answers (ARBENCH_INJECT_SILENT) costs
# its pairs one timeout each: one line per bad pair, a skip record each, the rest measured, exit 1, no hang;
# data corrupted on arrival (ARBENCH_INJECT_FAULT) is caught by the data check the same way.
source "$(dirname "$0")/../lib/common.sh"
SMALL=(-b 4K -e 4K --repeat 1 -n 2 -w 0 --lat-iters 3 --smoke-timeout 2)
# No hang: timeout's 124 would fail expect_status (a hang bound; each bad pair costs its 2 s timeout; a healthy peer on a loaded box answers well within it, named below).
expect_status 1 timeout 120 env ARBENCH_INJECT_SILENT=2 mpirun -q --oversubscribe -x ARBENCH_INJECT_SILENT -np 4 \
  "$ARBENCH" links "${SMALL[@]}" -J "$TMP/s.jsonl"
for p in 0-\>2 1-\>2 2-\>0 2-\>1 2-\>3 3-\>2; do
  grep -qxF "arbench links: pair $p: no answer in the smoke test (4096 bytes, 2 s timeout): skipped; on CPU ranks: the peer stopped answering through shared memory" "$TMP/err" \
    || { cat "$TMP/err"; fail "no line for the silent pair $p"; }
done
[ "$(grep -c "no answer in the smoke test" "$TMP/err")" = 6 ] || { cat "$TMP/err"; fail "not 6 bad-pair lines"; }
[ "$(tail -n 1 "$TMP/err")" = "arbench links: 6 pairs failed the smoke test and were skipped" ] || { cat "$TMP/err"; fail "no summary line"; }
grep -qE "^  2 +skipped +skipped +X +skipped$" "$TMP/out" || { cat "$TMP/out"; fail "row 2 of a matrix is not skipped"; }
$PY - "$TMP/s.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
skips = [r for r in recs if r["type"] == "skip"]
assert sorted((r["src"], r["dst"], r["smoke"]) for r in skips) == [(0, 2, "timeout"), (1, 2, "timeout"), (2, 0, "timeout"),
        (2, 1, "timeout"), (2, 3, "timeout"), (3, 2, "timeout")], skips
links = [r for r in recs if r["type"] == "link"]
assert links and not [r for r in links if 2 in (r["src"], r["dst"])], "a flow of the silent rank was measured"
alone = {(r["src"], r["dst"]) for r in links if r["pattern"] == "pairs" and r["direction"] == "uni" and r["method"] == "read"}
assert alone == {(0, 1), (0, 3), (1, 0), (1, 3), (3, 0), (3, 1)}, alone
assert all(r["wrong"] == 0 for r in links)
allp = [r for r in links if r["pattern"] == "all" and r["direction"] == "uni" and r["method"] == "read"]
assert len(allp) == 6 and all(r["flows"] == 6 for r in allp), allp
PY
# corrupted on arrival at rank 1: its two incoming pairs, named as corrupted
expect_status 1 timeout 120 env ARBENCH_INJECT_FAULT=1:mid mpirun -q --oversubscribe -x ARBENCH_INJECT_FAULT -np 3 \
  "$ARBENCH" links "${SMALL[@]}" -q
grep -qxF "arbench links: pair 0->1: the data arrived corrupted in the smoke test (4096 bytes, 2 s timeout): skipped; on CPU ranks: the copy through shared memory lost data" "$TMP/err" \
  || { cat "$TMP/err"; fail "no line for the corrupted pair 0->1"; }
[ "$(grep -c "arbench links: pair" "$TMP/err")" = 2 ] && grep -q "pair 2->1: the data arrived corrupted" "$TMP/err" \
  || { cat "$TMP/err"; fail "not exactly pairs 0->1 and 2->1 corrupted"; }
# a healthy run: every pair passes, exit 0, no line on stderr
expect_status 0 ar_mpirun 3 links "${SMALL[@]}" -q
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "a healthy run printed on stderr"; }
echo ok
