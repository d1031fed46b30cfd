#!/bin/bash
# sweep_stacks.sh — `sweep --stacks a,b,c` with three names for this build (NAME=PATH): launches alternate
# a b c a b c (repeats too) in the file, every record carries its stack in the point, --resume reruns only
# the missing stack launch, and `compare --by stack` / `table --by stack` put the three side by side.
source "$(dirname "$0")/lib.sh"
J="$TMP/s.jsonl"
S="a=$ARBENCH,b=$ARBENCH,c=$(dirname "$ARBENCH")"      # a path may also be the build directory
RUN=(-- --backend mpi -b 8 -e 512 -f 8 -n 20 -w 2)
expect_one_line_error "unknown stack 'zz' (known: " "$ARBENCH" sweep --np 2 --stacks "a=$ARBENCH,zz" -J "$J"
expect_one_line_error "stack name 'a' given twice" "$ARBENCH" sweep --np 2 --stacks "a=$ARBENCH,a=$(dirname "$ARBENCH")" -J "$J"
expect_one_line_error "is not an arbench binary" "$ARBENCH" sweep --np 2 --stacks "a=$TMP/none" -J "$J"
expect_status 0 "$ARBENCH" sweep --np 2 --stacks "$S" --repeat 2 --launcher "mpirun --oversubscribe" -J "$J" "${RUN[@]}"
order() { # the stack of every record of TYPE, in file order
  jq -r "select(.type==\"$1\") | .point.stack" "$J" | paste -sd' '
}
[ "$(order run)" = "a b c a b c" ] || fail "run records in order '$(order run)', expected a b c a b c"
got=$(jq -r 'select(.type=="point") | "\(.point.stack)\(.repeat):\(.status)"' "$J" | paste -sd' ')
[ "$got" = "a0:done b0:done c0:done a1:done b1:done c1:done" ] || fail "point records '$got'"
[ "$(order result | tr ' ' '\n' | uniq -c | awk '{print $1 $2}' | paste -sd' ')" = "3a 3b 3c 3a 3b 3c" ] \
  || fail "result records not 3 sizes per launch, interleaved: $(order result)"
jq -se --arg a "$ARBENCH" 'map(select(.type=="sweep"))[0].stack_binaries == {"a": $a, "b": $a, "c": $a}' "$J" >/dev/null \
  || fail "sweep record does not map the stacks to their binaries"
# A sweep killed before c's second launch: drop it; --resume runs only that one, in its place.
keep=$(grep -n '"type":"run"' "$J" | tail -1 | cut -d: -f1)
head -n $((keep - 1)) "$J" >"$TMP/cut" && mv "$TMP/cut" "$J"
expect_status 0 "$ARBENCH" sweep --np 2 --stacks "$S" --repeat 2 --resume --launcher "mpirun --oversubscribe" -J "$J" "${RUN[@]}"
grep -qF "resuming: 5 of 6 launches" "$TMP/err" || { cat "$TMP/err"; fail "resume did not find 5 of 6 launches"; }
[ "$(order run)" = "a b c a b c" ] || fail "after --resume run records '$(order run)'"
# A third round keeps the interleaving.
expect_status 0 "$ARBENCH" sweep --np 2 --stacks "$S" --repeat 3 --resume --launcher "mpirun --oversubscribe" -J "$J" "${RUN[@]}"
[ "$(order run)" = "a b c a b c a b c" ] || fail "third round '$(order run)'"
echo "sweep stacks: ok"
