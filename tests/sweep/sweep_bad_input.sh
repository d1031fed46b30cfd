#!/bin/bash
# sweep_bad_input.sh — bad `arbench sweep` input: exit 2 with ONE stderr line naming the bad value,
# and no results file created; --help exits 0 and documents the flags.
source "$(dirname "$0")/lib.sh"
J="$TMP/bad.jsonl"
bad() { # bad NEEDLE ARGS...
  local needle=$1; shift
  expect_status 2 "$ARBENCH" sweep "$@"
  local n; n=$(grep -c . "$TMP/err" || true)
  [ "$n" = 1 ] || { cat "$TMP/err"; fail "sweep $* printed $n stderr lines, expected 1"; }
  grep -qF -- "$needle" "$TMP/err" || { cat "$TMP/err"; fail "sweep $*: error does not name '$needle'"; }
  [ ! -e "$J" ] || fail "sweep $* created $J"
}
bad "'0'" --np 0 -J "$J"
bad "'2x'" --np 2,2x -J "$J"
bad "empty value" --np 2,,4 -J "$J"
bad "'FOO'" --np 2 --env FOO -J "$J"
bad "empty value list for --env FOO" --np 2 --env FOO= -J "$J"
bad "empty value in" --np 2 --env FOO=1,,2 -J "$J"
bad "'--bogus'" --np 2 --bogus -J "$J"
bad "missing -J" --np 2 --env FOO=1
bad "missing --np" --env FOO=1 -J "$J"
bad "'sideways'" --np 2 --exclude FOO=sideways --env FOO=1,2 -J "$J"
bad "'BAR' is not an axis" --np 2 --exclude BAR=1 -J "$J"
bad "'soon'" --np 2 --point-timeout soon -J "$J"
bad "'1Q'" --np 2 -J "$J" -- -b 1Q
bad "unknown backend 'nosuch'" --np 2 -J "$J" -- --backend nosuch
bad "-J belongs to the sweep" --np 2 -J "$J" -- -J "$TMP/other.jsonl"
bad "unterminated" --np 2 --launcher "mpirun 'x" -J "$J"
expect_status 0 "$ARBENCH" sweep --help
for flag in --np --env --exclude --launcher --point-timeout --resume --dry-run --forward-env; do
  grep -qF -- "$flag" "$TMP/out" || fail "--help does not document $flag"
done
echo "ok: bad input"
