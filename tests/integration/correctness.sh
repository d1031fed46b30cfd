#!/usr/bin/env bash
# correctness.sh — `arbench run --backend mpi` on 2, 3 and 4 real MPI ranks: odd counts, every dtype,
# out-of-place and in-place, each op; the table says #wrong 0 and the results file agrees with it.
source "$(dirname "$0")/../lib/common.sh"
for np in 2 3 4; do
  J=$TMP/r$np.jsonl
  ar_mpirun "$np" run --backend mpi --counts 1,7,1023,1048577 -d all --inplace both -n 3 -w 1 -J "$J" >"$TMP/t$np" \
    || { cat "$TMP/t$np"; fail "np=$np run failed"; }
  "$PY" "$ARBENCH_SRC/tests/integration/check_table.py" "$TMP/t$np" "$J" "$np" 4 4 2 \
    || fail "np=$np: table and results disagree"
done
# Other ops on 3 ranks: prod/max/min are exact; avg is not an MPI op, so it is recorded as a skip.
for op in prod max min; do
  J=$TMP/op-$op.jsonl
  ar_mpirun 3 run --backend mpi --counts 7,4097 -d float,half,bfloat16,int32 -o $op -n 2 -w 0 -J "$J" >"$TMP/t" \
    || { cat "$TMP/t"; fail "-o $op failed"; }
  "$PY" "$ARBENCH_SRC/tests/integration/check_table.py" "$TMP/t" "$J" 3 2 4 1 || fail "-o $op disagree"
done
J=$TMP/avg.jsonl
# Every configuration skipped: exit status 3 (nothing measured), not 0.
rc=0; ar_mpirun 2 run --backend mpi --counts 7 -o avg -n 2 -J "$J" >"$TMP/t" || rc=$?
[ "$rc" = 3 ] || { cat "$TMP/t"; fail "-o avg run (all skipped) exited $rc, want 3"; }
grep -q '"type":"skip".*"reason":"MPI has no average reduction"' "$J" || fail "avg not recorded as a skip"
grep -q 'mpi float: skipped: MPI has no average reduction' "$TMP/t" || fail "avg skip not printed"
echo "correctness: ok"
