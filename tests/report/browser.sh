#!/usr/bin/env bash
# browser.sh — `arbench report` pages in a real headless Chromium (browser.py, over the DevTools pipe): a run
# file (scripts/run.sh's), a links file (4 CPU ranks), and a sweep of 12 configurations in two files (so compare
# runs) with a doctor file. Each page: no console error, picks = `arbench table --format json`'s, every chart
# drawn, every links pair, 390 and 1280 px screenshots not blank and not wider than the window, dark mode
# readable, a PDF printed, no request beyond the file; and under 2 MB. Issue 51's pages too (the README's first
# steps, three nccl-tests imports) and its rules on every page at 1280 and 390 px (browser.py's check_layout). Needs Debian's chromium and matplotlib:
# without them it is skipped here, but not under CI (scripts/test.sh installs chromium there).
# ARBENCH_REPORT_SHOTS=DIR keeps the pages, screenshots and PDFs there. usage: browser.sh [core|layout|all]
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
# The pages name their files, and a user's paths are long (a cluster's scratch folder): the fixtures are read
# from a folder whose path is over 200 characters wherever the test runs, so a path that does not wrap fails
# here, not only in a checkout deeper than the developer's (CI's did).
LONG=$TMP/$(printf 'results_folder_as_deep_as_a_cluster_scratch_path_%.0s' 1 2 3 4) # no hyphen: no break
mkdir -p "$LONG/report" "$LONG/nccl-tests"
cp "$ARBENCH_SRC/tests/fixtures/analysis/runsh-host.jsonl" "$LONG/"
cp "$ARBENCH_SRC"/tests/fixtures/report/*.jsonl "$LONG/report/"
cp "$ARBENCH_SRC"/tests/fixtures/nccl-tests/*.log "$LONG/nccl-tests/"
cp "$ARBENCH_SRC/tests/fixtures/topo/2s8g.xml" "$LONG/"
[ ${#LONG} -gt 200 ] || fail "the long fixture folder is only ${#LONG} characters"
RUN=$LONG/runsh-host.jsonl
F=$LONG/report
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
SET=${1:-all} # core: the run, links and sweep pages (issue 40); layout: issue 51's (run.sh's, first steps, imports)
case $SET in core | layout | all) ;; *) fail "browser.sh: unknown page set '$SET' (core, layout, all)" ;; esac
specs=()
page run "$RUN"
specs+=("$OUT/run.html:$OUT/run.table.json")
if [ "$SET" != layout ]; then
  page links "$F/links-4r.jsonl"
  page sweep "$F/sweep12-a.jsonl" "$F/sweep12-b.jsonl" "$TMP/doctor.json"
  grep -q 'id="doctor"' "$OUT/sweep.html" || fail "the sweep page has no doctor section"
  specs+=("$OUT/links.html:$OUT/links.table.json" "$OUT/sweep.html:$OUT/sweep.table.json:compare")
fi
if [ "$SET" != core ]; then
  # issue 51's pages: the README's first steps (run, sweep, links: one shm-oneshot across run and sweep, serving has no GPU
  # result) and three nccl-tests logs as three stacks (a 16-rank one matches neither 8-rank stack)
  page firststeps "$F/firststeps-run.jsonl" "$F/firststeps-sweep.jsonl" "$F/firststeps-links.jsonl" \
    --topo-xml "$LONG/2s8g.xml" # a topology picture wherever the test runs
  NT=$LONG/nccl-tests
  for l in superbench-allreduce-8xA100:a100 aws-batch-tagged-8xH100:h100 a3mega-stripped-16xH100:h100x16; do
    "$ARBENCH" import nccl-tests "$NT/${l%%:*}.log" --stack "${l##*:}" -J "$LONG/imp-${l##*:}.jsonl" >/dev/null 2>&1 \
      || fail "import ${l%%:*}.log failed"
  done
  page imports "$LONG/imp-a100.jsonl" "$LONG/imp-h100.jsonl" "$LONG/imp-h100x16.jsonl"
  text() { sed 's/<[^>]*>//g' "$OUT/$1.html" >"$TMP/$1.txt"; echo "$TMP/$1.txt"; } # a file: grep -q would cut a pipe
  grep -q 'Every match (0)' "$OUT/imports.html" && fail "imports: an empty comparison is shown"
  grep -q '^A comparison: h100x16 against a100: no configuration measured in both' "$(text imports)" \
    || fail "imports: the summary does not name the comparison left out"
  # run.jsonl's np=2 run and sweep.jsonl's np=2 sweep are one configuration (issue 46): compare finds shm-oneshot
  grep -q '^Every match (7): ratio' "$(text firststeps)" || fail "firststeps: compare of the run and the sweep lacks its 7 matches"
  grep -q '^No serving settings: no GPU results' "$TMP/firststeps.txt" || fail "firststeps: no line saying why no serving settings"
  grep -q '<li><a href="#compare">' "$OUT/firststeps.html" || fail "firststeps: the contents do not link the compare section"
  grep -q '<span class="details">under each number: the lead over the runner-up' "$OUT/firststeps.html" \
    || fail "firststeps: the pick map's caption lacks the details its one-line subtitle leaves out"
  echo "ok: issue 51's text checks (left-out summary, no empty comparison, serving settings' why)"
  specs+=("$OUT/firststeps.html:$OUT/firststeps.table.json" "$OUT/imports.html:$OUT/imports.table.json:compare")
fi
echo "pages made in $((SECONDS - t0)) s"
rc=0
[ "$SET" = layout ] && export ARBENCH_REPORT_PDF=0 # printing is report-browser's check
"$PY" "$(dirname "$0")/browser.py" "$CHROME" "$OUT" "${specs[@]}" || rc=1
echo "browser checks done in $((SECONDS - t0)) s"
exit $rc
