# common.sh — shared helpers for arbench's shell tests: mpirun wrapper, assertions, temp dirs.
# Source it; it sets -euo pipefail and expects ARBENCH (binary) from meson's test env.
set -euo pipefail
: "${ARBENCH:?ARBENCH must point at the arbench binary}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
TMP=$(mktemp -d /tmp/arbench-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
PY=${PYTHON:-python3}

ar_mpirun() { # ar_mpirun NP args... : arbench under mpirun (-q: only arbench's own messages)
  local np=$1; shift
  mpirun -q --oversubscribe -np "$np" "$ARBENCH" "$@"
}

fail() { echo "FAIL: $*" >&2; exit 1; }

expect_status() { # expect_status WANT CMD... ; keeps stderr in $TMP/err, stdout in $TMP/out
  local want=$1; shift
  local got=0
  "$@" >"$TMP/out" 2>"$TMP/err" || got=$?
  if [ "$got" != "$want" ]; then
    echo "--- stdout"; cat "$TMP/out"; echo "--- stderr"; cat "$TMP/err"
    fail "'$*' exited $got, expected $want"
  fi
}

expect_one_line_error() { # expect_one_line_error NEEDLE CMD... : exit 2, one stderr line with NEEDLE
  local needle=$1; shift
  expect_status 2 "$@"
  local n; n=$(grep -c . "$TMP/err" || true)
  [ "$n" = 1 ] || { cat "$TMP/err"; fail "'$*' printed $n stderr lines, expected 1"; }
  grep -qF -- "$needle" "$TMP/err" || { cat "$TMP/err"; fail "'$*' error does not name '$needle'"; }
}
