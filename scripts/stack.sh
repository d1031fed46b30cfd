#!/usr/bin/env bash
# stack.sh — build arbench for one CUDA/NCCL stack into build-NAME, side by side with the others: a stack
# of scripts/stacks.conf by name, or an ad-hoc one from PyPI wheel versions or a toolkit prefix.
set -euo pipefail
cd "$(dirname "$0")/.."
CONF=${STACKS_CONF:-scripts/stacks.conf}
usage() {
  cat <<'USAGE'
usage: scripts/stack.sh NAME [--cuda VERSION|DIR] [--nccl VERSION|DIR] [--nvrtc VERSION] [--dry-run]
       scripts/stack.sh --list
  NAME      a stack of scripts/stacks.conf (its fields are the defaults), or a new name with --cuda
  --cuda    CUDA runtime wheel version (12.x or 13.x, e.g. 12.8.90) or a toolkit prefix (absolute path)
  --nccl    NCCL wheel version (e.g. 2.27.7) or an NCCL prefix; default: the stack's, or inside the prefix
  --nvrtc   NVRTC wheel version; default: the stack's, or the newest wheel of the runtime's CUDA major.minor
  --dry-run print the resolved stack (name cuda nccl nvrtc) and build nothing
  --list    print the stacks of scripts/stacks.conf: name and CI suites
  (--cuda-home DIR and --nccl-home DIR are the same as --cuda DIR and --nccl DIR)
Wheel stacks are assembled without root under stacks/NAME (wheels cached in stacks/.wheels) and have
no nvcc: their kernels are compiled by their NVRTC. Builds build-NAME/arbench; `arbench version` shows
the per-kernel, per-arch compile report. A version without a wheel: one line naming those there are, exit 2.
USAGE
}
die() { echo "stack.sh: $*" >&2; exit 2; }
vre='^[0-9]+\.[0-9]+(\.[0-9]+)*(\.post[0-9]+)?$'

# conf_lines: the stack lines of CONF as "LINENO name cuda nccl nvrtc ci"; a bad line stops with exit 2.
conf_lines() {
  [ -r "$CONF" ] || die "cannot read $CONF"
  awk '{ sub(/#.*/, "") } NF { print NR, $0 }' "$CONF" | while read -r n name cuda nccl nvrtc ci extra; do
    [ -n "$ci" ] && [ -z "$extra" ] || die "$CONF:$n: expected 5 fields (name cuda nccl nvrtc ci)"
    [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "$CONF:$n: bad stack name '$name' (letters, digits, . _ -)"
    [[ $cuda =~ $vre || $cuda == /* ]] || die "$CONF:$n: bad cuda '$cuda' (a wheel version like 12.8.90 or an absolute prefix)"
    [[ $nccl =~ $vre || $nccl == - || $nccl == /* ]] || die "$CONF:$n: bad nccl '$nccl' (a wheel version like 2.27.7, a prefix, or -)"
    [[ $nvrtc =~ $vre || $nvrtc == - ]] || die "$CONF:$n: bad nvrtc '$nvrtc' (a wheel version like 12.8.93, or -)"
    [[ $ci =~ ^(all|[a-z]+(,[a-z]+)*)$ ]] || die "$CONF:$n: bad ci '$ci' (all, or suites like unit,gpu)"
    echo "$n $name $cuda $nccl $nvrtc $ci"
  done
}

[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in
  -h|--help) usage; exit 0 ;;
  --list) lines=$(conf_lines) || exit 2; awk '{print $2, $6}' <<<"$lines"; exit 0 ;;
  -*) die "expected a stack name first, got '$1' (see --help)" ;;
esac
name=$1; shift
[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "bad stack name '$name' (letters, digits, . _ -)"
cuda="" nccl="" nvrtc="" dry=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cuda|--cuda-home) [ $# -ge 2 ] || die "$1 needs a version or directory"; cuda=$2; shift 2 ;;
    --nccl|--nccl-home) [ $# -ge 2 ] || die "$1 needs a version or directory"; nccl=$2; shift 2 ;;
    --nvrtc) [ $# -ge 2 ] || die "--nvrtc needs a version"; nvrtc=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
lines=$(conf_lines) || exit 2
known=$(awk -v n="$name" '$2 == n' <<<"$lines")
if [ -n "$known" ]; then
  read -r _ _ c_cuda c_nccl c_nvrtc _ <<<"$known"
  cuda=${cuda:-$c_cuda} nccl=${nccl:-$c_nccl} nvrtc=${nvrtc:-$c_nvrtc}
elif [ -z "$cuda" ]; then
  die "unknown stack '$name' (in $CONF: $(awk '{print $2}' <<<"$lines" | paste -sd' ')); a new one needs --cuda"
fi
nccl=${nccl:--}
if [[ $cuda == /* || $cuda == ./* ]]; then
  [ -d "$cuda" ] || die "cuda prefix '$cuda' is not a directory"
  [[ $nccl == - || -d $nccl ]] || die "NCCL '$nccl' with the toolkit prefix $cuda: give an NCCL prefix directory or -"
  [ "$nvrtc" = "" ] || [ "$nvrtc" = - ] || die "--nvrtc $nvrtc needs a CUDA wheel version for --cuda (the prefix $cuda has its own NVRTC)"
  cuda_home=$cuda nccl_home=$([ "$nccl" = - ] && echo "$cuda" || echo "$nccl") nvrtc=-
else
  [[ $cuda =~ $vre ]] || die "bad --cuda '$cuda' (a wheel version like 12.8.90, or a toolkit prefix directory)"
  case "${cuda%%.*}" in 12|13) ;; *) die "CUDA runtime $cuda: no wheel set for CUDA ${cuda%%.*} here (12.x or 13.x)" ;; esac
  [[ $nccl =~ $vre ]] || die "stack '$name' from CUDA wheels needs --nccl VERSION (e.g. 2.27.7), got '$nccl'"
  if [ -z "$nvrtc" ]; then   # the newest NVRTC wheel of the runtime's major.minor
    major=${cuda%%.*} mm=$(cut -d. -f1,2 <<<"$cuda")
    pkg=$([ "$major" = 12 ] && echo nvidia-cuda-nvrtc-cu12 || echo nvidia-cuda-nvrtc)
    nvrtc=$(${PYTHON:-python3} -m pip index versions "$pkg" 2>/dev/null | sed -n 's/^Available versions: //p' \
            | tr -d ' ' | tr , '\n' | grep -m1 "^$mm\." || true)
    [ -n "$nvrtc" ] || { echo "stack.sh: no $pkg wheel $mm.* found: stack '$name' gets no NVRTC (no kernel report)" >&2; nvrtc=-; }
  fi
  cuda_home=$PWD/stacks/$name nccl_home=$PWD/stacks/$name
fi
if [ $dry = 1 ]; then
  echo "$name cuda=$cuda nccl=$nccl nvrtc=$nvrtc cuda_home=$cuda_home nccl_home=$nccl_home"
  exit 0
fi
if [[ ! $cuda == /* && ! $cuda == ./* ]]; then
  STACK_WHEEL_CACHE=${STACK_WHEEL_CACHE:-$PWD/stacks/.wheels} scripts/stack-wheels.sh "stacks/$name" "$cuda" "$nccl" "$nvrtc"
fi
SETUP_PACKAGES_ONLY=1 scripts/setup.sh   # the Debian packages; the build is configured below
opts=(-Dcuda=enabled "-Dcuda-home=$cuda_home" "-Dnccl-home=$nccl_home" "-Dstack-name=$name")
[ -n "${CI:-}" ] && opts+=(-Dwerror=true)
if [ -f "build-$name/build.ninja" ]; then
  meson configure "build-$name" "${opts[@]}" >/dev/null
else
  meson setup "build-$name" "${opts[@]}" >/dev/null
fi
ninja -C "build-$name" >/dev/null || ninja -C "build-$name"
"build-$name/arbench" --version
