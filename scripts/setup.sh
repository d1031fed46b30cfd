#!/usr/bin/env bash
# setup.sh — install the Debian packages arbench needs when they are missing (apt-get only), then
# configure and build into BUILD_DIR (default build/). Safe to run again: it does only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
PKGS=(gcc g++ pkg-config meson ninja-build git libopenmpi-dev openmpi-bin libhwloc-dev hwloc
      libxml2-dev libjansson-dev libcmocka-dev python3 python3-pip python3-matplotlib graphviz procps jq bc iproute2)
# SETUP_EXTRA_PKGS: more packages a caller needs (scripts/test.sh: the test-only ones)
read -r -a extra_pkgs <<<"${SETUP_EXTRA_PKGS:-}"
PKGS+=("${extra_pkgs[@]}")
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
t0=$SECONDS
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  echo "setup: configuring $BUILD_DIR${opts[*]:+ ${opts[*]}}${MESON_OPTS:+ $MESON_OPTS}" >&2
  meson setup "$BUILD_DIR" "${opts[@]}" ${MESON_OPTS:-} >"$BUILD_DIR.setup.log" 2>&1 \
    || { cat "$BUILD_DIR.setup.log" >&2; exit 1; }
  rm -f "$BUILD_DIR.setup.log"
fi
# The build shows its progress: a status line on a terminal, else a line at every 10% and at least every
# 20 s; ninja's own output goes to BUILD_DIR/meson-logs/build.log and is shown when the build fails.
log=$BUILD_DIR/meson-logs/build.log
mkdir -p "$BUILD_DIR/meson-logs"
ninja -C "$BUILD_DIR" >"$log" 2>&1 &
ninja_pid=$!
tty=0; [ -t 2 ] && tty=1
last=-1 said=$SECONDS m=0
while kill -0 "$ninja_pid" 2>/dev/null; do
  step=$(grep -o '^\[[0-9]*/[0-9]*\]' "$log" | tail -1 | tr -d '[]' || true)
  if [ -n "$step" ]; then
    n=${step%/*} m=${step#*/}
    pct=$((100 * n / m))
    if [ $tty = 1 ]; then
      printf '\rsetup: building %3d%% (%d/%d steps)' "$pct" "$n" "$m" >&2
    elif [ $((pct / 10)) -gt "$last" ] || [ $((SECONDS - said)) -ge 20 ]; then
      echo "setup: building $pct% ($n/$m steps, $((SECONDS - t0)) s)" >&2
      last=$((pct / 10)) said=$SECONDS
    fi
  fi
  sleep 1
done
brc=0; wait "$ninja_pid" || brc=$?
[ $tty = 1 ] && [ "$m" -gt 0 ] && printf '\n' >&2
if [ $brc != 0 ]; then
  tail -40 "$log" >&2
  echo "setup: the build failed (full log: $log)" >&2
  exit 1
fi
echo "setup: built $BUILD_DIR/arbench ($((SECONDS - t0)) s; log: $log)" >&2
