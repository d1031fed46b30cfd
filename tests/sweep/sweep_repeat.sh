#!/bin/bash
# sweep_repeat.sh — --repeat N launches every point N times in N rounds (A/B interleaved: A B A B, not
# A A B B), each point record says its repeat, --resume counts repeats, and the runs reach the tools.
source "$(dirname "$0")/lib.sh"
J="$TMP/r.jsonl"
expect_status 0 "$ARBENCH" sweep --dry-run --np 2 --env SIDE=A,B --repeat 2 -J "$J" -- --backend mpi --sizes 8 -n 3
order=$(grep -o 'SIDE=[AB] mpirun' "$TMP/out" | cut -c6 | paste -sd' ')
[ "$order" = "A B A B" ] || { cat "$TMP/out"; fail "launch order '$order', expected interleaved 'A B A B'"; }
grep -qF "4 launches (2 points)" "$TMP/err" || { cat "$TMP/err"; fail "dry run does not count 4 launches"; }
expect_status 0 "$ARBENCH" sweep --np 2 --env SIDE=A,B --repeat 2 --launcher "mpirun --oversubscribe" -J "$J" \
  -- --backend mpi --sizes 8 -n 3 -w 1
got=$(jq -r 'select(.type=="point") | "\(.point.SIDE)\(.repeat):\(.status)"' "$J" | paste -sd' ')
[ "$got" = "A0:done B0:done A1:done B1:done" ] || fail "point records '$got'"
# --resume with --repeat 3 runs only the third round.
expect_status 0 "$ARBENCH" sweep --np 2 --env SIDE=A,B --repeat 3 --resume --launcher "mpirun --oversubscribe" -J "$J" \
  -- --backend mpi --sizes 8 -n 3 -w 1
grep -qF "resuming: 4 of 6 launches" "$TMP/err" || { cat "$TMP/err"; fail "resume did not count the repeats"; }
[ "$(jq -r 'select(.type=="point") | .repeat' "$J" | paste -sd' ')" = "0 0 1 1 2 2" ] || fail "third round missing"
# Three runs of each point: compare/table see three runs (distinct run ids) per configuration.
[ "$(jq -r 'select(.type=="result" and .point.SIDE=="A") | .run_id' "$J" | sort -u | wc -l)" = 3 ] || fail "expected 3 runs of A"
expect_one_line_error "'0' for --repeat" "$ARBENCH" sweep --np 2 --repeat 0 -J "$J"
echo "sweep repeat: ok"
