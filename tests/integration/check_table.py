#!/usr/bin/env python3
"""check_table.py TABLE RESULTS NP NSIZES NDTYPES NPLACEMENTS — the printed table and the JSON Lines
results of one `arbench run` agree: same rows, times, bandwidths, #wrong 0, checked, counts exact."""
import ctypes
import json
import sys

table, results, np_, nsizes, ndtypes, nplace = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
recs = [json.loads(l) for l in open(results)]
# The last-level cache as the engine reads it: glibc's sysconf(_SC_LEVEL3_CACHE_SIZE) (= 194), called
# directly since not every Python build names it.
l3 = ctypes.CDLL(None).sysconf(194)
CACHE = max(l3, 32 << 20)
runs = [r for r in recs if r["type"] == "run"]
res = [r for r in recs if r["type"] == "result"]
assert len(runs) == 1, f"{len(runs)} run records"
run = runs[0]
for key in ("schema", "arbench", "command", "hosts", "ranks", "stack", "mpi", "hwloc", "env", "options", "start"):
    assert key in run, f"run record lacks {key}"
assert run["ranks"] == np_, run["ranks"]
# known_bad (bench/knownbad.c): always an array; nothing can match without an NCCL and a GPU (host-only build).
assert isinstance(run["known_bad"], list) and all(isinstance(k, str) for k in run["known_bad"]), run["known_bad"]
if run["stack"].get("nccl_loaded") is None and not run.get("gpus"):
    assert run["known_bad"] == [], run["known_bad"]
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
    # Every statistic recomputed from the samples (all kept: n <= --max-samples): percentiles by linear
    # interpolation at q*(n-1), stddev with n-1 (records keep 10 significant digits: compare relatively).
    s = sorted(r["samples_us"])
    n = len(s)
    def pct(q):
        pos = q * (n - 1)
        lo = int(pos)
        return s[lo] if lo + 1 >= n else s[lo] + (s[lo + 1] - s[lo]) * (pos - lo)
    mean = sum(s) / n
    sd = (sum((x - mean) ** 2 for x in s) / (n - 1)) ** 0.5 if n > 1 else 0.0
    want = {"min": s[0], "p10": pct(0.1), "p50": pct(0.5), "p90": pct(0.9), "p99": pct(0.99), "max": s[-1],
            "mean": mean, "stddev": sd}
    for k, v in want.items():
        assert k in t and abs(t[k] - v) <= 1e-7 * max(s[-1], 1e-3), (k, t.get(k), v, r["size"])
    # Buffer sets: --buffers hot (the default) reuses one; cold rotates as many as outgrow twice the
    # last-level cache (32 MiB at least), within the pool (twice the largest message plus twice the cache)
    # and at most 4096. rotation_bytes: the sets' buffers in 128-byte lines; cold_reached: >= 2 x cache.
    stride = -(-max(r["size"], 1) // 256) * 256
    setsz = stride if r["placement"] == "in" else 2 * stride
    pool = 2 * -(-max(x["size"] for x in res) // 256) * 256 + 2 * CACHE
    want_sets = 1 if r["buffers"] == "hot" else max(1, min(-(-2 * CACHE // setsz), pool // setsz, 4096))
    assert r["nsets"] == want_sets, (r["nsets"], r["buffers"], r["size"], CACHE)
    span = r["nsets"] * (1 if r["placement"] == "in" else 2) * (-(-r["size"] // 128) * 128)
    assert r["rotation_bytes"] == span and r["cache_bytes"] == CACHE, (r["rotation_bytes"], span, r["cache_bytes"])
    assert r["cold_reached"] is (span >= 2 * CACHE), r["cold_reached"]
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
