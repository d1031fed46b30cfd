#!/usr/bin/env bash
# table.sh — `arbench table` on the records of `arbench links` (bench/links/report.c): a table per
# (method, direction, pattern) with a row per flow and a column per size; csv/json say the link records are left out.
source "$(dirname "$0")/../lib/common.sh"
J=$TMP/l.jsonl
expect_status 0 ar_mpirun 2 links -b 4K -e 16K -f 4 --repeat 1 -n 2 -w 0 --lat-iters 3 --method read --direction uni \
  --pattern pairs,ring -J "$J" -q
expect_status 0 "$ARBENCH" table "$J"
$PY - "$TMP/out" "$J" <<'PY'
import json, re, sys
out = open(sys.argv[1]).read()
recs = [json.loads(l) for l in open(sys.argv[2]) if '"link"' in l]
heads = re.findall(r"^## links: (.*)$", out, re.M)
assert heads == ["read uni pairs (GB/s, median over runs)", "read uni ring (GB/s, median over runs)",
                 "flag pingpong pairs (us, median over runs)"], heads
block = out.split("## links: read uni pairs")[1].split("##")[0].strip().splitlines()
assert block[2] == "| flow | path | 4K | 16K |" and block[3] == "|---|---|---|---|", block
for line, (s, d) in zip(block[4:], [(0, 1), (1, 0)]):
    want = [r["gbs"] for r in recs if r["pattern"] == "pairs" and r["method"] == "read" and (r["src"], r["dst"]) == (s, d)]
    assert line == "| %d->%d | NODE | %.2f | %.2f |" % (s, d, want[0], want[1]), (line, want)
assert "(no result records)" not in out and "link:" not in out, out
PY
expect_status 0 "$ARBENCH" table --format csv "$J"
[ "$(cat "$TMP/err")" = "arbench table: 10 link records left out: link tables exist in the markdown and json formats only" ] \
  || { cat "$TMP/err"; fail "csv did not say the link records are left out"; }
echo ok
