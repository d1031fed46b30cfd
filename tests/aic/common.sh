# common.sh — the aic tests on top of tests/lib/common.sh, counting mode: they need pyarrow, pyyaml and
# aiconfigurator-core (TEST_PIP_PKGS in scripts/test.sh): skipped here without them, a failure under CI.
source "$ARBENCH_SRC/tests/lib/common.sh"
ar_counting
if ! "$PY" -c 'import pyarrow, yaml, aiconfigurator_core' 2>/dev/null; then
  [ -n "${CI:-}" ] && fail "pyarrow, pyyaml or aiconfigurator-core is not installed, and CI must run this test (scripts/test.sh installs them)"
  echo "skipped: pyarrow, pyyaml or aiconfigurator-core not installed (pip install pyarrow pyyaml aiconfigurator-core)"
  exit 77
fi
AIC_PKG=$("$PY" -c 'import aiconfigurator_core, os; print(os.path.dirname(aiconfigurator_core.__file__))')
RTX="$AIC_PKG/systems/data/rtx_pro_6000_server/comm"
