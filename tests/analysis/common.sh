# common.sh — helpers for the analysis tests: paths, a temp dir, and assertions that name what failed.
set -u
FIX="$ARBENCH_SRC/tests/fixtures/analysis"
NT="$ARBENCH_SRC/tests/fixtures/nccl-tests"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
# eq NAME EXPECTED ACTUAL
eq() { if [ "$2" != "$3" ]; then fail "$1: expected [$2], got [$3]"; else echo "ok: $1"; fi; }
# bad NAME NEEDLE CMD...: exit status 2 and exactly one line on stderr, which contains NEEDLE (the bad
# value and what is wrong with it), nothing on stdout
bad() {
  local name=$1 needle=$2; shift 2
  "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"; local rc=$?
  eq "$name: exit 2" 2 "$rc"
  eq "$name: one stderr line" 1 "$(wc -l <"$TMP/bad.err")"
  eq "$name: no stdout" 0 "$(wc -c <"$TMP/bad.out")"
  if grep -qF -- "$needle" "$TMP/bad.err"; then echo "ok: $name: names '$needle'"
  else fail "$name: message [$(cat "$TMP/bad.err")] does not contain [$needle]"; fi
}
finish() { [ "$FAILS" -eq 0 ] && echo "all passed" && exit 0; echo "$FAILS failures"; exit 1; }
