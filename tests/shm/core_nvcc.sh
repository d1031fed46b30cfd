#!/usr/bin/env bash
# core_nvcc.sh — kernels/ar_core.h compiles under nvcc (CUDA C++, sm_90) for device and host code:
# the header the host shm-* backends run is the one the GPU kernels include. Skips without nvcc.
set -euo pipefail
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
if ! [ -x "$NVCC" ]; then echo "skipped: no nvcc at $NVCC"; exit 77; fi
out=$(mktemp -d /tmp/arbench-nvcc.XXXXXX)
trap 'rm -rf "$out"' EXIT
"$NVCC" -x cu -arch=sm_90 -std=c++17 -Werror all-warnings -I"$ARBENCH_SRC/kernels" -c \
  "$ARBENCH_SRC/tests/shm/core_nvcc.cu" -o "$out/core.o"
grep -q ar_core_check_host <<<"$(nm "$out/core.o")" || { echo "FAIL: host function missing from object"; exit 1; }
"$NVCC" --version | tail -1
echo "core_nvcc: kernels/ar_core.h compiles with nvcc -arch=sm_90 (device and host)"
