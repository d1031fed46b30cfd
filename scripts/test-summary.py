#!/usr/bin/env python3
"""test-summary.py BUILD_DIR... — one closing line 'N passed, N failed, N skipped' over the meson test
logs of one or more build directories (each line of testlog.json is one test's result)."""
import json
import os
import sys

ok = failed = skipped = 0
for d in sys.argv[1:]:
    path = os.path.join(d, "meson-logs", "testlog.json")
    if not os.path.exists(path):
        print(f"test-summary: no test log in {d}: the build or the test run did not start", file=sys.stderr)
        failed += 1
        continue
    for line in open(path):
        result = json.loads(line)["result"]
        if result in ("OK", "EXPECTEDFAIL"):
            ok += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{ok} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
