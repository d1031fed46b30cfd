#!/usr/bin/env bash
# list.sh — `arbench list` (issue 42 item 10, issue 50 item 11): every line fits 80 columns; every backend's row
# starts with its name, where (gpu/host), status and what at the header's columns, its continuation lines blank
# up to the column they continue; read column by column, the rows say exactly what `list --wide` says on one
# line per backend (the stand-in build's 'available (emulated: ...)' and long 'not compiled in: ...' included).
source "$(dirname "$0")/../lib/common.sh"
ar_counting
"$ARBENCH" list >"$TMP/l" 2>/dev/null
check_eq "list: exit 0" 0 $?
"$ARBENCH" list --wide >"$TMP/w" 2>/dev/null
check_eq "list --wide: exit 0" 0 $?
"$PY" - "$TMP/l" "$TMP/w" <<'PY' || check_fail "list's layout"
import sys
lines = open(sys.argv[1]).read().splitlines()
wide = open(sys.argv[2]).read().splitlines()
long = [l for l in lines if len(l) > 80]
assert not long, "over 80 columns: %r" % long
table = lines[:lines.index("")]
head = table[0]
cols = [head.index(w) for w in ("where", "status", "what")]
rows = []
for l in table[1:]:
    if l[:cols[0]].strip():  # a backend's first line
        assert l[cols[0] - 1] == " " and l[cols[0]:cols[0] + 4].rstrip() in ("gpu", "host"), l
        assert l[cols[1] - 1] == " " and l[cols[1]] != " ", l
        assert len(l) <= cols[2] or (l[cols[2] - 1] == " " and l[cols[2]] != " "), l
        rows.append([l[:cols[0]].strip(), l[cols[0]:cols[1]].strip(), [l[cols[1]:cols[2]].strip()], [l[cols[2]:].strip()]])
    else:  # a continuation: blank name and where; status and what in their columns
        assert not l[:cols[1]].strip() and rows, l
        assert len(l) <= cols[2] or l[cols[2] - 1] == " ", l
        rows[-1][2].append(l[cols[1]:cols[2]].strip())
        rows[-1][3].append(l[cols[2]:].strip())
# --wide: one line a backend, the same columns' text
whead = wide[0]
wc = [whead.index(w) for w in ("where", "status", "what")]
want = [[l[:wc[0]].strip(), l[wc[0]:wc[1]].strip(), l[wc[1]:wc[2]].strip(), l[wc[2]:].strip()]
        for l in wide[1:wide.index("")]]
# every word fits its column, so the wrap breaks only between words and the lines rejoin with one blank (a word
# longer than the column is cut, and its halves would read as two words)
for w in want:
    for col, width in ((2, cols[2] - cols[1] - 1), (3, 80 - cols[2])):
        assert all(len(x) <= width for x in w[col].split()), "a word wider than its column: %r" % w[col]
got = [[n, w, " ".join(x for x in s if x), " ".join(x for x in t if x)] for n, w, s, t in rows]
assert got == want, "wrapped rows differ from --wide:\n%r\n%r" % (got, want)
# the name column fits the longest name; the status column its longest status, at most 30 (longer ones wrap:
# 'not compiled in: ...' reasons run to 90 characters, and what keeps at least 80 - 12 - 7 - 31 columns)
assert cols[0] == max(len(w[0]) for w in want) + 1, (cols, want)
assert cols[2] - cols[1] == min(max(len(w[2]) for w in want), 30) + 1, (cols, want)
# the notes after the table: wrapped with a two-blank indent, the same words as --wide's lines
notes = " ".join(l.strip() for l in lines[lines.index("") + 1:])
assert notes == " ".join(wide[wide.index("") + 1:]), (notes, wide)
print("%d backends, columns at %s, every line <= 80" % (len(rows), cols))
PY
"$ARBENCH" list --wide x >"$TMP/o" 2>"$TMP/e"
check_eq "list --wide x: exit 2" 2 $?
check_eq "list --wide x: the line" "arbench: list takes only --wide (got 'x')" "$(cat "$TMP/e")"
finish
