#!/usr/bin/env bash
# first-contact.sh — the one prepared script for a lent GPU machine (issue 52): unpack what scripts/gpu-carry.sh
# fetched into a prefix, build arbench for the local GPU, run every device check under its own time cap, keep every log.
# Usage, repo root on the GPU machine: tests/gpu/first-contact.sh [CARRY_DIR]  (default .gpu-carry; logs under $OUT)
# FIRST_CONTACT_BUDGET=S (default 360): all steps together; a step never runs past what is left, and one that cannot
# start is listed 'not-run'. FIRST_CONTACT_ONLY=step,step reruns just those steps (after a first run fixed something).
# FIRST_CONTACT_ARBENCH=PATH runs the steps with an arbench built already (no build step).
# FIRST_CONTACT_CUDA=disabled builds without a GPU toolkit and FIRST_CONTACT_BUILD_CAP=S (default 200) lets the build
# take longer: how the script was tried in a chroot without the libraries (HACKING.md#a-lent-gpu-machine).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
carry=${1:-$src/.gpu-carry}
out=${OUT:-$src/first-contact-out}
budget=${FIRST_CONTACT_BUDGET:-360}
only=",${FIRST_CONTACT_ONLY:-},"
logs=$out/logs
mkdir -p "$logs"
summary=$out/summary.tsv
printf 'step\tcap_s\texit\tseconds\n' >"$summary"
t_start=$SECONDS
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

die() { echo "first-contact: $*" | tee -a "$out/first-contact.err" >&2; exit 2; }

# step NAME CAP CMD...: CMD under `timeout CAP` (cut to the budget left), its output in logs/NAME.log
step() {
  local name=$1 cap=$2; shift 2
  if [ "$only" != ",," ] && [[ $only != *",$name,"* ]]; then return 0; fi
  local left=$(( budget - (SECONDS - t_start) ))
  if [ "$left" -lt 10 ]; then
    printf '%s\t%s\tnot-run\t0\n' "$name" "$cap" >>"$summary"; echo "== $name: not run (budget of $budget s spent)"
    return 0
  fi
  [ "$cap" -gt "$left" ] && cap=$left
  local t0=$SECONDS rc
  timeout -k 5 "$cap" "$@" >"$logs/$name.log" 2>&1
  rc=$?
  [ $rc = 124 ] || [ $rc = 137 ] && echo "(killed at its cap of $cap s)" >>"$logs/$name.log"
  printf '%s\t%s\t%s\t%s\n' "$name" "$cap" "$rc" "$((SECONDS - t0))" >>"$summary"
  echo "== $name: exit $rc in $((SECONDS - t0)) s (cap $cap s)"
  tail -4 "$logs/$name.log" | sed 's/^/   /'
}

# --- the libraries: the machine's own when it has them, else the carried .deb files unpacked into a prefix (not /,
# which the device tool warns they can break), Open MPI relocated there with OPAL_PREFIX.
deps_from_carry() {
  local prefix=${FIRST_CONTACT_PREFIX:-/opt/arbench-deps} f
  ls "$carry"/*.deb >/dev/null 2>&1 || die "no .deb files in $carry: run scripts/gpu-carry.sh on the build machine and carry it"
  mkdir -p "$prefix"
  for f in "$carry"/*.deb; do dpkg-deb -x "$f" "$prefix" || die "could not unpack $f"; done
  local bin=$prefix/bin multi=x86_64-linux-gnu
  mkdir -p "$bin"
  # Debian names Open MPI's commands through update-alternatives, which dpkg-deb -x does not run.
  for f in mpirun mpiexec mpicc ompi_info orted; do
    [ -e "$prefix/usr/bin/$f.openmpi" ] && ln -sf "$prefix/usr/bin/$f.openmpi" "$bin/$f"
    [ -e "$prefix/usr/bin/$f" ] && ln -sf "$prefix/usr/bin/$f" "$bin/$f"
  done
  ln -sf "$prefix/usr/bin/pkgconf" "$bin/pkg-config"
  export OPAL_PREFIX=$prefix/usr PATH=$bin:$prefix/usr/bin:$PATH
  export LD_LIBRARY_PATH=$prefix/usr/lib/$multi/openmpi/lib:$prefix/usr/lib/$multi${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PKG_CONFIG=$bin/pkg-config PKG_CONFIG_SYSROOT_DIR=$prefix
  export PKG_CONFIG_LIBDIR=$prefix/usr/lib/$multi/pkgconfig:$prefix/usr/share/pkgconfig
  # gcc searches /usr/include/<multiarch> by itself (hwloc's autogen/config.h is there), not the prefix's copy
  export CPATH=$prefix/usr/include/$multi${CPATH:+:$CPATH} LIBRARY_PATH=$prefix/usr/lib/$multi${LIBRARY_PATH:+:$LIBRARY_PATH}
  # Open MPI's own defaults file lives in /etc/openmpi (not relocated); the ones a single box needs:
  export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_pml=ob1 OMPI_MCA_mca_base_component_show_load_errors=0
  # Open MPI 4.1 refuses to start even a local job when its rsh agent (ssh) is missing; one box never calls it.
  command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm_rsh_agent=false
  echo "libraries: the carried .deb files, unpacked into $prefix"
}
if command -v mpirun >/dev/null && command -v pkg-config >/dev/null && pkg-config --exists hwloc jansson libxml-2.0; then
  echo "libraries: this machine's own"
else
  deps_from_carry
fi

# --- NCCL: the toolkit's, else the nvidia-nccl wheel of the machine's Python (PyTorch's), through a prefix meson
# reads (include/, lib/libnccl.so: the wheel ships only libnccl.so.2).
find_nccl() {
  local d
  for d in ${NCCL_HOME:-} /usr/local/cuda /usr; do
    [ -n "$d" ] && [ -f "$d/include/nccl.h" ] && { echo "$d"; return; }
  done
  d=$(python3 -c 'import importlib.util as u; s = u.find_spec("nvidia.nccl"); print(list(s.submodule_search_locations)[0])' 2>/dev/null) || return
  [ -f "$d/include/nccl.h" ] || return
  local p=$out/nccl-prefix
  mkdir -p "$p/lib"
  ln -sfn "$d/include" "$p/include"
  for f in "$d"/lib/libnccl.so*; do ln -sf "$f" "$p/lib/"; done
  [ -e "$p/lib/libnccl.so" ] || ln -sf "$d/lib/libnccl.so.2" "$p/lib/libnccl.so"
  echo "$p"
}
cuda=${FIRST_CONTACT_CUDA:-enabled}
opts=(-Dcuda=$cuda)
if [ "$cuda" != disabled ]; then
  nccl_home=$(find_nccl)
  [ -n "$nccl_home" ] && opts+=(-Dnccl-home="$nccl_home") && echo "NCCL: $nccl_home"
  [ -z "$nccl_home" ] && [ "$cuda" = enabled ] && die "no nccl.h: not in /usr/local/cuda, /usr or Python's nvidia.nccl"
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  [ -n "$arch" ] && opts+=(-Dcuda-archs="$arch")
fi
{ nvidia-smi; nvidia-smi -q | sed -n '/Clocks$/,/^$/p;/Max Clocks/,/^$/p'; } >"$logs/nvidia-smi.log" 2>&1

build=$src/build-first-contact
A=${FIRST_CONTACT_ARBENCH:-$build/arbench} # an arbench built already: no build step (tests/gpu/first_contact.sh)
if [ -n "${FIRST_CONTACT_ARBENCH:-}" ]; then configure=(true)
elif [ -f "$build/build.ninja" ]; then configure=(meson configure "$build" "${opts[@]}")
else configure=(meson setup "$build" "$src" "${opts[@]}"); fi
[ -n "${FIRST_CONTACT_ARBENCH:-}" ] ||
  step build "${FIRST_CONTACT_BUILD_CAP:-200}" bash -c "$(printf '%q ' "${configure[@]}") && ninja -C $(printf '%q' "$build") -j $(nproc)"
[ -x "$A" ] || { echo "first-contact: no $A: the build failed ($logs/build.log)"; tail -30 "$logs/build.log" 2>/dev/null; }

if [ -x "$A" ]; then
  step version 20 bash -c "'$A' version && '$A' list && '$A' topo"
  gpus=$("$A" list 2>/dev/null | sed -n 's/^GPUs visible: \([0-9]*\).*/\1/p') # as CUDA sees them (CUDA_VISIBLE_DEVICES)
  # Open MPI itself from the prefix, on host backends, before any GPU: a failure here is the launcher's, not a GPU's.
  step host-sanity 40 mpirun -np 2 "$A" run --backend mpi,shm-oneshot -b 8 -e 64K -f 8 -n 20 -w 5 -J "$out/host.jsonl"
  if [ "${gpus:-0}" -gt 0 ]; then
    # Every device check that exists (engine and nccl on 1 rank, p2p-*, fused, links on one shared GPU, dead ranks,
    # symm and the tuner plugin with their one-GPU skips), its step logs kept.
    step device-check 200 env ARBENCH="$A" DEVICE_CHECK_LOGS="$logs/device-check" bash "$src/tests/gpu/device-check.sh"
    # 2 and 4 ranks sharing GPU 0 (CUDA IPC between processes on one device; the ranks time-slice the GPU, so the
    # latencies are a harness check, not a PCIe number), and the largest block every custom kernel allows.
    step shared-np2 60 mpirun -np 2 "$A" run --backend p2p-oneshot,p2p-twoshot,fused --devices 0,0 --shared-gpu \
      -b 8 -e 64K -f 2 -d bfloat16 -n 50 -w 10 -c 1 -J "$out/shared-np2.jsonl"
    step shared-np4 60 mpirun -np 4 "$A" run --backend p2p-oneshot,p2p-twoshot --devices 0,0,0,0 --shared-gpu \
      -b 8 -e 1M -f 8 -n 20 -w 5 -c 1 -J "$out/shared-np4.jsonl"
    step threads-1024 40 mpirun -np 2 "$A" run --backend 'p2p-oneshot:threads=1024' --backend 'p2p-twoshot:threads=1024' \
      --devices 0,0 --shared-gpu --sizes 8,64K,4M -n 10 -c 1 -J "$out/threads1024.jsonl"
    # NCCL's conf file (read once per process at its first env read) under several variants in one process.
    printf 'NCCL_MIN_CTAS=4\nNCCL_PROTO=LL\n' >"$out/nccl.conf"
    step nccl-conf 40 env NCCL_CONF_FILE="$out/nccl.conf" NCCL_DEBUG=INFO mpirun -np 1 "$A" run \
      --backend 'nccl;nccl:ctas=2;nccl:proto=Simple' --sizes 8,1M -n 10 -c 1 -J "$out/nccl-conf.jsonl"
  else
    echo "skipped: no CUDA device (the GPU steps)"
  fi
fi
echo
column -t "$summary" 2>/dev/null || cat "$summary"
echo "total: $((SECONDS - t_start)) s of a $budget s budget"
# What comes back from the device tool: at most 8 files of 16 MiB; the logs travel as one archive.
tar -C "$out" -czf "$out/first-contact-logs.tgz" logs 2>/dev/null && rm -rf "$logs"
awk -F'\t' 'NR > 1 && $3 != "0" && $3 != "77" { bad = 1 } END { exit bad }' "$summary"
