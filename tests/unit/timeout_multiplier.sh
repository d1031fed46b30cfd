#!/usr/bin/env bash
# timeout_multiplier.sh — scripts/timeout-multiplier.sh (issue 50 item 12): the hang guards' factor is the load per
# CPU rounded up (1 .. 4) times the base, 8 at most; ARBENCH_TIMEOUT_MULTIPLIER wins; scripts/test.sh passes it.
source "$(dirname "$0")/../lib/common.sh"
M=$ARBENCH_SRC/scripts/timeout-multiplier.sh
unset ARBENCH_TIMEOUT_MULTIPLIER # scripts/test.sh exports the factor it chose: these cases compute their own
at() { # at LOAD CPUS [BASE]: the factor for that load average on that many CPUs
  printf '%s 0.00 0.00 1/100 42\n' "$1" >"$TMP/loadavg"
  ARBENCH_LOADAVG_FILE=$TMP/loadavg ARBENCH_NPROC=$2 "$M" ${3:+"$3"}
}
expect_eq "idle" 1 "$(at 0.40 2)"
expect_eq "load = CPUs" 1 "$(at 2.00 2)"
expect_eq "just above" 2 "$(at 2.01 2)"
expect_eq "load 5 on 2" 3 "$(at 5.00 2)"
expect_eq "load 22 on 2: capped" 4 "$(at 22.00 2)"
expect_eq "load 22 on 16" 2 "$(at 22.00 16)"
expect_eq "sanitizers idle" 3 "$(at 0.10 2 3)"
expect_eq "sanitizers load 3 on 2" 6 "$(at 3.00 2 3)"
expect_eq "sanitizers loaded: 8 at most" 8 "$(at 30.00 2 3)"
expect_eq "unreadable load" 1 "$(printf 'x\n' >"$TMP/loadavg"; ARBENCH_LOADAVG_FILE=$TMP/loadavg ARBENCH_NPROC=2 "$M")"
expect_eq "set by hand" 5 "$(ARBENCH_TIMEOUT_MULTIPLIER=5 ARBENCH_LOADAVG_FILE=$TMP/loadavg "$M")"
expect_one_line_error "BASE 'x'" "$M" x
expect_one_line_error "ARBENCH_TIMEOUT_MULTIPLIER '0'" env ARBENCH_TIMEOUT_MULTIPLIER=0 "$M"
# scripts/test.sh hands it to meson test unless the caller gave a factor (read from its text: running it builds).
grep -q 'm=$(scripts/timeout-multiplier.sh)' "$ARBENCH_SRC/scripts/test.sh" || fail "scripts/test.sh does not ask timeout-multiplier.sh"
grep -q -- '--timeout-multiplier "$(scripts/timeout-multiplier.sh 3)"' "$ARBENCH_SRC/.ci/run" || fail ".ci/run's sanitizer step does not ask timeout-multiplier.sh"
echo "all passed"
