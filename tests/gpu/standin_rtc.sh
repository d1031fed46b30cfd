#!/usr/bin/env bash
# standin_rtc.sh — the NVRTC path (bench/backends/p2p/rtc.c) on the stand-in build without nvcc (issue 48): the real
# NVRTC built kernels/ar_p2p.cu into the cubins embedded in arbench, and rtc.c loads and launches them through the
# CPU stand-in of the driver API (standin/cudart/driver.c), which checks each image against the device and runs the
# kernels' own source. p2p-* (pull, push, two-shot at 1024 threads) on every dtype and fused on 3 ranks, every call
# checked bit for bit, the records saying the kernels are NVRTC's; a device of another compute capability takes the
# sm_90 cubin, and one no image fits (sm_86) is a skip with the one line naming the images. Elsewhere: skipped;
# under CI (ARBENCH_REQUIRE_NVRTC=1, .ci/run) a build without NVRTC fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
need_standin
opt() { "$PY" -c 'import json, sys
print(next((str(o["value"]).lower() for o in json.load(open(sys.argv[1])) if o["name"] == sys.argv[2]), ""))' \
  "$ARBENCH_BUILD/meson-info/intro-buildoptions.json" "$1"; }
[ "$(opt cuda-emu-nvcc)" = false ] || { echo "skipped: needs -Dcuda-emu-nvcc=false (this stand-in build links the kernels in)"; exit 77; }
"$ARBENCH" version >"$TMP/version"
if ! qgrep -q '^custom kernels nvrtc-built' "$TMP/version"; then
  home=$(opt cuda-home)
  # a cuda-home with NVRTC whose build left the path out is a wiring bug, not a skip
  [ -r "$home/include/nvrtc.h" ] && compgen -G "$home/lib*/libnvrtc.so*" >/dev/null &&
    { cat "$TMP/version"; fail "$home has NVRTC, but this build did not build the NVRTC path (rtc.c)"; }
  why="no NVRTC under cuda-home $home (include/nvrtc.h, lib64/libnvrtc.so): p2p-* and fused are not compiled in"
  [ "${ARBENCH_REQUIRE_NVRTC:-0}" = 1 ] && fail "$why (CI requires the NVRTC path)"
  echo "skipped: $why"; exit 77
fi
unset ARBENCH_STANDIN_REGS ARBENCH_STANDIN_CC
T=$((30 * ${ARBENCH_TIMEOUT_MULTIPLIER:-1})) # -T: a hang guard (a run takes seconds), so a broken launch ends soon
export ARBENCH_STANDIN_GPUS=4
# The images: a cubin per arch of cuda-archs and the newest one's PTX.
archs=$(opt cuda-archs | tr -d ' ')
want=$(echo "$archs" | tr ',' '\n' | sort -n | sed 's/^/sm_/' | paste -sd,)",compute_$(echo "$archs" | tr ',' '\n' | sort -n | tail -1)"

records() { # records FILE N: N results, every call checked and right, no error or skip, the kernels NVRTC's
  "$PY" - "$@" "$want" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
res = [r for r in recs if r["type"] == "result"]
assert not [r for r in recs if r["type"] in ("error", "skip")], [r for r in recs if r["type"] in ("error", "skip")]
assert len(res) == int(sys.argv[2]), len(res)
assert all(r["wrong"] == 0 and r["checked"] for r in res), res
ck = [r for r in recs if r["type"] == "run"][0]["stack"]["custom_kernels"]
assert ck["compiler"] == "nvrtc" and ck["archs"] == sys.argv[3], ck
assert ck["load"].startswith("loaded at run time (the CPU stand-in of the CUDA driver API"), ck
PY
}
expect_status 0 ar_mpirun 3 run --backend 'p2p-oneshot;p2p-oneshot:mode=push;p2p-twoshot:threads=1024' \
  -d float,half,bfloat16,int32 --sizes 4K,65K -n 2 -w 1 -c 1 -T "$T" -J "$TMP/p2p.jsonl"
records "$TMP/p2p.jsonl" 24 || fail "p2p-* through the NVRTC cubins: not every call ran and checked"
expect_status 0 ar_mpirun 3 run --backend 'fused:hidden=64' -d bfloat16 --sizes 4K,65K -n 2 -w 1 -c 1 -T "$T" \
  -J "$TMP/fused.jsonl"
records "$TMP/fused.jsonl" 2 || fail "fused through the NVRTC cubins: not every call ran and checked"
echo "ok: p2p-* (pull, push, two-shot at 1024 threads; 4 dtypes) and fused from the embedded cubins, every call checked"
# after the runs (a mislabelled image must fail in the driver stand-in first): version names the images
line="custom kernels nvrtc-built for $want, loaded at run time (the CPU stand-in of the CUDA driver API: the images checked, the kernels' source run on CPU threads)"
qgrep -qxF "$line" "$TMP/version" || { cat "$TMP/version"; fail "version does not say: $line"; }

# A compute capability 9.0 device: the sm_90 cubin where there is one, else the sm_120 one is no image for it.
if echo ",$archs," | qgrep -q ',90,'; then
  expect_status 0 mpirun -q --oversubscribe -x ARBENCH_STANDIN_CC=9.0 -np 2 "$ARBENCH" run \
    --backend 'p2p-oneshot;p2p-twoshot' -d float,bfloat16 --sizes 4K -n 2 -w 1 -c 1 -T "$T" -J "$TMP/sm90.jsonl"
  records "$TMP/sm90.jsonl" 4 || fail "a compute capability 9.0 device: not every call ran and checked"
  echo "ok: a compute capability 9.0 device runs the sm_90 cubin"
fi
# sm_86: no cubin of major 8, the PTX is newer: one line, a skip record naming the images, nothing measured (exit 3).
expect_status 3 mpirun -q --oversubscribe -x ARBENCH_STANDIN_CC=8.6 -np 2 "$ARBENCH" run --backend p2p-oneshot \
  -d float --sizes 4K -n 1 -w 0 -J "$TMP/sm86.jsonl"
why="no cubin for sm_86 in this build (cubins: $(echo "$want" | sed 's/,/, /g'))"
qgrep -qxF "# p2p-oneshot: skipped: $why" "$TMP/out" || { cat "$TMP/out" "$TMP/err"; fail "no line: p2p-oneshot: skipped: $why"; }
"$PY" - "$TMP/sm86.jsonl" "$why" <<'PY' || fail "the sm_86 skip record"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
got = [(r["type"], r.get("reason")) for r in recs if r["type"] in ("result", "error", "skip")]
assert got == [("skip", sys.argv[2])], got
PY
ARBENCH_STANDIN_CC=8.6 "$ARBENCH" list >"$TMP/list"
qgrep -q '^p2p-oneshot .*unavailable: no cubin for' "$TMP/list" || { cat "$TMP/list"; fail "list: p2p-oneshot on sm_86"; }
expect_status 2 env ARBENCH_STANDIN_CC=twelve "$ARBENCH" list
qgrep -qxF "arbench cuda stand-in: bad ARBENCH_STANDIN_CC 'twelve' (allowed: MAJOR.MINOR, 3.0 to 15.9, e.g. 9.0)" "$TMP/err" \
  || { cat "$TMP/err"; fail "a bad ARBENCH_STANDIN_CC"; }
echo "ok: sm_86 has no image (skip, one line naming the images); a bad ARBENCH_STANDIN_CC is refused"
