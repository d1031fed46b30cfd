#!/usr/bin/env python3
"""device_check_report.py — the one reader of the device-check scripts' results: a step's records
(TMPDIR/NAME.jsonl), its stderr, the steps file ("NAME WANT RC SECS" lines), and each script's verdict.
  device_check_report.py [--suite device-check|p2p|symm] TMPDIR   the step table; exit 1 when a step failed
  device_check_report.py --links FILE PYTHON   assertions over `arbench links` records (recs, skips, need)
A step passes only on what it measured: skips alone never make it pass."""
import json, os, sys


def records(path, strict=False):
    """The JSON records of a results file, in order; a missing file has none. A line that does not parse is
    dropped (a torn last line of a killed step); when strict, a missing file or a bad line is an error."""
    out = []
    for line in open(path) if strict or os.path.exists(path) else []:
        try:
            out.append(json.loads(line))
        except ValueError:
            if strict:
                raise
    return out


def step_lines(tmp):
    """(name, want, rc, secs) per line of TMPDIR/steps, as strings."""
    return [tuple(line.split()) for line in open(os.path.join(tmp, "steps")) if line.strip()]


def counts(r):
    """What the step table shows of a step's records: results, wrong elements, skips, errors."""
    res = [x for x in r if x.get("type") == "result"]
    return res, sum(x.get("wrong", 0) for x in res), [x for x in r if x.get("type") == "skip"], \
        sum(1 for x in r if x.get("type") == "error")


def table(tmp, width, judge):
    """Print one row per step with judge(name, want, rc, recs, err)'s verdict; returns the failed steps."""
    recs = lambda name: records(os.path.join(tmp, name + ".jsonl"))
    print("\n%-*s %5s %3s %7s %6s %5s %6s %5s  %s" % (width, "step", "want", "rc", "results", "wrong", "skips",
                                                      "errors", "secs", "verdict"))
    bad = 0
    for name, want, rc, secs in step_lines(tmp):
        r = recs(name)
        res, wrong, skips, nerr = counts(r)
        ok = bool(judge(name, want, rc, r, text(tmp, name, "err")))
        bad += not ok
        print("%-*s %5s %3s %7d %6d %5d %6d %5s  %s" % (width, name, want, rc, len(res), wrong, len(skips), nerr,
                                                        secs, "PASS" if ok else "FAIL"))
    return bad


def text(tmp, name, ext):
    p = os.path.join(tmp, name + "." + ext)
    return open(p).read() if os.path.exists(p) else ""


def measured_ok(want, rc, r):
    """The usual step: the expected exit, every record a checked result, nothing wrong, skipped or failed."""
    res, wrong, skips, nerr = counts(r)
    return rc == want and wrong == 0 and nerr == 0 and not skips and res and all(x["checked"] for x in res)


# --- device-check.sh (NCCL engine, graphs, watchdog, variants)
# Variant steps of device-check.sh: every variant measured and checked (skips alone are not a pass). NVLS
# is left out: on PCIe it is a recorded skip by design.
VARIANTS = {
    "variants-1rank": ("nccl:proto=Simple", "nccl:ctas=2", "nccl:reg=1"),
    "multi-variants": ("nccl:proto=Simple", "nccl:algo=Ring,proto=LL", "nccl:algo=Tree", "nccl:ctas=2", "nccl:reg=1",
                       "nccl:symm=1"),
}
extra = {
    "loop": lambda r, e: all(x["samples_n"] == 1 and x["timing"] == "loop" and x["average"] == "mean"
                             for x in r if x.get("type") == "result"),
    "loop-graph": lambda r, e: all(x["samples_n"] == 1 and x["graph"] == 10 for x in r if x.get("type") == "result"),
    "cold": lambda r, e: all(x["buffers"] == "cold" and (x["nsets"] > 1 or x["size"] > 1 << 27)
                             for x in r if x.get("type") == "result")
                         and sorted({x["repeat"] for x in r if x.get("type") == "result"}) == [0, 1],
    "bad-variant": lambda r, e: "Bogus" in e and ("allowed" in e or "expected" in e),
    "shared-gpu": lambda r, e: any(x.get("type") == "skip" and "share one GPU" in x.get("reason", "") for x in r),
    # Without NCCL (the CPU stand-in build): p2p-oneshot takes the shared GPU, and a hung device (ARBENCH_EMU_HANG=1)
    # ends the run within -T with a line naming rank 1 (its peer's kernel timeout, or its own watchdog).
    "shared-gpu-p2p": lambda r, e: measured_ok("0", "0", r),
    "hang": lambda r, e: "waiting for rank 1" in e or "rank 1: timeout" in e,
    "watchdog": lambda r, e: "timeout: nccl" in e and "1048576 bytes" in e and "aborted the NCCL communicator" in e
                             and "made no progress" not in e,
    # Several ranks: NCCL really chose an algorithm for every out-of-place record, and it took time.
    "multi-sizes": lambda r, e: all(x.get("nccl", {}).get("algo") not in (None, "unknown") and x["time_us"]["p50"] > 0
                                    for x in r if x.get("type") == "result" and x["placement"] == "out"),
    "multi-variants": lambda r, e: not [x for x in r if x.get("type") == "error"]
                                   and all(x["nccl"].get("symmetric", {}).get("ran") is not None
                                           for x in r if x.get("type") == "result" and "symm=1" in x["spec"]),
    # algo=NVLS on PCIe: a recorded skip with NCCL's reason (the run exits 3: every configuration skipped), never
    # an error; NVLink boxes may run it (exit 0).
    "multi-nvls": lambda r, e: not [x for x in r if x.get("type") == "error"]
                               and any(x.get("type") == "result" or (x.get("type") == "skip" and
                                       "NCCL_ALGO was set to NVLS" in x.get("reason", "")) for x in r),
    "multi-pertask": lambda r, e: len([x for x in r if x.get("type") == "result"]) == 2,
    # Issue 48: graphs gone before Finalize (no hang to -T); symm=1's records; a conf file rules every variant.
    "multi-graph-teardown": lambda r, e: len([x for x in r if x.get("type") == "result"]) == 4,
    "multi-symm": lambda r, e: not [x for x in r if x.get("type") == "error"]
                               and all(x["nccl"].get("symmetric", {}).get("ran") is not None
                                       for x in r if x.get("type") == "result"),
    "multi-conf": lambda r, e: {x.get("nccl_algo") for x in r if x.get("type") == "result"} == {"TREE"},
}


def device_check_judge(name, want, rc, r, e):
    res, wrong, skips, nerr = counts(r)
    rc_ok = rc in ("0", "3") if name == "multi-nvls" else rc == want  # NVLS: a skip (3) on PCIe, a run (0) on NVLink
    ok = rc_ok and (wrong == 0 or name == "watchdog") and extra.get(name, lambda r, e: True)(r, e)
    if name in ("sizes", "graph", "loop", "loop-graph", "cold", "multi-sizes", "multi-graph", "multi-pertask",
                "shared-gpu-p2p", "multi-graph-teardown", "multi-symm", "multi-conf") \
            or name.startswith("op-"):
        ok = ok and len(res) > 0 and all(x["checked"] for x in res) and nerr == 0
    if name in VARIANTS:
        specs = {x.get("spec") for x in res if x.get("checked")}
        ok = ok and nerr == 0 and all(v in specs for v in VARIANTS[name])
    return ok


def device_check(tmp):
    recs = lambda name: records(os.path.join(tmp, name + ".jsonl"))
    bad = table(tmp, 12, device_check_judge)
    first = next((x for x in recs("sizes") if x.get("type") == "result"), {})
    print("\n%s, float out-of-place:" % ("nccl, 1 rank (no NCCL algorithm runs: a device copy)"
                                        if first.get("backend", "nccl") == "nccl" else
                                        "%s, %d ranks" % (first["backend"], first["ranks"])))
    for x in recs("sizes"):
        if x.get("type") == "result" and x["dtype"] == "float" and x["placement"] == "out" and x["size"] in (8, 65536, 1 << 20, 1 << 28):
            print("  %10d B  p50 %9.2f us  algbw %8.2f GB/s  algo %s" % (x["size"], x["time_us"]["p50"], x["algbw_p50_gbs"], x.get("nccl", {}).get("algo")))
    for x in recs("graph"):
        if x.get("type") == "result" and x["dtype"] == "float" and x["placement"] == "out" and x["size"] == 8:
            print("  graph -G 10, 8 B: p50 %.2f us per allreduce" % x["time_us"]["p50"])
    hot = {x["size"]: x["time_us"]["p50"] for x in recs("sizes") if x.get("type") == "result" and x["dtype"] == "float"
           and x["placement"] == "out"}
    for x in recs("cold"):
        if x.get("type") == "result" and x["repeat"] == 0 and x["size"] in hot:
            print("  %10d B  p50 cold %9.2f us, hot %9.2f us (cold/hot %.2f)" % (x["size"], x["time_us"]["p50"],
                  hot[x["size"]], x["time_us"]["p50"] / hot[x["size"]]))
    for x in recs("loop"):
        if x.get("type") == "result" and x["size"] in hot:
            print("  %10d B  loop mean %9.2f us, iter p50 %9.2f us" % (x["size"], x["time_us"]["p50"], hot[x["size"]]))
    for x in recs("multi-sizes"):
        if x.get("type") == "result" and x["dtype"] == "float" and x["placement"] == "out" and x["size"] in (8, 65536, 1 << 20, 1 << 28):
            n = x.get("nccl", {})
            print("  %d ranks %10d B  p50 %9.2f us  busbw %8.2f GB/s  %s/%s/%s ch" % (x["ranks"], x["size"], x["time_us"]["p50"],
                  x["busbw_p50_gbs"], n.get("algo"), n.get("proto"), n.get("channels")))
    print("\ncoverage: %s" % ("1 rank only: engine, checks, graphs, watchdog; NCCL's algorithms and variants untested"
                              if not os.path.exists(os.path.join(tmp, "multi-sizes.jsonl"))
                              else "1 rank and multi-rank NCCL"))
    print("\ndevice-check: %s" % ("PASS" if not bad else "FAIL (%d steps)" % bad))
    return bad


# --- device-check-p2p.sh (custom P2P one-shot/two-shot kernels, fused residual-add + RMSNorm)
# fused steps may skip only for these reasons, and must show the ones listed per step
FUSED_SKIPS = ("is not a whole number of rows", "fused works on bfloat16 only", "fused reduces with sum only",
               "NCCL refuses two ranks on one GPU")
WANT_SKIPS = {"np2-fused": FUSED_SKIPS[:2], "np4-fused": FUSED_SKIPS[:1], "np2-fused-max": FUSED_SKIPS[2:3],
              "np2-fused-nccl": FUSED_SKIPS[3:]}
NO_RESULTS = ("np2-fused-max", "np2-fused-nccl")


def p2p_judge(name, want, rc, r, e):
    res, wrong, skips, nerr = counts(r)
    reasons = [x.get("reason", "") for x in skips]
    if name.endswith("stall"):  # the live rank must name the stalled one, within -T
        return rc == want and "timeout after 3.6 s" in e and "waiting for rank 1" in e
    if name == "np2-ipc-fail":  # the stand-in: rank 1's IPC open fails as under ACS or the IOMMU; named, recorded
        return rc == want and "rank 1: p2p-oneshot: sharing" in e and "through CUDA IPC failed" in e and nerr > 0
    if name == "np2-fused-corrupt":  # the stand-in: rank 1's copies (its check's) flip a bit: counted wrong
        return rc == want and wrong > 0 and nerr == 0
    if "fused" in name:  # checked against the fp64 reference within the bf16 tolerances
        return (rc == want and wrong == 0 and nerr == 0 and all(x["checked"] == "tolerance" for x in res)
                and all(any(k in why for k in FUSED_SKIPS) for why in reasons)
                and all(any(k in why for why in reasons) for k in WANT_SKIPS.get(name, ()))
                and (not res if name in NO_RESULTS else len(res) > 0))
    return measured_ok(want, rc, r)


def p2p(tmp):
    bad = table(tmp, 16, p2p_judge)
    notes = os.path.join(tmp, "notes")
    for line in open(notes) if os.path.exists(notes) else []:
        print("note: " + line.rstrip())
    print("\ndevice-check-p2p: %s" % ("PASS" if not bad else "FAIL (%d steps)" % bad))
    return bad


# --- device-check-symm.sh (symmetric-memory allreduce)
def symm_judge(name, want, rc, r, e):
    if name == "np2-stall":  # the engine's watchdog ends the spinning barrier and names the phase
        return rc == want and "timeout" in e and "symm" in e
    return measured_ok(want, rc, r)


def symm(tmp):
    bad = table(tmp, 12, symm_judge)
    print("\ndevice-check-symm: %s" % ("PASS" if not bad else "FAIL (%d steps)" % bad))
    return bad


# --- device-check-links.sh: assertions (PYTHON) over a step's link records
def links(path, code):
    recs, skips = [], []
    for r in records(path, strict=True):
        (recs if r.get("type") == "link" else skips if r.get("type") == "skip" else []).append(r)

    def need(cond, what):
        if not cond:
            print("FAIL:", what)
            sys.exit(1)
    exec(code, {"recs": recs, "skips": skips, "need": need, "json": json, "math": __import__("math"),
                "sys": sys})
    return 0


SUITES = {"device-check": device_check, "p2p": p2p, "symm": symm}


def main(argv):
    if len(argv) == 3 and argv[0] == "--links":
        return links(argv[1], argv[2])
    suite = "device-check"
    if len(argv) == 3 and argv[0] == "--suite":
        suite, argv = argv[1], argv[2:]
    if len(argv) != 1 or suite not in SUITES:
        sys.stderr.write("usage: device_check_report.py [--suite %s] TMPDIR | --links FILE PYTHON\n"
                         % "|".join(SUITES))
        return 2
    return 1 if SUITES[suite](argv[0]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
