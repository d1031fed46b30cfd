#!/usr/bin/env bash
# stack-wheels.sh PREFIX CUDART_VERSION NCCL_VERSION — assemble a CUDA 12 runtime + NCCL prefix without
# root from PyPI wheels (headers, libcudart, libnccl), usable as meson's cuda-home/nccl-home. No nvcc.
set -euo pipefail
[ $# = 3 ] || { echo "usage: scripts/stack-wheels.sh PREFIX CUDART_VERSION NCCL_VERSION" >&2; exit 2; }
prefix=$1 cudart=$2 nccl=$3
stamp="$prefix/STACK"
if [ -f "$stamp" ] && grep -qx "cudart=$cudart nccl=$nccl" "$stamp"; then exit 0; fi
PY=${PYTHON:-python3}
"$PY" -m pip --version >/dev/null 2>&1 || { echo "stack-wheels.sh: $PY has no pip (install python3-pip)" >&2; exit 1; }
rm -rf "$prefix" && mkdir -p "$prefix/wheels" "$prefix/include" "$prefix/lib"
echo "stack-wheels: downloading nvidia-cuda-runtime-cu12==$cudart nvidia-nccl-cu12==$nccl" >&2
"$PY" -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --implementation py --python-version 3 -d "$prefix/wheels" \
  "nvidia-cuda-runtime-cu12==$cudart" "nvidia-nccl-cu12==$nccl"
x="$prefix/unpacked"
for w in "$prefix"/wheels/*.whl; do "$PY" -m zipfile -e "$w" "$x"; done
cp -r "$x"/nvidia/cuda_runtime/include/. "$prefix/include/"
cp "$x"/nvidia/nccl/include/nccl*.h "$prefix/include/"
cp "$x"/nvidia/cuda_runtime/lib/libcudart.so.12 "$x"/nvidia/nccl/lib/libnccl.so.2 "$prefix/lib/"
ln -sf libcudart.so.12 "$prefix/lib/libcudart.so"
ln -sf libnccl.so.2 "$prefix/lib/libnccl.so"
rm -rf "$x" "$prefix/wheels" "$prefix"/include/__init__.py
echo "cudart=$cudart nccl=$nccl" >"$stamp"
echo "stack-wheels: $prefix holds CUDA runtime $cudart and NCCL $nccl (no nvcc)" >&2
