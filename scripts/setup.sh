#!/usr/bin/env bash
# setup.sh — install the Debian packages arbench needs when they are missing (apt-get only), then
# configure and build into BUILD_DIR (default build/). Safe to run again: it does only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
PKGS=(gcc g++ pkg-config meson ninja-build git libopenmpi-dev openmpi-bin libhwloc-dev hwloc
      libjansson-dev libcmocka-dev python3 python3-pip python3-matplotlib graphviz procps jq bc iproute2)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# apt_wait CMD...: run an apt-get command; while another apt or dpkg holds its lock (unattended
# upgrades on a fresh machine), say so and wait up to APT_LOCK_WAIT seconds (default 600) instead of
# failing on apt's bare "Could not get lock". The loop covers the dpkg lock of install and the
# package-list lock of update alike.
apt_wait() {
  local deadline=$(( $(date +%s) + ${APT_LOCK_WAIT:-600} )) said=0 log
  log=$(mktemp)
  while :; do
    if "$@" -o DPkg::Lock::Timeout=5 >"$log" 2>&1; then rm -f "$log"; return 0; fi
    if ! grep -q 'Could not get lock\|Unable to acquire\|is held by process' "$log" \
        || [ "$(date +%s)" -ge "$deadline" ]; then
      cat "$log" >&2; rm -f "$log"; return 1
    fi
    if [ $said = 0 ]; then
      local lock holder what
      lock=$(grep -o '/var/[a-z/_-]*lock[a-z-]*' "$log" | head -1 || true)
      holder=$(grep -o 'held by process [0-9]* ([^)]*)' "$log" | head -1 || true)
      what="${lock:-the apt lock}${holder:+, $holder}"
      echo "setup: waiting up to ${APT_LOCK_WAIT:-600} s for another apt/dpkg to release ${what}" >&2
      said=1
    fi
    sleep 5
  done
}
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup: run as root or install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
  fi
  apt_wait $SUDO apt-get update -qq
  apt_wait $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# SETUP_PACKAGES_ONLY=1 (scripts/stack.sh): the packages only; the caller configures its own build.
[ "${SETUP_PACKAGES_ONLY:-}" = 1 ] && exit 0
opts=()
[ -n "${CI:-}" ] && opts+=(-Dwerror=true)
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  meson setup "$BUILD_DIR" "${opts[@]}" ${MESON_OPTS:-} >"$BUILD_DIR.setup.log" 2>&1 \
    || { cat "$BUILD_DIR.setup.log" >&2; exit 1; }
  rm -f "$BUILD_DIR.setup.log"
fi
ninja -C "$BUILD_DIR" >/dev/null || ninja -C "$BUILD_DIR"
echo "setup: built $BUILD_DIR/arbench" >&2
