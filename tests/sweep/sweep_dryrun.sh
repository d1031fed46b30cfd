#!/bin/bash
# sweep_dryrun.sh — --dry-run prints the exact launches and runs nothing: the issue's matrix (8 launches
# with -x per axis), in-process NCCL axes folded into ONE launch's nccl: variants, --exclude, and the
# launcher/forwarding rules.
source "$(dirname "$0")/lib.sh"
J="$TMP/d.jsonl"
expect_status 0 "$ARBENCH" sweep --dry-run --np 2,3 --env OMPI_MCA_coll_tuned_allreduce_algorithm=1,2,3,4 \
  --env OMPI_MCA_coll_tuned_use_dynamic_rules=1 -J "$J" -- --backend mpi,shm-oneshot -b 8 -e 1M
[ "$(wc -l <"$TMP/out")" = 8 ] || { cat "$TMP/out"; fail "expected 8 launches"; }
[ ! -e "$J" ] || fail "--dry-run created the results file"
for np in 2 3; do for a in 1 2 3 4; do
  want="OMPI_MCA_coll_tuned_allreduce_algorithm=$a OMPI_MCA_coll_tuned_use_dynamic_rules=1 mpirun -np $np -x OMPI_MCA_coll_tuned_allreduce_algorithm=$a -x OMPI_MCA_coll_tuned_use_dynamic_rules=1 $ARBENCH run -b 8 -e 1M --backend 'mpi;shm-oneshot' --point '{\"np\":$np,\"OMPI_MCA_coll_tuned_allreduce_algorithm\":\"$a\",\"OMPI_MCA_coll_tuned_use_dynamic_rules\":\"1\"}' -J $J"
  [ "$(count "$want" "$TMP/out")" = 1 ] || { cat "$TMP/out"; fail "missing launch: $want"; }
done; done

# In-process NCCL axes: one launch per (np, NCCL_BUFFSIZE), four nccl variants minus one excluded.
if "$ARBENCH" list --wide 2>/dev/null | grep -Eq '^nccl +gpu +(available|unavailable)'; then
  expect_status 0 "$ARBENCH" sweep --dry-run --np 2,4 --env NCCL_ALGO=Ring,Tree --env NCCL_PROTO=LL,Simple \
    --env NCCL_BUFFSIZE=1M,4M --exclude NCCL_ALGO=Tree,NCCL_PROTO=LL -J "$J" -- --backend mpi,nccl -b 8 -e 1K
  [ "$(wc -l <"$TMP/out")" = 4 ] || { cat "$TMP/out"; fail "expected 4 launches for in-process NCCL axes"; }
  [ "$(count "--backend 'mpi;nccl:algo=Ring,proto=LL;nccl:algo=Ring,proto=Simple;nccl:algo=Tree,proto=Simple'" "$TMP/out")" = 4 ] \
    || { cat "$TMP/out"; fail "launches lack the nccl variants"; }
  [ "$(count "NCCL_ALGO" "$TMP/out")" = 0 ] || fail "NCCL_ALGO must not be an env var of the launch"
  [ "$(count "-x NCCL_BUFFSIZE=4M" "$TMP/out")" = 2 ] || fail "NCCL_BUFFSIZE is a per-launch axis"
  grep -qF "4 launches (12 points)" "$TMP/err" || { cat "$TMP/err"; fail "expected 4 launches of 12 points"; }
else
  echo "note: nccl not compiled in; in-process NCCL variants checked by sweep-plan only"
fi
# Without nccl in --backend, NCCL_ALGO applies to none of the chosen backends: an error before anything runs
# (issue 50 item 5); with --applies saying it does, an ordinary env axis: one launch per value.
expect_one_line_error "--env NCCL_ALGO applies to none of the chosen backends (mpi): it applies to nccl, symm only" \
  "$ARBENCH" sweep --dry-run --np 2 --env NCCL_ALGO=Ring,Tree -J "$J" -- --backend mpi
expect_status 0 "$ARBENCH" sweep --dry-run --np 2 --env NCCL_ALGO=Ring,Tree --applies NCCL_ALGO=mpi -J "$J" -- --backend mpi
[ "$(count "-x NCCL_ALGO=" "$TMP/out")" = 2 ] || { cat "$TMP/out"; fail "NCCL_ALGO should be an env axis"; }

# --exclude drops exactly the matching points.
expect_status 0 "$ARBENCH" sweep --dry-run --np 2,3 --env A=1,2,3 --exclude np=3,A=2 --exclude A=1 -J "$J"
got=$(grep -o -- "--point '[^']*'" "$TMP/out" | tr '\n' ' ')
want="--point '{\"np\":2,\"A\":\"2\"}' --point '{\"np\":2,\"A\":\"3\"}' --point '{\"np\":3,\"A\":\"3\"}' "
[ "$got" = "$want" ] || fail "exclude: got $got"

# A launcher that is not mpirun gets no -x (unless --forward-env x); its own words are kept.
expect_status 0 "$ARBENCH" sweep --dry-run --np 2 --env A=1 --launcher "$HERE/launcher.sh --tag 'two words'" -J "$J"
grep -qF -- "A=1 $HERE/launcher.sh --tag 'two words' -np 2 $ARBENCH run --point" "$TMP/out" || { cat "$TMP/out"; fail "launcher words"; }
expect_status 0 "$ARBENCH" sweep --dry-run --np 2 --env A=1 --launcher "$HERE/launcher.sh" --forward-env x -J "$J"
grep -qF -- "-np 2 -x A=1 $ARBENCH run" "$TMP/out" || { cat "$TMP/out"; fail "--forward-env x"; }
echo "ok: dry run"
