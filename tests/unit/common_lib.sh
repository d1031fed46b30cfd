#!/usr/bin/env bash
# common_lib.sh — tests/lib/common.sh's own helpers: qgrep reads its whole input, so the command before the pipe
# ends normally under pipefail (grep -q would kill a writer still writing: status 141, a miss that depends on load).
source "$(dirname "$0")/../lib/common.sh"
# seq writes 1.3 MB, far past a pipe's buffer, after the first line has matched: with grep -q it always dies.
st=0; seq 1 200000 | qgrep -qx 1 || st=$?
expect_eq "qgrep: a match early in a long output" 0 "$st"
st=0; seq 1 200000 | qgrep -qx 0 || st=$?
expect_eq "qgrep: no match" 1 "$st"
st=0; seq 1 200000 | qgrep -qx 200000 || st=$?
expect_eq "qgrep: the last line" 0 "$st"
st=0; seq 1 3 | qgrep -q '[' 2>/dev/null || st=$?
expect_eq "qgrep: grep's own error (2) kept" 2 "$st"
echo "all passed"
