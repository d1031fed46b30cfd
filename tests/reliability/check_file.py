#!/usr/bin/env python3
# check_file.py — asserts a results file is whole: every line a JSON object ending in '\n', and the
# records expected are there: --writers ID:N (appender IDs each with seq 0..N-1 once), --runs R
# (run records), --results-per-run K, --points P (sweep point records with status done).
import argparse, json, sys
from collections import Counter, defaultdict

ap = argparse.ArgumentParser()
ap.add_argument("file")
ap.add_argument("--writers", default="")
ap.add_argument("--runs", type=int)
ap.add_argument("--results-per-run", type=int)
ap.add_argument("--points", type=int)
a = ap.parse_args()
data = open(a.file, "rb").read()
if data and not data.endswith(b"\n"):
    sys.exit(f"FAIL: {a.file} does not end in a newline (torn tail)")
seqs, types, per_run = defaultdict(Counter), Counter(), Counter()
points = 0
for no, raw in enumerate(data.split(b"\n")[:-1], 1):
    try:
        rec = json.loads(raw)
    except ValueError as e:
        sys.exit(f"FAIL: {a.file}:{no}: not JSON ({e}): {raw[:80]!r}")
    if not isinstance(rec, dict) or "type" not in rec:
        sys.exit(f"FAIL: {a.file}:{no}: not a record")
    types[rec["type"]] += 1
    if rec["type"] == "append":
        seqs[rec["writer"]][rec["seq"]] += 1
    if rec["type"] == "result":
        per_run[rec["run_id"]] += 1
    if rec["type"] == "point" and rec.get("status") == "done":
        points += 1
if a.writers:
    ids, n = a.writers.split(":")
    for w in range(int(ids)):
        got = seqs.get(str(w), Counter())
        if sorted(got) != list(range(int(n))) or any(c != 1 for c in got.values()):
            sys.exit(f"FAIL: writer {w}: records {dict(got)}, expected seq 0..{int(n)-1} once each")
if a.runs is not None and types["run"] != a.runs:
    sys.exit(f"FAIL: {types['run']} run records, expected {a.runs}")
if a.results_per_run is not None:
    bad = {r: c for r, c in per_run.items() if c != a.results_per_run}
    if bad or len(per_run) != (a.runs or 0):
        sys.exit(f"FAIL: results per run {dict(per_run)}, expected {a.results_per_run} for each of {a.runs} runs")
if a.points is not None and points != a.points:
    sys.exit(f"FAIL: {points} done point records, expected {a.points}")
print(f"{a.file}: whole, {sum(types.values())} records {dict(types)}")
