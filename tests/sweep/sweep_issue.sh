#!/bin/bash
# sweep_issue.sh — the issue's done criteria, with its exact command: Open MPI's allreduce algorithms
# 1-4 x np 2,3 over mpi and shm-oneshot, -b 8 -e 1M. Ctrl-C (SIGINT) midway: exit 130 and a valid file
# with no partial records; --resume completes it without repeating a finished point, and every point
# has exactly its records (18 sizes per backend, or shm-oneshot's one skip record when `arbench list`
# says it cannot run here); rank 0 saw each point's OMPI_MCA values.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
cmd=(sweep --np 2,3 --env OMPI_MCA_coll_tuned_allreduce_algorithm=1,2,3,4 --env OMPI_MCA_coll_tuned_use_dynamic_rules=1
     -J s.jsonl)
run=(-- --backend mpi,shm-oneshot -b 8 -e 1M)
"$ARBENCH" "${cmd[@]}" "${run[@]}" >/dev/null 2>"$TMP/int.err" &
pid=$!
two_done() { [ -e s.jsonl ] && [ "$(count '"type":"point"' s.jsonl)" -ge 2 ]; }
wait_for 400 two_done
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
[ "$rc" = 130 ] || { cat "$TMP/int.err"; fail "interrupted sweep exited $rc, expected 130"; }
grep -qF "interrupted by Interrupt" "$TMP/int.err" || { cat "$TMP/int.err"; fail "no interruption message"; }
grep -qF "[1/8] np=2 OMPI_MCA_coll_tuned_allreduce_algorithm=1 OMPI_MCA_coll_tuned_use_dynamic_rules=1 (elapsed" "$TMP/int.err" \
  || { cat "$TMP/int.err"; fail "no plain progress lines"; }
$CHECK clean s.jsonl
before=$($CHECK done-runs s.jsonl)
n_before=$(wc -l <<<"$before")
[ "$n_before" -ge 2 ] && [ "$n_before" -lt 8 ] || fail "$n_before points done before the interrupt"

expect_status 0 "$ARBENCH" "${cmd[@]}" --resume "${run[@]}"
grep -qF "resuming: $n_before of 8 launches already in" "$TMP/err" || { cat "$TMP/err"; fail "resume count"; }
$CHECK done s.jsonl 8 mpi=18 "$(shm_expect 18)"
$CHECK clean s.jsonl
after=$($CHECK done-runs s.jsonl)
while read -r line; do
  grep -qxF -- "$line" <<<"$after" || fail "point finished before the interrupt was redone: $line"
done <<<"$before"
[ "$(count '"type":"run"' s.jsonl)" = 8 ] || fail "expected exactly 8 run records (no partial or repeated runs)"
[ "$(count '"type":"sweep"' s.jsonl)" = 2 ] || fail "expected one sweep record per session"
echo "ok: issue command, interrupted and resumed ($(count '"type":"result"' s.jsonl) results)"
