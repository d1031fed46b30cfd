#!/bin/bash
# sweep_nccl.sh — `sweep --nccl A,B` reruns each point once per NCCL install (no rebuild): two prefixes whose
# lib/libnccl.so.2 are version shims (2.22.7, 2.27.3); each run records its prefix in the point and the
# loaded version in its stack; a prefix without libnccl.so* is one line, exit 2. Needs no GPU.
source "$(dirname "$0")/lib.sh"
SA=${1:?usage: $0 SHIM-2.22.7 SHIM-2.27.3} SB=${2:?}
"$ARBENCH" list --wide 2>/dev/null | qgrep -q '^nccl .*not compiled in' && { echo "skipped: built without NCCL"; exit 77; }
mkdir -p "$TMP/nA/lib" "$TMP/nB/lib64" "$TMP/empty/lib"
cp "$SA" "$TMP/nA/lib/libnccl.so.2"
cp "$SB" "$TMP/nB/lib64/libnccl.so.2.27.3"   # lib64 and a versioned file name are found too
J="$TMP/n.jsonl"
expect_one_line_error "bad --nccl prefix '$TMP/empty': no $TMP/empty/lib/libnccl.so*" \
  "$ARBENCH" sweep --np 1 --nccl "$TMP/nA,$TMP/empty" -J "$J"
expect_one_line_error "--env nccl clashes" "$ARBENCH" sweep --np 1 --env nccl=1 --nccl "$TMP/nA" -J "$J"
# The dry run shows the preload, forwarded to the ranks with -x.
expect_status 0 "$ARBENCH" sweep --dry-run --np 1 --nccl "$TMP/nA" -J "$J" -- --backend mpi --counts 7
grep -qF -- "mpirun -np 1 -x LD_PRELOAD=$TMP/nA/lib/libnccl.so.2 -x LD_LIBRARY_PATH=$TMP/nA/lib" "$TMP/out" \
  || { cat "$TMP/out"; fail "dry run does not forward the NCCL preload"; }
expect_status 0 "$ARBENCH" sweep --np 1 --nccl "$TMP/nA,$TMP/nB" --repeat 2 --launcher "mpirun --oversubscribe" -J "$J" \
  -- --backend mpi --counts 7 -n 2 -w 0
"$PY" - "$J" "$TMP" <<'PY' || fail "records of the --nccl sweep"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
tmp = sys.argv[2]
want = {tmp + "/nA": "2.22.7", tmp + "/nB": "2.27.3"}
runs = [r for r in recs if r["type"] == "run"]
got = [(r["point"]["nccl"], r["stack"]["nccl_loaded"]) for r in runs]
assert got == [(p, want[p]) for p in (tmp + "/nA", tmp + "/nB", tmp + "/nB", tmp + "/nA")], got  # round 2 backward
pts = [(r["point"]["nccl"], r["repeat"], r["status"]) for r in recs if r["type"] == "point"]
assert pts == [(tmp + "/nA", 0, "done"), (tmp + "/nB", 0, "done"), (tmp + "/nB", 1, "done"), (tmp + "/nA", 1, "done")], pts
sw = [r for r in recs if r["type"] == "sweep"][0]
assert sw["axes"]["nccl"] == [tmp + "/nA", tmp + "/nB"], sw["axes"]
assert sw["nccl_libraries"] == {tmp + "/nA": tmp + "/nA/lib/libnccl.so.2",
                                tmp + "/nB": tmp + "/nB/lib64/libnccl.so.2.27.3"}, sw
res = [r for r in recs if r["type"] == "result"]
assert len(res) == 4 and all(r["point"]["nccl"] in want for r in res), res
print("ok: 4 runs, each with its own NCCL")
PY
echo "sweep nccl: ok"
