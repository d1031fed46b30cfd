#!/bin/bash
# sweep_repeat.sh — --repeat N launches every point N times in N rounds, counterbalanced (rounds forward and
# backward in Thue–Morse order: A B | B A | B A | A B, not A A B B nor A B A B), each point record says its
# repeat, --resume counts repeats, and the runs reach the tools.
source "$(dirname "$0")/lib.sh"
J="$TMP/r.jsonl"
sides() { grep -o 'SIDE=[A-C] mpirun' "$TMP/out" | cut -c6 | paste -sd' '; }
expect_status 0 "$ARBENCH" sweep --dry-run --np 2 --env SIDE=A,B --repeat 8 -J "$J" -- --backend mpi --sizes 8 -n 3
[ "$(sides)" = "A B B A B A A B B A A B A B B A" ] || { cat "$TMP/out"; fail "launch order '$(sides)', expected Thue-Morse rounds"; }
# Each round's header comes before its first launch, whatever its direction.
[ "$(grep -c '^# repeat [1-8] of 8$' "$TMP/out")" = 8 ] || { cat "$TMP/out"; fail "round headers"; }
[ "$(sed -n 4p "$TMP/out")" = "# repeat 2 of 8" ] || { cat "$TMP/out"; fail "round 2's header not before its first launch"; }
# Three points, three rounds: the middle one reversed; three launches a side of two points: A B B A B A.
expect_status 0 "$ARBENCH" sweep --dry-run --np 2 --env SIDE=A,B,C --repeat 3 -J "$J" -- --backend mpi --sizes 8 -n 3
[ "$(sides)" = "A B C C B A C B A" ] || { cat "$TMP/out"; fail "three points: order '$(sides)'"; }
expect_status 0 "$ARBENCH" sweep --dry-run --np 2 --env SIDE=A,B --repeat 3 -J "$J" -- --backend mpi --sizes 8 -n 3
[ "$(sides)" = "A B B A B A" ] || { cat "$TMP/out"; fail "3 launches a side: order '$(sides)'"; }
expect_status 0 "$ARBENCH" sweep --dry-run --np 2 --env SIDE=A,B --repeat 2 -J "$J" -- --backend mpi --sizes 8 -n 3
grep -qF "4 launches (2 points)" "$TMP/err" || { cat "$TMP/err"; fail "dry run does not count 4 launches"; }
expect_status 0 "$ARBENCH" sweep --np 2 --env SIDE=A,B --repeat 2 --launcher "mpirun --oversubscribe" -J "$J" \
  -- --backend mpi --sizes 8 -n 3 -w 1
got=$(jq -r 'select(.type=="point") | "\(.point.SIDE)\(.repeat):\(.status)"' "$J" | paste -sd' ')
[ "$got" = "A0:done B0:done B1:done A1:done" ] || fail "point records '$got'"
# --resume with --repeat 3 runs only the third round.
expect_status 0 "$ARBENCH" sweep --np 2 --env SIDE=A,B --repeat 3 --resume --launcher "mpirun --oversubscribe" -J "$J" \
  -- --backend mpi --sizes 8 -n 3 -w 1
grep -qF "resuming: 4 of 6 launches" "$TMP/err" || { cat "$TMP/err"; fail "resume did not count the repeats"; }
got=$(jq -r 'select(.type=="point") | "\(.point.SIDE)\(.repeat)"' "$J" | paste -sd' ')
[ "$got" = "A0 B0 B1 A1 B2 A2" ] || fail "third round (backward: B then A) missing: '$got'"
# Three runs of each point: compare/table see three runs (distinct run ids) per configuration.
[ "$(jq -r 'select(.type=="result" and .point.SIDE=="A") | .run_id' "$J" | sort -u | wc -l)" = 3 ] || fail "expected 3 runs of A"
expect_one_line_error "'0' for --repeat" "$ARBENCH" sweep --np 2 --repeat 0 -J "$J"
echo "sweep repeat: ok"
