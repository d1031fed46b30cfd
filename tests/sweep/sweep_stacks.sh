#!/bin/bash
# sweep_stacks.sh — `sweep --stacks a,b,c` with three names for this build (NAME=PATH): launches alternate
# a b c, then backward c b a in the next round (repeats counterbalanced, sweep --repeat) in the file, every record carries its stack in the point, --resume reruns only
# the missing stack launch, and `compare --by stack` / `table --by stack` put the three side by side.
source "$(dirname "$0")/lib.sh"
J="$TMP/s.jsonl"
S="a=$ARBENCH,b=$ARBENCH,c=$(dirname "$ARBENCH")"      # a path may also be the build directory
RUN=(-- --backend mpi,shm-oneshot -b 8 -e 512 -f 8 -n 20 -w 2)
expect_one_line_error "unknown stack 'zz' (known: " "$ARBENCH" sweep --np 2 --stacks "a=$ARBENCH,zz" -J "$J"
expect_one_line_error "stack name 'a' given twice" "$ARBENCH" sweep --np 2 --stacks "a=$ARBENCH,a=$(dirname "$ARBENCH")" -J "$J"
expect_one_line_error "is not an arbench binary" "$ARBENCH" sweep --np 2 --stacks "a=$TMP/none" -J "$J"
# Each launch runs its stack's binary: a build-c directory (name from the path) holding a wrapper.
mkdir -p "$TMP/build-c"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$ARBENCH" >"$TMP/build-c/arbench" && chmod +x "$TMP/build-c/arbench"
# The stack is the innermost axis: with another axis X the stacks still alternate launch by launch.
expect_status 0 "$ARBENCH" sweep --dry-run --np 2 --env X=1,2 --stacks "a=$ARBENCH,$TMP/build-c" -J "$J" "${RUN[@]}"
got=$(awk '{s = $0; sub(/.*"stack":"/, "", s); print $1, $7, substr(s, 1, 1)}' "$TMP/out" | paste -sd,)
want="X=1 $ARBENCH a,X=1 $TMP/build-c/arbench c,X=2 $ARBENCH a,X=2 $TMP/build-c/arbench c"
[ "$got" = "$want" ] || { cat "$TMP/out"; fail "launches '$got', expected '$want'"; }
expect_status 0 "$ARBENCH" sweep --np 2 --stacks "$S" --repeat 2 --launcher "mpirun --oversubscribe" -J "$J" "${RUN[@]}"
order() { # the stack of every record of TYPE, in file order
  jq -r "select(.type==\"$1\") | .point.stack" "$J" | paste -sd' '
}
[ "$(order run)" = "a b c c b a" ] || fail "run records in order '$(order run)', expected a b c c b a"
got=$(jq -r 'select(.type=="point") | "\(.point.stack)\(.repeat):\(.status)"' "$J" | paste -sd' ')
[ "$got" = "a0:done b0:done c0:done c1:done b1:done a1:done" ] || fail "point records '$got'"
[ "$(jq -r 'select(.type=="result") | "\(.run_id) \(.point.stack)"' "$J" | uniq -c | awk '{print $1 $3}' | paste -sd' ')" = "6a 6b 6c 6c 6b 6a" ] \
  || fail "result records not 2 backends x 3 sizes per launch, interleaved: $(order result)"
jq -se --arg a "$ARBENCH" 'map(select(.type=="sweep"))[0].stack_binaries == {"a": $a, "b": $a, "c": $a}' "$J" >/dev/null \
  || fail "sweep record does not map the stacks to their binaries"
# A sweep killed before a's second launch (the last): drop it; --resume runs only that one, in its place.
keep=$(grep -n '"type":"run"' "$J" | tail -1 | cut -d: -f1)
head -n $((keep - 1)) "$J" >"$TMP/cut" && mv "$TMP/cut" "$J"
expect_status 0 "$ARBENCH" sweep --np 2 --stacks "$S" --repeat 2 --resume --launcher "mpirun --oversubscribe" -J "$J" "${RUN[@]}"
grep -qF "resuming: 5 of 6 launches" "$TMP/err" || { cat "$TMP/err"; fail "resume did not find 5 of 6 launches"; }
[ "$(order run)" = "a b c c b a" ] || fail "after --resume run records '$(order run)'"
# A third round keeps the interleaving (backward again: Thue-Morse).
expect_status 0 "$ARBENCH" sweep --np 2 --stacks "$S" --repeat 3 --resume --launcher "mpirun --oversubscribe" -J "$J" "${RUN[@]}"
[ "$(order run)" = "a b c c b a c b a" ] || fail "third round '$(order run)'"
# compare: several stacks in one file -> grouped by stack, each against the baseline (the first, or --baseline).
expect_status 0 "$ARBENCH" compare --format json "$J"
"$PY" - "$TMP/out" <<'PY' || fail "compare --by stack json"
import json, sys
r = json.load(open(sys.argv[1]))
assert (r["by"], r["baseline"], r["groups"]) == ("stack", "a", ["a", "b", "c"]), r
assert [c["group"] for c in r["comparisons"]] == ["b", "c"], r["comparisons"]
for c in r["comparisons"]:
    # each side lists only its own stack (its label may add the NCCL loaded)
    assert [s.split(" ")[0] for s in c["a"]["stacks"] + c["b"]["stacks"]] == ["a", c["group"]], (c["a"], c["b"])
    m = c["matches"]
    # np=2 is these 2-rank runs' own setting, not a sweep point (one identity per configuration, issue 46)
    assert [(x["backend"], x["size"], x["point"]) for x in m] == [
        (b, s, "") for b in ("mpi", "shm-oneshot") for s in (8, 64, 512)], m
    for x in m:
        assert (x["runs_a"], x["runs_b"]) == (3, 3), x
        # each stack's runs are 3 launches: between launches the launch is the replicate (issue 46), and B/A is the
        # ratio of the launches' geometric means (it was the ratio of the medians over runs)
        assert (x["unit"], x["launches_a"], x["launches_b"]) == ("launch", 3, 3), x
        assert abs(x["ratio"] - x["b_launches_us"] / x["a_launches_us"]) < 1e-6 * x["ratio"], x
        assert x["lo"] <= x["ratio"] <= x["hi"] and x["verdict"] in ("equivalent", "undecided", "faster", "slower"), x
        assert x["verdict"] not in ("faster", "slower") or not x["lo"] <= 1 <= x["hi"], x
    assert not c["only_a"] and not c["only_b"], c
    assert [(s["backend"], s["matches"]) for s in c["summary"]] == [("mpi", 3), ("shm-oneshot", 3)], c["summary"]
print("ok: b and c against a, 6 matches each")
PY
expect_status 0 "$ARBENCH" compare --baseline c "$J" "$J"        # the same file twice: the later record wins
grep -qF "Grouped by stack: a, b, c; baseline c;" "$TMP/out" || { cat "$TMP/out"; fail "compare header"; }
head='| backend | variant | point | dtype | ranks | place | size | c p50 us | a/c | a 95% interval | a verdict | b/c | b 95% interval | b verdict |'
grep -qxF -- "$head" "$TMP/out" || { cat "$TMP/out"; fail "three-stack compare table header"; }
rows=$(grep -E '^\| (mpi|shm-oneshot) \|' "$TMP/out" | awk -F'|' '{print NF-2 ":" $2 $8}' | tr -s ' ' | paste -sd',')
[ "$rows" = "14: mpi 8 ,14: mpi 64 ,14: mpi 512 ,14: shm-oneshot 8 ,14: shm-oneshot 64 ,14: shm-oneshot 512 " ] \
  || { cat "$TMP/out"; fail "compare rows '$rows'"; }
grep -qE '^\| b \| shm-oneshot \| 3 \| [0-9.]+ \|' "$TMP/out" || { cat "$TMP/out"; fail "no summary row for stack b"; }
expect_one_line_error "unknown --baseline 'zz' (the files' stack groups: a, b, c)" "$ARBENCH" compare --baseline zz "$J"
# table --by stack: each configuration's stacks side by side, the stack out of the configuration.
expect_status 0 "$ARBENCH" table --by stack "$J"
# labels name only what varies (issue 24); np=2 is the runs' own rank count, no sweep point (issue 46)
want='| size | mpi [a] | mpi [b] | mpi [c] | shm-oneshot [a] | shm-oneshot [b] | shm-oneshot [c] | decision |'
! grep -qF 'sweep point np=2' "$TMP/out" || { cat "$TMP/out"; fail "table --by stack: np=2, the runs' own rank count, stated as a sweep point"; }
grep -qxF -- "$want" "$TMP/out" || { cat "$TMP/out"; fail "table --by stack header"; }
[ "$(grep -cE '^\| (8|64|512) \|( [*0-9.]+[^|]*\|){6} [a-z][^|]*\|$' "$TMP/out")" = 3 ] || { cat "$TMP/out"; fail "table --by stack rows"; }
expect_one_line_error "--by foo: no result record has a point value 'foo'" "$ARBENCH" table --by foo "$J"
echo "sweep stacks: ok"
