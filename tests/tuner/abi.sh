#!/usr/bin/env bash
# abi.sh LIB NCCL_HOME — libarbench-tuner.so links no NCCL, its sources include no NCCL header, it
# exports ncclTunerPlugin_v2..v7, and every ncclTunerPlugin_vN name this stack's libnccl looks up.
set -u
lib=$1 nccl_home=$2 fail=0
for tool in readelf nm; do command -v $tool >/dev/null || { echo "skipped: no $tool"; exit 77; }; done
if readelf -d "$lib" | grep NEEDED | grep -qi nccl; then echo "FAIL: $lib links NCCL:"; readelf -d "$lib" | grep NEEDED; fail=1; fi
if grep -nE '#include[[:space:]]*[<"](nccl|.*/nccl)' "$ARBENCH_SRC"/tuner/*.[ch]; then echo "FAIL: tuner/ includes an NCCL header"; fail=1; fi
exports=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep '^ncclTunerPlugin_v' | sort -u)
for v in 2 3 4 5 6 7; do
  grep -qx "ncclTunerPlugin_v$v" <<<"$exports" || { echo "FAIL: ncclTunerPlugin_v$v not exported"; fail=1; }
done
other=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDBR]/ {print $3}' | grep -v '^ncclTunerPlugin_v[2-7]$' | grep -v '^_' || true)
[ -z "$other" ] || { echo "FAIL: exports more than the plugin symbols: $other"; fail=1; }
nccl=
for d in "$nccl_home/lib64" "$nccl_home/lib" "$nccl_home"; do
  for f in "$d"/libnccl.so.2 "$d"/libnccl.so; do [ -f "$f" ] && { nccl=$f; break 2; }; done
done
if [ -n "$nccl" ]; then
  wanted=$(grep -aoE 'ncclTunerPlugin_v[0-9]+' "$nccl" | sort -u)
  [ -n "$wanted" ] || { echo "FAIL: no ncclTunerPlugin_vN name found in $nccl"; fail=1; }
  for s in $wanted; do
    grep -qx "$s" <<<"$exports" || { echo "FAIL: $nccl looks up $s, which $lib does not export"; fail=1; }
  done
  echo "this stack's $nccl looks up: $(echo $wanted); exported: $(echo $exports)"
else
  echo "note: no libnccl under $nccl_home: the lookup names were not compared"
fi
[ $fail = 0 ] && echo "ok: $lib"
exit $fail
