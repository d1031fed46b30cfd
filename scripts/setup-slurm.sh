#!/usr/bin/env bash
# setup-slurm.sh — the test setup of the slurm suite: Debian's munge, slurmctld, slurmd and slurm-client (Slurm's
# daemons and clients, and its PMIx plugin mpi_pmix_v4 in slurm-wlm-basic-plugins). Only tests need them: arbench
# itself runs under a site's own Slurm (scripts/slurm/*.sbatch) and never starts a daemon. The packages are
# installed without starting their services (a policy-rc.d that denies it, for the install only): the suite starts
# its own daemons in network namespaces (tests/slurm/cluster.sh) and stops them. Safe to run again.
set -euo pipefail
PKGS=(munge slurmctld slurmd slurm-client util-linux iproute2)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
[ "$(id -u)" = 0 ] || { echo "setup-slurm: run as root to install: ${missing[*]}" >&2; exit 1; }
echo "setup-slurm: installing ${missing[*]}" >&2
policy=/usr/sbin/policy-rc.d ours=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# setup-slurm.sh: no service starts while it installs\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  ours=1
fi
trap '[ $ours = 1 ] && rm -f "$policy"' EXIT
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
