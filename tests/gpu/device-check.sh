#!/usr/bin/env bash
# device-check.sh — the first thing to run on a GPU box: build arbench for the local GPU, then in a few
# minutes: nccl on one rank over 8 B–256 MiB with every dtype checked, every op, graph mode (-G), --timing
# loop (plain and graphs), --buffers cold with --repeat, a bad variant, duplicate GPUs, the watchdog; with
# >= 2 GPUs also nccl on several ranks (sizes, graphs, variants, symm=1, one GPU visible per rank); then
# the p2p-* kernels, pull and push, and the fused backend (device-check-p2p.sh), then `arbench links` on GPUs
# (device-check-links.sh). It prints what that
# covers and a summary table each.
# No GPU: 'skipped: no CUDA device'. On the CPU stand-in of CUDA (a -Dcuda-emu=true build, ARBENCH set) the same
# steps run on its devices, smaller; the NCCL steps on the NCCL stand-in at CPU sizes (without NCCL the engine steps
# run on p2p-oneshot and the NCCL steps say why they are skipped).
# Usage: tests/gpu/device-check.sh [BUILD_DIR]     (ARBENCH=path/to/arbench skips the build)
# DEVICE_CHECK_SKIP=links,dead: parts a test suite runs as tests of their own (gpu-device-check-links,
# integration-dead_rank-standin), said so, not run twice.
set -u
src=${ARBENCH_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

gpus=0
if [ -n "${ARBENCH:-}" ]; then
  gpus=$("$ARBENCH" list --wide 2>/dev/null | sed -n 's/^GPUs visible: \([0-9]*\).*/\1/p')
elif command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
if [ "${gpus:-0}" = 0 ]; then
  echo "skipped: no CUDA device"
  exit 77
fi

tmp=$(mktemp -d)
# DEVICE_CHECK_LOGS=DIR keeps every step's records and output there (tests/gpu/first-contact.sh collects them).
trap '[ -n "${DEVICE_CHECK_LOGS:-}" ] && mkdir -p "$DEVICE_CHECK_LOGS" && cp -r "$tmp"/. "$DEVICE_CHECK_LOGS"/; rm -rf "$tmp"' EXIT
if [ -z "${ARBENCH:-}" ]; then
  build=${1:-$src/build-devcheck}
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
  echo "== build for sm_$arch in $build"
  if [ -d "$build" ]; then meson configure "$build" -Dcuda=enabled -Dcuda-archs="$arch" >/dev/null
  else meson setup "$build" "$src" -Dcuda=enabled -Dcuda-archs="$arch" >"$tmp/setup.log" || { cat "$tmp/setup.log"; exit 1; }
  fi
  ninja -C "$build" >"$tmp/build.log" 2>&1 || { tail -40 "$tmp/build.log"; echo "FAIL: build"; exit 1; }
  ARBENCH=$build/arbench
fi

# step NAME EXPECTED_RC [ENV=V...] -- arbench run arguments (one rank unless NP is set)
step() {
  local name=$1 want=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local t0=$SECONDS
  if [ -n "${PERTASK:-}" ]; then # CUDA_VISIBLE_DEVICES = this rank's local index: one GPU per rank
    env "${envs[@]}" mpirun -np "${NP:-1}" bash -c 'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
      "$ARBENCH" run -J "$tmp/$name.jsonl" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  else
    env "${envs[@]}" mpirun -np "${NP:-1}" "$ARBENCH" run -J "$tmp/$name.jsonl" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  fi
  local rc=$?
  echo "$name $want $rc $((SECONDS - t0))" >>"$tmp/steps"
  echo "== $name: exit $rc (want $want), $((SECONDS - t0)) s"
  [ "$rc" = "$want" ] || tail -5 "$tmp/$name.err"
}

"$ARBENCH" --version
"$ARBENCH" list --wide | grep -E '^nccl|GPUs visible'
nccl_why=$("$ARBENCH" list --wide | sed -n 's/^nccl  *gpu  *not compiled in: \(.*\) ncclAllReduce$/\1/p')
nccl_standin=$("$ARBENCH" version 2>/dev/null | grep -c '^NCCL stand-in') # the CPU stand-in of NCCL (standin/nccl)
multi=$(( gpus > 8 ? 8 : gpus ))
D=float,half,bf16,int32

nccl_steps() {
echo "== coverage: with one rank NCCL returns before tuning or registration (in-place is a no-op,"
echo "   out-of-place a device copy): the 1-rank steps prove the engine (fills, checks, timing, graphs,"
echo "   watchdog), not NCCL's algorithms, protocols, channels or registration."
if [ "$multi" -ge 2 ]; then
  echo "   $gpus GPUs: the multi-* steps run nccl on $multi ranks (one GPU each): real allreduces, variants."
else
  echo "   1 GPU: no multi-rank step (NCCL refuses two ranks on one GPU); variants are not exercised."
fi
step sizes 0 -- --backend nccl -b 8 -e 256M -f 2 -d $D -n 20 -w 5 -c 1 --inplace both
for op in prod max min avg; do
  step "op-$op" 0 -- --backend nccl -b 8 -e 16M -f 8 -d $D -o $op -n 10 -w 2 -c 1
done
step graph 0 -- --backend nccl -b 8 -e 64M -f 4 -d $D -n 100 -w 10 -G 10 -c 1 --inplace both
step variants-1rank 0 -- --backend 'nccl:proto=Simple' --backend 'nccl:ctas=2' --backend 'nccl:reg=1' \
  -b 8 -e 4M -f 16 -n 10 -c 1
step loop 0 -- --backend nccl -b 8 -e 64M -f 64 -d float -n 20 -w 5 -c 1 --timing loop -a 1
step loop-graph 0 -- --backend nccl --sizes 8,1M -d float -n 100 -w 10 -G 10 -c 1 --timing loop
step cold 0 -- --backend nccl --sizes 8,1M,256M -d float -n 20 -w 5 -c 1 --buffers cold --repeat 2
step bad-variant 2 -- --backend 'nccl:algo=Bogus' --sizes 8
NP=2 step shared-gpu 3 -- --backend nccl --devices 0,0 --shared-gpu --sizes 8 # NCCL refuses: all skipped, 3
step watchdog 1 ARBENCH_NCCL_HANG_BYTES=1048576 -- --backend nccl --sizes 8,1M -n 10 -c 1 -T 4
if [ "$multi" -ge 2 ]; then
  NP=$multi step multi-sizes 0 -- --backend nccl -b 8 -e 256M -f 4 -d $D -n 20 -w 5 -c 2 --inplace both
  NP=$multi step multi-graph 0 -- --backend nccl -b 8 -e 64M -f 8 -d float,bf16 -n 100 -w 10 -G 10 -c 1 --inplace both
  NP=$multi step multi-variants 0 -- --backend 'nccl:proto=Simple;nccl:algo=Ring,proto=LL;nccl:algo=Tree;nccl:ctas=2;nccl:reg=1;nccl:symm=1' \
    -b 8 -e 4M -f 16 -d float,bf16 -n 10 -c 1
  NP=$multi step multi-nvls 0 -- --backend 'nccl:algo=NVLS' --sizes 1M -n 5 -c 1
  # Issue 48, what only a GPU settles: graphs destroyed before the communicator goes (NCCL's Finalize waits for live
  # captured plans: a hang here ends at -T with exit 1); symm=1's windows (symmetric when every pair has P2P:
  # ncclMemAlloc memory, 4096-byte offsets, every rank registers); every variant under a conf file (NCCL applies
  # NCCL_CONF_FILE / ~/.nccl.conf / /etc/nccl.conf once per process: the records of both variants say TREE).
  NP=$multi step multi-graph-teardown 0 -- --backend 'nccl;nccl:proto=Simple' --sizes 8,1M -d float -n 40 -w 10 -G 10 -c 1 -T 60
  NP=$multi step multi-symm 0 -- --backend 'nccl:symm=1' -b 8 -e 64M -f 8 -d float,bf16 -n 20 -c 1 --inplace both -T 120
  printf '# device-check\nNCCL_ALGO=Tree\n' >"$tmp/nccl.conf"
  NP=$multi step multi-conf 0 NCCL_CONF_FILE="$tmp/nccl.conf" -- --backend 'nccl;nccl:proto=Simple' --sizes 1M -n 5 -c 1 -T 60
  # One GPU visible per rank (srun --gpus-per-task=1 style): every rank must still get its GPU.
  NP=2 PERTASK=1 step multi-pertask 0 -- --backend nccl --sizes 8,1M -n 5 -c 1
fi
}

# Without NCCL (the stand-in build has no stand-in of it): the same engine steps on p2p-oneshot, 2 ranks, sizes a
# CPU runs in seconds; the shared GPU runs (p2p takes one), a hung device (ARBENCH_EMU_HANG) replaces NCCL's.
p2p_engine_steps() {
echo "== skipped: the NCCL steps (nccl not compiled in: $nccl_why); the engine's steps (fills, checks, graphs,"
echo "   --timing loop, --buffers cold, a shared GPU, a hung device) run on p2p-oneshot with 2 ranks instead"
local B=p2p-oneshot
NP=2 step sizes 0 -- --backend $B -b 8 -e 1M -f 4 -d $D -n 10 -w 2 -c 1 --inplace both
for op in prod max min avg; do
  NP=2 step "op-$op" 0 -- --backend $B -b 8 -e 64K -f 8 -d $D -o $op -n 5 -w 1 -c 1
done
NP=2 step graph 0 -- --backend $B -b 8 -e 1M -f 16 -d $D -n 40 -w 10 -G 10 -c 1 --inplace both
NP=2 step loop 0 -- --backend $B -b 8 -e 1M -f 64 -d float -n 20 -w 5 -c 1 --timing loop -a 1
NP=2 step loop-graph 0 -- --backend $B --sizes 8,1M -d float -n 40 -w 10 -G 10 -c 1 --timing loop
NP=2 step cold 0 -- --backend $B --sizes 8,64K -d float -n 20 -w 5 -c 1 --buffers cold --repeat 2
NP=2 step bad-variant 2 -- --backend "$B:mode=Bogus" --sizes 8
NP=2 step shared-gpu-p2p 0 -- --backend $B --devices 0,0 --shared-gpu --sizes 8,64K -n 5 -c 1
NP=2 step hang 1 ARBENCH_EMU_HANG=1 -- --backend $B --sizes 8,1M -n 10 -c 1 -T 4
}

# On the NCCL stand-in (-Dcuda-emu=true): the same NCCL steps at sizes a CPU runs in seconds, multi-rank ones on 2 ranks
# (the nccl suite, tests/nccl, runs 2 to 8 ranks, the tuner plugin's deploy path and the dead ranks there).
nccl_standin_steps() {
echo "== the NCCL stand-in (CPU ranks, docs/nccl-standin.md): the NCCL steps at CPU sizes; multi-rank steps on 2 ranks"
NP=2 step sizes 0 -- --backend nccl -b 8 -e 256K -f 4 -d $D -n 10 -w 2 -c 1 --inplace both
for op in prod max min avg; do
  NP=2 step "op-$op" 0 -- --backend nccl -b 8 -e 64K -f 8 -d $D -o $op -n 5 -w 1 -c 1
done
NP=2 step graph 0 -- --backend nccl -b 8 -e 256K -f 16 -d $D -n 40 -w 10 -G 10 -c 1 --inplace both
step variants-1rank 0 -- --backend 'nccl:proto=Simple' --backend 'nccl:ctas=2' --backend 'nccl:reg=1' \
  -b 8 -e 64K -f 16 -n 10 -c 1
NP=2 step loop 0 -- --backend nccl -b 8 -e 1M -f 64 -d float -n 20 -w 5 -c 1 --timing loop -a 1
NP=2 step loop-graph 0 -- --backend nccl --sizes 8,1M -d float -n 40 -w 10 -G 10 -c 1 --timing loop
NP=2 step cold 0 -- --backend nccl --sizes 8,64K -d float -n 20 -w 5 -c 1 --buffers cold --repeat 2
step bad-variant 2 -- --backend 'nccl:algo=Bogus' --sizes 8
NP=2 step shared-gpu 3 -- --backend nccl --devices 0,0 --shared-gpu --sizes 8 # NCCL refuses: all skipped, 3
NP=2 step watchdog 1 ARBENCH_NCCL_HANG_BYTES=1048576 -- --backend nccl --sizes 8,1M -n 10 -c 1 -T 4
# the engine on a hung device (the CUDA stand-in's hook), as the steps without NCCL check it
NP=2 step hang 1 ARBENCH_EMU_HANG=1 -- --backend p2p-oneshot --sizes 8,1M -n 10 -c 1 -T 4
NP=2 step multi-sizes 0 -- --backend nccl -b 8 -e 256K -f 4 -d $D -n 10 -w 2 -c 1 --inplace both
NP=2 step multi-graph 0 -- --backend nccl -b 8 -e 256K -f 16 -d float,bf16 -n 40 -w 10 -G 10 -c 1 --inplace both
NP=2 step multi-variants 0 -- --backend 'nccl:proto=Simple;nccl:algo=Ring,proto=LL;nccl:algo=Tree;nccl:ctas=2;nccl:reg=1;nccl:symm=1' \
  -b 8 -e 256K -f 16 -d float,bf16 -n 10 -c 1
NP=2 step multi-nvls 0 -- --backend 'nccl:algo=NVLS' --sizes 1M -n 5 -c 1
NP=2 PERTASK=1 step multi-pertask 0 -- --backend nccl --sizes 8,1M -n 5 -c 1
}

if [ -n "$nccl_why" ]; then p2p_engine_steps; elif [ "$nccl_standin" -gt 0 ]; then nccl_standin_steps; else nccl_steps; fi
python3 "$src/tests/gpu/device_check_report.py" "$tmp"
nccl_rc=$?
echo
ARBENCH="$ARBENCH" bash "$src/tests/gpu/device-check-p2p.sh"
p2p_rc=$?
[ "$p2p_rc" = 77 ] && echo "(p2p-* skipped)" && p2p_rc=0
echo
# arbench links on GPUs: one GPU shared by 2 ranks through CUDA IPC, the smoke test's paths; >= 2 GPUs the full probe.
skip=" ${DEVICE_CHECK_SKIP//,/ } "
links_rc=0
if [[ $skip == *" links "* ]]; then echo "(links: a test of its own here, gpu-device-check-links)"
else ARBENCH="$ARBENCH" bash "$src/tests/gpu/device-check-links.sh"; links_rc=$?
fi
[ "$links_rc" = 77 ] && echo "(links skipped)" && links_rc=0
echo
# A killed or stopped rank in the middle of a GPU run (the host test tests/integration/dead_rank.sh, on the
# custom kernels with 4 ranks sharing GPU 0; nccl on 4 GPUs when there are): ends within -T, names the rank.
dead_rc=0
if [[ $skip == *" dead "* ]]; then
  echo "(dead ranks: a test of their own here, integration-dead_rank-standin)"
elif ! "$ARBENCH" list --wide | grep -q '^p2p-oneshot .*not compiled in'; then
  echo "== dead ranks: p2p-oneshot SIGKILL, p2p-twoshot SIGSTOP (4 ranks on GPU 0)"
  ARBENCH="$ARBENCH" DEAD_RANK_CASES="p2p-oneshot:KILL:2 p2p-twoshot:STOP:1" DEAD_RANK_N=200 \
    DEAD_RANK_ARGS="--devices 0,0,0,0 --shared-gpu" bash "$src/tests/integration/dead_rank.sh" || dead_rc=1
fi
if [ "$gpus" -ge 4 ] && [ -z "$nccl_why" ] && [ "$nccl_standin" = 0 ]; then # stand-in: integration-dead_rank-nccl
  echo "== dead ranks: nccl SIGKILL and SIGSTOP (4 GPUs)"
  ARBENCH="$ARBENCH" DEAD_RANK_CASES="nccl:KILL:3 nccl:STOP:1" DEAD_RANK_N=500 DEAD_RANK_ARGS="--devices 0,1,2,3" \
    bash "$src/tests/integration/dead_rank.sh" || dead_rc=1
fi
echo "dead ranks: $([ $dead_rc = 0 ] && echo PASS || echo FAIL)"
echo
# doctor's P2P smoke test (issue 48): peer access enabled, so a pair that ACS or the IOMMU breaks fails here instead
# of passing through host staging; on a box with ACS on, such a pair must say FAIL (and links must skip it)
if [ "$gpus" -ge 2 ] && [ "$nccl_standin" = 0 ]; then
  echo "== doctor's smoke test (every pair, P2P path)"
  "$ARBENCH" doctor 2>&1 | grep '^\[.*\] smoke:' || echo "(no smoke lines)"
fi
echo
# symm (NCCL device API) needs >= 2 GPUs: its script says why when it skips.
ARBENCH="$ARBENCH" bash "$src/tests/gpu/device-check-symm.sh"
symm_rc=$?
[ "$symm_rc" = 77 ] && echo "(symm skipped)" && symm_rc=0
echo
# nccl:tuner= (arbench's tuner plugin inside NCCL) needs >= 2 GPUs: its script says why when it skips.
ARBENCH="$ARBENCH" bash "$src/tests/tuner/device-check-tuner.sh"
tuner_rc=$?
[ "$tuner_rc" = 77 ] && echo "(tuner skipped)" && tuner_rc=0
exit $(( nccl_rc != 0 || p2p_rc != 0 || links_rc != 0 || symm_rc != 0 || dead_rc != 0 || tuner_rc != 0 ))
