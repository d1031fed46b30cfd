#!/usr/bin/env bash
# standin_knownbad.sh — `run`'s known-bad line and record end to end on the CUDA stand-in (docs/doctor.md "Known-bad
# stacks"): two devices named as RTX 5090s (ARBENCH_STANDIN_NAME) match the table's GPU-only entries, so the run
# prints one warning line at start naming the failure entry and its run record's known_bad lists them; named RTX PRO 6000 with the
# NCCL stand-in's 2.28.9 (not 2.26.2) nothing matches, no line; doctor reads the same names and the loaded NCCL. Elsewhere: skipped.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
need_standin
export ARBENCH_STANDIN_GPUS=2
# the line names the crash and failure entries; the slowdown (GNS: through host memory) is in the record only
LINE="arbench: warning: known-bad stack: trtllm-16899-pcie-ipc (fails: cudaIpcOpenMemHandle fails (cudaErrorInvalidDevice, 101): custom all-reduce over CUDA IPC cannot start (TensorRT-LLM crashes at engine init); https://github.com/NVIDIA/TensorRT-LLM/issues/16899)"
run2() { # run2 NAME OUT: a 2-rank run on the stand-in named NAME; stderr into OUT.err, records into OUT.jsonl
  rm -f "$2.jsonl"
  ARBENCH_STANDIN_NAME="$1" mpirun -q --oversubscribe -x ARBENCH_STANDIN_NAME -x ARBENCH_STANDIN_GPUS -np 2 \
    "$ARBENCH" run --backend mpi --sizes 8 -n 2 -T 60 -J "$2.jsonl" >/dev/null 2>"$2.err" || { cat "$2.err"; fail "run exited $?"; }
}
run2 "NVIDIA GeForce RTX 5090" "$TMP/a"
[ "$(grep -c '^arbench: warning: known-bad stack:' "$TMP/a.err")" = 1 ] || { cat "$TMP/a.err"; fail "not one known-bad line"; }
grep -qxF "$LINE" "$TMP/a.err" || { cat "$TMP/a.err"; fail "the known-bad line differs"; }
echo "ok: two RTX 5090 stand-ins: one warning line naming both GPU-only entries"
got=$(jq -r 'select(.type=="run") | "\(.known_bad | join(",")) \(.stack.nccl_loaded)"' "$TMP/a.jsonl")
[ "$got" = "gpu-rtx5090-p2p-gns,trtllm-16899-pcie-ipc 2.28.9" ] || fail "run record's known_bad: [$got]"
echo "ok: the run record's known_bad names them"
run2 "NVIDIA RTX PRO 6000 Blackwell Workstation Edition" "$TMP/b"
[ "$(grep -c 'known-bad' "$TMP/b.err")" = 0 ] || { cat "$TMP/b.err"; fail "a known-bad line for NCCL 2.28.9 on RTX PRO 6000"; }
[ "$(jq -r 'select(.type=="run") | .known_bad | length' "$TMP/b.jsonl")" = 0 ] || fail "known_bad not empty on RTX PRO 6000, 2.28.9"
echo "ok: RTX PRO 6000 with NCCL 2.28.9: nothing known bad, no line"
# doctor on the live (stand-in) system: CUDA's GPU names and the NCCL this binary loads (the NCCL stand-in, 2.28.9).
ARBENCH_STANDIN_NAME="NVIDIA GeForce RTX 5090" "$ARBENCH" doctor >"$TMP/d.txt" 2>&1 || true # exit 1: a warning
grep -q '^\[warn\] known-bad: trtllm-16899-pcie-ipc: 2 NVIDIA GeForce RTX 5090 (CPU stand-in of a CUDA device, arbench -Dcuda-emu) GPUs matches 2 or more GPUs named RTX 6000D or RTX 5090 (fails)' "$TMP/d.txt" \
  || { cat "$TMP/d.txt"; fail "doctor: no known-bad finding from CUDA's GPU names"; }
echo "ok: doctor names the CUDA IPC entry from CUDA's device names"
"$ARBENCH" doctor >"$TMP/d2.txt" 2>&1 || true
grep -qxF '[ok  ] known-bad: none of the 6 known-bad entries matches NCCL 2.28.9 (loaded by this binary) with 2 CPU stand-in of a CUDA device (arbench -Dcuda-emu) GPUs' "$TMP/d2.txt" \
  || { cat "$TMP/d2.txt"; fail "doctor: the loaded NCCL not compared"; }
echo "ok: doctor compares the NCCL this binary loads"
