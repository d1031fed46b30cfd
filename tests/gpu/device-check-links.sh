#!/usr/bin/env bash
# device-check-links.sh — `arbench links` on GPUs, called by device-check.sh (ARBENCH set) or alone: one GPU:
# two ranks sharing it through CUDA IPC (copy engine and SM, read and write, uni and bi, the flag ping-pong and
# the copy engine's small-copy latency, records checked), the smoke test's timeout path (a rank whose copies
# never finish in time: the pair skipped with the ACS/IOMMU line, no hang) and its data check (corruption on
# arrival); >= 2 GPUs: the full probe, one rank per GPU, path classes from the topology; doctor's smoke test.
# Correctness, not PCIe speed, on one GPU: without MPS the two ranks' kernels are time-sliced. On the CPU stand-in of
# CUDA (a -Dcuda-emu=true build) the same steps; its devices are on no PCI bus, so every path class is '?', and the
# full probe measures 64K and 256K, twice.
# No GPU: 'skipped: no CUDA device' (exit 77).  Usage: ARBENCH=build/arbench tests/gpu/device-check-links.sh
set -u
src=${ARBENCH_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
ARBENCH=${ARBENCH:-$src/build/arbench}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
gpus=$("$ARBENCH" list --wide 2>/dev/null | sed -n 's/^GPUs visible: \([0-9]*\).*/\1/p')
[ "${gpus:-0}" -gt 0 ] || { echo "skipped: no CUDA device"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
# --smoke-timeout of the steps whose pairs are healthy: a hang bound (each smoke-test copy, each ping-pong flag wait),
# scaled with the load as the steps' own timeouts are (a loaded host slows the CPU stand-in's "GPU" too; the silent
# step's 1 s is the timeout it tests)
ST=$((${ARBENCH_TIMEOUT_MULTIPLIER:-1}))
ONE='"X"' MANY='"PIX", "PXB", "PHB", "NODE", "SYS"' # path classes
FULL=(-b 1M -e 16M -f 16 -n 10 -w 2 --repeat 3) # the full probe's sizes and counts
if "$ARBENCH" list --wide | grep -q '^GPUs visible: [0-9]* (CPU stand-in'; then
  ONE='"?"' MANY='"?"' FULL=(-b 64K -e 256K -f 4 -n 4 -w 1 --repeat 2 --lat-iters 20)
fi

# step NAME WANT NP [ENV=V...] -- links arguments
step() {
  local name=$1 want=$2 np=$3; shift 3
  local envs=() xs=()
  while [ "$1" != -- ]; do envs+=("$1"); xs+=(-x "${1%%=*}"); shift; done
  shift
  local t0=$SECONDS
  env "${envs[@]}" timeout $((300 * ${ARBENCH_TIMEOUT_MULTIPLIER:-1})) mpirun -np "$np" "${xs[@]}" "$ARBENCH" links -J "$tmp/$name.jsonl" "$@" \
    >"$tmp/$name.out" 2>"$tmp/$name.err"
  local rc=$?
  echo "== $name: exit $rc (want $want), $((SECONDS - t0)) s"
  if [ "$rc" != "$want" ]; then
    tail -5 "$tmp/$name.err"
    fails=$((fails + 1))
  fi
}

# check NAME PYTHON: assertions over the step's records (recs: the link records, skips: the skip records,
# need(COND, WHAT)), run by the one report reader; a failed one shows the step's arbench lines (a step that must
# exit 1, as `fault` does for its corrupt pair, would otherwise hide why a measurement is missing)
check() {
  local name=$1
  if python3 "$src/tests/gpu/device_check_report.py" --links "$tmp/$name.jsonl" "$2"
  then echo "   $name records: ok"
  else
    grep 'arbench' "$tmp/$name.err" | tail -8
    fails=$((fails + 1))
  fi
}

M=ce-read,ce-write,sm-read,sm-write
"$ARBENCH" version | grep -q '^GPU archs  *none' && M=ce-read,ce-write # no nvcc (an NVRTC stack): no SM kernels
echo "== links on one GPU shared by 2 ranks (methods $M)"
step one-gpu 0 2 -- --devices 0,0 --shared-gpu --method $M -b 64K -e 1M -f 16 --pattern pairs,all,ring -n 5 -w 1 \
  --repeat 2 --lat-iters 20 --smoke-timeout $((10 * ST))
check one-gpu '
ms = "'$M'".split(",")
need(not skips, "no pair skipped: %s" % skips)
for m in ms:
    for d in ("uni", "bi"):
        rs = [r for r in recs if r["method"] == m and r["direction"] == d and r["pattern"] == "pairs"]
        sizes = {r["bytes"] for r in rs}
        need(sizes == {64 << 10, 1 << 20} and len(rs) == 2 * len(sizes), "%s %s: %d pair records" % (m, d, len(rs)))
for r in recs:
    need(r["wrong"] == 0, "data wrong: %s" % r)
    if r["direction"] in ("uni", "bi"):
        need(r["gbs"] is not None and r["gbs"] > 0 and len(r["samples_gbs"]) == 2, "gbs: %s" % r)
        need(r["path"] == '$ONE' and r["src_id"] == r["dst_id"] != "?", "one GPU: path '"${ONE//\"/}"', same bus id: %s" % r)
lat = [r for r in recs if r["method"] == "flag"]
if "sm-read" in ms:
    need(len(lat) == 2 and all(r["us"] is not None and r["us"] > 0 for r in lat), "flag latency: %s" % lat)
ce = [r for r in recs if r["direction"] == "latency"]
need(len(ce) == 4 and all(r["us"] > 0 for r in ce), "copy-engine latency: %s" % ce)
'
grep -q "one-way flag latency" "$tmp/one-gpu.out" || { echo "FAIL: no latency matrix"; fails=$((fails + 1)); }

echo "== the smoke test's timeout path: rank 1's copies queue behind a kernel that outlasts --smoke-timeout"
# 0->1: rank 1's pull times out (the ACS/IOMMU line), its GPU is stuck: 1->0 is skipped untested (one line naming it)
step silent 1 2 ARBENCH_INJECT_SILENT=1 -- --devices 0,0 --shared-gpu --method ce-write -b 64K -e 64K --pattern pairs \
  --direction uni -n 2 --repeat 1 --lat-iters 0 --smoke-timeout 1
check silent '
need(sorted((s["src"], s["dst"], s["smoke"]) for s in skips) == [(0, 1, "timeout"), (1, 0, "stuck")], "skips: %s" % skips)
need(not recs, "nothing measured on skipped pairs: %s" % recs)
'
[ "$(grep -c 'PCIe ACS or the IOMMU' "$tmp/silent.err")" = 1 ] && [ "$(grep -c 'GPU of rank 1 (' "$tmp/silent.err")" = 1 ] \
  || { echo "FAIL: not one ACS/IOMMU line for 0->1 and one stuck line for rank 1"; cat "$tmp/silent.err"; fails=$((fails + 1)); }

echo "== the smoke test's data check: what rank 1 receives is corrupted"
step fault 1 2 ARBENCH_INJECT_FAULT=1:mid -- --devices 0,0 --shared-gpu --method ce-read -b 64K -e 64K --pattern pairs \
  --direction uni -n 2 --repeat 1 --lat-iters 0 --smoke-timeout $((10 * ST))
check fault '
need(len(skips) == 1 and skips[0]["smoke"] == "corrupt" and (skips[0]["src"], skips[0]["dst"]) == (0, 1), "one corrupt skip 0->1: %s" % skips)
need(all((r["src"], r["dst"]) == (1, 0) for r in recs) and recs, "only 1->0 measured: %s" % recs)
'

echo "== a hold that ends before its release (a loaded host): the try is measured again, not a GPU failure"
# rank 0 (the puller of 1->0) ends its first held try unheld: 1->0 is measured again with a longer hold; both measured
step unheld 0 2 ARBENCH_INJECT_UNHELD=0:1 -- --devices 0,0 --shared-gpu --method ce-read -b 64K -e 64K --pattern pairs \
  --direction uni -n 2 --repeat 1 --lat-iters 0 --smoke-timeout $((10 * ST))
check unheld '
need(not skips, "no pair skipped: %s" % skips)
need(sorted((r["src"], r["dst"]) for r in recs) == [(0, 1), (1, 0)] and all(r["wrong"] == 0 and r["gbs"] > 0 for r in recs), "both measured: %s" % recs)
'
[ "$(grep -c '^arbench links: ce-read uni pairs 1->0, 65536 bytes: try 1 of 3 ended unheld .*measuring it again with a 20 s hold$' "$tmp/unheld.err")" = 1 ] \
  || { echo "FAIL: not one retry line for 1->0"; cat "$tmp/unheld.err"; fails=$((fails + 1)); }

if [ "$ONE" = '"?"' ]; then # the stand-in's device faults (docs/emu.md): rank 1's IPC opens fail, its copies corrupt
  echo "== the stand-in's faults: rank 1 cannot map its peer's memory (ACS/IOMMU), rank 1's copies corrupt data"
  step ipc-fail 1 2 ARBENCH_EMU_IPC_FAIL=1 -- --method ce-read -b 64K -e 64K --pattern pairs --direction uni -n 2 \
    --repeat 1 --lat-iters 0
  check ipc-fail '
need(len(skips) == 2 and all("could not be mapped through CUDA IPC" in s["reason"] for s in skips), "two no-IPC skips: %s" % skips)
need(not recs, "nothing measured: %s" % recs)
'
  step corrupt-copy 1 2 ARBENCH_EMU_CORRUPT=1 -- --method ce-write -b 64K -e 64K --pattern pairs --direction uni -n 2 \
    --repeat 1 --lat-iters 0
  check corrupt-copy '
need(len(skips) == 2 and all(s["smoke"] == "corrupt" for s in skips), "two corrupt skips: %s" % skips)
'
fi

echo "== bad input"
step bad-devices 2 2 -- --method sm-read --devices 0,x

if [ "$gpus" -ge 2 ]; then
  np=$(( gpus > 8 ? 8 : gpus ))
  echo "== the full probe on $np GPUs, one rank each (default methods and patterns)"
  step full 0 "$np" -- "${FULL[@]}" --smoke-timeout $((5 * ST))
  check full '
n = '$np'
need(not skips, "no pair skipped: %s" % skips)
for m in sorted({r["method"] for r in recs if r["direction"] in ("uni", "bi")}):
    rs = [r for r in recs if r["method"] == m and r["direction"] == "uni" and r["pattern"] == "pairs" and r["bytes"] == max(x["bytes"] for x in recs)]
    need(len(rs) == n * (n - 1), "%s: %d of %d pairs" % (m, len(rs), n * (n - 1)))
    for r in rs:
        need(r["path"] in ('$MANY',) and r["src_id"] != r["dst_id"], "path class: %s" % r)
        need(r["score"] is None or 0 < r["score"] < 1.5, "score: %s" % r)
need(all(r["wrong"] == 0 for r in recs), "data wrong")
need({r["pattern"] for r in recs} >= {"pairs", "all", "to-one", "from-one", "oneshot", "ring"}, "every pattern")
'
  sed -n '1,40p' "$tmp/full.out"
fi

echo "== doctor's smoke test"
"$ARBENCH" doctor >"$tmp/doctor.out" 2>&1
grep '] smoke:' "$tmp/doctor.out"
if [ "$gpus" -ge 2 ]; then
  [ "$(grep -c '^\[ok  \] smoke:' "$tmp/doctor.out")" = $((gpus * (gpus - 1) / 2)) ] \
    || { echo "FAIL: doctor's smoke test not ok on every pair"; fails=$((fails + 1)); }
else
  grep -q '^\[skip\] smoke: one CUDA device' "$tmp/doctor.out" || { echo "FAIL: doctor smoke on one GPU"; fails=$((fails + 1)); }
fi

echo "== links device check: $fails failure(s)"
[ "$fails" = 0 ]
