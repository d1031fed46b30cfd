#!/usr/bin/env bash
# stack.sh — build arbench for one CUDA/NCCL stack into build-NAME, side by side with the others:
# cu130 from the toolkit at /usr/local/cuda; cu128 from /usr/local/cuda-12.8 or assembled from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  cat <<'USAGE'
usage: scripts/stack.sh NAME [--cuda-home DIR] [--nccl-home DIR] [--from-wheels]
  NAME          cu130 (default prefix /usr/local/cuda) or cu128 (default /usr/local/cuda-12.8 when it
                has nvcc, else a prefix assembled without root from PyPI wheels under stacks/cu128:
                nvidia-cuda-runtime-cu12 12.8.90 + nvidia-nccl-cu12 2.26.5); any other NAME needs --cuda-home
  --cuda-home   CUDA toolkit or runtime prefix      --nccl-home   NCCL prefix (default: cuda-home)
  --from-wheels for cu128: use the PyPI prefix even when /usr/local/cuda-12.8 exists
Builds build-NAME/arbench; without nvcc in the prefix only the host code and the NCCL backend are
built (custom kernels need that stack's nvcc), and `arbench list` says so.
USAGE
}
[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in -h|--help) usage; exit 0 ;; esac
name=$1; shift
cuda_home=""; nccl_home=""; wheels=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cuda-home) cuda_home=${2:?--cuda-home needs a directory}; shift 2 ;;
    --nccl-home) nccl_home=${2:?--nccl-home needs a directory}; shift 2 ;;
    --from-wheels) wheels=1; shift ;;
    *) echo "stack.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$name" in
  cu130) cuda_home=${cuda_home:-/usr/local/cuda} ;;
  cu128)
    if [ -z "$cuda_home" ] && [ $wheels = 0 ] && [ -x /usr/local/cuda-12.8/bin/nvcc ]; then
      cuda_home=/usr/local/cuda-12.8
    elif [ -z "$cuda_home" ]; then
      scripts/stack-wheels.sh stacks/cu128 12.8.90 2.26.5
      cuda_home=$PWD/stacks/cu128
    fi ;;
  *[!a-zA-Z0-9._-]*|"") echo "stack.sh: bad stack name '$name' (letters, digits, . _ -)" >&2; exit 2 ;;
  *) [ -n "$cuda_home" ] || { echo "stack.sh: stack '$name' needs --cuda-home (known names: cu128, cu130)" >&2; exit 2; } ;;
esac
[ -d "$cuda_home" ] || { echo "stack.sh: cuda home '$cuda_home' is not a directory" >&2; exit 2; }
nccl_home=${nccl_home:-$cuda_home}
BUILD_DIR=build-$name scripts/setup.sh >/dev/null 2>&1 || true   # packages (the build below reconfigures)
opts=(-Dcuda=enabled "-Dcuda-home=$cuda_home" "-Dnccl-home=$nccl_home" "-Dstack-name=$name")
[ -n "${CI:-}" ] && opts+=(-Dwerror=true)
if [ -f "build-$name/build.ninja" ]; then
  meson configure "build-$name" "${opts[@]}" >/dev/null
else
  meson setup "build-$name" "${opts[@]}" >/dev/null
fi
ninja -C "build-$name" >/dev/null || ninja -C "build-$name"
"build-$name/arbench" --version
