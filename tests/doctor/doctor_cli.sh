#!/bin/bash
# doctor_cli.sh — `arbench doctor --sysfs-root` on the fixture trees of tests/fixtures/sysfs: every PCI
# finding (link training, ACS, IOMMU, NUMA, persistence), the CUDA stack verdicts, NCCL env checks,
# what it skips and why, the JSON form, exit statuses and bad input.
. "$ARBENCH_SRC/tests/analysis/common.sh"
FX="$ARBENCH_SRC/tests/fixtures/sysfs"
unset NCCL_P2P_DISABLE NCCL_P2P_LEVEL NCCL_PROTO NCCL_ALGO NCCL_MAX_NCHANNELS NCCL_IGNORE_DISABLED_P2P NCCL_SHM_DISABLE CUDA_DEVICE_ORDER
has() { # has NAME FILE LINE: the exact line is in the output
  if grep -Fxq -- "$3" "$2"; then echo "ok: $1"; else fail "$1: no line [$3]"; sed 's/^/    /' "$2" | head -60; fi
}

"$ARBENCH" doctor --sysfs-root "$FX/switch-bad" >"$TMP/bad.txt" 2>"$TMP/bad.err"
eq "switch-bad: exit 1 (problems found)" 1 $?
eq "switch-bad: nothing on stderr" 0 "$(wc -c <"$TMP/bad.err")"
has "idle downtrained GPU" "$TMP/bad.txt" "[warn] link: GPU 0000:03:00.0: running at 16.0 GT/s of 32.0 GT/s (x16)"
has "x4 GPU" "$TMP/bad.txt" "[warn] link: GPU 0000:04:00.0: trained at x4 of x16 (32.0 GT/s)"
has "ACS redirect found past AER" "$TMP/bad.txt" "[warn] ACS: bridge 0000:02:00.0 (above GPU 0000:03:00.0): ACS P2P redirect on (control 0x001d: request-redirect completion-redirect)"
has "ACS source validation only" "$TMP/bad.txt" "[ok  ] ACS: bridge 0000:02:01.0: ACS present, P2P not redirected (control 0x0001)"
has "ACS skipped without root" "$TMP/bad.txt" "[skip] ACS: bridge 0000:00:01.0: config space beyond 256 bytes not readable (256 bytes)"
has "IOMMU translating" "$TMP/bad.txt" "[warn] IOMMU: GPU 0000:04:00.0: IOMMU translates its DMA (group 31, type DMA-FQ); kernel command line: BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 ro quiet"
has "NUMA unknown" "$TMP/bad.txt" "[warn] NUMA: GPU 0000:03:00.0: firmware reports no NUMA node on a 2-node machine (local CPUs 0-63)"
has "no persistence" "$TMP/bad.txt" "[warn] persistence: nvidia-persistenced is not running (no run/nvidia-persistenced/socket; persistence set with nvidia-smi -pm is not visible here)"
has "P2P skipped on fixtures" "$TMP/bad.txt" "[skip] access: P2P needs the live GPUs; not read from a fixture root"
has "driver CUDA" "$TMP/bad.txt" "[ok  ] driver: driver 590.44.01 supports CUDA up to 13.1"
has "old toolkit" "$TMP/bad.txt" "[warn] toolkits: cuda-12.6: CUDA 12.6.3, nvcc missing; cannot build sm_120"
has "linked toolkit" "$TMP/bad.txt" "[ok  ] toolkits: cuda-12.8: CUDA 12.8.1 (the cuda link points here), nvcc present"
has "stack verdict" "$TMP/bad.txt" "[info] verdict: driver supports CUDA 13.1, toolkit 12.8.1: a CUDA 13 stack runs here without a driver change"
eq "switch-bad: 9 warnings" 1 "$(grep -c ' 9 warnings, 0 failures, 2 skipped$' "$TMP/bad.txt")"

"$ARBENCH" doctor --sysfs-root "$FX/direct-ok" >"$TMP/ok.txt" 2>&1
eq "direct-ok: exit 1 (driver too old for the toolkit)" 1 $?
eq "direct-ok: no PCI warning" 0 "$(sed -n '/== PCI/,/== P2P/p' "$TMP/ok.txt" | grep -c '^\[warn\]')"
has "no IOMMU" "$TMP/ok.txt" "[ok  ] IOMMU: no IOMMU enabled (sys/class/iommu empty); kernel command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro"
has "NUMA node 1" "$TMP/ok.txt" "[ok  ] NUMA: GPU 0000:81:00.0: NUMA node 1, local CPUs 32-63 (arbench run binds its rank there)"
has "no ACS capability" "$TMP/ok.txt" "[ok  ] ACS: bridge 0000:80:01.0: no ACS capability (P2P not redirected)"
has "driver 12.8" "$TMP/ok.txt" "[ok  ] driver: driver 570.124.06 supports CUDA up to 12.8"
has "toolkit newer than driver" "$TMP/ok.txt" "[warn] toolkits: cuda-13.0: CUDA 13.0.1 (the cuda link points here), newer than the driver's, nvcc present"
has "stack verdict: fails" "$TMP/ok.txt" "[FAIL] verdict: driver supports CUDA 12.8, toolkit 13.0.1: programs built with this toolkit will not start"

# NCCL environment.
NCCL_P2P_LEVEL=PIX NCCL_PROTO=LL128 NCCL_P2P_DISABLE=1 NCCL_MAX_NCHANNELS=2 \
  "$ARBENCH" doctor --sysfs-root "$FX/direct-ok" >"$TMP/env.txt" 2>&1
has "P2P disabled" "$TMP/env.txt" "[warn] NCCL_P2P_DISABLE: NCCL_P2P_DISABLE=1: NCCL moves every byte through host memory"
has "P2P level narrow" "$TMP/env.txt" "[warn] NCCL_P2P_LEVEL: NCCL_P2P_LEVEL=PIX limits P2P to nearby GPU pairs"
has "LL128 on PCIe" "$TMP/env.txt" "[warn] NCCL_PROTO: NCCL_PROTO=LL128 allows LL128 on PCIe"
has "few channels" "$TMP/env.txt" "[warn] NCCL_MAX_NCHANNELS: NCCL_MAX_NCHANNELS=2 caps NCCL's bandwidth"
NCCL_P2P_LEVEL=SYS NCCL_PROTO=^LL128 "$ARBENCH" doctor --sysfs-root "$FX/direct-ok" >"$TMP/env2.txt" 2>&1
has "P2P level SYS is fine" "$TMP/env2.txt" "[ok  ] NCCL_P2P_LEVEL: NCCL_P2P_LEVEL=SYS"
eq "LL128 excluded is not a warning" 0 "$(grep -c '^\[warn\] NCCL_PROTO' "$TMP/env2.txt")"

# JSON: every finding with group, check, level, found, todo.
"$ARBENCH" doctor --sysfs-root "$FX/switch-bad" --format json >"$TMP/bad.json"
eq "json: gpus and warnings" "2 9" "$(python3 -c "import json;d=json.load(open('$TMP/bad.json'));print(d['gpus'],sum(f['level']=='warn' for f in d['findings']))")"

# An empty root: everything skipped with a reason, exit 0.
mkdir -p "$TMP/empty"
"$ARBENCH" doctor --sysfs-root "$TMP/empty" >"$TMP/empty.txt" 2>&1
eq "empty root: exit 0" 0 $?
has "empty root: PCI skipped" "$TMP/empty.txt" "[skip] GPUs: no NVIDIA GPU under $TMP/empty/sys/bus/pci/devices: PCI checks skipped"

bad "--sysfs-root missing" "--sysfs-root $TMP/none: not a directory" "$ARBENCH" doctor --sysfs-root "$TMP/none"
bad "--format bad" "--format xml: allowed text or json" "$ARBENCH" doctor --format xml
bad "unknown option" "unknown option '--bogus'" "$ARBENCH" doctor --bogus
bad "extra argument" "unexpected argument 'extra'" "$ARBENCH" doctor extra
finish
