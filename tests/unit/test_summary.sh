#!/usr/bin/env bash
# test_summary.sh — scripts/test-summary.py names every skipped test with the reason it printed
# ('skipped: REASON', stdout or stderr, the last one), every failed test with its first FAIL line (else its
# last line), and counts them (issue 24).
source "$(dirname "$0")/../lib/common.sh"
S=$ARBENCH_SRC/scripts/test-summary.py
mkdir -p "$TMP/a/meson-logs" "$TMP/b/meson-logs"
python3 - "$TMP/a/meson-logs/testlog.json" "$TMP/b/meson-logs/testlog.json" <<'PY'
import json, sys
a = [
    {"name": "arbench:unit / unit-opts", "result": "OK", "stdout": "ok\n", "stderr": ""},
    {"name": "arbench:gpu / gpu-run", "result": "SKIP", "stdout": "probing\nskipped: first try\nskipped: no CUDA device\n", "stderr": ""},
    {"name": "arbench:topo / topo-nccl", "result": "SKIP", "stdout": "", "stderr": "x.sh: skipped: ../shared/topologies/nccl not found\n"},
    {"name": "arbench:shm / shm-bare", "result": "SKIP", "stdout": "", "stderr": ""},
    {"name": "arbench:unit / unit-bad", "result": "FAIL", "stdout": "boom\n", "stderr": ""},
    {"name": "arbench:unit / unit-why", "result": "FAIL", "stdout": "ok: first\nFAIL: x.html: width 394\n",
     "stderr": "FAIL: 'table /dev/zero': exit 0, expected 2\nmore\n"},
]
b = [{"name": "arbench:gpu / gpu-run", "result": "SKIP", "stdout": "skipped: built without CUDA\n", "stderr": ""},
     {"name": "arbench:unit / unit-opts", "result": "EXPECTEDFAIL", "stdout": "", "stderr": ""}]
for path, recs in zip(sys.argv[1:], (a, b)):
    with open(path, "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in recs))
PY
expect_status 1 "$S" "$TMP/a" "$TMP/b"
cat >"$TMP/want" <<'W'
skipped (4):
  a: arbench:gpu / gpu-run: no CUDA device
  a: arbench:topo / topo-nccl: ../shared/topologies/nccl not found
  a: arbench:shm / shm-bare: no reason printed (exit status 77 without a 'skipped: REASON' line)
  b: arbench:gpu / gpu-run: built without CUDA
failed (2):
  a: arbench:unit / unit-bad: FAIL: boom
  a: arbench:unit / unit-why: FAIL: 'table /dev/zero': exit 0, expected 2
2 passed, 2 failed, 4 skipped
W
diff -u "$TMP/want" "$TMP/out" || fail "test-summary output differs"
# one build dir: no prefix; all passed or skipped: exit 0
head -2 "$TMP/b/meson-logs/testlog.json" >"$TMP/b/x" && mv "$TMP/b/x" "$TMP/b/meson-logs/testlog.json"
expect_status 0 "$S" "$TMP/b"
printf 'skipped (1):\n  arbench:gpu / gpu-run: built without CUDA\n1 passed, 0 failed, 1 skipped\n' | diff -u - "$TMP/out" \
  || fail "single-dir summary differs"
# Steps outside meson (issue 50 item 12: the sanitizer and fuzzing steps): each --step is one test; a
# failed one is named; a non-zero --exit with nothing failed is one more failure: never "0 failed" then.
expect_status 1 "$S" --step fuzz-opts=0 --step fuzz-topo=1 "$TMP/b"
printf 'skipped (1):\n  arbench:gpu / gpu-run: built without CUDA\nfailed (1):\n  step fuzz-topo: exit status 1\n2 passed, 1 failed, 1 skipped\n' \
  | diff -u - "$TMP/out" || fail "steps not counted"
expect_status 1 "$S" --step fuzz-opts=0 --exit 1 "$TMP/b"
grep -qx '  the run itself: exit status 1 with no failed test or step above (see its log)' "$TMP/out" \
  || { cat "$TMP/out"; fail "a failed run read 0 failed"; }
tail -1 "$TMP/out" | qgrep -qx '2 passed, 1 failed, 1 skipped' || { cat "$TMP/out"; fail "closing line"; }
expect_status 0 "$S" --step fuzz-opts=0 --exit 0 "$TMP/b"
tail -1 "$TMP/out" | qgrep -qx '2 passed, 0 failed, 1 skipped' || { cat "$TMP/out"; fail "closing line (all passed)"; }
# .ci/run's closing line counts every step's tests: each build dir it runs meson test in is summarized,
# the fuzzing harnesses are steps, and its own status goes in.
CI_RUN=$ARBENCH_SRC/.ci/run
for d in $(sed -n 's/.*meson test -C \([a-z-]*\) .*/\1/p' "$CI_RUN"); do
  grep -q "built+=($d)" "$CI_RUN" || fail ".ci/run runs meson test in $d but its closing line does not count it"
done
grep -q 'steps+=("${fz\[@\]}")' "$CI_RUN" || fail ".ci/run does not count the fuzzing harnesses"
grep -q 'test-summary.py "${sargs\[@\]}" --exit "$rc"' "$CI_RUN" || fail ".ci/run does not give test-summary its status"
echo "test_summary: ok"
