#!/usr/bin/env bash
# standin_registers.sh — a block must fit its kernel's registers (issue 48; docs/emu.md): the CUDA stand-in's launch
# takes ptxas's count per kernel (standin/cudart/registers.tsv) and fails a block of more than 65536 registers with
# cudaErrorLaunchOutOfResources, as a GPU does. arbench's kernels at threads=1024 launch on every dtype; a kernel of
# 65 registers (ARBENCH_STANDIN_REGS: what a compiler without the kernel's bound could allocate) runs at 896 threads
# and fails at 1024, which the run reports on every rank and in an error record. Elsewhere: skipped.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
need_standin
if "$ARBENCH" list | qgrep -q '^p2p-oneshot .*not compiled in'; then
  echo "skipped: p2p-* not compiled in (-Dcuda-emu-nvcc=false: no kernels)"; exit 77
fi
export ARBENCH_STANDIN_GPUS=2
unset ARBENCH_STANDIN_REGS
run1024() { # run1024 NAME BACKENDS DTYPES: every launch at 1024 threads, checked, exit 0
  expect_status 0 ar_mpirun 2 run --backend "$2" -d "$3" --sizes 4K,65K -n 1 -w 0 -c 1 -T 60 -J "$TMP/$1.jsonl"
  "$PY" - "$TMP/$1.jsonl" "$4" <<'PY' || { cat "$TMP/err"; fail "$1: not every launch at 1024 threads ran and checked"; }
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
res = [r for r in recs if r["type"] == "result"]
assert not [r for r in recs if r["type"] in ("error", "skip")], recs
assert len(res) == int(sys.argv[2]) and all(r["wrong"] == 0 and r["checked"] for r in res), res
assert all(r["p2p"]["threads"] == 1024 for r in res), [r["p2p"] for r in res]
PY
}
run1024 p2p 'p2p-oneshot:threads=1024;p2p-oneshot:mode=push,threads=1024;p2p-twoshot:threads=1024;p2p-staged:threads=1024' \
  float,half,bfloat16,int32 32
run1024 fused 'fused:hidden=64,threads=1024' bfloat16 2
echo "ok: p2p-* (4 dtypes) and fused launch at 1024 threads with the table's registers"
export ARBENCH_STANDIN_REGS='ar_p2p::p2p_kernel<0>=65'
expect_status 1 mpirun -q --oversubscribe -x ARBENCH_STANDIN_REGS -np 2 "$ARBENCH" run \
  --backend 'p2p-oneshot:threads=896;p2p-oneshot:threads=1024' -d float --sizes 4K -n 1 -w 0 -c 1 -T 20 -J "$TMP/r.jsonl"
for r in 0 1; do
  grep -qx "arbench: rank $r: p2p-oneshot: kernel launch failed: too many resources requested for launch" "$TMP/err" \
    || { cat "$TMP/err"; fail "rank $r did not report the launch that does not fit"; }
done
"$PY" - "$TMP/r.jsonl" <<'PY' || { cat "$TMP/out" "$TMP/err"; fail "the records of 65 registers x 896 / 1024 threads"; }
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
got = sorted((r["type"], r["spec"]) for r in recs if r["type"] in ("result", "error", "skip"))
assert got == [("error", "p2p-oneshot:threads=1024"), ("result", "p2p-oneshot:threads=896")], got
PY
echo "ok: 65 registers x 1024 threads fails the launch on every rank (an error record), 896 threads run"
