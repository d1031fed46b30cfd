#!/usr/bin/env bash
# run.sh — the main job: set up, then benchmark every backend that can run here (all local GPUs, or
# CPU ranks on the host backends when there is none), print the table and write plots. RESULTS_DIR
# (default results/local) receives them; ARBENCH_ARGS adds run options (later ones win).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR
scripts/setup.sh
A=$BUILD_DIR/arbench
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
gpus=$(command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
gpus=${gpus:-0}
if [ "$gpus" -gt 0 ] && "$A" list | grep -qE '^nccl +gpu +available'; then
  np=$gpus
  args=(-b 8 -e 256M -f 2 -n 50 -w 10 -d bfloat16 --repeat 3)
  echo "run: $np GPUs" >&2
else
  cores=$(nproc)
  np=$(( cores < 2 ? 2 : cores > 8 ? 8 : cores ))
  args=(-b 8 -e 16M -f 4 -n 50 -w 5 -d float --repeat 3)  # 3 runs: tune resamples them (stable ranges)
  echo "run: no usable GPU; $np CPU ranks on the host backends" >&2
fi
R=${RESULTS_DIR:-results/local}
mkdir -p "$R"
out=$R/run-$(date -u +%Y%m%dT%H%M%SZ).jsonl
rc=0   # wrong results or error records exit 1: still show what was measured, then fail
mpirun --oversubscribe -np "$np" "$A" run "${args[@]}" ${ARBENCH_ARGS:-} -J "$out" || rc=$?
echo "run: results in $out" >&2
"$A" table --busbw "$out" || rc=1
"$A" tune "$out" -o "$R/tune" >/dev/null && echo "run: tuning files in $R/tune" >&2
plots/arbench-plot "$out" -o "$R/plots" --arbench "$A" >/dev/null \
  && echo "run: plots in $R/plots" >&2
exit $rc
