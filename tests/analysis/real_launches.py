#!/usr/bin/env python3
# real_launches.py ARBENCH DIR SET KEY KIND [PAIRS]: the recorded real launches of one set (DIR/SET/p*.jsonl, one
# sweep a pair) through `arbench compare --by KEY --format json`, and one line of facts a test compares exactly:
#   KIND aa:    "order O; pairs P; rows R; called C; calls N; unit U; undecided-with-detectable D"
#   KIND power: as aa, then "; qualify Q of S; all-qualifying-called T; per-size ...; wrong-direction W; calls-elsewhere E
#               (calls on rows whose real difference is under 3x the spread: false ones where it is ~1); missed-with-detectable M"
# The truth of a power set comes from the recording, not from a table: per size, d = the difference of the two
# sides' mean log launch values over every pair, and the spread the launch-to-launch sd pooled within each pair's
# side (each launch one value: the mean of its runs' log p50s, as compare takes it). A size qualifies when |d| is
# at least 3 times that spread.
import glob, json, math, os, re, subprocess, sys
from collections import defaultdict

arbench, root, name, key, kind = sys.argv[1:6]
files = sorted(glob.glob(os.path.join(root, name, "p*.jsonl")), key=lambda f: int(re.findall(r"\d+", os.path.basename(f))[0]))
if len(sys.argv) > 6:
    files = files[: int(sys.argv[6])]

def launches(path):
    """[(side, {(backend, size): launch value})] in file order, and the order of the sides."""
    side, vals, order = {}, defaultdict(lambda: defaultdict(list)), []
    for line in open(path):
        r = json.loads(line)
        if r["type"] != "result" or key not in r.get("point", {}):
            continue
        if r["run_id"] not in side:
            side[r["run_id"]] = str(r["point"][key])
            order.append(r["run_id"])
        vals[r["run_id"]][(r["backend"], r["size"])].append(math.log(r["time_us"]["p50"]))
    return [(side[i], {c: sum(v) / len(v) for c, v in vals[i].items()}) for i in order]

orders, tables = set(), []
for f in files:
    L = launches(f)
    sides = sorted({s for s, _ in L})
    orders.add(" ".join("ab"[sides.index(s)] for s, _ in L))
    out = subprocess.run([arbench, "compare", "--by", key, "--format", "json", f], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"compare {f}: exit {out.returncode}: {out.stderr.strip()}")
    tables.append((L, sides, json.loads(out.stdout)["comparisons"][0]["matches"]))

rows = sum(len(m) for _, _, m in tables)
called = [[x for x in m if x["verdict"] in ("faster", "slower")] for _, _, m in tables]
units = sorted({(x["unit"], x["launches_a"], x["launches_b"]) for _, _, m in tables for x in m})
undec = [x for _, _, m in tables for x in m if x["verdict"] == "undecided"]
facts = [f"order {'|'.join(sorted(orders))}", f"pairs {len(tables)}", f"rows {rows}",
         f"called {sum(bool(c) for c in called)}", f"calls {sum(len(c) for c in called)}",
         "unit " + ",".join(f"{u}:{a}/{b}" for u, a, b in units),
         f"undecided-with-detectable {sum(x['detectable_ratio'] is not None for x in undec)}/{len(undec)}"]
if kind == "power":
    dev, side_vals = defaultdict(list), defaultdict(lambda: defaultdict(list))
    compared = {(x["backend"], x["size"]) for _, _, m in tables for x in m}  # the rows compare has (KEY applies)
    for L, sides, _ in tables:
        for cell in sorted(compared & set(L[0][1])):
            for s in sides:
                v = [val[cell] for sd, val in L if sd == s]
                m = sum(v) / len(v)
                dev[cell] += [x - m for x in v]
                side_vals[cell][s] += v
    qual, per, info = [], [], []
    for cell in sorted(dev):
        sd = math.sqrt(sum(x * x for x in dev[cell]) / (len(dev[cell]) - 2 * len(tables)))
        a, b = (side_vals[cell][s] for s in tables[0][1])
        d = sum(b) / len(b) - sum(a) / len(a)
        info.append(f"{cell[0]} {cell[1]}: B/A {math.exp(d):.3f}, launch sd {100 * sd:.1f}%, {abs(d) / sd:.1f}x")
        if abs(d) >= 3 * sd:
            qual.append((cell, "slower" if d > 0 else "faster"))
    for cell, want in qual:
        per.append(sum(any((x["backend"], x["size"]) == cell and x["verdict"] == want for x in m) for _, _, m in tables))
    allq = sum(all(any((x["backend"], x["size"]) == c and x["verdict"] == w for x in m) for c, w in qual) for _, _, m in tables)
    missed = [x for _, _, m in tables for x in m if (x["backend"], x["size"]) in {c for c, _ in qual}
              and x["verdict"] not in ("faster", "slower")]
    wrong = sum(1 for _, _, m in tables for x in m if x["verdict"] in ("faster", "slower")
                and ((x["backend"], x["size"]), x["verdict"]) not in set(qual) and (x["backend"], x["size"]) in {c for c, _ in qual})
    facts += [f"qualify {len(qual)} of {len(dev)}", f"all-qualifying-called {allq}",
              "per-size " + ",".join(f"{c[0]}/{c[1]}:{n}" for (c, _), n in zip(qual, per)),
              f"wrong-direction {wrong}",
              f"calls-elsewhere {sum(1 for _, _, m in tables for x in m if x['verdict'] in ('faster', 'slower') and (x['backend'], x['size']) not in {c for c, _ in qual})}",
              f"missed-with-detectable {sum(x['detectable_ratio'] is not None for x in missed)}/{len(missed)}"]
    print("; ".join(info), file=sys.stderr)
print("; ".join(facts))
