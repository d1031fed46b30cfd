#!/usr/bin/env bash
# standin_compute_mode.sh — two ranks on one GPU need it to take two processes' contexts (issue 48; docs/emu.md): in the
# Exclusive_Process compute mode (ARBENCH_STANDIN_COMPUTE_MODE, standin/cudart/compute_mode.c) `run --shared-gpu` ends
# before any rank makes its context, with one line naming the GPU, its mode and the way out (exit 2); one rank per GPU
# runs there as anywhere. Elsewhere: skipped.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
need_standin
if "$ARBENCH" list | qgrep -q '^p2p-oneshot .*not compiled in'; then
  echo "skipped: p2p-* not compiled in (-Dcuda-emu-nvcc=false: no kernels)"; exit 77
fi
export ARBENCH_STANDIN_COMPUTE_MODE=exclusive-process
X=(-x ARBENCH_STANDIN_COMPUTE_MODE -x ARBENCH_STANDIN_GPUS)
ARBENCH_STANDIN_GPUS=1 expect_status 2 mpirun -q --oversubscribe "${X[@]}" -np 2 "$ARBENCH" run --shared-gpu \
  --backend p2p-oneshot --sizes 4K -n 1 -T 30 -J "$TMP/shared.jsonl"
want="GPU 0 (ffff:01:00.0) is in the Exclusive_Process compute mode, so ranks cannot share it (--shared-gpu): run one rank per GPU, or set its Default mode (nvidia-smi -i ffff:01:00.0 -c DEFAULT)"
[ "$(grep -c -- "$want" "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "not one line naming the GPU's Exclusive_Process mode"; }
! grep -q "cudaSetDevice\|busy or unavailable" "$TMP/err" || { cat "$TMP/err"; fail "a rank tried the GPU's context first"; }
echo "ok: --shared-gpu on an Exclusive_Process GPU: one line, exit 2, no context made"
ARBENCH_STANDIN_GPUS=1 expect_status 2 mpirun -q --oversubscribe "${X[@]}" -np 2 "$ARBENCH" links --shared-gpu -T 30 \
  -J "$TMP/links.jsonl"
[ "$(grep -c -- "$want" "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "links --shared-gpu: not the same line"; }
echo "ok: links --shared-gpu says the same"
ARBENCH_STANDIN_GPUS=2 expect_status 0 mpirun -q --oversubscribe "${X[@]}" -np 2 "$ARBENCH" run \
  --backend p2p-oneshot --sizes 4K -n 1 -T 30 -J "$TMP/own.jsonl"
grep -q '"type":"result"' "$TMP/own.jsonl" || { cat "$TMP/err"; fail "one rank per Exclusive_Process GPU did not run"; }
echo "ok: one rank per Exclusive_Process GPU runs"
