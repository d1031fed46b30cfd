#!/usr/bin/env python3
# check.py — assertions on sweep results files for the sweep shell tests (exit 1 with a reason).
#   check.py done FILE N [BACKEND=COUNT|BACKEND=skip ...]  every one of N launch points done exactly
#       once; each done run has exactly COUNT result records of BACKEND (or exactly one skip record);
#       its run record has the point's ranks and every OMPI_MCA_/NCCL_ axis value in its env
#   check.py clean FILE     every record of a run is listed by a `point` record with status done
#   check.py done-runs FILE  prints "POINT RUN_ID" per done point (to compare before/after resume)
#   check.py statuses FILE   prints "POINT STATUS" per point record, in file order
import json
import sys
from collections import Counter, defaultdict


def fail(msg):
    print("check.py: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        fail(f"{path}: last line is torn (no newline)")
    recs = []
    for n, line in enumerate(text.splitlines(), 1):
        try:
            r = json.loads(line)
        except ValueError as e:
            fail(f"{path}:{n}: not JSON ({e})")
        if not isinstance(r, dict) or "type" not in r:
            fail(f"{path}:{n}: not a record")
        recs.append(r)
    return recs


def key(point):
    return json.dumps(point, sort_keys=True)


def done_points(recs):
    return [r for r in recs if r["type"] == "point" and r["status"] == "done"]


def cmd_done(path, n, expects):
    recs = load(path)
    done = done_points(recs)
    per_point = Counter(key(r["point"]) for r in done)
    if len(per_point) != n:
        fail(f"{len(per_point)} distinct points done, expected {n}")
    again = [p for p, c in per_point.items() if c != 1]
    if again:
        fail(f"points done more than once: {again}")
    by_run = defaultdict(list)
    for r in recs:
        if "run_id" in r:
            by_run[r["run_id"]].append(r)
    for p in done:
        if len(p["run_ids"]) != 1:
            fail(f"point {p['point']} has run_ids {p['run_ids']}, expected one run")
        run = by_run[p["run_ids"][0]]
        runrecs = [r for r in run if r["type"] == "run"]
        if len(runrecs) != 1:
            fail(f"point {p['point']}: {len(runrecs)} run records")
        rr = runrecs[0]
        if rr.get("point") != p["point"] or rr["ranks"] != p["point"]["np"]:
            fail(f"point {p['point']}: run record has point {rr.get('point')} ranks {rr['ranks']}")
        for k, v in p["point"].items():
            if k.startswith(("OMPI_MCA_", "NCCL_")) and rr["env"].get(k) != v:
                fail(f"point {p['point']}: rank 0 saw {k}={rr['env'].get(k)!r}, expected {v!r}")
        for e in expects:
            be, want = e.split("=")
            results = [r for r in run if r["type"] == "result" and r["backend"] == be]
            skips = [r for r in run if r["type"] == "skip" and r["backend"] == be]
            if want == "skip":
                if len(skips) != 1 or results:
                    fail(f"point {p['point']}: {be}: {len(skips)} skips, {len(results)} results; expected 1 skip")
            else:
                sizes = Counter(r["size"] for r in results)
                if len(results) != int(want) or any(c != 1 for c in sizes.values()) or skips:
                    fail(f"point {p['point']}: {be}: {len(results)} results ({len(sizes)} sizes), "
                         f"{len(skips)} skips; expected {want} results, one per size")
            if any(r["type"] == "result" and r.get("wrong") for r in run):
                fail(f"point {p['point']}: wrong results")
        if p["results"] != sum(1 for r in run if r["type"] == "result"):
            fail(f"point {p['point']}: point record counts {p['results']} results")


def cmd_clean(path):
    recs = load(path)
    listed = {i for r in done_points(recs) for i in r["run_ids"]}
    for r in recs:
        if "run_id" in r and r["run_id"] not in listed:
            fail(f"record of run {r['run_id']} ({r['type']}) is not part of a done point")


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "done":
        cmd_done(path, int(sys.argv[3]), sys.argv[4:])
    elif cmd == "clean":
        cmd_clean(path)
    elif cmd == "done-runs":
        for r in done_points(load(path)):
            print(key(r["point"]), r["run_ids"][0])
    elif cmd == "statuses":
        for r in load(path):
            if r["type"] == "point":
                print(key(r["point"]), r["status"])
    else:
        fail(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
