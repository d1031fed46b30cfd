#!/bin/bash
# model_cli.sh — `arbench model` end to end: table and crossovers, prediction records that `arbench
# table` reads beside measured results, --fit / --calib round trip, --against diagnosis, bad input.
. "$ARBENCH_SRC/tests/analysis/common.sh"
M="$ARBENCH_SRC/tests/fixtures/model"
SW="$M/sw2-8g-gen5.xml"
DS="$M/ds-8g-gen5.xml"

# Table, crossover line: published one-shot vs NCCL crossover on switches is 64 KiB.
"$ARBENCH" model --xml "$SW" -b 1K -e 256K >"$TMP/t.txt" 2>"$TMP/t.err"
check_eq "model table: exit 0" 0 $?
check_eq "model table: 9 rows" 9 "$(grep -c '^[0-9]' "$TMP/t.txt")"
check_eq "model: crossover" "NCCL (its default choice) beats one-shot from 64K; it beats every custom algorithm at no size up to 256K" \
   "$(grep '^NCCL (its default choice) beats' "$TMP/t.txt")"

# Prediction records: one per size x algorithm; table shows them as configurations.
"$ARBENCH" model --xml "$DS" -b 1K -e 4K --algo oneshot-push,nccl-ring-ll,islands -J "$TMP/p.jsonl" >/dev/null
check_eq "model -J: 3 sizes x (3 algorithms + NCCL's default)" 12 "$(grep -c '"type": *"prediction"' "$TMP/p.jsonl")"
"$ARBENCH" model --xml "$DS" -b 1K -e 4K --algo oneshot-push --format json >"$TMP/j.jsonl"
check_eq "model --format json: records on stdout" 3 "$(grep -c prediction "$TMP/j.jsonl")"
# one-shot push, 1 KiB, two sockets: 6.6 + 2 x 0.6 (SYS hops) + 1024 B / (10 GB/s / 16 crossing flows)
check_eq "prediction p50 at 1K (us)" "9.438" "$(python3 -c "import json;r=[json.loads(l) for l in open('$TMP/j.jsonl')];r=[x for x in r if x['type']=='prediction'];print('%.3f'%r[0]['time_us']['p50'])")"
"$ARBENCH" table "$TMP/p.jsonl" "$ARBENCH_SRC/tests/fixtures/analysis/a.jsonl" >"$TMP/tab.txt" 2>&1
check_eq "table reads predictions: exit 0" 0 $?
check_eq "table: model columns, marked predicted" 1 "$(grep -c 'model:nccl-ring-ll (predicted) | model:oneshot-push (predicted) | model:islands (predicted) | model:nccl-default (predicted)' "$TMP/tab.txt")"
grep -q 'shm-oneshot' "$TMP/tab.txt" && echo "ok: table: measured results still there" || check_fail "table lost measured results"

# NCCL's default per size beside the per-algorithm columns (worked in tests/model/test_nccltune.c): on the
# switch box Ring/LL with 1 (to 32 KiB), 2, then 4 channels, Simple from 4 MiB (LL128 never: off on PCIe).
"$ARBENCH" model --xml "$SW" -b 4K -e 4M -f 4 >"$TMP/d.txt"
check_eq "nccl-default column" "Ring/LL x1|Ring/LL x1|Ring/LL x2|Ring/LL x4|Ring/LL x4|Ring/Simple x4" \
   "$(grep '^[0-9]' "$TMP/d.txt" | grep -o 'Ring/[A-Za-z]* x[0-9]*' | paste -sd'|')"
# Its time: the family's where NCCL runs P2P on every hop (NCCL_P2P_LEVEL=SYS); here 2 of the 8 hops are SHM, so
# the data part runs no faster than nccl_shm_ll_gbs: 5.45 + 1 MiB x 1.75 / 11.6 GB/s = 163.6 us (family: 94.6).
check_eq "nccl-default: on SHM hops no faster than NCCL's SHM rate (1M ring LL)" "94.6 163.6" \
   "$(awk '$1=="1M"{print $2, $(NF-1)}' "$TMP/d.txt")"
check_eq "nccl-default: its time is the model's for that algorithm where every hop is P2P (1M ring LL)" 1 \
   "$("$ARBENCH" model --xml "$SW" -b 1M -e 1M --calib '{"params":{"nccl_p2p_level":4}}' | awk '$1=="1M"{print ($2==$(NF-1))}')"
# 8 GPUs on two switches (sw2): the ring crosses between the switches' host bridges twice, and NCCL's default P2P
# level (paths.cc v2.29.2-1: PXB; the topology's CPU is AMD, but more than 2 GPUs) sends those hops through host memory.
check_eq "nccl-default: NCCL's graph named" 1 "$(grep -c "NCCL's ring graph here: 2 channels x 24 GB/s; 2 of 8 ring hops through host memory (SHM), P2P only up to PXB (paths.cc: NCCL's default, no P2P through a CPU host bridge (PXB))$" "$TMP/d.txt")"
check_eq "nccl-default: the P2P level named as assumed" 1 "$(grep -c "^# assumed: nccl_p2p_level = PXB: NCCL_P2P_LEVEL: paths.cc: NCCL's default, no P2P through a CPU host bridge (PXB), so 2 of 8 ring hops run through host memory (SHM), the ring then at most 11.6 (LL) / 21.5 (Simple) GB/s busbw (params.c \[R6K\]" "$TMP/d.txt")"
# NCCL_P2P_LEVEL=SYS (--calib nccl_p2p_level 4): P2P on every hop, nothing assumed about it
"$ARBENCH" model --xml "$SW" -b 4K -e 4K --calib '{"params":{"nccl_p2p_level":4}}' >"$TMP/dsys.txt"
check_eq "nccl_p2p_level 4: P2P on every hop" "1 0" "$(grep -c "P2P on all 8 ring hops (P2P up to SYS: --calib nccl_p2p_level (NCCL_P2P_LEVEL))$" "$TMP/dsys.txt") $(grep -c '^# assumed: nccl_p2p_level' "$TMP/dsys.txt")"
# 4 GPUs behind one switch: PIX, P2P everywhere; 2 GPUs on an AMD box across the switches: NCCL's AMD two-GPU rule
check_eq "one switch: P2P on every hop" 1 "$("$ARBENCH" model --xml "$SW" --np 4 -b 4K -e 4K | grep -c "P2P on all 4 ring hops (P2P up to PXB: paths.cc: NCCL's default")"
"$ARBENCH" model --xml "$ARBENCH_SRC/tests/fixtures/model/rtx6kpro-turin-2s.xml" --np 2 -b 4K -e 4K --format json >"$TMP/amd2.jsonl"
check_eq "AMD, 2 GPUs: P2P up to SYS (paths.cc)" "2 0 SYS" "$(python3 -c "
import json
g=json.loads(open('$TMP/amd2.jsonl').readline())['nccl_graph']
print(g['ring_hops'], g['shm_hops'], g['p2p_level'])")"
# NVML's P2P status is not in a topology: the model says it took P2P as supported; --calib nccl_no_p2p 1 (nvidia-smi
# topo -p2p r or w: NS; paths.cc ncclTopoCheckP2p then turns P2P off whatever the level) sends every hop through host
# memory and leaves out the custom algorithms, which need P2P; asking for one of them alone is exit 2. Both hops then
# cross the switch's uplink each way, so NCCL's search (followPath takes each hop's speed off every link) finds one
# channel at 6 GB/s, not 12.
TI="$M/autodl-2x2080ti.xml"
"$ARBENCH" model --xml "$SW" -b 4K -e 4K --calib '{"params":{"nccl_no_p2p":0}}' >"$TMP/np0.txt"
np0=$?
check_eq "NVML's P2P status named as assumed; stated (0): exit 0, a table, not named" "1 0 1 0" "$("$ARBENCH" model --xml "$SW" -b 4K -e 4K | grep -c "^# assumed: nccl_no_p2p = 0 (P2P supported): NVML's P2P status between the GPUs is not in a topology: supported assumed (NCCL's P2P on 6 of 8 ring hops, and the custom algorithms' loads and stores)") $np0 $(grep -c '^4K ' "$TMP/np0.txt") $(grep -c nccl_no_p2p "$TMP/np0.txt")"
# a family fitted on this box by --fit measured whatever transport ran: its fit, not the SHM bound (10 + 1 MiB x 0.0001)
check_eq "nccl_no_p2p: a fitted family is its fit" "114.9" "$("$ARBENCH" model --xml "$TI" -b 1M -e 1M --algo nccl-ring-simple --calib '{"params":{"nccl_no_p2p":1},"families":{"nccl-ring-simple":{"ranks":2,"fixed_us":10,"us_per_byte":0.0001}}}' | awk '$1=="1M"{sub(/^\*/, "", $2); print $2}')"
"$ARBENCH" model --xml "$TI" --calib '{"params":{"nccl_no_p2p":2}}' >"$TMP/np3.txt" 2>"$TMP/np3.err"
check_eq "nccl_no_p2p 2: exit 2, one line naming the value and what is allowed" "2 1" "$? $(grep -c "^arbench model: {\"params\":{\"nccl_no_p2p\":2}}: params.nccl_no_p2p: 1 (NVML reports no P2P between the GPUs) or 0 (it reports P2P), not another number$" "$TMP/np3.err")"
"$ARBENCH" model --xml "$TI" -b 1M -e 1M --calib '{"params":{"nccl_no_p2p":1}}' >"$TMP/np.txt"
check_eq "nccl_no_p2p: exit 0" 0 $?
check_eq "nccl_no_p2p: every hop SHM, named; custom algorithms left out; 4 NCCL columns" "1 1 1 6" \
  "$(grep -c "NCCL's ring graph here: 1 channel x 6 GB/s; all 2 ring hops through host memory (SHM), no P2P (--calib nccl_no_p2p: NVML reports P2P not supported" "$TMP/np.txt") $(grep -c '^# left out: oneshot-pull oneshot-push twoshot-flat twoshot-staged islands: the custom algorithms' "$TMP/np.txt") $(grep -c '^# assumed: nccl_no_p2p = 1 (--calib): .* 4.85 GB/s a hop on the links' "$TMP/np.txt") $(awk '$1=="size"{print NF}' "$TMP/np.txt")"
"$ARBENCH" model --xml "$TI" --calib '{"params":{"nccl_no_p2p":1}}' --algo oneshot-pull,islands >"$TMP/np2.txt" 2>"$TMP/np2.err"
check_eq "nccl_no_p2p, custom algorithms only: exit 2, one line, nothing on stdout" "2 1 0" "$? $(grep -c '^arbench model: --algo: the custom algorithms need P2P between the GPUs, which --calib nccl_no_p2p says NVML does not support' "$TMP/np2.err") $(wc -c <"$TMP/np2.txt")"
# 1M on 2 GPUs, ring Simple: 12.1 us fixed + 1 MiB / (4.85 GB/s a hop x 0.76 Simple) = 296.6 us, in its own column
# too (no level gives P2P here: the per-family columns are bounded as the default is; P2P would give 127.3)
check_eq "nccl_no_p2p: 1M at the links' SHM rate" "*296.6 Ring/Simple 296.6" "$(awk '$1=="1M"{print $4, $(NF-3), $(NF-1)}' "$TMP/np.txt")"

# A result that recorded SHM (forced Ring/Simple, 1 MiB in 1000 us on the 2080 Ti box, timed call by call: 299.6 us
# predicted, 3.50 GB/s): with nccl_no_p2p no level gives
# P2P, so the diagnosis says so and never "try NCCL_P2P_LEVEL=SYS"; without it, SHM between PIX pairs (which NCCL's
# default level allows P2P on) points at NVML's status and the knob, not at the level.
python3 - "$TMP/rshm.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"type": "run", "run_id": "5" * 16, "schema": 1, "env": {}}) + "\n")
    f.write(json.dumps({"type": "result", "run_id": "5" * 16, "backend": "nccl", "variant": "algo=Ring,proto=Simple",
                        "spec": "nccl", "dtype": "float", "size": 1048576, "ranks": 2, "nccl_transport": "SHM",
                        "time_us": {"p50": 1000.0, "mean": 1000.0}}) + "\n")
PY
check_eq "recorded SHM, nccl_no_p2p: no P2P named, no level advised; without it: NVML's status named" "1 0 1" \
  "$("$ARBENCH" model --against "$TMP/rshm.jsonl" --xml "$TI" --calib '{"params":{"nccl_no_p2p":1}}' >"$TMP/rshm.txt"; grep -c 'busbw 1.05 GB/s vs 3.50 predicted: NCCL runs all 2 ring hops through host memory (SHM), no P2P' "$TMP/rshm.txt") $(grep -c NCCL_P2P_LEVEL "$TMP/rshm.txt") $("$ARBENCH" model --against "$TMP/rshm.jsonl" --xml "$TI" | grep -c 'NCCL is using SHM between PIX pairs, where its default level allows P2P: NVML reports no P2P between them (nvidia-smi topo -p2p r, w) or the run disabled it — --calib .{"params":{"nccl_no_p2p":1}}. models that$')"

# The run's NCCL_P2P_DISABLE=1 (no P2P at any level, by the run's own choice): the diagnosis says to unset it; and a
# family's prediction record under nccl_no_p2p gives the per-byte cost its time was computed with (1 / (4.85 x 0.76 x 1e3))
python3 - "$TMP/rdis.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"type": "run", "run_id": "6" * 16, "schema": 1, "env": {"NCCL_P2P_DISABLE": "1"}}) + "\n")
    f.write(json.dumps({"type": "result", "run_id": "6" * 16, "backend": "nccl", "variant": "", "spec": "nccl",
                        "dtype": "float", "size": 1048576, "ranks": 2, "time_us": {"p50": 1000.0, "mean": 1000.0}}) + "\n")
PY
check_eq "run's NCCL_P2P_DISABLE: unset it; nccl_no_p2p record: time and per-byte cost agree" "1 nccl-ring-simple 0.000271 296.6" \
  "$("$ARBENCH" model --against "$TMP/rdis.jsonl" --xml "$TI" | grep -c "no P2P (the run's NCCL_P2P_LEVEL / NCCL_P2P_DISABLE) — unset NCCL_P2P_DISABLE / NCCL_P2P_LEVEL for P2P$") $("$ARBENCH" model --xml "$TI" --calib '{"params":{"nccl_no_p2p":1}}' -b 1M -e 1M --algo nccl-ring-simple --format json | python3 -c "
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r.get('type') == 'prediction' and r['variant'] == 'nccl-ring-simple':
        print(r['variant'], '%.6f' % r['model']['us_per_byte'], '%.1f' % r['time_us']['p50'])")"

# NCCL's channels bound its default: on the ESC8000A's 8 GPUs with NCCL_P2P_LEVEL=SYS NCCL's search falls back (one
# channel, two in the communicator), and 2 x nccl_chan_gbs 11.1 = 22.2 GB/s busbw gives 16M 12.1 + 16 MiB x 1.75 /
# 22.2 GB/s = 1334.6 us, where the P2P ring Simple alone would take 784.7
check_eq "nccl-default: no faster than its channels (16M, 2 channels)" "784.7 Ring/Simple x2 1334.6" "$("$ARBENCH" model --xml "$M/esc8000a-e13p.xml" --calib '{"params":{"nccl_p2p_level":4}}' -b 16M -e 16M | awk '$1=="16M"{sub(/^\*/, "", $4); print $4, $(NF-3), $(NF-2), $(NF-1)}')"

# Intel, GPUs on root ports of one host bridge (PHB): search.cc counts P2P through an Intel root complex x6/5, so
# 48 GB/s carries one ring at 40 (not two at 24), doubled by ncclTopoDupChannels to 2 x 20 GB/s
check_eq "Intel root complex: NCCL's graph 2 x 20" 1 "$("$ARBENCH" model --xml "$DS" --np 4 -b 4K -e 4K | grep -c "NCCL's ring graph here: 2 channels x 20 GB/s (Intel root complex: NCCL counts a hop through it x6/5); 4 of 4 ring hops")"
"$ARBENCH" model --xml "$SW" -b 2M -e 2M --format json >"$TMP/dj.jsonl"
check_eq "nccl-default record at 2M" "nccl-ring-simple Ring Simple 4 164.66" "$(python3 -c "
import json
r=[json.loads(l) for l in open('$TMP/dj.jsonl')]
d=[x for x in r if x.get('variant')=='nccl-default'][0]['nccl_default']
print(d['family'],d['algo'],d['proto'],d['channels'],'%.2f'%d['nccl_estimate_us'])")"

# No silent assumptions: a topology without a CPU vendor says what the socket link was taken to be, and where
# from; --calib overrides it and says so; the json run record lists the same.
sed '/CPUVendor/d' "$DS" >"$TMP/novendor.xml"
"$ARBENCH" model --xml "$TMP/novendor.xml" -b 8M -e 8M >"$TMP/nv.txt"
check_eq "no vendor: socket link assumed, named" 1 "$(grep -c "^# assumed: socket_gbs = 10 GB/s: P2P through the socket link: the topology names no CPU vendor; NCCL's Intel value, the pessimistic one (params.c; estimate): AMD Turin measured 50, Genoa 39 \[R6K\]: --calib '{\"params\":{\"socket_gbs\":N}}'$" "$TMP/nv.txt")"
check_eq "no vendor: NCCL's view named" 1 "$(grep -c "^# assumed: nccl_socket_gbs = 10 GB/s: the socket link as NCCL's graph search sees it: SKL_QPI_BW (CPU vendor not in the topology)" "$TMP/nv.txt")"
"$ARBENCH" model --xml "$TMP/novendor.xml" -b 8M -e 8M --calib '{"params":{"socket_gbs":50}}' >"$TMP/nv50.txt"
check_eq "--calib: the override named" 1 "$(grep -c '^# assumed: socket_gbs = 50 GB/s: P2P through the socket link: set by --calib$' "$TMP/nv50.txt")"
check_eq "--calib: ring simple at 8M faster with the faster link" 1 "$(paste <(awk '$1=="8M"{gsub(/\*/,"");print $4}' "$TMP/nv.txt") <(awk '$1=="8M"{gsub(/\*/,"");print $4}' "$TMP/nv50.txt") | awk '{print ($2+0 < $1+0)}')"
check_eq "vendor named: AMD measured value, its source" 1 "$(sed 's/GenuineIntel/AuthenticAMD/' "$DS" >"$TMP/amd.xml"; "$ARBENCH" model --xml "$TMP/amd.xml" -b 8M -e 8M | grep -c '^# assumed: socket_gbs = 50 GB/s: P2P through the socket link: the topology names the CPU (AuthenticAMD) but not its link; measured on dual AMD Turin')"
"$ARBENCH" model --xml "$TMP/novendor.xml" -b 8M -e 8M --format json >"$TMP/nv.jsonl"
check_eq "json: assumptions in the run record" "socket_gbs=10 GB/s nccl_socket_gbs=10 GB/s nccl_p2p_level=PXB nccl_no_p2p=0 (P2P supported)" "$(python3 -c "
import json
r=json.loads(open('$TMP/nv.jsonl').readline())
print(' '.join(a['name']+'='+a['value'] for a in r['assumptions']))")"
check_eq "switch box: the switch's arbitration named" 1 "$(grep -c '^# assumed: switch = fair, 0.86 x link: the topology gives the switches' "$TMP/d.txt")"
sed 's/10de:2bb5/10de:2bff/' "$SW" >"$TMP/unk.xml"
check_eq "unknown GPU id: architecture assumed, named" 1 "$("$ARBENCH" model --xml "$TMP/unk.xml" -b 1K -e 1K | grep -c "^# assumed: gpu_cc = 12.0: the GPUs' architecture for NCCL's constants: PCI id 10de:2bff is not in nccltune.c's list")"

# NCCL's view of the socket link follows the CPU model as NCCL's topo.cc reads it (Emerald Rapids 0xCF: 40), and
# the GPU's architecture its PCI id (L40S 26b9: cc 8.9, NCCL's pre-Hopper speeds: 40 once, 30 and 20 no better, 18 / 40 <= 0.49 stops; duplicated to 2 x 20).
sed 's|<info name="CPUVendor" value="GenuineIntel"/>|&<info name="CPUModelNumber" value="207"/>|' "$DS" >"$TMP/erp.xml"
check_eq "Intel model 207: NCCL's ERP_QPI_BW" 1 "$("$ARBENCH" model --xml "$TMP/erp.xml" -b 1K -e 1K | grep -c "^# assumed: nccl_socket_gbs = 40 GB/s: the socket link as NCCL's graph search sees it: ERP_QPI_BW of the CPU")"
sed 's/10de:2bb5/10de:26b9/' "$SW" >"$TMP/l40s.xml"
check_eq "L40S id: its architecture, NCCL's speeds for it" 1 "$("$ARBENCH" model --xml "$TMP/l40s.xml" -b 1K -e 1K | grep -c "NCCL's ring graph here: 2 channels x 20 GB/s; 2 of 8 ring hops")"

# compare reads predictions too: two boxes side by side (one-shot pull at 1 KiB: 9.82 / 7.87 us).
"$ARBENCH" model --xml "$SW" -b 1K -e 1K --algo oneshot-pull -J "$TMP/sw.jsonl" >/dev/null
"$ARBENCH" model --xml "$DS" -b 1K -e 1K --algo oneshot-pull -J "$TMP/ds.jsonl" >/dev/null
"$ARBENCH" compare "$TMP/sw.jsonl" "$TMP/ds.jsonl" >"$TMP/cmp.txt" 2>&1
check_eq "compare predictions: exit 0" 0 $?
check_eq "compare predictions: ratio, no test" 1 "$(grep -c '| model | oneshot-pull |.*| 1K | 1/1 | 7.87 | 9.82 | 1.248 | - | no samples (predictions: no test) |' "$TMP/cmp.txt")"

# --fit on measured NCCL results with exact linear times (20 us + 0.0001 us per byte), then --calib.
python3 - "$TMP/meas.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for s in [1024 << k for k in range(8)]:
        t = 20 + 1e-4 * s
        f.write(json.dumps({"type": "result", "run_id": "0" * 16, "backend": "nccl", "variant": "", "spec": "nccl",
                            "dtype": "float", "size": s, "ranks": 8, "nccl_algo": "Ring", "nccl_proto": "LL",
                            "time_us": {"p50": t, "mean": t}}) + "\n")
PY
"$ARBENCH" model --fit "$TMP/meas.jsonl" -o "$TMP/calib.json"
check_eq "--fit: exit 0" 0 $?
check_eq "--fit: fixed and slope" "20.000 0.00010000 8" "$(python3 -c "import json;f=json.load(open('$TMP/calib.json'))['families']['nccl-ring-ll'];print('%.3f %.8f %d'%(f['fixed_us'],f['us_per_byte'],f['points']))")"
"$ARBENCH" model --xml "$SW" --calib "$TMP/calib.json" --algo nccl-ring-ll -b 1M -e 1M --format json >"$TMP/c.jsonl"
check_eq "--calib: fitted time at 1 MiB" "124.858" "$(python3 -c "import json;print('%.3f'%[json.loads(l) for l in open('$TMP/c.jsonl')][1]['time_us']['p50'])")"

# --against: NCCL at 22.2 GB/s busbw over SHM where 41 is predicted (the published default-settings case).
python3 - "$TMP/shm.jsonl" <<'PY'
import json, sys
s = 256 << 20
t = s * 1.75 / 22.2e3
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"type": "result", "run_id": "1" * 16, "backend": "nccl", "variant": "", "spec": "nccl",
                        "dtype": "float", "size": s, "ranks": 8, "nccl_algo": "Ring", "nccl_proto": "Simple",
                        "nccl_transport": "SHM", "time_us": {"p50": t, "mean": t}}) + "\n")
    f.write(json.dumps({"type": "result", "run_id": "1" * 16, "backend": "shm-oneshot", "variant": "",
                        "dtype": "float", "size": 1024, "ranks": 4, "time_us": {"p50": 5, "mean": 5}}) + "\n")
PY
"$ARBENCH" model --against "$TMP/shm.jsonl" --xml "$SW" >"$TMP/a.txt" 2>"$TMP/a.err"
check_eq "--against: exit 0" 0 $?
check_eq "--against: diagnosis" "busbw 22.2 GB/s vs 41.1 predicted: NCCL is using SHM between NODE pairs — try NCCL_P2P_LEVEL=SYS" \
   "$(grep -o 'busbw 22.*' "$TMP/a.txt")"
check_eq "--against: host result not compared" 1 "$(grep -c '1 cell not compared' "$TMP/a.err")"
"$ARBENCH" model --against "$TMP/shm.jsonl" --xml "$SW" --format json >"$TMP/a.jsonl" 2>/dev/null
check_eq "--against json: ratio" "0.54" "$(python3 -c "import json;print('%.2f'%[r for r in map(json.loads,open('$TMP/a.jsonl')) if r['type']=='against'][0]['ratio'])")"
check_eq "--against json: the assumptions line first" "assumed 8 switch" "$(python3 -c "import json;r=json.loads(open('$TMP/a.jsonl').readline());print(r['type'],r['ranks'],r['assumptions'][0]['name'])")"

# A NCCL result that recorded nothing of what it ran (nccl-tests style) at 10 GB/s busbw on the switch box's 8 GPUs:
# NCCL's own rules (paths.cc v2.29.2-1) run 2 of its 8 ring hops through host memory there, which the diagnosis says;
# the same result from a run whose environment set NCCL_P2P_LEVEL=SYS: P2P on every hop, no SHM diagnosis, nothing
# assumed about the level; NCCL_P2P_DISABLE=1: every hop.
for env in none SYS DIS 7 PHB; do
python3 - "$TMP/u-$env.jsonl" "$env" <<'PY'
import json, sys
s, env = 256 << 20, sys.argv[2]
t = s * 1.75 / 10.0e3
e = {"none": {}, "SYS": {"NCCL_P2P_LEVEL": "SYS"}, "DIS": {"NCCL_P2P_DISABLE": "1"}, "7": {"NCCL_P2P_LEVEL": "7"},
     "PHB": {"NCCL_P2P_LEVEL": "PHB"}}[env]
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"type": "run", "run_id": "3" * 16, "schema": 1, "env": e}) + "\n")
    f.write(json.dumps({"type": "result", "run_id": "3" * 16, "backend": "nccl", "variant": "", "spec": "nccl",
                        "dtype": "float", "size": s, "ranks": 8, "time_us": {"p50": t, "mean": t}}) + "\n")
PY
"$ARBENCH" model --against "$TMP/u-$env.jsonl" --xml "$SW" >"$TMP/u-$env.txt" 2>&1
"$ARBENCH" model --against "$TMP/u-$env.jsonl" --xml "$SW" --format json >"$TMP/u-$env.json" 2>&1
done
check_eq "--against, nothing recorded: NCCL's SHM hops in the diagnosis" 1 "$(grep -c 'busbw 10.0 GB/s vs 21.5 predicted: NCCL.s default runs 2 of 8 ring hops through host memory (SHM) on this topology (P2P only up to PXB) — try NCCL_P2P_LEVEL=SYS$' "$TMP/u-none.txt")"
# A latency-bound size far below: its bandwidths in three digits (8 B at 100 us on 8 ranks is 0.000140 GB/s
# busbw, the model's 27.4 us 0.000512), not "0.0 GB/s vs 0 predicted"
python3 - "$TMP/tiny.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"type": "run", "run_id": "4" * 16, "schema": 1, "env": {"NCCL_P2P_LEVEL": "SYS"}}) + "\n")
    f.write(json.dumps({"type": "result", "run_id": "4" * 16, "backend": "nccl", "variant": "", "spec": "nccl",
                        "dtype": "float", "size": 8, "ranks": 8, "time_us": {"p50": 100.0, "mean": 100.0}}) + "\n")
PY
check_eq "--against, 8 B far below: the diagnosis's bandwidths in three digits" 1 \
  "$("$ARBENCH" model --against "$TMP/tiny.jsonl" --xml "$SW" | grep -c 'busbw 0.000140 GB/s vs 0.000512 predicted: ')"
check_eq "--against, nothing recorded: the level assumed, named" 1 "$(grep -c '^# assumed: nccl_p2p_level = PXB' "$TMP/u-none.txt")"
check_eq "--against, the run set NCCL_P2P_LEVEL=SYS: P2P everywhere" "0 0 0" "$(grep -c 'host memory' "$TMP/u-SYS.txt") $(grep -c 'nccl_p2p_level' "$TMP/u-SYS.txt") $(python3 -c "import json;print([r for r in map(json.loads,open('$TMP/u-SYS.json')) if r['type']=='against'][0]['nccl_shm_hops'])")"
# paths.cc ncclGetLevel: a legacy number above 5 is SYS's; PHB lets the NODE hops between the two switches use P2P
check_eq "--against, NCCL_P2P_LEVEL=7 (legacy number): SYS, P2P everywhere; PHB: P2P everywhere on one socket" "0 0" "$(python3 -c "import json;print([r for r in map(json.loads,open('$TMP/u-7.json')) if r['type']=='against'][0]['nccl_shm_hops'], [r for r in map(json.loads,open('$TMP/u-PHB.json')) if r['type']=='against'][0]['nccl_shm_hops'])")"
check_eq "--against, the run set NCCL_P2P_DISABLE=1: every hop through host memory" 8 "$(python3 -c "import json;print([r for r in map(json.loads,open('$TMP/u-DIS.json')) if r['type']=='against'][0]['nccl_shm_hops'])")"

# A port reporting a trained-down link is used as read, and said so.
"$ARBENCH" model --xml "$ARBENCH_SRC/tests/fixtures/topo/phb.xml" -b 1K -e 1K >"$TMP/phb.txt"
check_eq "trained-down link noted" 1 "$(grep -c '^# note: a link on the GPU paths reports 2.00 GB/s, below the GPUs. 15.75' "$TMP/phb.txt")"

# The measuring method is the model's input (its record's "graph" and "timing"; bench/model/method.c): NCCL ring LL
# at 1 KiB on 8 GPUs (24.35 us: ring_ll_fixed_us 5.45 + 14 x 1.35) measured four ways. Back-to-back launches timed as
# one interval (nccl-tests) and graph replays add nothing; a call timed alone adds iter_launch_us (3, an estimate the
# output names); a replay of a graph of 10 calls timed alone adds 3 / 10.
python3 - "$TMP/m.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for spec, method in (("loop", {"timing": "loop", "graph": 0}), ("graphloop", {"timing": "loop", "graph": 20}),
                         ("iter", {"timing": "iter", "graph": 0}), ("graphiter", {"timing": "iter", "graph": 10}),
                         ("old", {})):
        r = {"type": "result", "run_id": "2" * 16, "backend": "nccl", "variant": "algo=Ring,proto=LL", "spec": spec,
             "dtype": "float", "size": 1024, "ranks": 8, "time_us": {"p50": 30.0, "mean": 30.0}}
        r.update(method)
        f.write(json.dumps(r) + "\n")
PY
"$ARBENCH" model --against "$TMP/m.jsonl" --xml "$SW" --format json >"$TMP/m.json"
check_eq "--against method: loop, graph (loop), iter, graph (iter), no fields (iter): predicted us" \
  "loop 24.35 graph 24.35 iter 27.35 graph 24.65 iter 27.35" \
  "$(python3 -c "import json;print(' '.join('%s %.2f' % (r['method'], r['predicted_us']) for r in map(json.loads, open('$TMP/m.json')) if r['type'] == 'against'))")"
check_eq "--against method: iter_launch_us named with its value" "iter_launch_us 3 us" \
  "$(python3 -c "import json;r=json.loads(open('$TMP/m.json').readline());print(*[(a['name'], a['value']) for a in r['assumptions'] if a['name'] == 'iter_launch_us'][0])")"
"$ARBENCH" model --against "$TMP/m.jsonl" --xml "$SW" >"$TMP/m.txt"
check_eq "--against method: text names it (column and assumption)" "1 2" \
  "$(grep -c '^# assumed: iter_launch_us = 3 us: a result timed call by call' "$TMP/m.txt") $(grep -c ' 27\.4 .* iter *$' "$TMP/m.txt")"
grep -v '"iter"\|"timing": "iter"' "$TMP/m.jsonl" | grep '"loop"' >"$TMP/m2.jsonl"
check_eq "--against method: nothing timed alone, nothing assumed about it" 0 \
  "$("$ARBENCH" model --against "$TMP/m2.jsonl" --xml "$SW" | grep -c iter_launch_us)"
check_eq "--against method: --calib iter_launch_us" "30.35" "$("$ARBENCH" model --against "$TMP/m.jsonl" --xml "$SW" \
  --calib '{"params":{"iter_launch_us":6}}' --format json | python3 -c "import json,sys;print('%.2f' % [r for r in map(json.loads, sys.stdin) if r['type'] == 'against' and r['method'] == 'iter'][0]['predicted_us'])")"
# Bad input: one line, exit 2.
check_bad "--np too many" "--np 9: the topology has 8 GPUs (allowed: 2..8)" "$ARBENCH" model --xml "$SW" --np 9
check_bad "--np not a number" "--np: need an integer >= 2, got 'x'" "$ARBENCH" model --xml "$SW" --np x
check_bad "--algo unknown" "--algo ring: unknown algorithm (known: nccl-ring-ll" "$ARBENCH" model --xml "$SW" --algo ring
check_bad "-f 1" "-f: the factor must be a number > 1, got '1'" "$ARBENCH" model --xml "$SW" -f 1
check_bad "--format xml" "--format: allowed text or json, got 'xml'" "$ARBENCH" model --xml "$SW" --format xml
check_bad "--calib missing" "cannot open --calib file '$TMP/none.json': No such file" "$ARBENCH" model --xml "$SW" --calib "$TMP/none.json"
check_bad "--fit no files" "--fit needs results files" "$ARBENCH" model --fit
check_bad "--fit nothing fits" "--fit: no algorithm family with results at two or more sizes in $TMP/shm.jsonl" "$ARBENCH" model --fit "$TMP/shm.jsonl"
grep shm-oneshot "$TMP/shm.jsonl" >"$TMP/host.jsonl"
check_bad "--against nothing to compare" "--against: no GPU result in $TMP/host.jsonl that the model covers" "$ARBENCH" model --against "$TMP/host.jsonl" --xml "$DS"
check_bad "--np with --against" "--np: --against takes each result's own rank count; drop '--np'" "$ARBENCH" model --against "$TMP/shm.jsonl" --xml "$SW" --np 4
check_bad "unknown option" "unknown option '--bogus'" "$ARBENCH" model --bogus
check_bad "--xml missing" "cannot open topology XML '$TMP/none.xml'" "$ARBENCH" model --xml "$TMP/none.xml"
finish
