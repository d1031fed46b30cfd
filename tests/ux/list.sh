#!/usr/bin/env bash
# list.sh — `arbench list` columns line up (issue 42, item 10): every row's where, status and what columns start
# where the header's do, the longest names (emu-p2p-oneshot) and statuses included.
source "$(dirname "$0")/../lib/common.sh"
ar_counting
"$ARBENCH" list >"$TMP/l" 2>/dev/null
check_eq "list: exit 0" 0 $?
sed -n '1,/^$/p' "$TMP/l" | sed '/^$/d' >"$TMP/rows"
"$PY" - "$TMP/rows" <<'PY' || check_fail "columns misaligned"
import re, sys
rows = open(sys.argv[1]).read().splitlines()
head = rows[0]
cols = [head.index(w) for w in ("where", "status", "what")]
bad = 0
for r in rows[1:]:
    # where: "gpu"/"host" at its column; status starts at its column; what starts at its column after a blank
    ok = r[cols[0]:cols[0] + 4].rstrip() in ("gpu", "host") and r[cols[0] - 1] == " " and r[cols[1] - 1] == " " \
        and r[cols[1]] != " " and r[cols[2] - 1] == " " and r[cols[2]] != " "
    if not ok:
        print("misaligned: " + r)
        bad += 1
names = [r.split()[0] for r in rows[1:]]
assert any(n.startswith("emu-") for n in names), names
print("%d rows, columns at %s, %d misaligned" % (len(rows) - 1, cols, bad))
sys.exit(1 if bad else 0)
PY
finish
