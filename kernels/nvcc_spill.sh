#!/usr/bin/env bash
# nvcc_spill.sh — run nvcc with -Xptxas -v, keep ptxas' report in LOG, and fail when a kernel spills.
# Usage: nvcc_spill.sh LOG OUTPUT nvcc ARGS...   (OUTPUT is removed on failure so the build retries)
set -u
log=$1 out=$2
shift 2
"$@" -Xptxas -v >"$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  cat "$log" >&2
  rm -f "$out"
  exit $rc
fi
spills=$(grep -E '[1-9][0-9]* bytes spill (stores|loads)' "$log")
if [ -n "$spills" ]; then
  echo "error: a kernel spills registers (see $log):" >&2
  grep -B2 -E '[1-9][0-9]* bytes spill (stores|loads)' "$log" >&2
  rm -f "$out"
  exit 1
fi
exit 0
