#!/usr/bin/env bash
# timeout-multiplier.sh — the factor meson test's timeouts get on this box now: BASE (default 1) times the load
# per CPU (1-minute load average / CPUs, rounded up, 1 .. 4), so a busy box stretches the hang guards, not the tests.
# usage: scripts/timeout-multiplier.sh [BASE]   (ARBENCH_TIMEOUT_MULTIPLIER: the factor itself, nothing computed)
# A test's timeout only guards against a hang: every test bounds its own waits (HACKING.md, "Tests"). Under a
# load of 12 per CPU a test that needs 30 s of CPU takes 6 minutes of wall clock, so a fixed 180 s guard fails a
# correct test (CI's analysis-stream beside seven engineers' builds). The caps (4 for the load, 8 in all) keep a
# real hang from costing more than a few guards. Inputs for tests: ARBENCH_LOADAVG_FILE (default /proc/loadavg), ARBENCH_NPROC (default nproc).
set -euo pipefail
base=${1:-1}
case $base in '' | *[!0-9]*) echo "timeout-multiplier.sh: BASE '$base' is not a whole number of 1 or more" >&2; exit 2 ;; esac
[ "$base" -ge 1 ] || { echo "timeout-multiplier.sh: BASE '$base' is not a whole number of 1 or more" >&2; exit 2; }
if [ -n "${ARBENCH_TIMEOUT_MULTIPLIER:-}" ]; then
  case $ARBENCH_TIMEOUT_MULTIPLIER in *[!0-9]* | 0*) echo "timeout-multiplier.sh: ARBENCH_TIMEOUT_MULTIPLIER '$ARBENCH_TIMEOUT_MULTIPLIER' is not a whole number of 1 or more" >&2; exit 2 ;; esac
  echo "$ARBENCH_TIMEOUT_MULTIPLIER"
  exit 0
fi
cpus=${ARBENCH_NPROC:-$(nproc)}
load=$(cut -d' ' -f1 "${ARBENCH_LOADAVG_FILE:-/proc/loadavg}" 2>/dev/null || echo 0)
# ceil(load / cpus) in 1 .. 4, by awk (the load is a decimal)
f=$(awk -v l="$load" -v c="$cpus" 'BEGIN { if (c < 1 || l !~ /^[0-9]+(\.[0-9]+)?$/) { print 1; exit }
  f = int(l / c); if (f * c < l) f++; if (f < 1) f = 1; if (f > 4) f = 4; print f }')
m=$((base * f))
[ "$m" -le 8 ] || m=8
[ "$m" -ge "$base" ] || m=$base
echo "$m"
