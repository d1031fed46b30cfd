#!/usr/bin/env bash
# ncclenv.sh — `arbench run` checks the NCCL_* names of its environment (bench/ncclenv.c) before anything runs:
# a near miss is exit 2 with one line naming the value and the real name (outside mpirun and under it), an
# unknown plugin variable or a removed name one warning said once (not once per rank), real names silent, and
# --allow-unknown-env lets a near miss through with one warning.
source "$(dirname "$0")/../lib/common.sh"
unset $(env | grep -o '^NCCL_[A-Za-z0-9_]*' || true) # the caller's NCCL settings are not this test's
J=$TMP/r.jsonl
RUN=(run --backend mpi --counts 7 -n 2 -w 0 --quiet)
NCCL_PROTOCOL=LL expect_one_line_error "NCCL_PROTOCOL=LL: no NCCL release reads NCCL_PROTOCOL (2.3.5 to 2.30.7 read): did you mean NCCL_PROTO?" \
  "$ARBENCH" "${RUN[@]}" --np 2 -J "$J"
[ ! -e "$J" ] || fail "a refused run made $J"
NCCL_ALGORITHM=Tree expect_one_line_error "did you mean NCCL_ALGO?" ar_mpirun 2 "${RUN[@]}" -J "$J"
[ ! -e "$J" ] || fail "a refused run made $J"
echo "ok: near misses refused"
# The NCCL this build loads ("none" in a host-only build; the stand-in's 2.28.9 under -Dcuda-emu).
loaded=$("$ARBENCH" version | sed -n 's/^NCCL .*loaded \([0-9][0-9.]*\).*/\1/p')
at_least() { [ "$(printf '%s\n' "$1" "$2" | sort -V | head -1)" = "$2" ]; } # at_least V MIN
warned() { # warned NEEDLE : exactly one stderr line holds NEEDLE
  expect_eq "one line: $1" 1 "$(grep -cF -- "$1" "$TMP/err" || true)"
}
for launch in relaunch mpirun; do
  if [ $launch = relaunch ]; then cmd=("$ARBENCH" "${RUN[@]}" --np 2); else cmd=(ar_mpirun 2 "${RUN[@]}"); fi
  NCCL_MYPLUGIN_FOO=1 expect_status 0 "${cmd[@]}"
  warned "warning: NCCL_MYPLUGIN_FOO=1: no NCCL release from 2.3.5 to 2.30.7 reads NCCL_MYPLUGIN_FOO"
  NCCL_CREATE_THREAD_CONTEXT=1 expect_status 0 "${cmd[@]}"
  if [ -z "$loaded" ] || at_least "$loaded" 2.30.7; then
    warned "does not read NCCL_CREATE_THREAD_CONTEXT: removed in 2.30.7 (last read by 2.30.4)"
  else expect_eq "$launch: NCCL $loaded reads NCCL_CREATE_THREAD_CONTEXT" 0 "$(grep -c NCCL_CREATE "$TMP/err" || true)"; fi
  NCCL_PROTOCOL=LL expect_status 0 "${cmd[@]}" --allow-unknown-env
  warned "warning: NCCL_PROTOCOL=LL: no NCCL release reads NCCL_PROTOCOL (a near miss of NCCL_PROTO); passed as it is"
  NCCL_PROTO=LL NCCL_IB_SPLIT_DATA_ON_QPS=0 NCCL_HOME=/opt/nccl expect_status 0 "${cmd[@]}"
  expect_eq "$launch: real names silent" 0 "$(grep -c 'NCCL_' "$TMP/err" || true)"
done
# Once the loaded NCCL is known (the record's stack), a name it does not read is said at its version: NCCL_P2P_MAX_PEERS
# (first read by 2.30.3) under an older NCCL; with none loaded (a host-only build), the newest release read.
NCCL_P2P_MAX_PEERS=2 NCCL_SHM_MEMCPY_MODE=1 expect_status 0 "$ARBENCH" "${RUN[@]}" --np 2
if [ -z "$loaded" ]; then
  warned "NCCL_SHM_MEMCPY_MODE=1: NCCL 2.30.7 (the newest release read: which NCCL runs is not known here) does not read"
  expect_eq "no NCCL: NCCL_P2P_MAX_PEERS silent" 0 "$(grep -c NCCL_P2P_MAX_PEERS "$TMP/err" || true)"
else
  if at_least "$loaded" 2.30.3; then
    expect_eq "NCCL $loaded reads NCCL_P2P_MAX_PEERS" 0 "$(grep -c NCCL_P2P_MAX_PEERS "$TMP/err" || true)"
  else warned "warning: NCCL_P2P_MAX_PEERS=2: NCCL $loaded does not read NCCL_P2P_MAX_PEERS (first read by 2.30.3)"; fi
fi
echo "ok: run NCCL_* names"
