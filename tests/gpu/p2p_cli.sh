#!/usr/bin/env bash
# p2p_cli.sh — the p2p-* and fused backends without a GPU: `arbench list` shows each with why it cannot run
# here, bad variants are one line and exit 2 before anything runs, and a run records a skip naming the
# reason. On a machine with GPUs the device check runs them for real (device-check.sh).
source "$(dirname "$0")/../lib/common.sh"
list=$("$ARBENCH" list --wide)
for b in p2p-oneshot p2p-twoshot p2p-staged p2p-islands; do
  line=$(grep -E "^$b " <<<"$list") || fail "no $b line in arbench list"
  grep -Eq "^$b +gpu +(available|available \(emulated: CPU stand-in of CUDA\)|unavailable: .+|not compiled in: .+) +custom" \
    <<<"$line" || fail "bad line: $line"
done
fline=$(grep -E "^fused " <<<"$list") || fail "no fused line in arbench list"
grep -Eq "^fused +gpu +(available|available \(emulated: CPU stand-in of CUDA\)|unavailable: .+|not compiled in: .+) +custom allreduce.* RMSNorm" <<<"$fline" ||
  fail "bad line: $fline"
if ! grep -q "GPUs visible: [1-9]" <<<"$list" && ! grep -q 'not compiled in' <<<"$fline"; then
  grep -q "unavailable: no CUDA device" <<<"$fline" || fail "fused without a GPU should say why: $fline"
fi
compiled=1
grep -q '^p2p-oneshot .*not compiled in' <<<"$list" && compiled=0
bad() { # bad SPEC NEEDLE
  expect_one_line_error "$2" ar_mpirun 1 run --backend "$1" --sizes 8
}
if [ $compiled = 1 ]; then
  bad 'p2p-oneshot:mode=sideways' "p2p-oneshot variant mode=sideways: expected pull or push"
  bad 'p2p-oneshot:mode=push,reg=1' "p2p-oneshot variant mode=push,reg=1: push always writes into the peers' staging slots, there is no zero-copy push (allowed with mode=push: reg=0)"
  bad 'fused:hidden=4100' "fused variant hidden=4100: expected a multiple of 8 (one 16-byte vector) in 8..65536"
  bad 'fused:unfused=mpi' "fused variant unfused=mpi: expected nccl or p2p"
  bad 'fused:mode=push' "fused variant: unknown key 'mode' (known: hidden, eps, unfused, blocks, threads)"
  bad 'fused:blocks=65' "fused variant blocks=65: expected an integer 1..64"
  bad 'fused:eps=2' "fused variant eps=2: expected a number in (0, 1]"
  bad 'p2p-twoshot:mode=pull' "p2p-twoshot variant mode=pull: only p2p-oneshot has a mode (pull|push)"
  bad 'p2p-staged:threads=100' "p2p-staged variant threads=100: expected a multiple of 32 in 64..1024"
  bad 'p2p-twoshot:blocks=65' "p2p-twoshot variant blocks=65: expected an integer 1..64"
  bad 'p2p-oneshot:color=red' "p2p-oneshot variant: unknown key 'color' (known: mode, reg, blocks, threads)"
fi
# How the custom kernels got in: nvcc's linked in, or (stacks without nvcc) NVRTC's cubins loaded at run time.
ver=$("$ARBENCH" version)
comp=$(sed -n 's/^custom kernels \([a-z+-]*\)-built for .*/\1/p' <<<"$ver")
if [ $compiled = 1 ]; then
  case "$comp" in
    nvcc) grep -q "^custom kernels nvcc-built for .*, linked in$" <<<"$ver" || fail "version: $ver" ;;
    host-c++) grep -q "^custom kernels host-c++-built for the CPU stand-in of CUDA, linked in, run on CPU threads$" \
                <<<"$ver" || fail "version: $ver" ;; # -Dcuda-emu: the kernels' source on CPU threads
    nvrtc) grep -Eq "^custom kernels nvrtc-built for sm_[0-9]+(,(sm|compute)_[0-9]+)*, loaded at run time" <<<"$ver" ||
             fail "version: $ver"
           grep -Eq "^custom allreduce kernels: nvrtc-built for sm_[0-9]+" <<<"$list" || fail "list: no NVRTC line" ;;
    *) fail "p2p-* compiled in but version names no custom kernel compiler: $ver" ;;
  esac
else
  [ -z "$comp" ] || fail "p2p-* not compiled in but version says custom kernels $comp-built"
fi
# Not compiled in: asking for it is a usage error naming why (docs/backends.md), as an unknown name is.
[ $compiled = 1 ] || expect_one_line_error "backend 'p2p-oneshot': not compiled in: " ar_mpirun 1 run --backend p2p-oneshot --sizes 8
[ $compiled = 1 ] || { echo "p2p_cli: ok (p2p-* not compiled in: listed with the reason)"; exit 0; }
gpus=$(sed -n 's/^GPUs visible: \([0-9]*\).*/\1/p' <<<"$list")
if [ "${gpus:-0}" -gt 0 ]; then echo "p2p_cli: ok (GPUs present: device-check.sh runs the kernels)"; exit 0; fi
expect_status 3 ar_mpirun 2 run --backend 'p2p-oneshot:reg=1;p2p-oneshot:mode=push;p2p-twoshot;p2p-staged:blocks=4;p2p-islands;fused:hidden=7168,blocks=4,threads=256;fused:unfused=p2p;fused:unfused=nccl' --sizes 8,1M \
  -J "$TMP/r.jsonl"
"$PY" - "$TMP/r.jsonl" "$compiled" "$comp" <<'PY' || fail "skip records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
skips = {r["spec"]: r for r in recs if r.get("type") == "skip"}
assert not [r for r in recs if r.get("type") == "result"], "results without a GPU"
runs = [r for r in recs if r.get("type") == "run"]
assert runs and all(r["stack"]["custom_kernels"]["compiler"] == sys.argv[3] for r in runs), [r.get("stack") for r in runs]
if sys.argv[2] == "1":
    for b in ("p2p-oneshot:reg=1", "p2p-oneshot:mode=push", "p2p-twoshot", "p2p-staged:blocks=4", "p2p-islands",
              "fused:hidden=7168,blocks=4,threads=256", "fused:unfused=p2p", "fused:unfused=nccl"):
        assert b in skips and "no CUDA device" in skips[b]["reason"], (b, skips.get(b))
PY
echo "p2p_cli: ok"
