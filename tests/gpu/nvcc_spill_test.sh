#!/usr/bin/env bash
# nvcc_spill_test.sh — the build rule fails on a spilling kernel: kernels/nvcc_spill.sh run with a
# stand-in compiler that prints ptxas reports with and without spills. No GPU or nvcc needed.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wrap="$ARBENCH_SRC/kernels/nvcc_spill.sh"
cat >"$tmp/fakecc" <<'SH'
#!/usr/bin/env bash
# prints a ptxas report; SPILL bytes of spill stores; writes the -o output
out=""; while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
echo "ptxas info    : Function properties for _Z6kernelPv" >&2
echo "    0 bytes stack frame, ${SPILL:-0} bytes spill stores, ${SPILL:-0} bytes spill loads" >&2
echo obj >"$out"
SH
chmod +x "$tmp/fakecc"
SPILL=0 bash "$wrap" "$tmp/ok.log" "$tmp/ok.o" "$tmp/fakecc" -c x.cu -o "$tmp/ok.o" || { echo "FAIL: no spill rejected"; exit 1; }
[ -f "$tmp/ok.o" ] && grep -q "0 bytes spill stores" "$tmp/ok.log" || { echo "FAIL: output or log missing"; exit 1; }
if SPILL=24 bash "$wrap" "$tmp/bad.log" "$tmp/bad.o" "$tmp/fakecc" -c x.cu -o "$tmp/bad.o" 2>"$tmp/err"; then
  echo "FAIL: 24 bytes of spills accepted"; exit 1
fi
[ ! -f "$tmp/bad.o" ] || { echo "FAIL: spilling object kept"; exit 1; }
grep -q "spills registers" "$tmp/err" || { echo "FAIL: no message"; cat "$tmp/err"; exit 1; }
echo ok
