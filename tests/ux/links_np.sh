#!/usr/bin/env bash
# links_np.sh — `arbench links` for a new user (issue 42, item 5): started outside mpirun, --np N relaunches
# under mpirun as run --np does; stderr shows one progress line per (method, direction, pattern) as it goes and
# one for the latencies; CPU ranks sharing cores get a caveat under the findings; without --np and a GPU, one
# line pointing at --np (exit 2).
source "$(dirname "$0")/../lib/common.sh"
ar_counting
L=(env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -u OMPI_MCA_rmaps_base_oversubscribe "$ARBENCH" links)
small=(-b 64K -e 64K --repeat 1 -n 2 -w 1 --lat-iters 5 --pattern pairs,all,ring)
cores=$(nproc)
np=$(( cores + 1 )); [ "$np" -gt 4 ] && np=4 # more ranks than cores where the machine allows it cheaply
"${L[@]}" --np "$np" "${small[@]}" -J "$TMP/l.jsonl" >"$TMP/out" 2>"$TMP/err"
check_eq "links --np $np: exit 0" 0 $?
exe=$(readlink -f "$ARBENCH")
grep -q "^arbench: not started by mpirun: running $np ranks: .*mpirun -q -np $np $exe links -b 64K" "$TMP/err" \
  && echo "ok: the relaunch line" || { cat "$TMP/err"; check_fail "no relaunch line"; }
check_eq "the records: $np ranks" "$np" "$(jq -r 'select(.type == "run") | .ranks' "$TMP/l.jsonl")"
# 2 methods x 2 directions x 3 patterns = 12 groups, in order, each with its time
check_eq "one progress line per group" 12 "$(grep -Ec '^arbench links: \[[0-9]+/12\] (read|write) (uni|bi) (pairs|all|ring): [0-9]+ instances? x 1 size, [0-9.]+ s$' "$TMP/err")"
check_eq "progress counts up" "$(seq 1 12 | paste -sd' ')" "$(sed -n 's/^arbench links: \[\([0-9]*\)\/12\].*/\1/p' "$TMP/err" | paste -sd' ')"
check_eq "a line for the latencies" 1 "$(grep -c '^arbench links: latency of every pair, 5 ping-pongs x 1 repeats: [0-9.]* s$' "$TMP/err")"
caveat="  caveat: $np CPU ranks share $cores cores here, so ranks take turns: loaded and bi-directional flows and their ratios to isolated ones measure the scheduler as much as the links (run at most $cores ranks)"
if [ "$np" -gt "$cores" ]; then
  check_eq "the caveat, last line of the findings" "$caveat" "$(tail -1 "$TMP/out")"
fi
# as many ranks as cores (2): no caveat; -q: no progress either
"${L[@]}" --np 2 "${small[@]}" -q >"$TMP/out" 2>"$TMP/err"
check_eq "--np 2 -q: exit 0" 0 $?
check_eq "-q: no progress lines" 0 "$(grep -c '^arbench links: \[' "$TMP/err")"
"${L[@]}" --np 2 "${small[@]}" >"$TMP/out" 2>"$TMP/err"
[ "$cores" -ge 2 ] && check_eq "2 ranks on $cores cores: no caveat" 0 "$(grep -c caveat "$TMP/out")"
if "$ARBENCH" list --wide | qgrep -q '^GPUs visible: 0'; then
  check_bad "no --np, no GPU" "links needs 2 or more ranks, got 1: arbench links --np N (or mpirun -np N arbench links)" "${L[@]}"
fi
check_bad "bad --np" "bad --np '1'" "${L[@]}" --np 1
check_bad "-J unwritable, before the relaunch" "cannot open results file '$TMP/no/l.jsonl'" "${L[@]}" --np 2 -J "$TMP/no/l.jsonl"
finish
