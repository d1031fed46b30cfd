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
# bad NAME CMD...: exit status 2 and exactly one line on stderr, nothing on stdout
bad() {
  local name=$1; shift
  "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"; local rc=$?
  eq "$name: exit 2" 2 "$rc"
  eq "$name: one stderr line" 1 "$(wc -l <"$TMP/bad.err")"
  eq "$name: no stdout" 0 "$(wc -c <"$TMP/bad.out")"
}
finish() { [ "$FAILS" -eq 0 ] && echo "all passed" && exit 0; echo "$FAILS failures"; exit 1; }
