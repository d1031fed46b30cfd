#!/usr/bin/env bash
# device_check_report.sh — device-check's verdict without a GPU, on made-up step outputs: the variants
# step passes only when every variant was measured and checked; all skips, or a variant missing, fail.
source "$(dirname "$0")/../lib/common.sh"
REPORT="$ARBENCH_SRC/tests/gpu/device_check_report.py"
variants() { # variants DIR KIND... : one record per variant: result (checked) or skip
  local dir=$1; shift
  mkdir -p "$dir"
  echo "variants-1rank 0 0 3" >"$dir/steps"
  : >"$dir/variants-1rank.err"
  local specs=("nccl:proto=Simple" "nccl:ctas=2" "nccl:reg=1") i=0
  for kind in "$@"; do
    if [ "$kind" = result ]; then
      printf '{"type":"result","spec":"%s","checked":true,"wrong":0,"dtype":"float","placement":"out","size":8}\n' "${specs[$i]}"
    elif [ "$kind" = skip ]; then
      printf '{"type":"skip","spec":"%s","reason":"not here"}\n' "${specs[$i]}"
    fi
    i=$((i + 1))
  done >"$dir/variants-1rank.jsonl"
}
verdict() { "$PY" "$REPORT" "$1" >"$TMP/out" 2>&1; echo "$? $(grep -E '^variants-1rank ' "$TMP/out" | awk '{print $NF}')"; }
variants "$TMP/all" result result result
[ "$(verdict "$TMP/all")" = "0 PASS" ] || { cat "$TMP/out"; fail "three measured variants do not pass"; }
variants "$TMP/skips" skip skip skip
[ "$(verdict "$TMP/skips")" = "1 FAIL" ] || { cat "$TMP/out"; fail "a variants step of skips only passes"; }
variants "$TMP/three" result result skip
[ "$(verdict "$TMP/three")" = "1 FAIL" ] || { cat "$TMP/out"; fail "a skipped variant passes"; }
variants "$TMP/none" none
[ "$(verdict "$TMP/none")" = "1 FAIL" ] || { cat "$TMP/out"; fail "a variants step without records passes"; }
echo "device_check_report: ok"
