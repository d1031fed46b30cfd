#!/usr/bin/env python3
# agree.py DIR — do the outputs of one set of results agree with table's decisions? DIR holds t.json (table
# --format json), tn.json (the same with --backend nccl), t.md, t.csv, tune.md, tune/ (tune -o) and optionally
# plots/ (arbench-plot), run.md (the table scripts/run.sh prints), cmp.json with t2.json (compare of one
# configuration's runs against another's relabelled, and table --format json of those two): each pick read from
# them must be table's json pick, each compare verdict the two-column table's relation (agree.sh; also run on
# real results).
# One (dtype) group per table is assumed, out-of-place, every column of a group in its thresholds family.
import csv, json, os, re, sys
tmp = sys.argv[1]
t = json.load(open(os.path.join(tmp, "t.json")))
tnp = os.path.join(tmp, "tn.json")  # absent when the results hold no nccl
tn = json.load(open(tnp)) if os.path.exists(tnp) else {"grids": []}
bad = []


def picks(grids):
    """(dtype, size) -> (pick label, verdict, pick p50, fastest p50, bound_pct, bound_vs), from table's json; a size
    with no valid configuration: (None, its verdict, None, None, None, None)."""
    out = {}
    for g in grids:
        for d in g["decisions"]:
            if d["pick"] is None:
                out[(g["dtype"], d["size"])] = (None, d["verdict"], None, None, None, None)
                continue
            f = next(c for c in g["cells"] if c["size"] == d["size"] and c["config"] == d["fastest"])
            out[(g["dtype"], d["size"])] = (d["pick_label"], d["verdict"], d["p50_us"], f["p50_us"], d["bound_pct"],
                                            d["bound_vs"])
    return out


P, PN = picks(t["grids"]), picks(tn["grids"])
sizes = {g["dtype"]: g["sizes"] for g in t["grids"]}
fmt = lambda b: next(("%d%s" % (b // k, s) for k, s in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")) if b >= k and b % k == 0), str(b))
# the rule: a pick is never measured more than the margin slower than the fastest; undecided sizes keep the fastest
for k, (lab, v, pp, fp, _, _) in P.items():
    if lab is None:
        continue
    if pp > fp * 1.05 or (v != "equivalent" and pp != fp):
        bad.append("rule: %s %s pick %s %.4g vs fastest %.4g" % (k + (v,), lab, pp, fp))
# markdown (table's and the one run.sh prints): the bold cell's column, the mark, the decision column
mds = [f for f in ("t.md", "run.md") if os.path.exists(os.path.join(tmp, f))]
for mdf in mds:
    md, hdr, dt = {}, None, None
    for line in open(os.path.join(tmp, mdf)):
        m = re.match(r"## (\w+),", line)
        if m:
            dt = m.group(1)
        if line.startswith("| size |"):
            hdr = [c.strip() for c in line.strip().strip("|").split("|")]
        elif re.match(r"\| \d", line):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            bold = [hdr[i] for i, c in enumerate(cells) if c.startswith("**")]
            md[(dt, cells[0])] = (bold, cells[-1].split(" ")[0].rstrip(":"))
    for (d, s), (lab, v, _, _, _, _) in P.items():
        if md.get((d, fmt(s))) != ([lab] if lab else [], v if lab else "no"):
            bad.append("%s %s %s: %s, json %s %s" % (mdf, d, s, md.get((d, fmt(s))), lab, v))
    # crossovers: the picks' changes
    cross = [l for l in open(os.path.join(tmp, mdf)) if l.startswith("Crossovers:")]
    for g, line in zip(t["grids"], cross):
        seq = [(d["size"], d["pick_label"]) for d in g["decisions"] if d["pick"] is not None]
        want = ["%s -> %s between %s and %s" % (a[1], b[1], fmt(a[0]), fmt(b[0])) for a, b in zip(seq, seq[1:]) if a[1] != b[1]]
        got = [re.sub(r" \(undecided at [^)]*\)", "", x.strip()) for x in line[len("Crossovers:"):].split(";")]
        if got != want:
            bad.append("%s crossovers %s: %s, want %s" % (mdf, g["dtype"], got, want))
    if len(cross) != len(t["grids"]):
        bad.append("%s: %d Crossovers lines for %d tables" % (mdf, len(cross), len(t["grids"])))
# csv: best == 1 rows and the verdict column
for r in csv.DictReader(open(os.path.join(tmp, "t.csv"))):
    k = (r["dtype"], int(r["size"]))
    if (r["best"] == "1") != (r["config"] == P[k][0]) or r["verdict"] != P[k][1]:
        bad.append("csv %s %s %s" % (k, r["config"], r["best"]))
# tune's ranges: every measured size in a range has that pick
groups = re.split(r"^## ", open(os.path.join(tmp, "tune.md")).read(), flags=re.M)[1:]
unfmt = lambda x: int(x[:-1]) << {"K": 10, "M": 20, "G": 30}[x[-1]] if x[-1] in "KMG" else int(x)
for grp in groups:
    d = grp.split(",")[0]
    for line in grp.splitlines():
        m = re.match(r"\| (\S+)(?: \.\. (\S+))? \| ([^|]+) \| ([^|]+) \|", line)
        if not m or not m.group(1)[0].isdigit():
            continue
        lo, hi = unfmt(m.group(1)), unfmt(m.group(2) or m.group(1))
        for s in sizes[d]:
            if lo <= s <= hi and P[(d, s)][0] != m.group(3).strip():
                bad.append("tune %s %s: %s, table %s" % (d, s, m.group(3).strip(), P[(d, s)][0]))
        # the bound column: the worst (largest) bound_pct of table's json over the range's sizes, in words
        inr = [P[(d, s)] for s in sizes[d] if lo <= s <= hi]
        w = max(inr, key=lambda x: x[4]) if inr and all(x[4] is not None for x in inr) else None
        want = "-" if not w else "at %s %.*f%% %s than %s" % ("most" if w[4] >= 0 else "least", 1 if abs(w[4]) < 9.95 else 0,
                                                             abs(w[4]), "slower" if w[4] >= 0 else "faster", w[5])
        got = line.strip().strip("|").split("|")[-1].strip()
        if got != want:
            bad.append("tune bound %s %s: %s, table json %s" % (d, m.group(1), got, want))
# tuner CSV and tuner.json: the decision among the nccl configurations, per measured size
setting = lambda lab: tuple(x.split("=")[1].lower() for x in lab.split(":")[1].split(","))
rows = [l.strip().split(",") for l in open(os.path.join(tmp, "tune", "nccl_tuner.conf")) if not l.startswith("#")]
tj = json.load(open(os.path.join(tmp, "tune", "tuner.json")))
jr = [r for g in tj["groups"] for r in g["ranges"]]
if not tn["grids"] and (rows or jr):
    bad.append("tuner files without nccl results: %s %s" % (rows, jr))
for d, s in sorted(PN):
    lab = PN[(d, s)][0]
    row = [r for r in rows if int(r[1]) <= s <= int(r[2])]
    if lab is None:  # no valid configuration: in no file
        if row or [r for r in jr if r["min_bytes"] <= s <= r["max_bytes"]]:
            bad.append("tuner files cover %s, where no configuration is valid" % s)
        continue
    if len(row) != 1 or (row[0][3], row[0][4]) != setting(lab):
        bad.append("tuner csv %s: %s, table --backend nccl %s" % (s, row, lab))
    rj = [r for r in jr if r["min_bytes"] <= s <= r["max_bytes"]]
    if len(rj) != 1 or rj[0]["config"] != lab:
        bad.append("tuner.json %s: %s, table --backend nccl %s" % (s, rj, lab))
    if rj and PN[(d, s)][1] == "undecided" and rj[0]["verdict"] != "undecided":
        bad.append("tuner.json %s: an undecided size in a range called %s" % (s, rj[0]["verdict"]))
# thresholds.json: custom_max_bytes, use and win_ranges from the same picks (every column is in the family)
thr = json.load(open(os.path.join(tmp, "tune", "thresholds.json")))
for g in thr["groups"]:
    d, base = g["dtype"], set(g["baseline"])
    seq = [(s, P[(d, s)][0]) for s in sizes[d]]
    lead = 0
    for s, lab in seq:
        if lab is None or lab in base:
            break
        lead = s
    if g["custom_max_bytes"] != lead:
        bad.append("thresholds %s custom_max_bytes %s, table picks say %s" % (d, g["custom_max_bytes"], lead))
    for s, lab in seq:
        if s > lead:
            break
        u = [x for x in g["use"] if x["min_bytes"] <= s <= x["max_bytes"]]
        if len(u) != 1 or u[0]["config"] != lab:
            bad.append("thresholds %s use at %s: %s, table %s" % (d, s, u, lab))
    for c in g["custom"]:
        won = [s for s, lab in seq if lab == c["config"]]
        listed = [s for s, _ in seq if any(a <= s <= b for a, b in c["win_ranges"])]
        if won != listed:
            bad.append("thresholds %s win_ranges of %s: %s, table picks %s" % (d, c["config"], listed, won))
# tuner.json custom_beats_nccl: the sizes whose pick is a custom allreduce
cb = {(x["bytes"], x["custom"]) for g in tj["groups"] for x in g["custom_beats_nccl"]}
want = {(s, P[(d, s)][0]) for d in {g["dtype"] for g in tn["grids"]} for s in sizes[d]
        if P[(d, s)][0] and not P[(d, s)][0].startswith("nccl")}
if cb != want:
    bad.append("custom_beats_nccl %s, table %s" % (sorted(cb), sorted(want)))
# plots: the best map's cells
pj = os.path.join(tmp, "plots", "plotted.json")
if os.path.exists(pj):
    drawn = json.load(open(pj))
    for d in sizes:
        g = next(g for g in t["grids"] if g["dtype"] == d)
        cells = drawn["best_map_%s_%s" % (d, g["placement"])]["cells"]
        for s in sizes[d]:
            c = cells.get("%d %d" % (g["ranks"], s))
            if P[(d, s)][0] is None and (not c or c["best"] is None):
                continue
            if not c or (c["best"], c["verdict"]) != P[(d, s)][:2]:
                bad.append("best map %s %s: %s, table %s" % (d, s, c, P[(d, s)][:2]))
# compare: B (one configuration's runs, relabelled) against A, in the same family as the two-column table
cj, t2j = os.path.join(tmp, "cmp.json"), os.path.join(tmp, "t2.json")
ncmp = 0
if os.path.exists(cj) and os.path.exists(t2j):
    g2 = json.load(open(t2j))["grids"][0]
    rel = {(c["size"], c["config"]): c for c in g2["cells"]}
    for m in json.load(open(cj))["matches"]:
        a, b = rel[(m["size"], 0)], rel[(m["size"], 1)]
        if b["relation"] == "fastest":  # B is the table's fastest: A's relation, seen from B
            want = {"slower": "faster", "equivalent": "equivalent", "open": "undecided"}[a["relation"]]
        else:
            want = {"slower": "slower", "equivalent": "equivalent", "open": "undecided"}[b["relation"]]
        ncmp += 1
        if m["verdict"] != want or abs(m["ratio"] / (b["p50_us"] / a["p50_us"]) - 1) > 1e-6:
            bad.append("compare %s: %s ratio %.4g, table %s ratio %.4g" % (m["size"], m["verdict"], m["ratio"], want,
                                                                         b["p50_us"] / a["p50_us"]))
print("\n".join(bad) if bad else "all outputs agree on %d sizes (markdown: %s; compare: %d matches)" % (len(P), " ".join(mds), ncmp))
sys.exit(1 if bad else 0)
