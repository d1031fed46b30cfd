# lib.sh — shared helpers of the sweep shell tests: temp dir, assertions, waiting on a results file.
# Source it; expects ARBENCH (binary) and ARBENCH_SRC from meson's test env.
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"   # TMP, PY, fail, expect_status
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CHECK="$PY $HERE/check.py"

count() { # count PATTERN FILE : lines containing the fixed string
  grep -cF -- "$1" "$2" || true
}

wait_for() { # wait_for SECONDS CMD... : poll until CMD succeeds
  local limit=$1; shift
  local t=0
  until "$@"; do
    sleep 0.2
    t=$((t + 1))
    [ "$t" -lt $((limit * 5)) ] || fail "timed out after ${limit}s waiting for: $*"
  done
}

# shm-oneshot's expected records per run: one result per size when `arbench list` says it is
# available here, else exactly one skip record.
shm_expect() { # shm_expect NSIZES
  if "$ARBENCH" list --wide 2>/dev/null | grep -Eq '^shm-oneshot +host +available'; then echo "shm-oneshot=$1"
  else echo "shm-oneshot=skip"; fi
}

no_procs() { # no_procs PATTERN : no process command line contains PATTERN (other than grep's)
  command -v ps >/dev/null || fail "ps is missing (install procps)"
  local n
  n=$(ps -eo args= | grep -F -- "$1" | grep -vcF -- "grep" || true)
  [ "$n" = 0 ]
}
