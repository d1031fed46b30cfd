#!/usr/bin/env bash
# test.sh — the test command: set up (packages, build), run every test suite with meson, and end
# with one line 'N passed, N failed, N skipped'. Exit status 1 when any test failed.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR
scripts/setup.sh
rc=0
meson test -C "$BUILD_DIR" --print-errorlogs --no-rebuild ${MESON_TEST_OPTS:-} "$@" || rc=$?
python3 - "$BUILD_DIR/meson-logs/testlog.json" <<'PY'
import json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0, "TIMEOUT": 0, "ERROR": 0, "EXPECTEDFAIL": 0, "UNEXPECTEDPASS": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)
    counts[r["result"]] = counts.get(r["result"], 0) + 1
failed = counts["FAIL"] + counts["TIMEOUT"] + counts["ERROR"] + counts["UNEXPECTEDPASS"]
print(f"{counts['OK'] + counts['EXPECTEDFAIL']} passed, {failed} failed, {counts['SKIP']} skipped")
PY
exit $rc
