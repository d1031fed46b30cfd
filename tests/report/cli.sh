#!/usr/bin/env bash
# cli.sh — `arbench report`'s inputs and exit statuses as the analysis commands have them: nothing to report is
# one line and 3, an unreadable or unknown file one line and 2, a page that cannot be written one line and 1 with
# nothing half-written (a new file renamed over the old one, no temporary left); a page is one file with the
# title asked for, the charts left out with a warning when the plot script is missing.
source "$(dirname "$0")/../lib/common.sh"
ar_counting
FIX="$ARBENCH_SRC/tests/fixtures/analysis"
R() { "$ARBENCH" report "$@"; }
one_line() { # one_line NAME WANT-STATUS NEEDLE CMD...: that status, one stderr line naming NEEDLE, no page
  local name=$1 want=$2 needle=$3 rc=0
  shift 3
  rm -f "$TMP/p.html"
  "$@" >"$TMP/o" 2>"$TMP/e" || rc=$?
  check_eq "$name: exit $want" "$want" "$rc"
  check_eq "$name: one stderr line" 1 "$(wc -l <"$TMP/e")"
  grep -qF -- "$needle" "$TMP/e" && echo "ok: $name: names '$needle'" || check_fail "$name: [$(cat "$TMP/e")] lacks [$needle]"
  check_eq "$name: no page" no "$([ -e "$TMP/p.html" ] && echo yes || echo no)"
}
: >"$TMP/empty.jsonl"
head -1 "$FIX/runsh-host.jsonl" >"$TMP/runonly.jsonl"
echo '{"findings": 3}' >"$TMP/other.json"
echo '[1, 2]' >"$TMP/array.json"
printf '{"type":"run","run_id":"0000000000000001"}\nnot json\n{"type":"run","run_id":"0000000000000002"}\n' >"$TMP/bad.jsonl"
one_line "no files" 2 "no files given" R -o "$TMP/p.html"
one_line "no -o" 2 "give -o" R "$FIX/a.jsonl"
one_line "unknown option" 2 "--frob" R --frob "$FIX/a.jsonl" -o "$TMP/p.html"
one_line "bad --timeout" 2 "--timeout 'x'" R --timeout x "$FIX/a.jsonl" -o "$TMP/p.html"
one_line "missing file" 2 "$TMP/nope.jsonl" R "$FIX/a.jsonl" "$TMP/nope.jsonl" -o "$TMP/p.html"
one_line "a directory" 2 "is a directory" R "$TMP" -o "$TMP/p.html"
one_line "unknown JSON object" 2 "does not know" R "$TMP/other.json" -o "$TMP/p.html"
one_line "a JSON array" 2 "does not know" R "$TMP/array.json" -o "$TMP/p.html"
one_line "malformed line" 2 "bad.jsonl:2" R "$TMP/bad.jsonl" -o "$TMP/p.html"
one_line "empty file" 3 "nothing to report" R "$TMP/empty.jsonl" -o "$TMP/p.html"
one_line "run records only" 3 "1 run record" R "$TMP/runonly.jsonl" -o "$TMP/p.html"
one_line "missing --topo-xml" 2 "--topo-xml" R --topo-xml "$TMP/no.xml" "$FIX/a.jsonl" -o "$TMP/p.html"
# A bad -o (missing folder, a folder): exit 2, one line, before anything (issue 50 item 6), nothing left beside it.
one_line "-o into a missing folder" 2 "-o '$TMP/nodir/p.html': its folder '$TMP/nodir' does not exist" env ARBENCH_PLOT=/nonexistent "$ARBENCH" report "$FIX/a.jsonl" -o "$TMP/nodir/p.html"
mkdir -p "$TMP/w/isdir"
one_line "-o is a folder" 2 "-o '$TMP/w/isdir' is a directory: give a new or regular file" env ARBENCH_PLOT=/nonexistent "$ARBENCH" report "$FIX/a.jsonl" -o "$TMP/w/isdir"
check_eq "-o is a folder: no temporary left" "isdir" "$(ls -A "$TMP/w")"
# A failure after the page's temporary file exists (here: no scratch directory) removes it.
mkdir -p "$TMP/w2"
one_line "no scratch directory" 1 "cannot make a scratch directory" env TMPDIR="$TMP/missing" ARBENCH_PLOT=/nonexistent \
  "$ARBENCH" report "$FIX/a.jsonl" -o "$TMP/w2/p.html"
check_eq "no scratch directory: no temporary left" "" "$(ls -A "$TMP/w2")"
# A page replaces the old one whole: a new file renamed over it (another inode), no temporary left, the old one
# kept when the new one cannot be made.
echo "old page" >"$TMP/w/page.html"
ino=$(stat -c %i "$TMP/w/page.html")
rc=0
ARBENCH_PLOT=/nonexistent R "$FIX/runs-a.jsonl" "$FIX/runs-b.jsonl" -o "$TMP/w/page.html" --title 'Two <stacks> & a title' \
  >"$TMP/o" 2>"$TMP/e" || rc=$?
check_eq "page written: exit 0" 0 "$rc"
check_eq "page written: nothing on stderr" "" "$(cat "$TMP/e")"
check_eq "page written: one line naming it" 1 "$(grep -c "^wrote $TMP/w/page.html (" "$TMP/o")"
check_eq "renamed over the old page (a new inode)" yes "$([ "$(stat -c %i "$TMP/w/page.html")" != "$ino" ] && echo yes || echo no)"
check_eq "no temporary left" "isdir page.html" "$(ls -A "$TMP/w" | sort | paste -sd' ')"
check_eq "permissions as umask gives" "$(umask -S >/dev/null; touch "$TMP/w/ref"; stat -c %a "$TMP/w/ref")" "$(stat -c %a "$TMP/w/page.html")"
rm -f "$TMP/w/ref"
check_eq "the title, escaped" 1 "$(grep -c '<title>Two &lt;stacks&gt; &amp; a title</title>' "$TMP/w/page.html")"
check_eq "charts left out, said on the page" 1 "$(grep -c '/nonexistent is not an executable' "$TMP/w/page.html")"
check_eq "compare of the two files on the page" 1 "$(grep -c '<section id="compare">' "$TMP/w/page.html")"
check_eq "no chart, no address: nothing that looks like http in the page" 0 "$(grep -c 'https\?://' "$TMP/w/page.html")"
cp "$TMP/w/page.html" "$TMP/w/kept"
one_line "unreadable input keeps the old page" 2 "$TMP/nope.jsonl" R "$TMP/nope.jsonl" -o "$TMP/w/page.html"
check_eq "the old page is intact" "" "$(cmp "$TMP/w/page.html" "$TMP/w/kept" 2>&1)"
# A doctor file alone is something to report; and it sits beside records.
"$ARBENCH" doctor --sysfs-root "$ARBENCH_SRC/tests/fixtures/sysfs/switch-bad" --format json >"$TMP/doctor.json" 2>/dev/null
rc=0
ARBENCH_PLOT=/nonexistent R "$TMP/doctor.json" -o "$TMP/d.html" >"$TMP/o" 2>"$TMP/e" || rc=$?
check_eq "doctor file alone: exit 0" 0 "$rc"
check_eq "doctor findings on the page" "$(jq '.findings | length' "$TMP/doctor.json")" \
  "$(sed -n '/<table class="doctor">/,/<\/table>/p' "$TMP/d.html" | grep -c '<td class="l lv-')"
# links findings on the page are `arbench links`' (issue 50 item 11): the same 4-rank records with one repeat
# each have no spread, so the page says which findings the repeats could not decide and how many would
"$PY" - "$ARBENCH_SRC/tests/fixtures/report/links-4r.jsonl" "$TMP/links1.jsonl" <<'PY'
import json, sys
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r.get("type") == "link" and r.get("samples_gbs"):
            r["samples_gbs"], r["repeats"] = r["samples_gbs"][:1], 1
        out.write(json.dumps(r) + "\n")
PY
rc=0
ARBENCH_PLOT=/nonexistent R "$TMP/links1.jsonl" -o "$TMP/l1.html" >"$TMP/o" 2>"$TMP/e" || rc=$?
check_eq "links with one repeat: exit 0" 0 "$rc"
grep -qF "not reported, within their repeats&#39; spread: 2 possible findings (under all pairs at once a read flow gets 29% of its isolated bandwidth" "$TMP/l1.html" \
  && grep -qF "about --repeat 3 would decide them" "$TMP/l1.html" && echo "ok: the page says what the repeats cannot decide" \
  || check_fail "the page lacks the undecided findings' line"
finish
