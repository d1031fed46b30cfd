#!/bin/bash
# sweep_ncclenv.sh — NCCL_* names of the sweep's axes and environment against what NCCL's releases read
# (bench/ncclenv.c): a near miss is exit 2 with one line naming the value and the real name, before the applies
# check and before any file is made; an unknown plugin variable and a removed name warn exactly once (a real
# sweep's points do not repeat it); real names are silent; --allow-unknown-env lets a near miss through warned.
source "$(dirname "$0")/lib.sh"
SHIM_OLD=${1:?usage: sweep_ncclenv.sh SHIM_2.22.7 SHIM_2.27.3} SHIM_NEW=${2:?}
J="$TMP/env.jsonl"
unset $(env | grep -o '^NCCL_[A-Za-z0-9_]*' || true) # the caller's NCCL settings are not this test's
one_error() { # one_error NEEDLE... -- ARGS : exit 2, one stderr line holding every needle, no results file
  local needles=()
  while [ "$1" != -- ]; do needles+=("$1"); shift; done
  shift
  expect_status 2 "$ARBENCH" sweep "$@"
  [ "$(grep -c . "$TMP/err" || true)" = 1 ] || { cat "$TMP/err"; fail "sweep $*: not one stderr line"; }
  for n in "${needles[@]}"; do grep -qF -- "$n" "$TMP/err" || { cat "$TMP/err"; fail "sweep $*: no '$n'"; }; done
  [ ! -e "$J" ] || fail "sweep $* created $J"
}
warnings() { grep -c 'warning: ' "$TMP/err" || true; }
# A near miss: refused naming NCCL_PROTO, ahead of the applies check (mpi alone: NCCL_* applies to none).
one_error "NCCL_PROTOCOL=LL,LL128: no NCCL release reads NCCL_PROTOCOL" "did you mean NCCL_PROTO?" \
  "--allow-unknown-env" -- --np 2 --env NCCL_PROTOCOL=LL,LL128 -J "$J" -- --backend mpi
one_error "did you mean NCCL_ALGO?" -- --np 2 --env NCCL_ALGORITHM=Ring -J "$J" --dry-run
one_error "did you mean NCCL_MIN_NCHANNELS or NCCL_MAX_NCHANNELS?" -- --np 2 --env NCCL_NCHANNELS=4 -J "$J"
# ... and in the sweep's own environment, which every launch inherits.
NCCL_P2P_DISABLED=1 one_error "NCCL_P2P_DISABLED=1" "did you mean NCCL_P2P_DISABLE?" -- --np 2 -J "$J" --dry-run
echo "ok: near misses refused"
# A plugin's own variable: one warning, the sweep goes on.
expect_status 0 "$ARBENCH" sweep --np 2 --env NCCL_MYPLUGIN_FOO=1,2 --applies NCCL_MYPLUGIN_FOO=mpi -J "$J" --dry-run \
  -- --backend mpi -b 8 -e 8
expect_eq "plugin variable: one warning" 1 "$(warnings)"
grep -qF "warning: NCCL_MYPLUGIN_FOO=1,2: no NCCL release from 2.3.5 to 2.30.7 reads NCCL_MYPLUGIN_FOO" "$TMP/err" ||
  { cat "$TMP/err"; fail "the warning does not name the variable"; }
# Real names, old and new (NCCL_IB_SPLIT_DATA_ON_QPS, NCCL_P2P_MAX_PEERS of 2.30.3): silent.
NCCL_SOCKET_IFNAME=lo expect_status 0 "$ARBENCH" sweep --np 2 --env NCCL_IB_SPLIT_DATA_ON_QPS=0,1 \
  --env NCCL_P2P_MAX_PEERS=2 --applies NCCL_IB_SPLIT_DATA_ON_QPS=mpi --applies NCCL_P2P_MAX_PEERS=mpi -J "$J" --dry-run \
  -- --backend mpi
expect_eq "real names: no warning" 0 "$(warnings)"
# Removed at 2.30.7 (last read by 2.30.4, src/transport/shm.cc): one warning saying so.
expect_status 0 "$ARBENCH" sweep --np 2 --env NCCL_SHM_USE_CUDA_MEMCPY=1 --applies NCCL_SHM_USE_CUDA_MEMCPY=mpi -J "$J" \
  --dry-run -- --backend mpi
expect_eq "removed name: one warning" 1 "$(warnings)"
grep -qF "does not read NCCL_SHM_USE_CUDA_MEMCPY: removed in 2.30.7 (last read by 2.30.4)" "$TMP/err" ||
  { cat "$TMP/err"; fail "the warning does not say where it was removed"; }
# Two --nccl installs (libraries whose ncclGetVersion says 2.22.7 and 2.27.3): NCCL_PAT_ENABLE, first read by 2.23.4,
# is one warning naming the older install; NCCL_SHM_USE_CUDA_MEMCPY (read by both) is no warning, as neither
# install is 2.30.7.
for v in old new; do
  mkdir -p "$TMP/nccl-$v/lib"
  lib=SHIM_${v^^}
  cp "${!lib}" "$TMP/nccl-$v/lib/libnccl.so.2"
done
expect_status 0 "$ARBENCH" sweep --np 2 --nccl "$TMP/nccl-old,$TMP/nccl-new" --env NCCL_PAT_ENABLE=0 \
  --env NCCL_SHM_USE_CUDA_MEMCPY=1 --applies NCCL_PAT_ENABLE=mpi --applies NCCL_SHM_USE_CUDA_MEMCPY=mpi -J "$J" --dry-run \
  -- --backend mpi
expect_eq "--nccl: one warning" 1 "$(warnings)"
grep -qF "warning: NCCL_PAT_ENABLE=0: NCCL 2.22.7 does not read NCCL_PAT_ENABLE (first read by 2.23.4), it does nothing (--nccl $TMP/nccl-old)" \
  "$TMP/err" || { cat "$TMP/err"; fail "the --nccl warning does not name the install and its version"; }
# The override, as a sweep option or a run option: the near miss goes through with one warning.
for where in before after; do
  if [ $where = before ]; then args=(--allow-unknown-env -J "$J" --dry-run -- --backend mpi)
  else args=(-J "$J" --dry-run -- --backend mpi --allow-unknown-env); fi
  expect_status 0 "$ARBENCH" sweep --np 2 --env NCCL_PROTOCOL=LL --applies NCCL_PROTOCOL=mpi "${args[@]}"
  expect_eq "--allow-unknown-env $where --: one warning" 1 "$(warnings)"
  grep -qF "warning: NCCL_PROTOCOL=LL: no NCCL release reads NCCL_PROTOCOL (a near miss of NCCL_PROTO); passed as it is" \
    "$TMP/err" || { cat "$TMP/err"; fail "the override's warning"; }
done
# A real sweep of two launches: the warning is said once, by the sweep, not again by each point's run.
NCCL_MYPLUGIN_BAR=x expect_status 0 "$ARBENCH" sweep --np 2 --env NCCL_MYPLUGIN_FOO=1,2 --applies NCCL_MYPLUGIN_FOO=mpi \
  -J "$J" -- --backend mpi --counts 7 -n 2 -w 0 --quiet
expect_eq "real sweep: one warning per variable" "1 1" \
  "$(cat "$TMP/out" "$TMP/err" | grep -c 'warning: NCCL_MYPLUGIN_FOO') $(cat "$TMP/out" "$TMP/err" | grep -c 'NCCL_MYPLUGIN_BAR')"
expect_eq "real sweep: both launches ran" 2 "$(jq -r 'select(.type=="run") | .run_id' "$J" | sort -u | wc -l)"
# The override given to the sweep alone: its launches run (their run does not check again and refuse).
J2=$TMP/allow.jsonl
expect_status 0 "$ARBENCH" sweep --np 2 --allow-unknown-env --env NCCL_PROTOCOL=LL --applies NCCL_PROTOCOL=mpi -J "$J2" \
  -- --backend mpi --counts 7 -n 2 -w 0 --quiet
expect_eq "real sweep with the override: no error record, one warning" "0 1" \
  "$(jq -r 'select(.type=="error")' "$J2" | grep -c . || true) $(cat "$TMP/out" "$TMP/err" | grep -c 'warning: NCCL_PROTOCOL')"
echo "ok: sweep NCCL_* names"
