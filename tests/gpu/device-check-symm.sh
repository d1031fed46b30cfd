#!/usr/bin/env bash
# device-check-symm.sh — the symm backend (arbench's kernel on NCCL's device API) on a GPU box, called by
# device-check.sh (ARBENCH set) and run alone as the gpu-device-check-symm test. NCCL refuses two ranks on one GPU, so it
# needs >= 2 GPUs (one rank each; 4 ranks when there are 4): all dtypes and ops, odd counts, in place,
# -G graphs, launch shapes, 10,000 verified calls, a stalled rank that must end in the engine's watchdog
# timeout (the LSA barrier does not time out by itself), and nccl:symm=1 beside it. Prints one table.
# Usage: ARBENCH=build/arbench tests/gpu/device-check-symm.sh
set -u
: "${ARBENCH:?ARBENCH must point at the arbench binary}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
list=$("$ARBENCH" list --wide 2>/dev/null)
gpus=$(sed -n 's/^GPUs visible: \([0-9]*\).*/\1/p' <<<"$list")
[ "${gpus:-0}" -gt 0 ] || { echo "skipped: no CUDA device"; exit 77; }
line=$(grep '^symm ' <<<"$list")
grep -q 'not compiled in' <<<"$line" && { echo "skipped: symm ${line#symm*gpu }"; exit 77; }
[ "$gpus" -ge 2 ] || { echo "skipped: symm needs >= 2 GPUs (NCCL refuses two ranks on one GPU); $gpus visible"; exit 77; }
grep -q 'unavailable: needs NCCL' <<<"$line" && { echo "skipped: symm $(sed 's/.*unavailable: //' <<<"$line")"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# step NAME WANT NP [ENV=V...] -- run arguments   (rank i on GPU i)
step() {
  local name=$1 want=$2 np=$3; shift 3
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local t0=$SECONDS devs=0
  for ((i = 1; i < np; i++)); do devs+=",$i"; done
  env "${envs[@]}" timeout $((300 * ${ARBENCH_TIMEOUT_MULTIPLIER:-1})) mpirun -np "$np" "$ARBENCH" run --devices "$devs" -J "$tmp/$name.jsonl" \
    "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local rc=$?
  echo "$name $want $rc $((SECONDS - t0))" >>"$tmp/steps"
  echo "== $name: exit $rc (want $want), $((SECONDS - t0)) s"
  [ "$rc" = "$want" ] || tail -5 "$tmp/$name.err"
}

ALL='symm;symm:algo=twoshot'
D=float,half,bf16,int32
C=1,7,1023,4097,65536,1048577
step np2-dtypes 0 2 -- --backend "$ALL" --counts $C -d $D -n 5 -w 1 -c 2 --inplace both -T 60
for op in prod max min avg; do
  step "np2-$op" 0 2 -- --backend "$ALL" --counts 7,4097,1048577 -d $D -o $op -n 3 -w 1 -c 1 --inplace both -T 60
done
step np2-graph 0 2 -- --backend "$ALL" --counts 7,65536,1048577 -d float,bf16 -n 20 -w 2 -G 5 -c 1 --inplace both -T 60
step np2-shapes 0 2 -- --backend 'symm:blocks=1,threads=64;symm:algo=twoshot,blocks=32,threads=1024;symm:blocks=3,threads=96' \
  --counts 1,4097,1048577 -d half -n 3 -c 1 --inplace both -T 60
step np2-10k 0 2 -- --backend "$ALL" --sizes 4K -d float -n 10 -w 0 -c 10000 -T 120
step np2-vs-nccl 0 2 -- --backend 'symm;symm:algo=twoshot;nccl:symm=1' --sizes 256,8K,256K,4M -d bf16 -n 50 -w 5 -c 1 -T 60
step np2-stall 1 2 ARBENCH_SYMM_STALL=1 -- --backend symm --sizes 1M -n 5 -c 1 -T 4
if [ "$gpus" -ge 4 ]; then
  step np4-dtypes 0 4 -- --backend "$ALL" --counts 1,1023,65536,1048577 -d $D -n 3 -w 1 -c 1 --inplace both -T 120
fi

python3 "$(dirname "$0")/device_check_report.py" --suite symm "$tmp"
