#!/usr/bin/env bash
# backends.sh — the p2p-* and fused backends on the CPU stand-in of CUDA (a -Dcuda-emu=true build): their host code
# and the kernels' own source through `arbench run` under mpirun: every dtype, op, placement and odd count with 0
# wrong elements by the engine's exact check, their variants, fused within its tolerance, records that say
# stand-in, the device loop's graph, --timing loop and --buffers cold paths, one-line errors (exit 2) for bad variants,
# `list`, and a default run that takes none of them.
source "$(dirname "$0")/../lib/common.sh"
results() { # results JSONL N_EXPECTED : every result record checked with 0 wrong, no skip or error, stack stand-in
  "$PY" - "$1" "$2" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
run = [r for r in recs if r["type"] == "run"][0]
assert run["stack"]["name"] == "cuda-standin" and "CPU stand-in" in run["stack"]["standin"]["cuda"], run["stack"]
assert run["gpus"] and all("CPU stand-in" in g["name"] for g in run["gpus"]), run["gpus"]
res = [r for r in recs if r["type"] == "result"]
bad = [r for r in recs if r["type"] in ("skip", "error")]
assert not bad, bad
assert len(res) == int(sys.argv[2]), (len(res), sys.argv[2])
assert all(r["wrong"] == 0 and r["checked"] for r in res), [r for r in res if r["wrong"] or not r["checked"]][:2]
# the stand-in's events stamp real time: an interval measured end to start is negative, one not waited for fails
assert all(r["time_us"]["min"] > 0 for r in res), [r["time_us"] for r in res if not r["time_us"]["min"] > 0][:2]
PY
}
# 3 ranks: every dtype, sum and avg, both placements, odd counts spanning several staging pieces (chunk 256K /
# 4 blocks), all four algorithms and both one-shot modes; 2 islands of 2 and 1.
ALL=p2p-oneshot,p2p-oneshot:mode=push,p2p-twoshot,p2p-staged,p2p-islands
for op in sum avg; do
  J=$TMP/$op.jsonl
  ar_mpirun 3 run --backend $ALL --islands 2 --counts 1,7,1023,100003 -d all -o $op --inplace both -n 2 -w 1 -c 1 \
    -J "$J" >"$TMP/t" 2>"$TMP/e" || { cat "$TMP/t" "$TMP/e"; fail "-o $op failed"; }
  results "$J" 160 || fail "-o $op: records" # 5 backends x 4 dtypes x 4 counts x 2 placements
done
# reg=1 (peers read the engine's buffers), explicit shapes, prod and min, 4 ranks
for op in prod min; do
  J=$TMP/reg-$op.jsonl
  ar_mpirun 4 run --backend p2p-oneshot:reg=1,p2p-twoshot:reg=1,blocks=3,threads=96,p2p-staged:reg=1 \
    --counts 5,4099 -d float,int32 -o $op --inplace both -n 2 -w 1 -c 1 -J "$J" >"$TMP/t" 2>"$TMP/e" \
    || { cat "$TMP/t" "$TMP/e"; fail "reg=1 -o $op failed"; }
  results "$J" 24 || fail "reg=1 -o $op: records" # 3 backends x 2 dtypes x 2 counts x 2 placements
done
"$PY" - "$J" <<'PY' || fail "reg=1: the records do not say what ran"
import json, sys
res = [json.loads(l) for l in open(sys.argv[1])]
res = [r for r in res if r["type"] == "result"]
tw = [r for r in res if r["backend"] == "p2p-twoshot"]
assert tw and all(r["p2p"]["variant"] == "reg=1,blocks=3,threads=96" and r["p2p"]["threads"] == 96 for r in tw), tw[:1]
assert all(r["p2p"]["memory"] == "registered (zero copy)" for r in res)
PY
# fused, and its unfused=p2p form: within the bf16 tolerances
J=$TMP/fused.jsonl
ar_mpirun 3 run --backend fused:hidden=64,fused:hidden=128,unfused=p2p,blocks=2 --counts 128,1152 -d bfloat16 \
  --inplace both -n 2 -w 1 -c 1 -J "$J" >"$TMP/t" 2>"$TMP/e" || { cat "$TMP/t" "$TMP/e"; fail "fused failed"; }
results "$J" 8 || fail "fused: records"
grep -q '"checked": *"tolerance"' "$J" || fail "fused: not checked within the tolerance"
# the device loop's other paths (bench/device/platform_cuda.c): CUDA graphs rotating over buffer sets, --timing
# loop plain and over graphs, --buffers cold with --repeat: every one measured and checked
for mode in "-G 4" "--timing loop" "--timing loop -G 4" "--buffers cold --repeat 2"; do
  J=$TMP/loop.jsonl
  rm -f "$J"
  ar_mpirun 2 run --backend p2p-oneshot,fused:hidden=64 --counts 64,4096 -d bfloat16 -n 8 -w 2 -c 1 $mode -J "$J" \
    >"$TMP/t" 2>"$TMP/e" || { cat "$TMP/t" "$TMP/e"; fail "$mode failed"; }
  reps=1; [[ $mode == *repeat* ]] && reps=2
  results "$J" $((4 * reps)) || fail "$mode: records"
  "$PY" - "$J" "$mode" <<'PY' || fail "$mode: the records do not say what ran"
import json, sys
res = [json.loads(l) for l in open(sys.argv[1])]
res = [r for r in res if r["type"] == "result"]
m = sys.argv[2]
assert all(r["graph"] == (4 if "-G" in m else 0) for r in res), [r["graph"] for r in res]
assert all(r["timing"] == ("loop" if "loop" in m else "iter") for r in res)
assert all(r["samples_n"] == (1 if "loop" in m else 2 if "-G" in m else 8) for r in res), [r["samples_n"] for r in res]
assert all(r["buffers"] == "cold" and r["nsets"] > 1 for r in res) if "cold" in m else True
PY
done
if "$ARBENCH" version 2>/dev/null | qgrep -q '^NCCL stand-in'; then
  # with the NCCL stand-in (standin/nccl, docs/nccl-standin.md) unfused=nccl runs its allreduce there, checked
  expect_status 0 ar_mpirun 2 run --backend fused:unfused=nccl --counts 4096 -d bfloat16 -n 1 -J "$TMP/nccl.jsonl"
  "$PY" - "$TMP/nccl.jsonl" <<'PY' || { cat "$TMP/nccl.jsonl" "$TMP/err"; fail "fused:unfused=nccl on the NCCL stand-in"; }
import json, sys
res = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "result"]
assert res and all(r["checked"] and r["wrong"] == 0 for r in res), res
PY
else
  # unfused=nccl needs the nccl backend, which this build does not have: a recorded skip naming why, not a crash
  expect_status 3 ar_mpirun 2 run --backend fused:unfused=nccl --counts 4096 -d bfloat16 -n 1 -J "$TMP/nccl.jsonl"
  grep -q '"reason": *"fused:unfused=nccl runs the nccl backend inside: not compiled in: the CPU stand-in build' \
    "$TMP/nccl.jsonl" || { cat "$TMP/nccl.jsonl" "$TMP/err"; fail "fused:unfused=nccl: no skip naming the missing nccl"; }
fi
# bad variants: one line naming the backend, exit 2
expect_one_line_error "p2p-twoshot variant mode=push: only p2p-oneshot has a mode" \
  ar_mpirun 2 run --backend p2p-twoshot:mode=push --sizes 8 -n 1
expect_one_line_error "p2p-oneshot variant threads=100: expected a multiple of 32" \
  ar_mpirun 2 run --backend p2p-oneshot:threads=100 --sizes 8 -n 1
expect_one_line_error "p2p-oneshot variant mode=push,reg=1" \
  ar_mpirun 2 run --backend p2p-oneshot:mode=push,reg=1 --sizes 8 -n 1
"$ARBENCH" list --wide >"$TMP/list" 2>&1 || true
for be in p2p-oneshot p2p-twoshot p2p-staged p2p-islands fused; do
  grep -E "^$be +gpu +available \(emulated: CPU stand-in of CUDA\)" "$TMP/list" >/dev/null ||
    { cat "$TMP/list"; fail "list lacks $be, marked emulated"; }
done
# not in the default list (their times mean nothing): a run without --backend takes none of them, and says why
ar_mpirun 2 run --sizes 8 -n 1 -w 0 >"$TMP/t" 2>"$TMP/e" || { cat "$TMP/t" "$TMP/e"; fail "default run failed"; }
grep -q "^# backend mpi" "$TMP/t" || { cat "$TMP/t"; fail "default run: no mpi"; }
! grep -Eq "^# backend (p2p-|fused)" "$TMP/t" || { cat "$TMP/t"; fail "default run takes a stand-in backend"; }
grep -q "^# the GPUs are the CPU stand-in of CUDA (-Dcuda-emu)" "$TMP/t" || { cat "$TMP/t"; fail "no stand-in line"; }
echo "backends: ok"
