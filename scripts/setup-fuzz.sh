#!/usr/bin/env bash
# setup-fuzz.sh — install clang with libFuzzer when missing (apt-get) and build the fuzz harnesses of
# tests/fuzz with ASan + UBSan into BUILD_DIR (default build-fuzz). Used by .ci/run; see tests/fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-fuzz}
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "setup-fuzz: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ ! -f "$build/build.ninja" ]; then
  # CXX too: the emu backends are C++ (standin/kernels), so the harnesses link with the C++ compiler, and
  # only clang knows -fsanitize=fuzzer.
  CC=clang CXX=clang++ meson setup "$build" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dcuda=disabled \
    >"$build.setup.log" 2>&1 || { cat "$build.setup.log" >&2; exit 1; }
  rm -f "$build.setup.log"
fi
ninja -C "$build" >/dev/null || ninja -C "$build"
