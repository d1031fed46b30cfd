#!/usr/bin/env bash
# run.sh — the main job: set up and build what this machine can run (the local GPUs' archs, or the host
# parts only), benchmark every backend that can run here (all local GPUs, or CPU ranks on the host
# backends), then a short summary: what runs, one line per backend, the decision table, where the files
# are. The raw per-run tables go to a log file next to the results. RESULTS_DIR (default results/local)
# receives them; ARBENCH_ARGS adds run options (a default it gives again is dropped); MESON_OPTS overrides the build choice.
# --print-build: print the meson options a fresh build would get here and exit.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR
t0=$SECONDS
say() { echo "run: $*" >&2; }
usage() {
  cat <<'EOF'
usage: scripts/run.sh [--print-build | --help]
The main job: install what is missing, build what this machine can run, benchmark every backend that can
run here (all local GPUs, or CPU ranks on the host backends), then print the decision table and where the
results, tuning files, plots and the per-run log are. It takes no options; the environment changes it:
  ARBENCH_ARGS="..."   more `arbench run` options (arbench run --help), e.g. ARBENCH_ARGS="--backend mpi -e 1M";
                       a default given again there is dropped (GPU: -b 8 -e 256M -f 2 -n 50 -w 10 -d bfloat16
                       --repeat 3; CPU: -b 8 -e 16M -f 4 -n 50 -w 5 -d float --repeat 3)
  RESULTS_DIR=DIR      where the results, log, tune/ and plots/ go (default results/local)
  BUILD_DIR=DIR        the build directory (default build; an existing one is used as configured)
  MESON_OPTS="..."     meson options of a fresh build (default: the local GPUs' archs, or -Dcuda=disabled)
  --print-build        print the meson options a fresh build would get here, and exit
Exit status: 0 measured and checked; else arbench run's (1 wrong results or errors, 3 nothing measured),
1 when the table failed, 2 bad usage.
On a GPU box run tests/gpu/device-check.sh first (a few minutes on one GPU: the engine, NCCL, CUDA graphs
and the watchdog checked; HACKING.md#device-checks-on-a-gpu-box). README.md says how long each example takes.
EOF
}
case "$*" in
  -h|--help|help) usage; exit 0 ;;
  ""|--print-build) ;;
  *) echo "run.sh: unknown argument '$*' (allowed: one of --print-build, --help; run options go in ARBENCH_ARGS, see --help)" >&2
     exit 2 ;;
esac

# What to build: kernels for the archs of the GPUs the driver reports, none without a GPU. An existing
# build is used as it was configured (meson configure BUILD_DIR changes it).
if { [ ! -f "$BUILD_DIR/build.ninja" ] || [ "${1:-}" = --print-build ]; } && [ -z "${MESON_OPTS:-}" ]; then
  caps=""
  if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' | sort -un | paste -sd, || true)
    if [[ $caps =~ ^[0-9]+(,[0-9]+)*$ ]]; then
      say "GPUs of compute capability $caps: building kernels for those archs only (-Dcuda-archs=$caps)"
      export MESON_OPTS="-Dcuda-archs=$caps"
    else
      say "GPUs found but the driver does not report their compute capability: building every default arch"
    fi
  else
    say "no GPU (nvidia-smi lists none): building the host parts only (-Dcuda=disabled)"
    export MESON_OPTS="-Dcuda=disabled"
  fi
elif [ -f "$BUILD_DIR/build.ninja" ] && [ "${1:-}" != --print-build ]; then
  say "using the existing build in $BUILD_DIR (as configured; meson configure $BUILD_DIR changes it)"
fi
if [ "${1:-}" = --print-build ]; then echo "MESON_OPTS=${MESON_OPTS:-}"; exit 0; fi
scripts/setup.sh
tb=$SECONDS
A=$BUILD_DIR/arbench
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
gpus=$(command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
gpus=${gpus:-0}
list=$("$A" list)
if [ "$gpus" -gt 0 ] && grep -qE '^nccl +gpu +available' <<<"$list"; then
  np=$gpus where=gpu
  args=(-b 8 -e 256M -f 2 -n 50 -w 10 -d bfloat16 --repeat 3)
  say "$np GPUs"
else
  cores=$(nproc)
  np=$(( cores < 2 ? 2 : cores > 8 ? 8 : cores )) where=host
  args=(-b 8 -e 16M -f 4 -n 50 -w 5 -d float --repeat 3)  # 3 runs: tune resamples them (stable ranges)
  say "no usable GPU; $np CPU ranks on the host backends"
fi
# ARBENCH_ARGS wins over the defaults: a default it gives again (in either spelling) is dropped, since
# arbench refuses an option given twice. --sizes/--counts replace the whole -b/-e/-f series.
read -r -a extra <<<"${ARBENCH_ARGS:-}"
given() { # given SHORT LONG...: does ARBENCH_ARGS give this option?
  local w n
  for w in "${extra[@]}"; do
    for n in "$@"; do [[ $w == "$n" || $w == "$n="* || ($n == -? && $w == "$n"?*) ]] && return 0; done
  done
  return 1
}
keep=()
for ((i = 0; i < ${#args[@]}; i += 2)); do
  case ${args[i]} in
    -b) names=(-b --minbytes) ;; -e) names=(-e --maxbytes) ;; -f) names=(-f --stepfactor) ;;
    -n) names=(-n --iters) ;; -w) names=(-w --warmup --warmup_iters) ;; -d) names=(-d --datatype) ;;
    *) names=("${args[i]}") ;;
  esac
  case ${args[i]} in -b|-e|-f) names+=(--sizes --counts -i) ;; esac
  given "${names[@]}" || keep+=("${args[i]}" "${args[i + 1]}")
done
args=("${keep[@]}")
# what `arbench run` runs by default here: the available backends of this side, not the emu-* ones
# (the GPU kernels on CPU threads: a correctness check, never in the default list)
backends=$(awk -v w="$where" '$2 == w && $3 == "available" && $1 !~ /^emu-/ {printf "%s%s", n++ ? ", " : "", $1}' <<<"$list")
nb=$(awk -v w="$where" '$2 == w && $3 == "available" && $1 !~ /^emu-/' <<<"$list" | wc -l)
case " ${ARBENCH_ARGS:-} " in
  *" --backend "*) backends="as ARBENCH_ARGS gives" nb="" ;;
esac
say "backends: $backends; options: ${args[*]} ${ARBENCH_ARGS:-}"
R=${RESULTS_DIR:-results/local}
mkdir -p "$R"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=$R/run-$stamp.jsonl
log=$R/run-$stamp.log
say "raw per-run tables: $log"

# progress: the run's stdout goes to the log; the console gets one line per backend (rows measured, wrong
# elements, seconds), its skips, and a line at least every 30 s while a backend runs.
progress() {
  local cur="" rows=0 wrong=0 t=$SECONDS beat=$SECONDS k=0 rep="" f w
  done_line() { [ -z "$cur" ] || say "  [$k${nb:+/$nb}] $cur: $rows measurements, $wrong wrong, $((SECONDS - t)) s"; }
  while IFS= read -r l; do
    printf '%s\n' "$l" >>"$log"
    case $l in
      "# backend "*) done_line; cur=${l#\# backend }; cur=${cur%, * ranks}; rows=0 wrong=0 t=$SECONDS beat=$SECONDS
                     k=$((k + 1)) ;;
      "# "*": skipped: "*) say "  ${l#\# }" ;;
      "# repeat "*) rep=${l#\# repeat } ;;
      "#"*|"") ;;
      *) read -ra f <<<"$l"
         rows=$((rows + 1))
         for w in "${f[@]:5}"; do [[ $w =~ ^[0-9]+$ ]] && wrong=$((wrong + w)); done ;;
    esac
    if [ -n "$cur" ] && [ $((SECONDS - beat)) -ge 30 ]; then
      say "  ... $cur: $rows measurements${rep:+, repeat $rep}, $((SECONDS - t)) s"
      beat=$SECONDS
    fi
  done
  done_line
}
rc=0   # wrong results or error records exit 1: still show what was measured, then fail
set +e
mpirun --oversubscribe -np "$np" "$A" run "${args[@]}" ${ARBENCH_ARGS:-} -J "$out" | progress
rc=${PIPESTATUS[0]}
set -e
tr=$SECONDS
"$A" table --busbw "$out" || rc=1
# tune and the plots write their messages to the log; a failure is one line naming it
tune=""; "$A" tune "$out" -o "$R/tune" >>"$log" 2>&1 && tune=$R/tune || say "tune failed (its messages: $log)"
plots=""; plots/arbench-plot "$out" -o "$R/plots" --arbench "$A" >>"$log" 2>&1 && plots=$R/plots \
  || say "plots failed (its messages: $log)"
say "results in $out"
say "raw tables in $log"
[ -n "$tune" ] && say "tuning files in $tune"
[ -n "$plots" ] && say "plots in $plots"
say "done in $((SECONDS - t0)) s (build $((tb - t0)) s, benchmark $((tr - tb)) s, analysis $((SECONDS - tr)) s)$([ $rc = 0 ] || echo ", exit status $rc")"
exit $rc
