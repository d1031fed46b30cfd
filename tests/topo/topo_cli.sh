#!/usr/bin/env bash
# topo_cli.sh — `arbench topo` end to end: this machine (no GPU here), the text matrix of a fixture
# against its golden output, json/dot formats (PNG rendered when graphviz is installed), bad input.
: "${ARBENCH_SRC:?}"
source "$ARBENCH_SRC/tests/lib/common.sh"
ar_counting
FIX="$ARBENCH_SRC/tests/fixtures/topo"
unset HWLOC_XMLFILE

# usage_error NAME WANT-IN-STDERR ARGS...: exit 2, nothing on stdout, exactly one line on stderr.
usage_error() {
  local name=$1 want=$2
  shift 2
  "$ARBENCH" topo "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  [ "$rc" = 2 ] || check_fail "$name: exit $rc, want 2"
  [ -s "$TMP/out" ] && check_fail "$name: wrote to stdout"
  [ "$(wc -l <"$TMP/err")" = 1 ] || check_fail "$name: stderr is not one line: $(cat "$TMP/err")"
  grep -qF -- "$want" "$TMP/err" || check_fail "$name: stderr lacks '$want': $(cat "$TMP/err")"
}

json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# --- this machine
"$ARBENCH" topo >"$TMP/live.txt" 2>"$TMP/live.err" || check_fail "live: exit $?: $(cat "$TMP/live.err")"
"$ARBENCH" topo --format json >"$TMP/live.json" || check_fail "live json: exit $?"
ngpus=$(json_get "$TMP/live.json" 'len(d["gpus"])') || check_fail "live json does not parse"
nnuma=$(json_get "$TMP/live.json" 'd["numa_nodes"]')
grep -q '^CPU/NUMA layout:' "$TMP/live.txt" || check_fail "live: no CPU/NUMA layout"
[ "$(grep -c '^  NUMA [0-9]*: package' "$TMP/live.txt")" = "$nnuma" ] || check_fail "live: not one line per NUMA node ($nnuma)"
if [ "$ngpus" = 0 ]; then
  grep -q '^no NVIDIA GPU found' "$TMP/live.txt" || check_fail "live: no 'no NVIDIA GPU found' line"
else
  grep -q "^GPU$((ngpus - 1)) " "$TMP/live.txt" || check_fail "live: $ngpus GPUs but no matrix row GPU$((ngpus - 1))"
fi
[ -s "$TMP/live.err" ] && check_fail "live: wrote to stderr: $(cat "$TMP/live.err")"

# --- the two-socket fixture: golden text (relative path so the source line is stable)
(cd "$FIX" && "$ARBENCH" topo --xml 2s8g.xml) >"$TMP/2s8g.txt" || check_fail "2s8g: exit $?"
diff -u "$FIX/2s8g.txt" "$TMP/2s8g.txt" || check_fail "2s8g: text differs from tests/fixtures/topo/2s8g.txt"
(cd "$FIX" && "$ARBENCH" topo --xml=sys.xml) | qgrep -q '^SYS within one package (SNC/NPS NUMA split, no socket link): GPU0-GPU1$' ||
  check_fail "sys: same-package SYS pair not reported"
(cd "$FIX" && "$ARBENCH" topo --xml phb.xml) | qgrep -q '^note: a link on a GPU path is narrower (2.00 GB/s) than the GPUs.* (15.75 GB/s)' ||
  check_fail "phb: root-port quirk not reported with both speeds"

# --- json: the run-record summary; HWLOC_XMLFILE gives the same topology and digest as --xml
"$ARBENCH" topo --xml "$FIX/2s8g.xml" --format json >"$TMP/a.json" || check_fail "json: exit $?"
HWLOC_XMLFILE="$FIX/2s8g.xml" "$ARBENCH" topo --format json >"$TMP/b.json" || check_fail "HWLOC_XMLFILE json: exit $?"
[ "$(json_get "$TMP/a.json" '" ".join(d["paths"][4])')" = "SYS SYS SYS SYS X PIX PXB PXB" ] || check_fail "json: paths row 4"
[ "$(json_get "$TMP/a.json" '[g["busid"] for g in d["gpus"]][6]')" = "0000:93:00.0" ] || check_fail "json: GPU6 bus id"
[ "$(json_get "$TMP/a.json" 'd["bottleneck_gbs"]')" = "31.51" ] || check_fail "json: bottleneck"
[ "$(json_get "$TMP/a.json" 'd["digest"]')" = "$(json_get "$TMP/b.json" 'd["digest"]')" ] || check_fail "json: digest differs between --xml and HWLOC_XMLFILE"
[ "$(json_get "$TMP/a.json" 'd["digest"]')" != "$(json_get "$TMP/live.json" 'd["digest"]')" ] || check_fail "json: fixture and live digests equal"

# --- dot: a graph naming every GPU; rendered to PNG when graphviz is here
"$ARBENCH" topo --xml "$FIX/2s8g.xml" --format dot >"$TMP/2s8g.dot" || check_fail "dot: exit $?"
[ "$(grep -c 'fillcolor="#76b900"' "$TMP/2s8g.dot")" = 8 ] || check_fail "dot: not 8 GPU nodes"
grep -qF 'label="GPU6\n0000:93:00.0\n10de:2bb1"' "$TMP/2s8g.dot" || check_fail "dot: GPU6 label"
grep -qF '[label="31.51 GB/s"]' "$TMP/2s8g.dot" || check_fail "dot: no Gen4 uplink edge label"
"$ARBENCH" topo --format dot >"$TMP/live.dot" || check_fail "live dot: exit $?"
if command -v dot >/dev/null; then
  pngs=("$TMP/2s8g.dot" "$TMP/live.dot")
  dgx="${ARBENCH_SHARED:-}/topologies/nvidia-dgx2h-16xV100-plx-gen3-2s-xeon8174.xml"
  if [ -f "$dgx" ]; then
    "$ARBENCH" topo --xml "$dgx" --format dot >"$TMP/dgx2.dot" || check_fail "dgx2 dot: exit $?"
    [ "$(grep -c 'fillcolor="#76b900"' "$TMP/dgx2.dot")" = 16 ] || check_fail "dgx2 dot: not 16 GPU nodes"
    pngs+=("$TMP/dgx2.dot")
  fi
  for g in "${pngs[@]}"; do
    dot -Tpng -o "${g%.dot}.png" "$g" 2>"$TMP/dot.err" || check_fail "dot -Tpng $g: $(cat "$TMP/dot.err")"
    [ "$(head -c 8 "${g%.dot}.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || check_fail "$g: not a PNG"
  done
else
  echo "note: graphviz 'dot' not installed, PNG rendering not checked"
fi

# --- bad input: one line, exit 2
usage_error missing-file "/nonexistent/x.xml" --xml /nonexistent/x.xml
# An NCCL topology dump reads like an hwloc file (issue 24), and says what it lacks; a broken one is one line.
"$ARBENCH" topo --xml "$FIX/nccl-switch.xml" >"$TMP/nccl.txt" 2>"$TMP/nccl.err" || { cat "$TMP/nccl.err"; check_fail "topo --xml nccl-switch.xml failed"; }
grep -q "^# an NCCL topology dump: its PCIe tree, NUMA affinity and link speeds" "$TMP/nccl.txt" || { cat "$TMP/nccl.txt"; check_fail "no NCCL note"; }
grep -q "^GPU0    X      PIX    PHB    PHB    PHB    SYS " "$TMP/nccl.txt" || { cat "$TMP/nccl.txt"; check_fail "NCCL dump: wrong GPU0 row"; }
[ ! -s "$TMP/nccl.err" ] || { cat "$TMP/nccl.err"; check_fail "topo on an NCCL dump wrote to stderr"; }
printf '<system version="1"><cpu numaid="0"/></system>\n' >"$TMP/nccl-bad.xml"
usage_error nccl-no-affinity "<cpu> 0 has no valid affinity" --xml "$TMP/nccl-bad.xml"
# hwloc 2.9 segfaults on this fuzzer-found XML (a mangled complete_cpuset); arbench says so in one line.
for crasher in "$ARBENCH_SRC"/tests/fuzz/crashers/topo/*; do
  usage_error hwloc-crash "hwloc crashed" --xml "$crasher"
done
head -c 1500 "$FIX/pix.xml" >"$TMP/trunc.xml"
usage_error truncated "malformed or truncated" --xml "$TMP/trunc.xml"
: >"$TMP/empty.xml"
usage_error empty "not an hwloc XML topology" --xml "$TMP/empty.xml"
usage_error directory "is a directory, not a topology XML" --xml "$FIX"
HWLOC_XMLFILE=/nonexistent/env.xml usage_error env-missing "/nonexistent/env.xml' (from HWLOC_XMLFILE)"
usage_error unknown-option "unknown option '--bogus'" --bogus
usage_error bad-format "bad --format 'xml' (allowed: text, json, dot)" --format xml
usage_error no-format-value "--format needs a value" --format
usage_error no-xml-value "--xml needs a value" --xml
usage_error stray-argument "unknown option 'extra'" extra
"$ARBENCH" topo --help >"$TMP/help" 2>&1 || check_fail "--help: exit $?"
grep -q '^usage: arbench topo \[--xml FILE\] \[--format text|json|dot\]' "$TMP/help" || check_fail "--help: no usage line"

finish
echo "topo-cli: all checks passed"
