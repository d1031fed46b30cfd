#!/usr/bin/env bash
# gpu_list.sh — `arbench list` names nccl and says whether it can run: 'available' when GPUs are
# visible, 'unavailable: no CUDA device' when none (or 'not compiled in' for a build without CUDA); in the CPU
# stand-in build (-Dcuda-emu) nccl (on the NCCL stand-in) and the custom kernels are available, marked emulated.
set -u
out=$("$ARBENCH" list --wide) || { echo "arbench list failed"; exit 1; }
echo "$out"
line=$(grep -E '^nccl ' <<<"$out") || { echo "FAIL: no nccl line"; exit 1; }
gpus=$(sed -n 's/^GPUs visible: \([0-9]*\).*/\1/p' <<<"$out")
if grep -q 'not compiled in: built without CUDA' <<<"$line"; then
  [ "$gpus" = 0 ] || { echo "FAIL: GPUs visible in a build without CUDA"; exit 1; }
  echo "ok: built without CUDA"; exit 0
fi
if grep -q '^stack: cuda-standin;' <<<"$out"; then
  grep -Eq '^nccl +gpu +available \(emulated: CPU stand-ins: CUDA, NCCL\)' <<<"$line" || { echo "FAIL: nccl: $line"; exit 1; }
  grep -Eq '^GPUs visible: [1-9][0-9]* \(CPU stand-ins of CUDA devices' <<<"$out" || { echo "FAIL: no stand-in devices"; exit 1; }
  for be in p2p-oneshot p2p-twoshot p2p-staged p2p-islands fused; do
    grep -Eq "^$be +gpu +available \(emulated: CPU stand-in of CUDA\)" <<<"$out" || { echo "FAIL: $be not marked"; exit 1; }
  done
  grep -q '^stack: cuda-standin;' <<<"$out" || { echo "FAIL: the stack does not say stand-in"; exit 1; }
  echo "ok: the CPU stand-ins of CUDA and NCCL"; exit 0
fi
if [ "${gpus:-0}" -gt 0 ]; then
  grep -Eq '^nccl +gpu +available ' <<<"$line" || { echo "FAIL: $gpus GPUs but: $line"; exit 1; }
else
  grep -Eq '^nccl +gpu +unavailable: no CUDA device' <<<"$line" || { echo "FAIL: no GPU but: $line"; exit 1; }
fi
echo ok
