#!/usr/bin/env python3
"""device_check_report.py TMPDIR — device-check.sh's verdict: one row per step (exit status, results, wrong
elements, skips, errors) from TMPDIR/steps and TMPDIR/NAME.jsonl|.err, a few reference numbers; exit 1 when
a step failed. A step passes only on what it measured: skips alone never make it pass."""
import json, os, sys
tmp = sys.argv[1]
def recs(name):
    p = os.path.join(tmp, name + ".jsonl")
    out = []
    for line in open(p) if os.path.exists(p) else []:
        try: out.append(json.loads(line))
        except ValueError: pass
    return out
def text(name, ext):
    p = os.path.join(tmp, name + "." + ext)
    return open(p).read() if os.path.exists(p) else ""
VARIANTS = ("nccl:proto=Simple", "nccl:algo=Ring,proto=LL", "nccl:ctas=2", "nccl:reg=1")  # device-check.sh
extra = {
    "bad-variant": lambda r, e: "Bogus" in e and "allowed" in e,
    "shared-gpu": lambda r, e: any(x.get("type") == "skip" and "share one GPU" in x.get("reason", "") for x in r),
    "watchdog": lambda r, e: "timeout: nccl" in e and "1048576 bytes" in e and "aborted the NCCL communicator" in e
                             and "made no progress" not in e,
}
print("\n%-12s %5s %3s %7s %6s %5s %6s %5s  %s" % ("step", "want", "rc", "results", "wrong", "skips", "errors", "secs", "verdict"))
bad = 0
for line in open(os.path.join(tmp, "steps")):
    name, want, rc, secs = line.split()
    r, e = recs(name), text(name, "err")
    res = [x for x in r if x.get("type") == "result"]
    wrong = sum(x.get("wrong", 0) for x in res)
    nerr = sum(1 for x in r if x.get("type") == "error")
    ok = rc == want and (wrong == 0 or name == "watchdog") and extra.get(name, lambda r, e: True)(r, e)
    if name in ("sizes", "graph") or name.startswith("op-"):
        ok = ok and len(res) > 0 and all(x["checked"] for x in res) and nerr == 0
    if name == "variants":  # every variant measured and checked: skips alone are not a pass
        specs = {x.get("spec") for x in res if x.get("checked")}
        ok = ok and nerr == 0 and all(v in specs for v in VARIANTS)
    bad += not ok
    print("%-12s %5s %3s %7d %6d %5d %6d %5s  %s" % (name, want, rc, len(res), wrong,
          sum(1 for x in r if x.get("type") == "skip"), nerr, secs, "PASS" if ok else "FAIL"))
print("\nnccl, 1 rank, float out-of-place:")
for x in recs("sizes"):
    if x.get("type") == "result" and x["dtype"] == "float" and x["placement"] == "out" and x["size"] in (8, 65536, 1 << 20, 1 << 28):
        print("  %10d B  p50 %9.2f us  algbw %8.2f GB/s  algo %s" % (x["size"], x["time_us"]["p50"], x["algbw_p50_gbs"], x.get("nccl", {}).get("algo")))
for x in recs("graph"):
    if x.get("type") == "result" and x["dtype"] == "float" and x["placement"] == "out" and x["size"] == 8:
        print("  graph -G 10, 8 B: p50 %.2f us per allreduce" % x["time_us"]["p50"])
print("\ndevice-check: %s" % ("PASS" if not bad else "FAIL (%d steps)" % bad))
sys.exit(1 if bad else 0)
