# cluster.sh — a real Slurm on one machine, for the slurm suite (sourced): Debian's munged, slurmctld and one
# slurmd per node, each node a network namespace (joined by a bridge in the first node's) with a UTS namespace
# of its own, so every node has its own hostname and address as separate hosts have, and a mount namespace that
# binds the nodes' names over /etc/hosts (the file system is shared). The first node is also the
# head node: slurmctld and the clients (sbatch, srun, salloc) run there. Every daemon runs in the foreground
# under this shell; slurm_stop (called by the EXIT trap) ends each by its pid, removes the namespaces and files.
#
#   slurm_start N    start munged, slurmctld and N slurmd (nodes arbsl1..N); skips (77) where it cannot
#   on_head CMD...   run CMD on the head node (SLURM_CONF set)
#   sl_sbatch SECS ARGS...  sbatch ARGS on the head node, wait for the job (at most SECS) polling every 0.2 s (sbatch
#                    --wait backs off to 30 s between polls); SL_JOB is its id; returns the batch script's exit status
#   sl_node_procs    the processes left in the nodes' namespaces other than the daemons (job steps, ranks)
#   slurm_stop       stop every daemon started here, remove the namespaces
# Needs root (ip netns), util-linux's unshare and Debian's munge, slurmctld, slurmd and slurm-client
# (scripts/setup-slurm.sh installs them). ARBENCH_REQUIRE_SLURM=1 (CI) turns every skip into a failure.

SL_DIR="" SL_PIDS=() SL_NS=() SL_N=0 SL_NET=""

sl_skip() {
  if [ "${ARBENCH_REQUIRE_SLURM:-0}" = 1 ]; then
    echo "FAIL: the slurm suite must run here (ARBENCH_REQUIRE_SLURM=1) but: $*"
    exit 1
  fi
  echo "skipped: $*"
  exit 77
}

# sl_node_cmd NODE: the command line (in SL_CMD) that runs a command in node NODE's network namespace with its
# own hostname and /etc/hosts (a mount namespace binds the nodes' names over it), environment for Slurm. Not
# `ip netns exec`: it remounts /sys, where slurmd needs the cgroup mounts. The nodes share /tmp (and every path):
# Slurm's PMIx plugin, which names its per-step directories by job and step only, gets a TmpFS per node
# (slurm.conf's TmpFS with %n).
sl_node_cmd() {
  SL_CMD=(nsenter --net="/run/netns/${SL_NS[$1]}" unshare --uts --mount sh -c
    'mount --bind "$1" /etc/hosts && hostname "$0" && shift && exec "$@"'
    "arbsl$1" "$SL_DIR/hosts" env SLURM_CONF="$SL_DIR/slurm.conf")
}

sl_ns_run() {
  local SL_CMD
  sl_node_cmd "$1"
  shift
  "${SL_CMD[@]}" "$@"
}

on_head() { sl_ns_run 1 "$@"; }

# sl_daemon NAME NODE CMD...: start CMD in the background on node NODE (0: outside the namespaces), log in SL_DIR;
# its pid (every step of the node command execs the next, so it is the daemon's) in SL_PIDS.
sl_daemon() {
  local name=$1 node=$2 SL_CMD=()
  shift 2
  [ "$node" = 0 ] || sl_node_cmd "$node"
  exec "${SL_CMD[@]}" "$@" >"$SL_DIR/$name.out" 2>&1 &
  SL_PIDS+=($!)
}

sl_net() {
  local sub=$((($$ % 200) + 20)) i
  SL_NET=10.214.$sub
  for ((i = 1; i <= SL_N; i++)); do
    SL_NS[$i]=arbsl$i-$$
    ip netns add "${SL_NS[$i]}" 2>"$SL_DIR/ns.err" || sl_skip "cannot create a network namespace: $(head -1 "$SL_DIR/ns.err")"
    ip -n "${SL_NS[$i]}" link set lo up
  done
  ip -n "${SL_NS[1]}" link add br0 type bridge 2>"$SL_DIR/ns.err" || sl_skip "cannot create a bridge: $(head -1 "$SL_DIR/ns.err")"
  ip -n "${SL_NS[1]}" addr add "$SL_NET.1/24" dev br0 && ip -n "${SL_NS[1]}" link set br0 up
  for ((i = 2; i <= SL_N; i++)); do
    ip link add "arbv$i-$$" type veth peer name "arbw$i-$$" || sl_skip "cannot create a veth pair"
    ip link set "arbv$i-$$" netns "${SL_NS[1]}" && ip link set "arbw$i-$$" netns "${SL_NS[$i]}"
    ip -n "${SL_NS[1]}" link set "arbv$i-$$" master br0 up
    ip -n "${SL_NS[$i]}" addr add "$SL_NET.$i/24" dev "arbw$i-$$" && ip -n "${SL_NS[$i]}" link set "arbw$i-$$" up
  done
  { echo "127.0.0.1 localhost"; for ((i = 1; i <= SL_N; i++)); do echo "$SL_NET.$i arbsl$i"; done; } >"$SL_DIR/hosts"
}

sl_conf() {
  local cpus
  cpus=$(nproc)
  cat >"$SL_DIR/slurm.conf" <<EOF
# the slurm suite's cluster (tests/slurm/cluster.sh): $SL_N nodes in network namespaces, all as root
ClusterName=arbench
SlurmctldHost=arbsl1($SL_NET.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SL_DIR/munge/munge.socket
StateSaveLocation=$SL_DIR/ctld
SlurmdSpoolDir=$SL_DIR/spool/%n
TmpFS=$SL_DIR/tmp/%n
SlurmctldPidFile=$SL_DIR/slurmctld.pid
SlurmdPidFile=$SL_DIR/slurmd.%n.pid
SlurmctldLogFile=$SL_DIR/slurmctld.log
SlurmdLogFile=$SL_DIR/slurmd.%n.log
SlurmctldPort=6817
# job ids of this cluster's own (Open MPI names its shared-memory segments and session directories by host name and
# a hash of the PMIx namespace slurm.pmix.JOB.STEP: two clusters on one machine, both with node arbsl1 and job 2,
# crashed a rank: "crashed: signal 11" in a .ci/run beside another; reproduced with two sweep_job.sh at once)
FirstJobId=$((($$ % 60000) * 1000 + 1))
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=5
MessageTimeout=20
InactiveLimit=0
MinJobAge=300
NodeName=arbsl[1-$SL_N] NodeAddr=$SL_NET.[1-$SL_N] CPUs=$((cpus > 2 ? cpus : 2)) State=UNKNOWN
PartitionName=arb Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
  # NodeAddr with a range is not expanded by Slurm: one line per node
  sed -i '/^NodeName=/d' "$SL_DIR/slurm.conf"
  for ((i = 1; i <= SL_N; i++)); do
    echo "NodeName=arbsl$i NodeAddr=$SL_NET.$i CPUs=$((cpus > 2 ? cpus : 2)) State=UNKNOWN" >>"$SL_DIR/slurm.conf"
  done
}

# sl_wait_idle SECS: until every node is idle (sinfo), else fail with the daemons' logs.
sl_wait_idle() {
  local until=$((SECONDS + $1)) idle
  while [ $SECONDS -lt $until ]; do
    idle=$(on_head sinfo -h -N -o '%N %T' 2>/dev/null | grep -c ' idle$' || true)
    [ "$idle" = "$SL_N" ] && return 0
    sleep 0.5
  done
  echo "FAIL: $SL_N nodes not idle after $1 s:"
  on_head sinfo -N 2>&1 | head
  tail -n 20 "$SL_DIR"/*.log "$SL_DIR"/*.out 2>/dev/null
  return 1
}

slurm_start() {
  SL_N=$1
  local i
  [ "$(id -u)" = 0 ] || sl_skip "needs root to create network namespaces (ip netns)"
  command -v unshare >/dev/null && command -v nsenter >/dev/null || sl_skip "no unshare or nsenter (util-linux)"
  local p
  for p in munged mungekey slurmctld slurmd sbatch srun salloc sinfo; do
    command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || sl_skip "no $p (scripts/setup-slurm.sh installs Debian's munge, slurmctld, slurmd and slurm-client)"
  done
  export PATH="$PATH:/usr/sbin"
  SL_DIR=$(mktemp -d /var/tmp/arbench-slurm.XXXXXX)
  chmod 755 "$SL_DIR"
  mkdir -p "$SL_DIR/munge" "$SL_DIR/ctld" "$SL_DIR/spool" "$SL_DIR/work"
  for ((i = 1; i <= SL_N; i++)); do mkdir -p "$SL_DIR/tmp/arbsl$i" && chmod 1777 "$SL_DIR/tmp/arbsl$i"; done
  chmod 700 "$SL_DIR/munge"
  trap slurm_stop EXIT
  trap 'exit 143' TERM # meson's timeout: the EXIT trap still stops everything
  trap 'exit 130' INT
  sl_net
  sl_conf
  mungekey --create --keyfile="$SL_DIR/munge/munge.key" >/dev/null 2>&1 \
    || dd if=/dev/urandom of="$SL_DIR/munge/munge.key" bs=1024 count=1 2>/dev/null
  chmod 600 "$SL_DIR/munge/munge.key"
  sl_daemon munged 0 munged -F --force --socket="$SL_DIR/munge/munge.socket" --key-file="$SL_DIR/munge/munge.key" \
    --pid-file="$SL_DIR/munge/munged.pid" --log-file="$SL_DIR/munge/munged.log" --seed-file="$SL_DIR/munge/munged.seed"
  local until=$((SECONDS + 20))
  while [ ! -S "$SL_DIR/munge/munge.socket" ] && [ $SECONDS -lt $until ]; do sleep 0.2; done
  [ -S "$SL_DIR/munge/munge.socket" ] || { cat "$SL_DIR/munged.out" "$SL_DIR/munge/munged.log" 2>/dev/null; echo "FAIL: munged did not start"; exit 1; }
  sl_daemon slurmctld 1 slurmctld -D -i
  for ((i = 1; i <= SL_N; i++)); do
    mkdir -p "$SL_DIR/spool/arbsl$i"
    sl_daemon "slurmd$i" "$i" slurmd -D -N "arbsl$i"
  done
  sl_wait_idle 60 || exit 1
}

sl_sbatch() {
  local secs=$1 until state code
  shift
  SL_JOB=$(on_head sbatch --parsable "$@") || return 1
  SL_JOB=${SL_JOB%%;*}
  until=$((SECONDS + secs))
  while [ $SECONDS -lt $until ]; do
    state=$(on_head scontrol show job "$SL_JOB" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    case "$state" in
      COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|PREEMPTED|BOOT_FAIL|DEADLINE) break ;;
    esac
    sleep 0.2
  done
  code=$(on_head scontrol show job "$SL_JOB" 2>/dev/null | sed -n 's/.* ExitCode=\([0-9]*\):\([0-9]*\).*/\1 \2/p')
  [ -n "$code" ] || { echo "sl_sbatch: job $SL_JOB: no exit code (state ${state:-?} after $secs s)" >&2; return 1; }
  set -- $code
  [ "$2" = 0 ] || return $((128 + $2)) # ended by a signal
  return "$1"
}

sl_node_procs() {
  local i pid d keep
  for ((i = 1; i <= SL_N; i++)); do
    for pid in $(ip netns pids "${SL_NS[$i]}" 2>/dev/null); do
      keep=1
      for d in "${SL_PIDS[@]}"; do [ "$pid" = "$d" ] && keep=0; done
      [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = slurmscriptd ] && keep=0 # slurmctld's own helper
      [ $keep = 0 ] || echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
    done
  done
  return 0
}

slurm_stop() {
  local rc=$? pid i
  set +e # every step below runs, whatever the one before it did
  for pid in "${SL_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for ((i = 0; i < 50; i++)); do
    local alive=0
    for pid in "${SL_PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for pid in "${SL_PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  wait 2>/dev/null
  for ((i = 1; i <= SL_N; i++)); do
    [ -n "${SL_NS[$i]:-}" ] || continue
    ip netns pids "${SL_NS[$i]}" 2>/dev/null | xargs -r kill -KILL 2>/dev/null # job steps the daemons left
    ip netns del "${SL_NS[$i]}" 2>/dev/null
  done
  [ -n "$SL_DIR" ] && [ "${ARBENCH_KEEP_SLURM:-0}" != 1 ] && rm -rf "$SL_DIR"
  [ -n "${TMP:-}" ] && rm -rf "$TMP" # common.sh's, whose trap this one replaces
  return $rc
}
