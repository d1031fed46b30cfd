#!/usr/bin/env python3
"""check_table.py TABLE RESULTS NP NSIZES NDTYPES NPLACEMENTS — the printed table and the JSON Lines
results of one `arbench run` agree: same rows, times, bandwidths, #wrong 0, checked, counts exact."""
import json
import sys

table, results, np_, nsizes, ndtypes, nplace = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
recs = [json.loads(l) for l in open(results)]
runs = [r for r in recs if r["type"] == "run"]
res = [r for r in recs if r["type"] == "result"]
assert len(runs) == 1, f"{len(runs)} run records"
run = runs[0]
for key in ("schema", "arbench", "command", "hosts", "ranks", "stack", "mpi", "hwloc", "env", "options", "start"):
    assert key in run, f"run record lacks {key}"
assert run["ranks"] == np_, run["ranks"]
assert len(res) == nsizes * ndtypes * nplace, f"{len(res)} results, expected {nsizes * ndtypes * nplace}"
esize = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4}
for r in res:
    assert r["run_id"] == run["run_id"]
    assert r["wrong"] == 0 and r["checked"] is True, r
    assert r["ranks"] == np_
    assert r["size"] == r["count"] * esize[r["dtype"]], r
    t = r["time_us"]
    assert t["min"] <= t["p10"] <= t["p50"] <= t["p90"] <= t["p99"] <= t["max"], t
    assert len(r["samples_us"]) == r["samples_n"] == r["iters"], r
    assert abs(min(r["samples_us"]) - t["min"]) < 1e-6 and abs(max(r["samples_us"]) - t["max"]) < 1e-6
    bf = 2 * (np_ - 1) / np_
    # records keep 10 significant digits: compare relatively
    assert abs(r["busbw_gbs"] - r["algbw_gbs"] * bf) <= 1e-8 * max(r["busbw_gbs"], 1e-12), r
    assert abs(r["algbw_gbs"] - r["size"] / (t["mean"] * 1e3)) <= 1e-8 * max(r["algbw_gbs"], 1e-12), r
rows = [l.split() for l in open(table) if l.strip() and not l.startswith("#")]
assert len(rows) == nsizes * ndtypes, f"{len(rows)} table rows"
by_key = {(r["dtype"], r["size"], r["placement"]): r for r in res}
for row in rows:
    size, count, dtype = int(row[0]), int(row[1]), row[2]
    cols = row[5:]
    for place in ("out", "in"):
        r = by_key.get((dtype, size, place))
        if r is None:
            continue
        c, cols = cols[:6], cols[6:]
        assert int(c[5]) == 0, row
        assert r["count"] == count
        for got, want in ((c[0], r["time_us"]["mean"]), (c[1], r["time_us"]["p50"]), (c[2], r["time_us"]["p99"]),
                          (c[3], r["algbw_gbs"]), (c[4], r["busbw_gbs"])):
            assert abs(float(got) - want) <= 0.005 + 1e-9, (row, got, want)
footer = [l for l in open(table) if l.startswith("# Out of bounds values")]
assert footer and footer[0].split(":")[1].split()[0] == "0" and "OK" in footer[0], footer
print(f"ok: {len(res)} results agree with {len(rows)} table rows")
