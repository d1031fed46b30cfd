#!/usr/bin/env bash
# setup.sh — install the Debian packages arbench needs when they are missing (apt-get only), then
# configure and build into BUILD_DIR (default build/). Safe to run again: it does only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
PKGS=(gcc g++ pkg-config meson ninja-build git libopenmpi-dev openmpi-bin libhwloc-dev hwloc
      libjansson-dev libcmocka-dev python3 python3-pip python3-matplotlib graphviz procps)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup: run as root or install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
opts=()
[ -n "${CI:-}" ] && opts+=(-Dwerror=true)
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  meson setup "$BUILD_DIR" "${opts[@]}" ${MESON_OPTS:-} >"$BUILD_DIR.setup.log" 2>&1 \
    || { cat "$BUILD_DIR.setup.log" >&2; exit 1; }
  rm -f "$BUILD_DIR.setup.log"
fi
ninja -C "$BUILD_DIR" >/dev/null || ninja -C "$BUILD_DIR"
echo "setup: built $BUILD_DIR/arbench" >&2
