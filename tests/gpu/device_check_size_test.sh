#!/usr/bin/env bash
# device_check_size_test.sh — the sizing arithmetic of device-check-p2p.sh's shared-GPU steps
# (device_check_size.sh), on exact values; no GPU needed.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/device_check_size.sh"
expect_eq "10 s more for 100 more calls" 0.100000 "$(dc_per_call 4.5 14.5 20 120)"
expect_eq "the larger run was not slower" 0.000000 "$(dc_per_call 5.0 4.0 20 120)"
expect_eq "180 s at 0.1 s per call" 1800 "$(dc_calls 0.100000 180 10000)"
expect_eq "capped at the distinct-GPU count" 10000 "$(dc_calls 0.005 180 10000)"
expect_eq "no measurable cost" 10000 "$(dc_calls 0.000000 180 10000)"
expect_eq "at least 100 calls" 100 "$(dc_calls 5 180 10000)"
rc=0; dc_calls x 180 10000 2>/dev/null || rc=$?
expect_eq "a bad cost is refused" 2 "$rc"
rc=0; dc_per_call 1 2 120 20 2>/dev/null || rc=$?
expect_eq "C_LARGE must exceed C_SMALL" 2 "$rc"
echo "device_check_size: 8 cases"
