#!/usr/bin/env bash
# shm-vs-mpi.sh — 2 ranks, 8 B..64 MiB: Open MPI's MPI_Allreduce (default, and coll_tuned algorithms 1..6)
# against the shm-* backends; prints p50 per size and the ratio best Open MPI / best shm (> 1: shm faster).
# usage: bench/perf/shm-vs-mpi.sh [-a ARBENCH] [-n ITERS_SMALL] [-N ITERS_LARGE] [-r ROUNDS] [-o DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ARBENCH=${ARBENCH:-$here/../../build/arbench}
NSMALL=2000 NLARGE=40 ROUNDS=1 OUT=
while getopts "a:n:N:r:o:h" o; do
  case $o in
  a) ARBENCH=$OPTARG ;;
  n) NSMALL=$OPTARG ;;
  N) NLARGE=$OPTARG ;;
  r) ROUNDS=$OPTARG ;;
  o) OUT=$OPTARG ;;
  *) sed -n 2,4p "$0"; exit 2 ;;
  esac
done
[ -x "$ARBENCH" ] || { echo "shm-vs-mpi.sh: no arbench binary at '$ARBENCH' (use -a PATH)" >&2; exit 2; }
OUT=${OUT:-$(mktemp -d /tmp/shm-vs-mpi.XXXXXX)}
mkdir -p "$OUT"
J=$OUT/results.jsonl
: >"$J"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SHM=shm-oneshot,shm-twoshot,shm-staged,shm-islands

run() { # run CONFIG BACKENDS [ENV=V...]: small sizes with many iterations, large ones with fewer
  local cfg=$1 be=$2; shift 2
  local xs=() kv
  for kv in "$@"; do xs+=(-x "$kv"); done
  env "$@" mpirun -np 2 "${xs[@]}" "$ARBENCH" run --backend "$be" -b 8 -e 256K -n "$NSMALL" -w 200 \
    --point "{\"config\":\"$cfg\"}" -J "$J" --quiet >/dev/null
  env "$@" mpirun -np 2 "${xs[@]}" "$ARBENCH" run --backend "$be" -b 512K -e 64M -n "$NLARGE" -w 3 \
    --point "{\"config\":\"$cfg\"}" -J "$J" --quiet >/dev/null
}

for ((round = 0; round < ROUNDS; round++)); do
  echo "# round $((round + 1))/$ROUNDS: default Open MPI + shm-*" >&2
  run default "mpi,$SHM"
  for alg in 1 2 3 4 5 6; do
    echo "# round $((round + 1))/$ROUNDS: Open MPI allreduce algorithm $alg" >&2
    run "ompi-alg$alg" mpi OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=$alg
  done
done

python3 - "$J" <<'PY'
import json, statistics, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
errs = [r for r in recs if r["type"] in ("error", "skip")]
for r in errs:
    print("#", r["type"], r.get("spec"), r.get("message") or r.get("reason"))
p50 = {}  # (config, size) -> [p50 of each round]
for r in recs:
    if r["type"] != "result" or r["wrong"]:
        continue
    cfg = r["backend"] if r["backend"] != "mpi" else "mpi/" + r["point"]["config"]
    p50.setdefault((cfg, r["size"]), []).append(r["time_us"]["p50"])
cfgs = sorted({c for c, _ in p50}, key=lambda c: (not c.startswith("mpi"), c))
sizes = sorted({s for _, s in p50})
med = {k: statistics.median(v) for k, v in p50.items()}
def fmt(b):
    return f"{b >> 20}M" if b >= 1 << 20 else f"{b >> 10}K" if b >= 1 << 10 else f"{b}"
short = [c.replace("mpi/ompi-alg", "alg").replace("mpi/default", "ompi").replace("shm-", "") for c in cfgs]
print("# p50 (us) per size, 2 ranks, float sum; ratio = best Open MPI / best shm (> 1: shm faster)")
print(f"{'size':>6} " + " ".join(f"{s:>9}" for s in short) + f" {'bestMPI':>9} {'bestSHM':>9} {'ratio':>6}")
worst = None
for s in sizes:
    row = [med.get((c, s)) for c in cfgs]
    mpi = [v for c, v in zip(cfgs, row) if c.startswith("mpi") and v is not None]
    shm = [v for c, v in zip(cfgs, row) if c.startswith("shm") and v is not None]
    ratio = min(mpi) / min(shm) if mpi and shm else float("nan")
    worst = ratio if worst is None or ratio < worst else worst
    cells = " ".join(f"{v:9.2f}" if v is not None else f"{'-':>9}" for v in row)
    best_shm = short[cfgs.index(min((c for c in cfgs if c.startswith('shm') and med.get((c, s))), key=lambda c: med[(c, s)]))]
    print(f"{fmt(s):>6} {cells} {min(mpi):9.2f} {min(shm):9.2f} {ratio:6.2f}  {best_shm}")
print(f"# smallest ratio: {worst:.2f} ({'goal met' if worst >= 1 else 'goal NOT met'} at every size)")
PY
echo "# records: $J" >&2
