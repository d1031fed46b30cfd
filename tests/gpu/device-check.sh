#!/usr/bin/env bash
# device-check.sh — the first thing to run on a GPU box: build arbench for the local GPU, then in a few
# minutes: nccl on one rank over 8 B–256 MiB with every dtype checked, every op, graph mode (-G), --timing loop
# (plain and graphs), --buffers cold with --repeat, variants,
# a bad variant, duplicate GPUs, the watchdog; a summary table at the end. No GPU: 'skipped: no CUDA device'.
# Usage: tests/gpu/device-check.sh [BUILD_DIR]     (ARBENCH=path/to/arbench skips the build)
set -u
src=${ARBENCH_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

gpus=0
if [ -n "${ARBENCH:-}" ]; then
  gpus=$("$ARBENCH" list 2>/dev/null | sed -n 's/^GPUs visible: \([0-9]*\).*/\1/p')
elif command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
if [ "${gpus:-0}" = 0 ]; then
  echo "skipped: no CUDA device"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
  env "${envs[@]}" mpirun -np "${NP:-1}" "$ARBENCH" run -J "$tmp/$name.jsonl" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local rc=$?
  echo "$name $want $rc $((SECONDS - t0))" >>"$tmp/steps"
  echo "== $name: exit $rc (want $want), $((SECONDS - t0)) s"
  [ "$rc" = "$want" ] || tail -5 "$tmp/$name.err"
}

"$ARBENCH" --version
"$ARBENCH" list | grep -E '^nccl|GPUs visible'
D=float,half,bf16,int32
step sizes 0 -- --backend nccl -b 8 -e 256M -f 2 -d $D -n 20 -w 5 -c 1 --inplace both
for op in prod max min avg; do
  step "op-$op" 0 -- --backend nccl -b 8 -e 16M -f 8 -d $D -o $op -n 10 -w 2 -c 1
done
step graph 0 -- --backend nccl -b 8 -e 64M -f 4 -d $D -n 100 -w 10 -G 10 -c 1 --inplace both
step variants 0 -- --backend 'nccl:proto=Simple' --backend 'nccl:algo=Ring,proto=LL' --backend 'nccl:ctas=2' \
  --backend 'nccl:reg=1' -b 8 -e 4M -f 16 -n 10 -c 1
step loop 0 -- --backend nccl -b 8 -e 64M -f 64 -d float -n 20 -w 5 -c 1 --timing loop -a 1
step loop-graph 0 -- --backend nccl --sizes 8,1M -d float -n 100 -w 10 -G 10 -c 1 --timing loop
step cold 0 -- --backend nccl --sizes 8,1M,256M -d float -n 20 -w 5 -c 1 --buffers cold --repeat 2
step bad-variant 2 -- --backend 'nccl:algo=Bogus' --sizes 8
NP=2 step shared-gpu 0 -- --backend nccl --devices 0,0 --shared-gpu --sizes 8
step watchdog 1 ARBENCH_NCCL_HANG_BYTES=1048576 -- --backend nccl --sizes 8,1M -n 10 -c 1 -T 4

python3 - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
def recs(name):
    p = os.path.join(tmp, name + ".jsonl")
    out = []
    for line in open(p) if os.path.exists(p) else []:
        try: out.append(json.loads(line))
        except ValueError: pass
    return out
def text(name, ext):
    p = os.path.join(tmp, name + "." + ext)
    return open(p).read() if os.path.exists(p) else ""
extra = {
    "bad-variant": lambda r, e: "Bogus" in e and "allowed" in e,
    "shared-gpu": lambda r, e: any(x.get("type") == "skip" and "share one GPU" in x.get("reason", "") for x in r),
    "loop": lambda r, e: all(x["samples_n"] == 1 and x["timing"] == "loop" and x["average"] == "mean"
                             for x in r if x.get("type") == "result"),
    "loop-graph": lambda r, e: all(x["samples_n"] == 1 and x["graph"] == 10 for x in r if x.get("type") == "result"),
    "cold": lambda r, e: all(x["buffers"] == "cold" and (x["nsets"] > 1 or x["size"] > 1 << 27)
                             for x in r if x.get("type") == "result")
                         and sorted({x["repeat"] for x in r if x.get("type") == "result"}) == [0, 1],
    "watchdog": lambda r, e: "timeout: nccl" in e and "1048576 bytes" in e and "aborted the NCCL communicator" in e
                             and "made no progress" not in e,
}
print("\n%-12s %5s %3s %7s %6s %5s %6s %5s  %s" % ("step", "want", "rc", "results", "wrong", "skips", "errors", "secs", "verdict"))
bad = 0
for line in open(os.path.join(tmp, "steps")):
    name, want, rc, secs = line.split()
    r, e = recs(name), text(name, "err")
    res = [x for x in r if x.get("type") == "result"]
    wrong = sum(x.get("wrong", 0) for x in res)
    nerr = sum(1 for x in r if x.get("type") == "error")
    ok = rc == want and (wrong == 0 or name == "watchdog") and extra.get(name, lambda r, e: True)(r, e)
    if name in ("sizes", "graph", "loop", "loop-graph", "cold") or name.startswith("op-"):
        ok = ok and len(res) > 0 and all(x["checked"] for x in res) and nerr == 0
    bad += not ok
    print("%-12s %5s %3s %7d %6d %5d %6d %5s  %s" % (name, want, rc, len(res), wrong,
          sum(1 for x in r if x.get("type") == "skip"), nerr, secs, "PASS" if ok else "FAIL"))
print("\nnccl, 1 rank, float out-of-place:")
for x in recs("sizes"):
    if x.get("type") == "result" and x["dtype"] == "float" and x["placement"] == "out" and x["size"] in (8, 65536, 1 << 20, 1 << 28):
        print("  %10d B  p50 %9.2f us  algbw %8.2f GB/s  algo %s" % (x["size"], x["time_us"]["p50"], x["algbw_p50_gbs"], x.get("nccl", {}).get("algo")))
for x in recs("graph"):
    if x.get("type") == "result" and x["dtype"] == "float" and x["placement"] == "out" and x["size"] == 8:
        print("  graph -G 10, 8 B: p50 %.2f us per allreduce" % x["time_us"]["p50"])
hot = {x["size"]: x["time_us"]["p50"] for x in recs("sizes") if x.get("type") == "result" and x["dtype"] == "float"
       and x["placement"] == "out"}
for x in recs("cold"):
    if x.get("type") == "result" and x["repeat"] == 0 and x["size"] in hot:
        print("  %10d B  p50 cold %9.2f us, hot %9.2f us (cold/hot %.2f)" % (x["size"], x["time_us"]["p50"],
              hot[x["size"]], x["time_us"]["p50"] / hot[x["size"]]))
for x in recs("loop"):
    if x.get("type") == "result" and x["size"] in hot:
        print("  %10d B  loop mean %9.2f us, iter p50 %9.2f us" % (x["size"], x["time_us"]["p50"], hot[x["size"]]))
print("\ndevice-check: %s" % ("PASS" if not bad else "FAIL (%d steps)" % bad))
sys.exit(1 if bad else 0)
PY
