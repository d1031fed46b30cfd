#!/usr/bin/env python3
"""test-summary.py [--step NAME=STATUS]... [--exit STATUS] BUILD_DIR... — over the meson test logs of one
or more build directories (each line of testlog.json is one test's result) and the steps that run tests
outside meson (each --step one test: exit status 0 passed, else failed; e.g. a fuzzing harness): every
skipped test with its reason (the test's last 'skipped: REASON' line), every failed test with why (its
first 'FAIL: ...' line, else its last line; CI shows only the tail of its log), then one
closing line 'N passed, N failed, N skipped'. --exit is the caller's own status: when it is not 0 and
nothing above failed, one more failure says so, so the closing line never reads 0 failed then."""
import json
import os
import re
import sys

SKIP_LINE = re.compile(r"^.*?\bskipped: *(.*?)\s*$", re.M)
FAIL_LINE = re.compile(r"^.*?\bFAIL: *(.*?)\s*$", re.M)
WHY_MAX = 300  # characters of a failed test's reason: a line that names the value, not a dump


def skip_reason(result):
    """The last 'skipped: REASON' a test printed (stdout, then stderr), else say that it gave none."""
    for stream in ("stdout", "stderr"):
        found = SKIP_LINE.findall(result.get(stream) or "")
        if found and found[-1]:
            return found[-1]
    return "no reason printed (exit status 77 without a 'skipped: REASON' line)"


def fail_reason(result):
    """The first 'FAIL: ...' line a failed test printed (stderr, then stdout), else its last non-empty line."""
    for stream in ("stderr", "stdout"):
        found = FAIL_LINE.findall(result.get(stream) or "")
        if found and found[0]:
            return found[0][:WHY_MAX]
    for stream in ("stderr", "stdout"):
        lines = [x.strip() for x in (result.get(stream) or "").splitlines() if x.strip()]
        if lines:
            return lines[-1][:WHY_MAX]
    return "nothing printed"


def main(args):
    dirs, steps, exit_status = [], [], 0
    while args:
        a = args.pop(0)
        if a in ("--step", "--exit"):
            if not args:
                print(f"test-summary: {a} needs a value", file=sys.stderr)
                return 2
            v = args.pop(0)
            if a == "--exit":
                exit_status = int(v) if v.lstrip("-").isdigit() else 1
            elif "=" not in v:
                print(f"test-summary: --step '{v}': expected NAME=STATUS", file=sys.stderr)
                return 2
            else:
                steps.append(v.rsplit("=", 1))
        else:
            dirs.append(a)
    ok = failed = skipped = 0
    skips, fails = [], []
    for name, status in steps:
        if status == "0":
            ok += 1
        else:
            failed += 1
            fails.append(f"  step {name}: exit status {status}")
    for d in dirs:
        path = os.path.join(d, "meson-logs", "testlog.json")
        where = f"{os.path.basename(os.path.normpath(d))}: " if len(dirs) > 1 else ""
        if not os.path.exists(path):
            print(f"test-summary: no test log in {d}: the build or the test run did not start", file=sys.stderr)
            failed += 1
            continue
        for line in open(path):
            if not line.strip():
                continue
            r = json.loads(line)
            result, name = r["result"], r.get("name", "?")
            if result in ("OK", "EXPECTEDFAIL"):
                ok += 1
            elif result == "SKIP":
                skipped += 1
                skips.append(f"  {where}{name}: {skip_reason(r)}")
            else:
                failed += 1
                fails.append(f"  {where}{name}: {result}: {fail_reason(r)}")
    if exit_status and not failed:
        failed += 1
        fails.append(f"  the run itself: exit status {exit_status} with no failed test or step above (see its log)")
    if skips:
        print(f"skipped ({len(skips)}):")
        print("\n".join(skips))
    if fails:
        print(f"failed ({len(fails)}):")
        print("\n".join(fails))
    print(f"{ok} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(list(sys.argv[1:])))
