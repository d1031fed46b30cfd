#!/usr/bin/env bash
# memcheck.sh — bench/run/memcheck.c and the engine's allocation message (issue 50 item 3): before a relaunch
# the ranks' host buffers for the largest size (send + receive, 2 x the size rounded to 256 B, per rank) are
# checked against MemAvailable shared by the ranks and against ulimit -v, one line and exit 2, nothing
# launched, unless --no-mem-check; under the user's mpirun or a sweep the ranks check it before allocating; a buffer allocation that fails inside the ranks names the buffers, the
# size, bytes and human units; a sweep with the user's --launcher reports arbench's line, not the launcher's.
source "$(dirname "$0")/../lib/common.sh"
RUN=("$ARBENCH" run --backend mpi -b 8 -e 64 -f 8 -n 2 -w 0)
# -e 64: each rank allocates 2 x 256 = 512 bytes; 2 ranks 1024 bytes = MemAvailable 1 kB, 3 ranks are over.
printf 'MemTotal:        8 kB\nMemFree:         1 kB\nMemAvailable:    1 kB\n' >"$TMP/meminfo"
export ARBENCH_INJECT_MEMINFO="$TMP/meminfo"
expect_status 0 "${RUN[@]}" --np 2 -J "$TMP/two.jsonl"
expect_eq "2 ranks x 512 B = MemAvailable: runs both sizes" 2 "$(grep -c '"type": *"result"' "$TMP/two.jsonl")"
want="arbench: largest size 64 bytes (64 B): each of the 3 ranks needs 512 bytes (512 B) of host memory for mpi (send + receive buffers of the largest size), 1.5 KiB in all; this node has 1024 bytes (1 KiB) available (MemAvailable); give smaller sizes or fewer ranks, or --no-mem-check to try anyway"
expect_status 2 "${RUN[@]}" --np 3 -J "$TMP/three.jsonl"
expect_eq "3 ranks over MemAvailable: the one line" "$want" "$(cat "$TMP/err")"
[ ! -s "$TMP/out" ] && [ ! -e "$TMP/three.jsonl" ] || { cat "$TMP/out"; fail "launched before the memory check"; }
expect_status 0 "${RUN[@]}" --np 3 --no-mem-check -J "$TMP/three.jsonl"
expect_eq "--no-mem-check: the 3 ranks run" 2 "$(grep -c '"type": *"result"' "$TMP/three.jsonl")"
# Under a launcher of the user's (and a sweep's) the ranks check the same before any of them allocates (Linux
# overcommits: the allocation would succeed and its first touch end in the OOM killer): rank 0's one line, an
# error record, nothing measured, exit 1; --no-mem-check runs.
want="arbench: error: mpi: largest size 64 bytes (64 B): each of the 3 ranks needs 512 bytes (512 B) of host memory for mpi (send + receive buffers of the largest size), 1.5 KiB in all; this node has 1024 bytes (1 KiB) available (MemAvailable); give smaller sizes or fewer ranks, or --no-mem-check to try anyway"
expect_status 1 ar_mpirun 3 run --backend mpi -b 8 -e 64 -f 8 -n 2 -w 0 -J "$TMP/inrank.jsonl"
expect_eq "the ranks' check under mpirun: the one line" "$want" "$(cat "$TMP/err")"
expect_eq "an error record, no results" "1 0" \
  "$(grep -c '"type": *"error"' "$TMP/inrank.jsonl") $(grep -c '"type": *"result"' "$TMP/inrank.jsonl" || true)"
expect_status 0 ar_mpirun 3 run --backend mpi -b 8 -e 64 -f 8 -n 2 -w 0 --no-mem-check
expect_status 1 "$ARBENCH" sweep --np 3 --launcher "mpirun --oversubscribe" -J "$TMP/swm.jsonl" -- --backend mpi -b 8 -e 64 -f 8 -n 2 -w 0
grep -qF "arbench sweep: [1/1] np=3: failed: exit status 1: error: mpi: largest size 64 bytes (64 B): each of the 3 ranks needs 512 bytes" "$TMP/err" \
  || { cat "$TMP/err"; fail "sweep: not the ranks' memory line"; }
# Every dtype's largest message counts: --counts 16 of float is 64 bytes, --sizes' largest is 64 too.
expect_status 2 "$ARBENCH" run --backend mpi --counts 4,16 -d float -n 2 -w 0 --np 3
grep -qF "largest size 64 bytes (64 B): each of the 3 ranks needs 512 bytes" "$TMP/err" || { cat "$TMP/err"; fail "--counts"; }
unset ARBENCH_INJECT_MEMINFO
# ulimit -v (each rank's own limit) and a failed allocation inside the ranks. AddressSanitizer reserves
# terabytes of address space, so a sanitizer build cannot run under ulimit -v at all.
if ldd "$ARBENCH" 2>/dev/null | qgrep -q libasan; then echo "memcheck: ulimit -v cases skipped under ASan"
else
  want="arbench: largest size 1073741824 bytes (1 GiB): each rank needs 2147483648 bytes (2 GiB) of host memory for mpi (send + receive buffers of the largest size), over its address-space limit of 1572864000 bytes (1.5 GiB, ulimit -v); give smaller sizes, or --no-mem-check to try anyway"
  expect_status 2 bash -c 'ulimit -v 1536000; exec "$@"' _ "$ARBENCH" run --backend mpi -b 1G -e 1G -n 1 -w 0 --np 2
  expect_eq "ulimit -v under the need: the one line" "$want" "$(cat "$TMP/err")"
  expect_status 1 bash -c 'ulimit -v 1536000; exec "$@"' _ "$ARBENCH" run --backend mpi -b 1G -e 1G -n 1 -w 0 --np 2 --no-mem-check
  ! grep -qiE "primary job|mpirun detected|^-----" "$TMP/err" || { cat "$TMP/err"; fail "Open MPI's banner after a failed allocation"; }
  want="arbench: error: mpi: cannot allocate the send and receive buffers for the largest size, 1073741824 bytes (1 GiB): 2147483648 bytes (2 GiB) of host memory per rank (aligned_alloc of 2147483648 bytes failed)"
  expect_eq "a failed allocation in the ranks: the relaunch line, then the one line" "$want" "$(sed -n 2p "$TMP/err")"
  expect_eq "stderr lines" 2 "$(grep -c . "$TMP/err")"
fi
# A sweep with a user --launcher: a failure inside the ranks is reported with arbench's line.
expect_status 1 env ARBENCH_INJECT_FILL_FAIL=1:64 "$ARBENCH" sweep --np 2 --launcher "mpirun --oversubscribe" \
  -J "$TMP/sw.jsonl" -- --backend mpi -b 64 -e 64 -n 2 -w 0
grep -qE "^arbench sweep: \[1/1\] np=2: failed: exit status 1: error: mpi: rank 1: checked call 0: filling the buffers failed \\(runtime error\\) \\(" "$TMP/err" || { cat "$TMP/err"; fail "sweep --launcher: not arbench's line"; }
! grep -qiE "primary job|mpirun detected|^-----" "$TMP/err" || { cat "$TMP/err"; fail "sweep --launcher: the launcher's banner"; }
echo "memcheck: ok"
