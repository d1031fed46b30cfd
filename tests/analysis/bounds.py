#!/usr/bin/env python3
# bounds.py KIND FILE... — no printed bound or interval contradicts its verdict (issue 46: one definition; every
# comparison's interval is the one its verdict is judged on). Prints one line per contradiction, then "N checked".
#   table-json T.json      per decision: clear => bound_pct < 0 (the pick shown faster than every alternative);
#                          bound_pct < 0 => not undecided; undecided => bound_pct >= 0 or null; equivalent with the
#                          bound against the fastest => bound_pct <= the margin
#   table-md T.json T.md   the Bounds line's "at least X% faster" only over ranges without an undecided size, "at most"
#                          never over an all-clear range; a decision "within +X%" never negative
#   tune T.json TUNE.txt   tune's rows: a verdict of clear sizes only => "at least ... faster"; "at least" => no undecided
#   compare C.json [C.md]  per match: faster => hi < 1, slower => lo > 1, equivalent => inside [1/(1+m), 1+m],
#                          undecided => lo <= 1 <= hi and not inside the margin; the text rows print the same interval
#   page T.json P.html     the page's bound cell ("none: >= X% faster" / "<= X%") per size agrees with the verdict as above
import html
import json
import re
import sys

bad, checked = [], 0


def fail(msg):
    bad.append(msg)


def decisions(path):
    out = []
    for g in json.load(open(path))["grids"]:
        labels = [c["label"] for c in g["configs"]]
        for d in g["decisions"]:
            out.append((g, labels, d))
    return out


def check_decision(where, d, labels, bound):
    global checked
    checked += 1
    v = d["verdict"]
    if v == "clear" and not (bound is not None and bound < 0):
        fail("%s: clear with bound %s" % (where, bound))
    if bound is not None and bound < 0 and v == "undecided":
        fail("%s: undecided with bound %s (at least %.1f%% faster)" % (where, bound, -bound))
    if v == "equivalent" and bound is not None and d.get("bound_vs") == labels[d["fastest"]] \
            and bound > d["margin"] * 100 + 1e-9:
        fail("%s: equivalent but %.2f%% slower than the fastest, beyond the margin" % (where, bound))


def table_json(path):
    for g, labels, d in decisions(path):
        if d["pick"] is None:
            continue
        check_decision("%s size %d" % (path, d["size"]), d, labels, d["bound_pct"])


def size_of(text):
    m = re.fullmatch(r"(\d+)([KMG]?)", text.strip())
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def table_md(jpath, mdpath):
    global checked
    ds = {(d["size"]): d for g, labels, d in decisions(jpath)}  # one grid in these fixtures
    text = open(mdpath).read()
    for line in text.splitlines():
        if line.startswith("Bounds ("):
            for part in line.split(":", 1)[1].rstrip(".").split(";"):
                m = re.match(r"\s*(\S+?)(?:\.\.(\S+))? (.*): at (most|least) ", part)
                if not m:
                    fail("%s: unparsed bound %r" % (mdpath, part))
                    continue
                lo, hi = size_of(m.group(1)), size_of(m.group(2) or m.group(1))
                vs = [d["verdict"] for s, d in ds.items() if lo <= s <= hi]
                checked += 1
                if m.group(4) == "least" and "undecided" in vs:
                    fail("%s: %r over an undecided size" % (mdpath, part))
                if m.group(4) == "most" and vs and all(v == "clear" for v in vs):
                    fail("%s: %r over clear sizes only" % (mdpath, part))
        for w in re.findall(r"undecided: within ([+-][0-9.]+)%", line):
            checked += 1
            if float(w) < 0:
                fail("%s: undecided within %s%%" % (mdpath, w))


def tune(jpath, tpath):
    global checked
    for line in open(tpath).read().splitlines():
        if not re.match(r"\| \d", line):
            continue
        cols = [c.strip() for c in line.strip("|").split("|")]
        verdict, bound = cols[2], cols[-1]
        checked += 1
        if bound.startswith("at least") and "undecided" in verdict:
            fail("%s: %r" % (tpath, line))
        if verdict == "clear" and not bound.startswith("at least"):
            fail("%s: clear range with bound %r" % (tpath, bound))


def interval_ok(where, v, lo, hi, margin):
    global checked
    checked += 1
    up, down = 1 + margin, 1 / (1 + margin)
    if v == "faster" and not (hi is not None and hi < 1):
        fail("%s: faster with [%s, %s]" % (where, lo, hi))
    elif v == "slower" and not (lo is not None and lo > 1):
        fail("%s: slower with [%s, %s]" % (where, lo, hi))
    elif v == "equivalent" and not (lo is not None and down < lo <= hi < up):
        fail("%s: equivalent with [%s, %s] (margin %g)" % (where, lo, hi, margin))
    elif v == "undecided" and lo is not None and not (lo <= 1 <= hi and not (down < lo and hi < up)):
        fail("%s: undecided with [%s, %s]" % (where, lo, hi))


def compare(cpath, mdpath=None):
    c = json.load(open(cpath))
    margin = c["margin"]
    for m in c["matches"]:
        interval_ok("%s %s %d" % (cpath, m["backend"], m["size"]), m["verdict"], m["lo"], m["hi"], margin)
    if not mdpath:
        return
    rows = [l for l in open(mdpath).read().splitlines()
            if re.match(r"\| \S+ \| .* \| (\[[0-9.]+, [0-9.]+\]|-) \| (faster|slower|equivalent|undecided)", l)]
    if len(rows) != len(c["matches"]):
        fail("%s: %d text rows for %d matches" % (mdpath, len(rows), len(c["matches"])))
    for row, m in zip(rows, c["matches"]):
        cols = [x.strip() for x in row.strip("|").split("|")]
        iv, verdict = cols[-2], cols[-1].split(" ")[0]
        lo = hi = None
        if iv != "-":
            lo, hi = (float(x) for x in iv.strip("[]").split(","))
        interval_ok("%s %s" % (mdpath, cols[0] + " " + cols[6]), verdict, lo, hi, margin)
        if verdict != m["verdict"] or (lo is None) != (m["lo"] is None) or \
                (lo is not None and (abs(lo - m["lo"]) > 6e-4 or abs(hi - m["hi"]) > 6e-4)):
            fail("%s: text row %r is not json's %s [%s, %s]" % (mdpath, row, m["verdict"], m["lo"], m["hi"]))


def page(jpath, ppath):
    ds = {d["size"]: (d, labels) for g, labels, d in decisions(jpath)}
    text = open(ppath).read()
    seen = 0
    for size, cell in re.findall(r'<tr data-size="(\d+)">.*?data-h="can be slower by">(.*?)</td>', text):
        d, labels = ds[int(size)]
        cell = html.unescape(re.sub(r"<[^>]*>", "", cell))
        m = re.match(r"(none: \u2265 |\u2264 )([0-9.]+)%", cell)
        bound = None if not m else (-float(m.group(2)) if m.group(1).startswith("none") else float(m.group(2)))
        if d["bound_pct"] is not None and (bound is None or abs(bound - d["bound_pct"]) > 0.051):
            fail("%s size %s: page bound %r, table %s" % (ppath, size, cell, d["bound_pct"]))
        check_decision("%s size %s" % (ppath, size), d, labels, bound)
        seen += 1
    if seen != len([d for d, l in ds.values() if d["pick"] is not None]):
        fail("%s: %d bound cells for %d picks" % (ppath, seen, len(ds)))


kind = sys.argv[1]
{"table-json": table_json, "table-md": table_md, "tune": tune, "compare": compare, "page": page}[kind](*sys.argv[2:])
for b in bad:
    print(b)
print("%d checked" % checked)
