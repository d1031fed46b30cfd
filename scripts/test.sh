#!/usr/bin/env bash
# test.sh — the test command: set up (packages, build), run every test suite with meson, and end
# with one line 'N passed, N failed, N skipped'. Exit status 1 when any test failed.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  cat <<'EOF2'
usage: scripts/test.sh [MESON-TEST-ARGS...]
Sets up (packages, the build in $BUILD_DIR, default build), runs the test suites with meson test and ends with
one line 'N passed, N failed, N skipped'; exit status 1 when any test failed. Arguments go to meson test, e.g.
  scripts/test.sh --suite unit          one suite
  scripts/test.sh unit-opts unit-infile  named tests
Environment: BUILD_DIR (default build), MESON_OPTS (setup options, e.g. -Dcuda=disabled), MESON_TEST_OPTS,
CI (set: install the test-only packages; a missing one is a failure), ARBENCH_TIMEOUT_MULTIPLIER (the timeouts'
factor; default: from the box's load, scripts/timeout-multiplier.sh). meson test --help lists its options.
EOF2
}
for a in "$@"; do # its own usage at once: never the whole build first
  case $a in -h|--help) usage; exit 0 ;; esac
done
BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR
# Test-only packages, installed under CI (locally their tests skip and say what to install): chromium, the real
# headless browser of tests/report (arbench report's pages).
TEST_PKGS="chromium"
# Test-only PyPI packages, installed under CI the same way: pyarrow, pyyaml and aiconfigurator-core (NVIDIA's own
# loader of its tables) for tests/aic (aiconfigurator's Parquet tables both ways) and tests/model/published.sh (its
# published NCCL tables, read from the installed package).
TEST_PIP_PKGS="pyarrow pyyaml aiconfigurator-core"
if [ -n "${CI:-}" ]; then SETUP_EXTRA_PKGS="$TEST_PKGS" scripts/setup.sh; else scripts/setup.sh; fi
if [ -n "${CI:-}" ]; then
  # shellcheck disable=SC2086 # a list of names
  python3 -m pip install --quiet $TEST_PIP_PKGS 2>/dev/null || python3 -m pip install --quiet --break-system-packages $TEST_PIP_PKGS \
    || echo "test.sh: could not install $TEST_PIP_PKGS: their tests fail under CI" >&2
fi
rc=0
# The hang guards stretch with the box's load (scripts/timeout-multiplier.sh); an explicit --timeout-multiplier wins.
mult=()
case " ${MESON_TEST_OPTS:-} $* " in *" --timeout-multiplier"* | *" -t "*) ;; *)
  m=$(scripts/timeout-multiplier.sh)
  [ "$m" = 1 ] || echo "test.sh: load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs: test timeouts x$m"
  mult=(--timeout-multiplier "$m")
  export ARBENCH_TIMEOUT_MULTIPLIER=$m ;; # the tests' own guards (e.g. device-check's step timeout) read it
esac
meson test -C "$BUILD_DIR" --print-errorlogs --no-rebuild "${mult[@]}" ${MESON_TEST_OPTS:-} "$@" || rc=$?
scripts/test-summary.py "$BUILD_DIR" || rc=1
exit $rc
