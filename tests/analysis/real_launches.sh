#!/bin/bash
# real_launches.sh — issue 46's A/A target and power on real launches of this box (tests/fixtures/analysis/real-launches,
# recorded with `arbench sweep --repeat 3`, README there): each pair is one sweep whose two points A and B ran 3 launches
# each in the order sweep now uses (a b b a b a: counterbalanced rounds), read by `compare --by KEY`.
# A/A (the same command both points, ARBENCH_AA=a,b, 20 pairs): at most 1 of 20 tables with any faster/slower, every
# row tested between launches (3/3), every undecided row prints its detectable ratio; all 60 pairs: at most 5% (3). Power (Open MPI's basic linear
# allreduce forced on B, OMPI_MCA_coll_tuned_allreduce_algorithm=0,1; 20 pairs): the sizes whose real difference (from
# all 60 launches a side) is at least 3x the launch-to-launch sd are called, in the right direction, in >= 80% of
# tables; where not, the row prints its detectable ratio. The same kind of recording in the order before (a b a b a b)
# is read too (what docs/analysis.md reports): its launches interleave plainly.
. "$(dirname "$0")/common.sh"
RL="$FIX/real-launches"
for s in aa-after aa-before power-after power-before; do
  mkdir -p "$TMP/$s" && tar -xzf "$RL/$s.tar.gz" -C "$TMP/$s" || check_fail "unpack $s"
done
facts() { python3 "$ARBENCH_SRC/tests/analysis/real_launches.py" "$ARBENCH" "$TMP" "$@" || echo "real_launches.py failed"; }
field() { tr ';' '\n' <<<"$1" | sed -n "s/^ *$2 //p"; } # field FACTS NAME: that fact's value
aa=$(facts aa-after ARBENCH_AA aa 20)
echo "A/A, counterbalanced: $aa"
check_eq "A/A: recorded in the order sweep now uses" "a b b a b a" "$(field "$aa" order)"
check_eq "A/A: 20 pairs of 8 rows, every row between launches, 3 a side" "20 160 launch:3/3" \
  "$(field "$aa" pairs) $(field "$aa" rows) $(field "$aa" unit)"
n=$(field "$aa" called)
[ -n "$n" ] && [ "$n" -le 1 ] || check_fail "A/A: $n of 20 pairs with a faster/slower verdict (the target is at most 1)"
all=$(facts aa-after ARBENCH_AA aa)
echo "A/A, counterbalanced, all 60 pairs: $all"
n=$(field "$all" called)
[ -n "$n" ] && [ "$(field "$all" pairs)" = 60 ] && [ "$n" -le 3 ] || check_fail "A/A: $n of 60 pairs called (at most 5%, 3, wanted)"
u=$(field "$aa" undecided-with-detectable)
check_eq "A/A: every undecided row prints its detectable ratio" "${u#*/}" "${u%/*}"
pw=$(facts power-after OMPI_MCA_coll_tuned_allreduce_algorithm power 20 2>"$TMP/power-truth")
echo "power, counterbalanced: $pw ($(cat "$TMP/power-truth"))"
check_eq "power: recorded in the order sweep now uses, 20 pairs of 4 mpi rows between launches" "a b b a b a 20 80 launch:3/3" \
  "$(field "$pw" order) $(field "$pw" pairs) $(field "$pw" rows) $(field "$pw" unit)"
q=$(field "$pw" qualify); q=${q%% *}
[ -n "$q" ] && [ "$q" -ge 1 ] || check_fail "power: no size with a difference of 3x the launch spread ($pw)"
t=$(field "$pw" all-qualifying-called)
[ -n "$t" ] && [ "$t" -ge 16 ] || check_fail "power: every such size called in $t of 20 tables (at least 16 wanted)"
check_eq "power: no call against the real difference" 0 "$(field "$pw" wrong-direction)"
m=$(field "$pw" missed-with-detectable)
check_eq "power: every such row not called prints its detectable ratio" "${m#*/}" "${m%/*}"
# The text says it too: an undecided row names its launches a side or the detectable ratio.
"$ARBENCH" compare --by ARBENCH_AA "$TMP/aa-after/p0.jsonl" >"$TMP/aa0.txt" 2>&1
check_eq "A/A text: 8 rows between launches, each verdict a word the json has" 8 \
  "$(grep -cE '^\| (mpi|shm-oneshot) \|.*\| (undecided \(([0-9]+|over 50) launches a side[^|]*\)|faster|slower|equivalent) \|$' "$TMP/aa0.txt")"
# The order before: plainly interleaved, read the same way (what docs/analysis.md compares).
before=$(facts aa-before ARBENCH_AA aa)
echo "A/A, plain alternation (the order before), all 60 pairs: $before"
check_eq "before: recorded a b a b a b, 60 and 20 pairs" "a b a b a b 60|a b a b a b 20" \
  "$(field "$before" order) $(field "$before" pairs)|$(field "$(facts power-before OMPI_MCA_coll_tuned_allreduce_algorithm power 2>/dev/null)" order) 20"
finish
