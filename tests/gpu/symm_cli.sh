#!/usr/bin/env bash
# symm_cli.sh — the symm backend without a GPU: `arbench list` shows it with why it cannot run here (or
# why it is not compiled in: no nvcc, NCCL headers older than 2.28), bad variants are one line and exit 2
# before anything runs, and a run records a skip naming the reason; a loaded libnccl older than 2.28 (the
# 2.19.3 shim, $1) makes it unavailable saying so, GPU or not. With GPUs: device-check-symm.sh.
# Usage: symm_cli.sh [PATH-OF-libnccl_version_shim.so]
source "$(dirname "$0")/../lib/common.sh"
SHIM=${1:-}
list=$("$ARBENCH" list --wide)
line=$(grep -E '^symm ' <<<"$list") || fail "no symm line in arbench list"
grep -Eq '^symm +gpu +(available|unavailable: .+|not compiled in: .+) +custom one-/two-shot kernel' <<<"$line" ||
  fail "bad line: $line"
if grep -q 'not compiled in' <<<"$line"; then
  # The reason is the build's own: no CUDA, no nvcc, the headers' NCCL version, or (-Dcuda-emu) no NCCL device API.
  grep -Eq 'not compiled in: (built without CUDA|no nvcc in this stack|needs NCCL >= 2.28 headers \(built with [0-9.]+\)|its kernel needs NCCL.s device API, which the NCCL stand-in \(-Dcuda-emu\) lacks)' \
    <<<"$line" || fail "not-compiled reason: $line"
  expect_one_line_error "backend 'symm': not compiled in: " ar_mpirun 1 run --backend symm --sizes 8
  echo "symm_cli: ok (symm not compiled in: listed with the reason)"
  exit 0
fi
if [ -n "$SHIM" ]; then # the runtime gate: headers >= 2.28 here, the loaded library older
  old=$(env LD_PRELOAD="$SHIM" "$ARBENCH" list --wide 2>/dev/null | grep -E '^symm ')
  grep -Eq '^symm +gpu +unavailable: needs NCCL >= 2.28 \(the loaded libnccl is 2.19.3; built with 2\.[0-9.]+ headers\)' \
    <<<"$old" || fail "loaded NCCL 2.19.3, but: $old"
fi
bad() { # bad SPEC NEEDLE
  expect_one_line_error "$2" ar_mpirun 1 run --backend "$1" --sizes 8
}
bad 'symm:algo=threeshot' "symm variant algo=threeshot: expected oneshot or twoshot"
bad 'symm:blocks=33' "symm variant blocks=33: expected an integer 1..32"
bad 'symm:threads=100' "symm variant threads=100: expected a multiple of 32 in 64..1024"
bad 'symm:reg=1' "symm variant: unknown key 'reg' (known: algo, blocks, threads)"
gpus=$(sed -n 's/^GPUs visible: \([0-9]*\).*/\1/p' <<<"$list")
if [ "${gpus:-0}" -gt 0 ]; then echo "symm_cli: ok (GPUs present: device-check-symm.sh runs the kernel)"; exit 0; fi
grep -q '^symm .*unavailable: no CUDA device' <<<"$line" || fail "no GPU, but: $line"
expect_status 3 ar_mpirun 2 run --backend 'symm;symm:algo=twoshot,blocks=4' --sizes 8,1M -J "$TMP/r.jsonl"
"$PY" - "$TMP/r.jsonl" <<'PY' || fail "skip records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert not [r for r in recs if r.get("type") == "result"], "results without a GPU"
skips = [r for r in recs if r.get("type") == "skip" and r["backend"] == "symm"]
assert skips and all("no CUDA device" in r["reason"] for r in skips), skips
PY
echo "symm_cli: ok"
