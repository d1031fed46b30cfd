#!/usr/bin/env bash
# device_check_size_test.sh — the sizing arithmetic of device-check-p2p.sh's shared-GPU steps
# (device_check_size.sh), on exact values; no GPU needed.
set -euo pipefail
source "$(dirname "$0")/device_check_size.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
eq() { [ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"; }
eq "$(dc_per_call 4.5 14.5 20 120)" 0.100000 "10 s more for 100 more calls"
eq "$(dc_per_call 5.0 4.0 20 120)" 0.000000 "the larger run was not slower"
eq "$(dc_calls 0.100000 180 10000)" 1800 "180 s at 0.1 s per call"
eq "$(dc_calls 0.005 180 10000)" 10000 "capped at the distinct-GPU count"
eq "$(dc_calls 0.000000 180 10000)" 10000 "no measurable cost"
eq "$(dc_calls 5 180 10000)" 100 "at least 100 calls"
rc=0; dc_calls x 180 10000 2>/dev/null || rc=$?
eq "$rc" 2 "a bad cost is refused"
rc=0; dc_per_call 1 2 120 20 2>/dev/null || rc=$?
eq "$rc" 2 "C_LARGE must exceed C_SMALL"
echo "device_check_size: 8 cases"
