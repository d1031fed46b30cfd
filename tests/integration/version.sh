#!/usr/bin/env bash
# version.sh — `arbench version` names hwloc by its release (what `lstopo --version` and the distro
# package show), not by its API version, and the run record carries both, spelled the same way.
set -u
out=$("$ARBENCH" version) || { echo "FAIL: arbench version exited $?"; exit 1; }
echo "$out"
line=$(grep '^hwloc ' <<<"$out") || { echo "FAIL: no hwloc line"; exit 1; }
rel=$(lstopo-no-graphics --version 2>/dev/null | awk '{print $NF}')
[ -n "$rel" ] || rel=$(lstopo --version | awk '{print $NF}')
hex=$(sed -n 's/^#define HWLOC_API_VERSION 0x\([0-9a-fA-F]*\).*/\1/p' /usr/include/hwloc.h)
api=$(( 16#$hex >> 16 )).$(( (16#$hex >> 8) & 255 )).$(( 16#$hex & 255 ))
want="hwloc        $rel (library and headers; API $api)"
[ "$line" = "$want" ] || { echo "FAIL: got '$line', want '$want'"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mpirun -np 1 "$ARBENCH" run --backend mpi --sizes 8 -n 2 -w 1 -J "$tmp/r.jsonl" >/dev/null \
  || { echo "FAIL: run exited $?"; exit 1; }
python3 - "$tmp/r.jsonl" "$rel" "$api" <<'PY' || exit 1
import json, sys
run = json.loads(open(sys.argv[1]).readline())
h = run["hwloc"]
want = {"compiled": sys.argv[2], "loaded": sys.argv[2], "api_compiled": sys.argv[3], "api_loaded": sys.argv[3]}
if h != want:
    sys.exit(f"FAIL: run record hwloc {h}, want {want}")
PY
echo ok
