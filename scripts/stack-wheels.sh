#!/usr/bin/env bash
# stack-wheels.sh — assemble a CUDA 12 or 13 runtime + NCCL + NVRTC prefix without root from PyPI wheels
# (include/, lib/), usable as meson's cuda-home/nccl-home. No nvcc: kernels are compiled by the NVRTC.
set -euo pipefail
usage() {
  cat <<'USAGE'
usage: scripts/stack-wheels.sh PREFIX CUDART_VERSION NCCL_VERSION [NVRTC_VERSION]
  CUDART_VERSION  12.x (nvidia-cuda-runtime-cu12) or 13.x (nvidia-cuda-runtime), e.g. 12.8.90
  NCCL_VERSION    nvidia-nccl-cu12 / nvidia-nccl-cu13, e.g. 2.22.3
  NVRTC_VERSION   nvidia-cuda-nvrtc-cu12 / nvidia-cuda-nvrtc, same CUDA major; '-' or absent: none
Wheels are kept in STACK_WHEEL_CACHE (default PREFIX/../.wheels) so stacks share them. A version that
has no wheel: one line naming what exists, exit 2.
USAGE
}
[ $# = 3 ] || [ $# = 4 ] || { usage >&2; exit 2; }
prefix=$1 cudart=$2 nccl=$3 nvrtc=${4:--}
vre='^[0-9]+\.[0-9]+(\.[0-9]+)*(\.post[0-9]+)?$'
for v in "cuda:$cudart" "nccl:$nccl" "nvrtc:$nvrtc"; do
  [ "${v#*:}" = - ] && [ "${v%%:*}" = nvrtc ] && continue
  [[ ${v#*:} =~ $vre ]] || { echo "stack-wheels: bad ${v%%:*} version '${v#*:}' (expected digits like 12.8.90)" >&2; exit 2; }
done
major=${cudart%%.*}
case "$major" in
  12) pkgs=("nvidia-cuda-runtime-cu12==$cudart" "nvidia-nccl-cu12==$nccl") nvrtc_pkg=nvidia-cuda-nvrtc-cu12 ;;
  13) pkgs=("nvidia-cuda-runtime==$cudart" "nvidia-nccl-cu13==$nccl") nvrtc_pkg=nvidia-cuda-nvrtc ;;
  *) echo "stack-wheels: CUDA runtime $cudart: no wheel set for CUDA $major here (12.x or 13.x)" >&2; exit 2 ;;
esac
if [ "$nvrtc" != - ]; then
  [ "${nvrtc%%.*}" = "$major" ] \
    || { echo "stack-wheels: NVRTC $nvrtc is not CUDA $major like the runtime $cudart" >&2; exit 2; }
  pkgs+=("$nvrtc_pkg==$nvrtc")
fi
stamp="$prefix/STACK"
want="cudart=$cudart nccl=$nccl nvrtc=$nvrtc"
if [ -f "$stamp" ] && grep -qx "$want" "$stamp"; then exit 0; fi
PY=${PYTHON:-python3}
"$PY" -m pip --version >/dev/null 2>&1 || { echo "stack-wheels: $PY has no pip (install python3-pip)" >&2; exit 1; }
cache=${STACK_WHEEL_CACHE:-$(dirname "$prefix")/.wheels}
mkdir -p "$cache"
# One download per package, so a missing version is named with the versions pip's index does have.
for p in "${pkgs[@]}"; do
  log=$(mktemp)
  if ! "$PY" -m pip download -q --no-deps --only-binary=:all: -d "$cache" "$p" >"$log" 2>&1; then
    have=$(sed -n 's/.*(from versions: \(.*\)).*/\1/p' "$log" | head -1)
    if [ -n "$have" ] || grep -q 'No matching distribution' "$log"; then
      echo "stack-wheels: ${p%%==*} has no wheel ${p#*==} (versions: ${have:-none})" >&2
      rm -f "$log"; exit 2
    fi
    echo "stack-wheels: pip download $p failed:" >&2; cat "$log" >&2; rm -f "$log"; exit 1
  fi
  rm -f "$log"
done
rm -rf "$prefix" && mkdir -p "$prefix/include" "$prefix/lib"
x="$prefix/unpacked"
for p in "${pkgs[@]}"; do
  name=${p%%==*} ver=${p#*==}
  w=$(ls "$cache/${name//-/_}-$ver-"*.whl | head -1)
  "$PY" -m zipfile -e "$w" "$x"
done
# cu12 wheels: nvidia/<component>/{include,lib}; cu13 wheels: nvidia/cu13/{include,lib}; NCCL: nvidia/nccl.
for d in "$x"/nvidia/*/; do
  [ -d "$d/include" ] && cp -r "$d/include/." "$prefix/include/"
  [ -d "$d/lib" ] && cp -r "$d/lib/." "$prefix/lib/"
done
find "$prefix" -name '__init__.py' -delete
find "$prefix" -name '__pycache__' -type d -prune -exec rm -rf {} +
for so in libcudart libnccl libnvrtc; do
  real=$(cd "$prefix/lib" && ls $so.so.* 2>/dev/null | head -1 || true)
  [ -n "$real" ] && ln -sf "$real" "$prefix/lib/$so.so"
done
rm -rf "$x"
echo "$want" >"$stamp"
echo "stack-wheels: $prefix holds CUDA runtime $cudart, NCCL $nccl, NVRTC $nvrtc (no nvcc)" >&2
