# common.sh — the one helper library of arbench's shell tests: mpirun wrapper, assertions, temp dirs.
# Source it; it sets -euo pipefail and expects ARBENCH (binary) from meson's test env.
# Two kinds of assertion: fail/expect_* stop the script at the first failure (the usual kind);
# check_* count failures and go on, for scripts that report every failed check: such a script calls
# ar_counting after sourcing this file and ends with finish (exit 1 when any check failed).
set -euo pipefail
: "${ARBENCH:?ARBENCH must point at the arbench binary}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
TMP=$(mktemp -d /tmp/arbench-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# A command that stops the script through set -e says so in a FAIL line (file, line, command, status): CI shows
# only the tail of its log and the first FAIL line of each failed test (scripts/test-summary.py); a silent stop
# there could not be told from any other.
# (Only while set -e is on: a counting script, ar_counting below, turns it off and goes on past failed commands.)
trap 'ar_err=$?; [[ $- != *e* ]] || echo "FAIL: ${BASH_SOURCE[0]##*/}:$LINENO: \`$BASH_COMMAND\` exited $ar_err (set -e stopped the test)" >&2' ERR
PY=${PYTHON:-python3}

ar_mpirun() { # ar_mpirun NP args... : arbench under mpirun (-q: only arbench's own messages)
  local np=$1; shift
  mpirun -q --oversubscribe -np "$np" "$ARBENCH" "$@"
}

fail() { echo "FAIL: $*" >&2; exit 1; }

ar_procs_gone() { # ar_procs_gone SECONDS PATTERN : wait until no process's command line holds PATTERN (status 0); after
  local i    # SECONDS (a hang bound, not a speed: a loaded box only makes the wait longer) kill them and return 1
  for ((i = 0; i < $1 * 10; i++)); do pgrep -f -- "$2" >/dev/null || return 0; sleep 0.1; done
  pkill -KILL -f -- "$2" || true
  return 1
}

expect_eq() { # expect_eq NAME WANT GOT : stop unless GOT is WANT
  [ "$2" = "$3" ] || fail "$1: expected [$2], got [$3]"
  echo "ok: $1"
}

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

source "$(dirname "${BASH_SOURCE[0]}")/qgrep.sh" # qgrep: grep -q that reads its whole input

# --- counting assertions: report every failed check, then finish
FAILS=0
ar_counting() { set +e +o pipefail; } # a failing command under test must not end a counting script
check_fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
check_eq() { # check_eq NAME EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then check_fail "$1: expected [$2], got [$3]"; else echo "ok: $1"; fi
}
check_bad() { # check_bad NAME NEEDLE CMD... : exit 2, exactly one stderr line containing NEEDLE (the
  local name=$1 needle=$2 rc=0 # bad value and what is wrong with it), nothing on stdout
  shift 2
  "$@" >"$TMP/bad.out" 2>"$TMP/bad.err" || rc=$?
  check_eq "$name: exit 2" 2 "$rc"
  check_eq "$name: one stderr line" 1 "$(wc -l <"$TMP/bad.err")"
  check_eq "$name: no stdout" 0 "$(wc -c <"$TMP/bad.out")"
  if grep -qF -- "$needle" "$TMP/bad.err"; then echo "ok: $name: names '$needle'"
  else check_fail "$name: message [$(cat "$TMP/bad.err")] does not contain [$needle]"; fi
}
finish() { # end a counting script: exit 0 when every check passed, 1 otherwise
  [ "$FAILS" -eq 0 ] && echo "all passed" && exit 0
  echo "$FAILS failures"; exit 1
}
