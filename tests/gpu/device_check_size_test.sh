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
expect_eq "5 s a call: 36 calls fit 180 s" 36 "$(dc_calls 5 180 10000)"
expect_eq "1.9 s a call: 94 calls, not a floor of 100 (190 s)" 94 "$(dc_calls 1.9 180 10000)"
expect_eq "not one call fits" 0 "$(dc_calls 200 180 10000)"
for per in 0.5 1.8 1.81 2 7.3 179.9; do # never over the budget
  n=$(dc_calls "$per" 180 10000)
  [ "$(awk -v n="$n" -v p="$per" 'BEGIN { print (n * p <= 180) }')" = 1 ] || fail "$per s a call: $n calls overrun 180 s"
done
rc=0; dc_calls x 180 10000 2>/dev/null || rc=$?
expect_eq "a bad cost is refused" 2 "$rc"
rc=0; dc_per_call 1 2 120 20 2>/dev/null || rc=$?
expect_eq "C_LARGE must exceed C_SMALL" 2 "$rc"
echo "device_check_size: 16 cases"
