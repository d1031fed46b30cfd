#!/bin/bash
# doctor_cli.sh — `arbench doctor --sysfs-root` on the fixture trees of tests/fixtures/sysfs: every PCI
# finding (link training, ACS, IOMMU, NUMA, persistence), NUMA locality of ranks (given, from a results
# file, gathered under mpirun), the CUDA stack verdicts, NCCL env checks,
# what it skips and why, the JSON form, exit statuses and bad input.
. "$ARBENCH_SRC/tests/analysis/common.sh"
FX="$ARBENCH_SRC/tests/fixtures/sysfs"
unset NCCL_P2P_DISABLE NCCL_P2P_LEVEL NCCL_PROTO NCCL_ALGO NCCL_MAX_NCHANNELS NCCL_IGNORE_DISABLED_P2P NCCL_SHM_DISABLE CUDA_DEVICE_ORDER
has() { # has NAME FILE LINE: the exact line is in the output
  if grep -Fxq -- "$3" "$2"; then echo "ok: $1"; else check_fail "$1: no line [$3]"; sed 's/^/    /' "$2" | head -60; fi
}

"$ARBENCH" doctor --sysfs-root "$FX/switch-bad" >"$TMP/bad.txt" 2>"$TMP/bad.err"
check_eq "switch-bad: exit 1 (problems found)" 1 $?
check_eq "switch-bad: nothing on stderr" 0 "$(wc -c <"$TMP/bad.err")"
has "idle downtrained GPU" "$TMP/bad.txt" "[warn] link: GPU 0000:03:00.0: running at 16.0 GT/s of 32.0 GT/s (x16)"
has "x4 GPU" "$TMP/bad.txt" "[warn] link: GPU 0000:04:00.0: trained at x4 of x16 (32.0 GT/s)"
has "ACS redirect found past AER" "$TMP/bad.txt" "[warn] ACS: bridge 0000:02:00.0 (above GPU 0000:03:00.0): ACS P2P redirect on (control 0x001d: request-redirect completion-redirect)"
has "ACS source validation only" "$TMP/bad.txt" "[ok  ] ACS: bridge 0000:02:01.0: ACS present, P2P not redirected (control 0x0001)"
has "ACS skipped without root" "$TMP/bad.txt" "[skip] ACS: bridge 0000:00:01.0: config space beyond 256 bytes not readable (256 bytes)"
has "IOMMU translating" "$TMP/bad.txt" "[warn] IOMMU: GPU 0000:04:00.0: IOMMU translates its DMA (group 31, type DMA-FQ); kernel command line: BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 ro quiet"
has "NUMA unknown" "$TMP/bad.txt" "[warn] NUMA: GPU 0000:03:00.0: firmware reports no NUMA node on a 2-node machine (local CPUs 0-63)"
has "persistence unknown, stale socket" "$TMP/bad.txt" "[warn] persistence: persistence mode unknown: no nvidia-persistenced process in proc/*/comm (a stale run/nvidia-persistenced/socket), and nvidia-smi -pm is readable only through NVML (not asked: a fixture root has no driver)"
has "ranks: none without mpirun" "$TMP/bad.txt" "[skip] NUMA: not under mpirun and no --rank-cpus/--results: run \`mpirun -np N [your binding options] arbench doctor\` to check where ranks run"
has "P2P skipped on fixtures" "$TMP/bad.txt" "[skip] access: P2P needs the live GPUs; not read from a fixture root"
has "P2P smoke test skipped on fixtures" "$TMP/bad.txt" "[skip] smoke: the P2P smoke test needs the live GPUs; not run on a fixture root"
has "driver CUDA" "$TMP/bad.txt" "[ok  ] driver: driver 590.44.01 supports CUDA up to 13.1"
has "old toolkit" "$TMP/bad.txt" "[warn] toolkits: cuda-12.6: CUDA 12.6.3, nvcc missing; cannot build sm_120"
has "linked toolkit" "$TMP/bad.txt" "[ok  ] toolkits: cuda-12.8: CUDA 12.8.1 (the cuda link points here), nvcc present"
has "stack verdict" "$TMP/bad.txt" "[info] verdict: driver supports CUDA 13.1, toolkit 12.8.1: a CUDA 13 stack runs here without a driver change"
check_eq "switch-bad: 9 warnings" 1 "$(grep -c ' 9 warnings, 0 failures, 5 skipped$' "$TMP/bad.txt")"

"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" >"$TMP/ok.txt" 2>&1
check_eq "direct-ok: exit 1 (driver too old for the toolkit)" 1 $?
check_eq "direct-ok: no PCI warning" 0 "$(sed -n '/== PCI/,/== P2P/p' "$TMP/ok.txt" | grep -c '^\[warn\]')"
has "no IOMMU" "$TMP/ok.txt" "[ok  ] IOMMU: no IOMMU enabled (sys/class/iommu empty); kernel command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro"
has "NUMA node 1" "$TMP/ok.txt" "[ok  ] NUMA: GPU 0000:81:00.0: NUMA node 1, local CPUs 32-63 (arbench run binds its rank there)"
has "persistence daemon" "$TMP/ok.txt" "[ok  ] persistence: nvidia-persistenced runs (pid 2417): the GPUs stay in persistence mode (NVML not asked: a fixture root has no driver)"
has "no ACS capability" "$TMP/ok.txt" "[ok  ] ACS: bridge 0000:80:01.0: no ACS capability (P2P not redirected)"
has "driver 12.8" "$TMP/ok.txt" "[ok  ] driver: driver 570.124.06 supports CUDA up to 12.8"
has "toolkit newer than driver" "$TMP/ok.txt" "[warn] toolkits: cuda-13.0: CUDA 13.0.1 (the cuda link points here), newer than the driver's, nvcc present"
has "stack verdict: fails" "$TMP/ok.txt" "[FAIL] verdict: driver supports CUDA 12.8, toolkit 13.0.1: programs built with this toolkit will not start"

# The daemon started with --no-persistence-mode keeps the driver open but not the GPUs initialised.
cp -a "$FX/direct-ok" "$TMP/nopm"
printf '/usr/bin/nvidia-persistenced\0--no-persistence-mode\0' >"$TMP/nopm/proc/2417/cmdline"
"$ARBENCH" doctor --sysfs-root "$TMP/nopm" >"$TMP/nopm.txt" 2>&1
has "persistenced --no-persistence-mode" "$TMP/nopm.txt" "[warn] persistence: nvidia-persistenced runs (pid 2417) with --no-persistence-mode: the GPUs are not kept initialised"

# NUMA locality of ranks: given CPU lists (local rank i uses GPU i in bus id order).
RANKW="       -> bind each rank next to its GPU: let arbench run bind (its default; drop --no-bind), or launch with mpirun --bind-to numa and a --map-by/rankfile that puts local rank i on the node of GPU i"
"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" --rank-cpus "0-15;8,0-7,9-15" >"$TMP/r.txt" 2>&1
has "rank on its GPU's node" "$TMP/r.txt" "[ok  ] NUMA: rank 0 runs on NUMA node 0 (PUs 0-15), its GPU 0000:01:00.0 is on node 0"
has "rank on the other node" "$TMP/r.txt" "[warn] NUMA: rank 1 runs on NUMA node 0 (PUs 0-15), its GPU 0000:81:00.0 is on node 1"
has "rank: what to do" "$TMP/r.txt" "$RANKW"
"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" --rank-cpus "0-31;32-47,60" >"$TMP/r2.txt" 2>&1
has "both ranks local" "$TMP/r2.txt" "[ok  ] NUMA: rank 1 runs on NUMA node 1 (PUs 32-47,60), its GPU 0000:81:00.0 is on node 1"
check_eq "both ranks local: no ranks warning" 0 "$(sed -n '/== ranks/,/== P2P/p' "$TMP/r2.txt" | grep -c '^\[warn\]')"
"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" --rank-cpus "0-63;40-47;0" >"$TMP/r3.txt" 2>&1
has "unbound rank" "$TMP/r3.txt" "[info] NUMA: rank 0 may run on NUMA nodes 0,1 (PUs 0-63: not bound to one node), its GPU 0000:01:00.0 is on node 0"
has "third rank wraps to GPU 0" "$TMP/r3.txt" "[ok  ] NUMA: rank 2 runs on NUMA node 0 (PUs 0), its GPU 0000:01:00.0 is on node 0"
"$ARBENCH" doctor --sysfs-root "$FX/switch-bad" --rank-cpus "0-31;0-31" >"$TMP/r4.txt" 2>&1
has "GPU node unknown" "$TMP/r4.txt" "[skip] NUMA: rank 0 (PUs 0-31): NUMA node of its GPU unknown"
has "GPU node from local CPUs" "$TMP/r4.txt" "[warn] NUMA: rank 1 runs on NUMA node 0 (PUs 0-31), its GPU 0000:04:00.0 is on node 1 (from its local CPUs; numa_node is -1)"

# From a results file: the bindings of its last run record.
{
  echo '{"type":"run","run_id":"old","rank_map":[{"rank":0,"host":"gpu1","local_rank":0,"device":0}],"binding":["gpu1 local rank 0 of 1 -> PUs 32-35 (NUMA 1, local cores of GPU 0000:01:00.0)"]}'
  echo '{"type":"result","backend":"mpi","size":8}'
  echo '{"type":"run","run_id":"new","rank_map":[{"rank":0,"host":"gpu1","local_rank":0,"device":0},{"rank":1,"host":"gpu1","local_rank":1,"device":1},{"rank":2,"host":"gpu1","local_rank":2,"device":-1},{"rank":3,"host":"gpu1","local_rank":3,"device":1}],"binding":["gpu1 local rank 0 of 4 -> PUs 0-15 (NUMA 0, local cores of GPU 0000:01:00.0)","gpu1 local rank 1 of 4 -> PUs 16-31 (NUMA 0, local cores of GPU 0000:81:00.0)","rank 2: not bound (--no-bind)","rank 3: not bound (--no-bind) -> PUs 0-7 (as launched)"],"topology":{"gpus":[{"busid":"0000:01:00.0","cuda":0},{"busid":"0000:81:00.0","cuda":1}]}}'
} >"$TMP/runs.jsonl"
"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" --results "$TMP/runs.jsonl" >"$TMP/r5.txt" 2>&1
check_eq "results: exit 1 (a rank far from its GPU)" 1 $?
has "results: rank 0 bound locally" "$TMP/r5.txt" "[ok  ] NUMA: rank 0 on gpu1 runs on NUMA node 0 (PUs 0-15), its GPU 0000:01:00.0 is on node 0"
has "results: rank 1 bound far" "$TMP/r5.txt" "[warn] NUMA: rank 1 on gpu1 runs on NUMA node 0 (PUs 16-31), its GPU 0000:81:00.0 is on node 1"
has "results: unbound rank not recorded" "$TMP/r5.txt" "[skip] NUMA: rank 2 on gpu1: where it ran is not recorded (run record: rank 2: not bound (--no-bind))"
has "results: unbound rank where launched" "$TMP/r5.txt" "[warn] NUMA: rank 3 on gpu1 runs on NUMA node 0 (PUs 0-7), its GPU 0000:81:00.0 is on node 1"
check_eq "results: only the last run record" 4 "$(sed -n '/== ranks/,/== P2P/p' "$TMP/r5.txt" | grep -c '^\[')"

# Live under mpirun: every rank's affinity gathered at rank 0 (taskset pins both ranks to CPU 0).
if command -v mpirun >/dev/null && command -v taskset >/dev/null; then
  taskset -c 0 mpirun -np 2 --oversubscribe --bind-to none "$ARBENCH" doctor --sysfs-root "$FX/direct-ok" >"$TMP/r6.txt" 2>&1
  H=$(hostname)
  has "mpirun: rank 0 gathered" "$TMP/r6.txt" "[ok  ] NUMA: rank 0 on $H runs on NUMA node 0 (PUs 0), its GPU 0000:01:00.0 is on node 0"
  has "mpirun: rank 1 gathered" "$TMP/r6.txt" "[warn] NUMA: rank 1 on $H runs on NUMA node 0 (PUs 0), its GPU 0000:81:00.0 is on node 1"
  check_eq "mpirun: one report (rank 0 only)" 1 "$(grep -c '^== ranks$' "$TMP/r6.txt")"
else
  echo "skip: mpirun or taskset missing: live rank gathering not tested"
fi

# NCCL environment.
NCCL_P2P_LEVEL=PIX NCCL_PROTO=LL128 NCCL_P2P_DISABLE=1 NCCL_MAX_NCHANNELS=2 \
  "$ARBENCH" doctor --sysfs-root "$FX/direct-ok" >"$TMP/env.txt" 2>&1
has "P2P disabled" "$TMP/env.txt" "[warn] NCCL_P2P_DISABLE: NCCL_P2P_DISABLE=1: NCCL moves every byte through host memory"
has "P2P level narrow" "$TMP/env.txt" "[warn] NCCL_P2P_LEVEL: NCCL_P2P_LEVEL=PIX limits P2P to nearby GPU pairs"
has "LL128 on PCIe" "$TMP/env.txt" "[warn] NCCL_PROTO: NCCL_PROTO=LL128 allows LL128 on PCIe"
has "few channels" "$TMP/env.txt" "[warn] NCCL_MAX_NCHANNELS: NCCL_MAX_NCHANNELS=2 caps NCCL's bandwidth"
NCCL_P2P_LEVEL=SYS NCCL_PROTO=^LL128 "$ARBENCH" doctor --sysfs-root "$FX/direct-ok" >"$TMP/env2.txt" 2>&1
has "P2P level SYS is fine" "$TMP/env2.txt" "[ok  ] NCCL_P2P_LEVEL: NCCL_P2P_LEVEL=SYS"
check_eq "LL128 excluded is not a warning" 0 "$(grep -c '^\[warn\] NCCL_PROTO' "$TMP/env2.txt")"

# Known-bad stacks (bench/knownbad.c): the NCCL of --nccl-version and the fixture's GPUs (2 RTX PRO 6000
# Server, PCI id 10de:2bb5) name NVIDIA/nccl#2418; a fixed NCCL, none; no version, the GPU-only entries alone.
KB="[warn] known-bad: nccl-2418-rtxpro6000-512k: NCCL 2.26.2+cuda12.8 with 2 RTX PRO 6000 Blackwell Server GPUs matches NCCL 2.26.2 on 2 or more GPUs named RTX PRO 6000 (crash): illegal memory access in collectives of 512 KiB and more (all_reduce_perf fails at 524288 bytes) [reported with: collectives of 512 KiB and more, two or more GPUs, no NVLink]; source https://github.com/NVIDIA/nccl/issues/2418"
"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" --nccl-version 2.26.2+cuda12.8 >"$TMP/kb.txt" 2>&1
check_eq "known-bad NCCL: exit 1" 1 $?
has "known-bad: NCCL 2.26.2 on 2 RTX PRO 6000" "$TMP/kb.txt" "$KB"
has "known-bad: what to do" "$TMP/kb.txt" "       -> use NCCL 2.31.2 or newer (e.g. the nvidia-nccl-cu12/-cu13 wheel, or LD_LIBRARY_PATH to a newer libnccl); the report's PyTorch 2.7.0+cu128 loaded 2.26.2"
"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" --nccl-version 23102 >"$TMP/kb2.txt" 2>&1
has "known-bad: 2.31.2 (as NCCL_VERSION_CODE) is fixed" "$TMP/kb2.txt" "[info] known-bad: nccl-2094-small-allreduce-2.29: NCCL 23102 with 2 RTX PRO 6000 Blackwell Server GPUs matches NCCL 2.29.0 and newer (slow): all-reduce of small messages slower than with NCCL 2.28 [reported with: small messages (latency-bound sizes)]; source https://github.com/NVIDIA/nccl/issues/2094"
check_eq "known-bad: no 2418 at 2.31.2" 0 "$(grep -c 'nccl-2418' "$TMP/kb2.txt")"
"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" --nccl-version 2.28.9 >"$TMP/kb3.txt" 2>&1
has "known-bad: none at 2.28.9" "$TMP/kb3.txt" "[ok  ] known-bad: none of the 6 known-bad entries matches NCCL 2.28.9 (--nccl-version) with 2 RTX PRO 6000 Blackwell Server GPUs"
has "known-bad: no version, a fixture" "$TMP/ok.txt" "[skip] NCCL: NCCL version unknown (a fixture root): only the table's GPU and driver entries checked"
cp -a "$FX/direct-ok" "$TMP/g5090"
for f in "$TMP"/g5090/sys/bus/pci/devices/*/device; do if grep -qx 0x2bb5 "$f"; then echo 0x2b85 >"$f"; fi; done
"$ARBENCH" doctor --sysfs-root "$TMP/g5090" >"$TMP/kb5.txt" 2>&1
has "known-bad: RTX 5090 pair, CUDA IPC" "$TMP/kb5.txt" "[warn] known-bad: trtllm-16899-pcie-ipc: 2 GeForce RTX 5090 GPUs matches 2 or more GPUs named RTX 6000D or RTX 5090 (fails): cudaIpcOpenMemHandle fails (cudaErrorInvalidDevice, 101): custom all-reduce over CUDA IPC cannot start (TensorRT-LLM crashes at engine init) [reported with: PCIe only, no NVLink]; source https://github.com/NVIDIA/TensorRT-LLM/issues/16899"
check_eq "known-bad: RTX 5090 pair, P2P GNS" 1 "$(grep -c '^\[info\] known-bad: gpu-rtx5090-p2p-gns: 2 GeForce RTX 5090 GPUs' "$TMP/kb5.txt")"
# --results: the stack and GPUs of its last run record (here an import of the edited nccl-tests log of
# tests/fixtures/nccl-tests/edited/: NCCL 2.26.2 on 2 RTX PRO 6000 Workstation).
"$ARBENCH" import nccl-tests "$ARBENCH_SRC/tests/fixtures/nccl-tests/edited/knownbad-2xrtxpro6000-nccl2.26.2.log" -J "$TMP/kbimp.jsonl" >/dev/null 2>&1
"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" --results "$TMP/kbimp.jsonl" >"$TMP/kb6.txt" 2>&1
check_eq "known-bad from --results: 2418 on the record's GPUs" 1 "$(grep -c '^\[warn\] known-bad: nccl-2418-rtxpro6000-512k: NCCL 2.26.2 with 2 NVIDIA RTX PRO 6000 Blackwell Workstation Edition GPUs matches NCCL 2.26.2 on 2 or more GPUs named RTX PRO 6000 (crash)' "$TMP/kb6.txt")"
"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" --results "$TMP/runs.jsonl" >"$TMP/kb7.txt" 2>&1
has "known-bad from --results without NCCL" "$TMP/kb7.txt" "[skip] NCCL: NCCL version unknown (the --results run record names none): only the table's GPU and driver entries checked"
"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" --nccl-version 2.26.2 --format json >"$TMP/kb.json"
check_eq "known-bad: json finding" "warn nccl-2418-rtxpro6000-512k" "$(python3 -c "import json;d=json.load(open('$TMP/kb.json'));f=[f for f in d['findings'] if f['check']=='known-bad'];print(f[0]['level'],f[0]['found'].split(':')[0])")"

# JSON: every finding with group, check, level, found, todo.
"$ARBENCH" doctor --sysfs-root "$FX/switch-bad" --format json >"$TMP/bad.json"
check_eq "json: gpus and warnings" "2 9" "$(python3 -c "import json;d=json.load(open('$TMP/bad.json'));print(d['gpus'],sum(f['level']=='warn' for f in d['findings']))")"

# An empty root: everything skipped with a reason, exit 0.
mkdir -p "$TMP/empty"
"$ARBENCH" doctor --sysfs-root "$TMP/empty" >"$TMP/empty.txt" 2>&1
check_eq "empty root: exit 0" 0 $?
has "empty root: PCI skipped" "$TMP/empty.txt" "[skip] GPUs: no NVIDIA GPU under $TMP/empty/sys/bus/pci/devices: PCI checks skipped"

check_bad "--sysfs-root missing" "--sysfs-root $TMP/none: not a directory" "$ARBENCH" doctor --sysfs-root "$TMP/none"
check_bad "--nccl-version bad" "--nccl-version 2.x: allowed an NCCL version such as 2.26.2, 2.26.2+cuda12.8 or its NCCL_VERSION_CODE 22602" "$ARBENCH" doctor --nccl-version 2.x
check_bad "--format bad" "--format xml: allowed text or json" "$ARBENCH" doctor --format xml
check_bad "unknown option" "unknown option '--bogus'" "$ARBENCH" doctor --bogus
check_bad "extra argument" "unexpected argument 'extra'" "$ARBENCH" doctor extra
check_bad "--rank-cpus bad list" "--rank-cpus 0-15;x: 'x' is not a CPU list (allowed: lists like 0-15,32-47 separated by ';', one per local rank, at most 1024)" "$ARBENCH" doctor --rank-cpus "0-15;x"
check_bad "--rank-cpus reversed range" "--rank-cpus 7-3: '7-3' is not a CPU list (allowed: lists like 0-15,32-47 separated by ';', one per local rank, at most 1024)" "$ARBENCH" doctor --rank-cpus "7-3"
check_bad "--results missing" "cannot open --results file '$TMP/none.jsonl'" "$ARBENCH" doctor --results "$TMP/none.jsonl"
echo '{"type":"result"}' >"$TMP/norun.jsonl"
check_bad "--results without run record" "--results $TMP/norun.jsonl: no run record (a results file of arbench run is needed)" "$ARBENCH" doctor --results "$TMP/norun.jsonl"
check_bad "--rank-cpus with --results" "--rank-cpus and --results: give one of them" "$ARBENCH" doctor --rank-cpus 0 --results "$TMP/runs.jsonl"
finish
