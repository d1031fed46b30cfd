#!/usr/bin/env bash
# skip.sh — a cmocka test program with a skipped test exits 77 (meson: SKIP), never 0 (meson: OK).
source "$(dirname "$0")/../lib/common.sh"
PROG=${1:?usage: $0 PATH-OF-test_skip}
expect_status 77 "$PROG"
grep -q "skipped: this test always skips" "$TMP/out" || { cat "$TMP/out"; fail "no skip message"; }
# Every cmocka program skips through AR_SKIP (cmocka's own skip() alone would be reported OK).
direct=$(grep -rlE '(^|[^_A-Za-z])skip\(\)' "$ARBENCH_SRC/tests" --include='*.c' || true)
[ -z "$direct" ] || fail "cmocka skip() called directly (use AR_SKIP from tests/lib/ar_cmocka.h): $direct"
echo "skip: ok"
