# standin.sh — sourced by the nccl suite's scripts: skip unless this build's nccl backend runs on the NCCL
# stand-in (-Dcuda-emu=true), and give the stand-in as many devices as ranks (one GPU per rank, as NCCL wants).
need_standin() { # need_standin NP
  export ARBENCH_STANDIN_GPUS=$(( $1 > 4 ? $1 : 4 ))
  local line
  line=$("$ARBENCH" list --wide 2>/dev/null | grep -E '^nccl ') || fail "no nccl line in arbench list"
  if ! "$ARBENCH" version 2>/dev/null | qgrep -q '^NCCL stand-in nccl-standin'; then
    echo "skipped: this build's NCCL is not the stand-in ($line)"
    exit 77
  fi
}
