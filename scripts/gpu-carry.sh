#!/usr/bin/env bash
# gpu-carry.sh — what a lent GPU machine lacks to build and run arbench (issue 52), fetched here beforehand: the
# Debian libraries arbench links and Open MPI's launcher, as .deb files in .gpu-carry/ (git-ignored; name it in carry).
# Usage: scripts/gpu-carry.sh [DIR]   (default .gpu-carry). Then on the GPU machine: tests/gpu/first-contact.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.gpu-carry}
# Runtime libraries of arbench, mpirun/orted and the MCA components (ldd, mapped with dpkg -S), less the base system
# every image has (libc6, libgcc-s1, libstdc++6, zlib1g, liblzma5, libudev1, libuuid1, libatomic1); the -dev packages
# for meson's dependency() (headers, pkg-config files, .so links) and pkgconf to read them; libicu-dev because
# libxml2's headers include ICU's; cmocka, which tests/ needs to build (and the gpu suite to run there).
PKGS=(libopenmpi3 libopenmpi-dev openmpi-bin openmpi-common libpmix2 libevent-core-2.1-7 libevent-pthreads-2.1-7
      libfabric1 libucx0 libibverbs1 ibverbs-providers librdmacm1 libnl-3-200 libnl-route-3-200 libpsm2-2
      libpsm-infinipath1 libnuma1 libmunge2 libhwloc15 libhwloc-dev libjansson4 libjansson-dev libxml2 libxml2-dev
      libicu72 libicu-dev pkgconf pkgconf-bin libpkgconf3 hwloc libcmocka0 libcmocka-dev)
LIMIT_MB=${GPU_CARRY_LIMIT_MB:-48} # the device tool carries 64 MiB a call, the working tree (~5 MiB) included
mkdir -p "$dir"
have=$(find "$dir" -maxdepth 1 -name "*.deb" | wc -l)
if [ "$have" -lt ${#PKGS[@]} ]; then
  (cd "$dir" && apt-get download "${PKGS[@]}" >/dev/null) || {
    echo "gpu-carry: apt-get download failed (run 'apt-get update' first?)" >&2; exit 1; }
fi
mb=$(du -cm "$dir"/*.deb | tail -1 | cut -f1)
echo "gpu-carry: ${#PKGS[@]} packages, $mb MiB in $dir"
[ "$mb" -le "$LIMIT_MB" ] || { echo "gpu-carry: $mb MiB is over the $LIMIT_MB MiB left for carried files" >&2; exit 1; }
