#!/usr/bin/env bash
# device-check-p2p.sh — the p2p-* kernels (pull and push) and the fused backend on a GPU box, called by
# device-check.sh (ARBENCH set): 2 and 4 ranks sharing GPU 0 through CUDA IPC (correctness, not PCIe speed:
# without MPS the ranks' kernels are time-sliced, so counts stay small and -T generous), then 2+ GPUs when
# present (and fused:unfused=nccl, which NCCL refuses on one GPU). Prints one table. On the CPU stand-in of CUDA
# (a -Dcuda-emu=true build) the same steps with the largest count 300007 instead of 1048577 (still several staging
# pieces per block), in the dtypes step only, and the 10,000-call steps sized to 8 s of its per-call cost.
# Usage: ARBENCH=build/arbench tests/gpu/device-check-p2p.sh
set -u
: "${ARBENCH:?ARBENCH must point at the arbench binary}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
gpus=$("$ARBENCH" list --wide 2>/dev/null | sed -n 's/^GPUs visible: \([0-9]*\).*/\1/p')
[ "${gpus:-0}" -gt 0 ] || { echo "skipped: no CUDA device"; exit 77; }
"$ARBENCH" list --wide | grep -q '^p2p-oneshot .*not compiled in' && { echo "skipped: p2p-* not compiled in"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/device_check_size.sh"
standin=0 # the CPU stand-in's devices (docs/emu.md): the same host code, kernels on CPU threads
"$ARBENCH" list --wide | grep -q '^GPUs visible: [0-9]* (CPU stand-in' && standin=1
# BIG: a count with several staging pieces per block (256 KiB each) in every dtype; MORE: it in the other steps too;
# RUN: iterations of the dtypes step. The stand-in (a CPU) runs it in the dtypes step only, and fewer iterations.
BIG=1048577 MORE=,1048577 BUDGET=180 RUN=(-n 5 -w 1 -c 2)
[ $standin = 1 ] && BIG=300007 MORE="" BUDGET=8 RUN=(-n 2 -w 1 -c 1)

# step NAME WANT NP [ENV=V...] -- run arguments
step() {
  local name=$1 want=$2 np=$3; shift 3
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local t0=$SECONDS devs=0
  for ((i = 1; i < np; i++)); do devs+=",$(( gpus > 1 && ${MULTI:-0} == 1 ? i % gpus : 0 ))"; done
  local shared=(--shared-gpu)
  [ "${MULTI:-0}" = 1 ] && shared=()
  env "${envs[@]}" timeout $((300 * ${ARBENCH_TIMEOUT_MULTIPLIER:-1})) mpirun -np "$np" "$ARBENCH" run --devices "$devs" "${shared[@]}" -J "$tmp/$name.jsonl" \
    "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local rc=$?
  echo "$name $want $rc $((SECONDS - t0))" >>"$tmp/steps"
  echo "== $name: exit $rc (want $want), $((SECONDS - t0)) s"
  [ "$rc" = "$want" ] || tail -5 "$tmp/$name.err"
}

ALL='p2p-oneshot;p2p-oneshot:reg=1;p2p-oneshot:mode=push;p2p-twoshot;p2p-twoshot:reg=1;p2p-staged;p2p-staged:reg=1;p2p-islands;p2p-islands:reg=1'
D=float,half,bf16,int32
C=1,7,1023,4097,65536,$BIG
step np2-dtypes 0 2 -- --backend "$ALL" --counts $C -d $D "${RUN[@]}" --inplace both -T 60
for op in prod max min avg; do
  step "np2-$op" 0 2 -- --backend "$ALL" --counts 7,4097$MORE -d $D -o $op -n 3 -w 1 -c 1 --inplace both -T 60
done
step np4-dtypes 0 4 -- --islands 2 --backend "$ALL" --counts 1,1023,65536$MORE -d $D -n 3 -w 1 -c 1 --inplace both -T 120
step np2-graph 0 2 -- --backend "$ALL" --counts 7,65536$MORE -d float,bf16 -n 20 -w 2 -G 5 -c 1 --inplace both -T 60
step np2-shapes 0 2 -- --backend 'p2p-oneshot:blocks=1,threads=64;p2p-oneshot:mode=push,blocks=3,threads=96;p2p-twoshot:blocks=64,threads=1024;p2p-staged:blocks=3,threads=96' \
  --counts 1,4097$MORE -d half -n 3 -c 1 --inplace both -T 60
# threads=1024 on every kernel and dtype (issue 48): 1024 threads x the kernel's registers must fit the block's 64 K
# registers (cudaErrorLaunchOutOfResources otherwise): the stand-in checks the counts of standin/cudart/registers.tsv
# (nvcc 13.0.88, sm_120); this GPU settles the count of the stack's own compiler on its own arch
step np2-threads1024 0 2 -- --backend 'p2p-oneshot:threads=1024;p2p-oneshot:mode=push,threads=1024;p2p-twoshot:threads=1024;p2p-staged:threads=1024;p2p-islands:threads=1024' \
  --counts 7,65536$MORE -d float,half,bf16,int32 -n 3 -c 1 --inplace both -T 60
# The long checked-call steps on one shared GPU: without MPS the two ranks' kernels time-slice, so a
# checked call (fills, kernel, check, two status exchanges) costs at least a slice. Their call count comes
# from this box's per-call cost (two short runs, 20 and 120 calls), to fit 180 s of the step's 300 s;
# distinct GPUs keep 10,000 (gpus-10k). The report says why a step ran fewer.
sized() { # sized NAME BACKENDS ARGS... : sets CALLS for NAME, notes the reason
  local name=$1 be=$2; shift 2
  local t=() c t0
  for c in 20 120; do
    t0=$(date +%s.%N)
    step "$name-c$c" 0 2 -- --backend "$be" "$@" -n 1 -w 0 -c "$c" -T 120
    t+=("$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.6f", a - b }')") # bc would print .94
  done
  local per; per=$(dc_per_call "${t[0]}" "${t[1]}" 20 120)
  CALLS=$(dc_calls "$per" $BUDGET 10000)
  local why="two ranks share GPU 0 and time-slice"
  [ $standin = 1 ] && why="the devices are the CPU stand-in (a ${BUDGET} s budget)"
  [ "$CALLS" = 10000 ] || echo "$name: $CALLS checked calls, not 10000: $why" \
    "(measured $(awk -v p="$per" 'BEGIN { printf "%.1f", p * 1000 }') ms per checked call)$([ "$CALLS" = 0 ] && echo ": not one fits $BUDGET s, skipped");" \
    "distinct GPUs run 10000 (gpus-10k)" >>"$tmp/notes"
}
P10K='p2p-oneshot;p2p-oneshot:mode=push;p2p-twoshot:reg=1'
sized np2-10k "$P10K" --sizes 4K -d float
[ "$CALLS" = 0 ] || step np2-10k 0 2 -- --backend "$P10K" --sizes 4K -d float -n 10 -w 0 -c "$CALLS" -T 120
echo "np2-10k $CALLS" >>"$tmp/calls"
step np2-stall 1 2 ARBENCH_P2P_STALL=1 -- --backend p2p-oneshot --sizes 1M -n 5 -c 1 -T 4
step np2-push-stall 1 2 ARBENCH_P2P_STALL=1 -- --backend p2p-oneshot:mode=push --sizes 1M -n 5 -c 1 -T 4
# fused (bf16 rows of hidden): 1, 7 and 33 tokens of 4096; 1000 elements are not whole rows and float is not
# bf16 (both recorded skips); hidden=64 and 7168 on 4 ranks; graphs; a stalled rank; sum only.
FUSED='fused;fused:unfused=p2p'
step np2-fused 0 2 -- --backend "$FUSED" --counts 4096,28672,135168,1000 -d bf16,float -n 5 -w 1 -c 2 --inplace both -T 60
F4=64,448,7168,50176 # hidden=64: 784 rows at the largest; the stand-in's threads meet at every row's barriers
[ $standin = 1 ] && F4=64,448,7168
step np4-fused 0 4 -- --backend 'fused:hidden=64;fused:hidden=7168,unfused=p2p' --counts $F4 -d bf16 \
  -n 3 -w 1 -c 1 --inplace both -T 120
step np2-fused-graph 0 2 -- --backend "$FUSED" --counts 4096,135168 -d bf16 -n 20 -w 2 -G 5 -c 1 --inplace both -T 60
step np2-fused-max 3 2 -- --backend fused --counts 4096 -d bf16 -o max -n 3 -c 1 -T 60
if [ $standin = 1 ]; then # the stand-in's device faults (docs/emu.md): an IPC open that fails, a corrupting copy
  step np2-ipc-fail 1 2 ARBENCH_EMU_IPC_FAIL=1 -- --backend p2p-oneshot --sizes 8,64K -n 3 -c 1 -T 10
  step np2-fused-corrupt 1 2 ARBENCH_EMU_CORRUPT=1 -- --backend fused --counts 4096 -d bf16 -n 3 -c 1 -T 10
fi
step np2-fused-stall 1 2 ARBENCH_P2P_STALL=1 -- --backend fused --counts 135168 -d bf16 -n 5 -c 1 -T 4
# fused:unfused=nccl runs the nccl backend inside: where it is not compiled in (the stand-in build) the note says so.
nccl_why=$("$ARBENCH" list --wide | sed -n 's/^nccl  *gpu  *not compiled in: \(.*\) ncclAllReduce$/\1/p')
FNCCL=";fused:unfused=nccl"
if [ -n "$nccl_why" ]; then
  echo "fused:unfused=nccl: skipped (np2-fused-nccl, and in gpus-fused): nccl not compiled in: $nccl_why" >>"$tmp/notes"
  FNCCL=""
else
  # one GPU shared by the ranks: NCCL refuses it, a recorded skip; a run of skips alone exits 3 (as np2-fused-max)
  step np2-fused-nccl 3 2 -- --backend fused:unfused=nccl --counts 4096 -d bf16 -n 3 -c 1 -T 60
fi
step np2-fused-shapes 0 2 -- --backend 'fused:blocks=1,threads=64;fused:blocks=3,threads=96;fused:unfused=p2p,blocks=64,threads=1024' \
  --counts 4096,135168 -d bf16 -n 3 -c 1 --inplace both -T 60
sized np2-fused-10k 'fused:hidden=1024' --counts 4096 -d bf16
[ "$CALLS" = 0 ] || step np2-fused-10k 0 2 -- --backend 'fused:hidden=1024' --counts 4096 -d bf16 -n 10 -w 0 -c "$CALLS" -T 120
echo "np2-fused-10k $CALLS" >>"$tmp/calls"
if [ "$gpus" -ge 2 ]; then
  G10K=10000 GF10K=10000 # the stand-in: as many as np2-10k and np2-fused-10k afforded
  [ $standin = 1 ] && G10K=$(awk '$1 == "np2-10k" {print $2}' "$tmp/calls") GF10K=$(awk '$1 == "np2-fused-10k" {print $2}' "$tmp/calls")
  [ "$G10K" = 0 ] || MULTI=1 step gpus-10k 0 2 -- --backend "$P10K" --sizes 4K -d float -n 10 -w 0 -c "$G10K" -T 120
  [ "$GF10K" = 0 ] || MULTI=1 step gpus-fused-10k 0 2 -- --backend 'fused:hidden=1024' --counts 4096 -d bf16 -n 10 -w 0 -c "$GF10K" -T 120
  MULTI=1 step gpus-np2 0 2 -- --backend "$ALL" --counts 1,7,1023,4097,65536$MORE -d $D -n 20 -w 5 -c 1 --inplace both -T 60
  MULTI=1 step gpus-fused 0 2 -- --backend "$FUSED$FNCCL" --counts 4096,135168 -d bf16 -n 20 -w 5 -c 1 \
    --inplace both -T 60
fi

python3 "$(dirname "$0")/device_check_report.py" --suite p2p "$tmp"
