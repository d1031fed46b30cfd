#!/usr/bin/env bash
# browser.sh — `arbench report` pages in a real headless Chromium (browser.py, over the DevTools pipe): a run
# file (scripts/run.sh's), a links file (4 CPU ranks), and a sweep of 12 configurations in two files (so compare
# runs) with a doctor file. Each page: no console error, picks = `arbench table --format json`'s, every chart
# drawn, every links pair, 390 and 1280 px screenshots not blank and not wider than the window, dark mode
# readable, a PDF printed, no request beyond the file; and under 2 MB. Needs Debian's chromium and matplotlib:
# without them it is skipped here, but not under CI (scripts/test.sh installs chromium there).
# ARBENCH_REPORT_SHOTS=DIR keeps the pages, screenshots and PDFs there.
source "$(dirname "$0")/../lib/common.sh"
t0=$SECONDS
CHROME=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROME" ]; then
  [ -n "${CI:-}" ] && fail "chromium is not installed, and CI must run this test (scripts/test.sh installs it)"
  echo "skipped: chromium not installed (apt-get install chromium; scripts/test.sh installs it)"
  exit 77
fi
MPL=""
for p in "${ARBENCH_PYTHON:-}" /usr/bin/python3 "$(command -v python3)"; do
  [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import matplotlib' 2>/dev/null && MPL=$p && break
done
if [ -z "$MPL" ]; then
  [ -n "${CI:-}" ] && fail "no python3 with matplotlib, and CI must run this test"
  echo "skipped: no python3 with matplotlib (the charts)"
  exit 77
fi
echo "chromium: $("$CHROME" --version 2>/dev/null | head -1)"
OUT=${ARBENCH_REPORT_SHOTS:-$TMP/shots}
mkdir -p "$OUT"
RUN=$ARBENCH_SRC/tests/fixtures/analysis/runsh-host.jsonl
F=$ARBENCH_SRC/tests/fixtures/report
"$ARBENCH" doctor --sysfs-root "$ARBENCH_SRC/tests/fixtures/sysfs/switch-bad" --format json >"$TMP/doctor.json" 2>/dev/null \
  || true # exit 1: the tree has FAIL findings
jq -e .findings "$TMP/doctor.json" >/dev/null || fail "doctor --format json printed no findings"
page() { # page NAME FILES...: the page and the table JSON it must show
  local name=$1
  shift
  "$ARBENCH" report "$@" -o "$OUT/$name.html" --title "arbench report test: $name" >"$TMP/$name.out" 2>"$TMP/$name.err" \
    || { cat "$TMP/$name.err"; fail "arbench report $name exited $?"; }
  cat "$TMP/$name.out"
  [ ! -s "$TMP/$name.err" ] || { cat "$TMP/$name.err"; fail "arbench report $name wrote on stderr"; }
  local files=()
  for f in "$@"; do [[ $f == *.jsonl ]] && files+=("$f"); done
  "$ARBENCH" table --format json "${files[@]}" >"$OUT/$name.table.json"
  local kb=$(( ($(stat -c %s "$OUT/$name.html") + 1023) / 1024 ))
  echo "page $name: $kb KiB"
  [ "$kb" -lt 2048 ] || fail "page $name is $kb KiB: over 2 MiB"
}
page run "$RUN"
page links "$F/links-4r.jsonl"
page sweep "$F/sweep12-a.jsonl" "$F/sweep12-b.jsonl" "$TMP/doctor.json"
grep -q 'id="doctor"' "$OUT/sweep.html" || fail "the sweep page has no doctor section"
echo "pages made in $((SECONDS - t0)) s"
rc=0
"$PY" "$(dirname "$0")/browser.py" "$CHROME" "$OUT" "$OUT/run.html:$OUT/run.table.json" \
  "$OUT/links.html:$OUT/links.table.json" "$OUT/sweep.html:$OUT/sweep.table.json:compare" || rc=1
echo "browser checks done in $((SECONDS - t0)) s"
exit $rc
