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
check_eq "model: crossover" "NCCL beats one-shot from 64K; it beats every custom algorithm at no size up to 256K" \
   "$(grep '^NCCL beats' "$TMP/t.txt")"

# Prediction records: one per size x algorithm; table shows them as configurations.
"$ARBENCH" model --xml "$DS" -b 1K -e 4K --algo oneshot-push,nccl-ring-ll,islands -J "$TMP/p.jsonl" >/dev/null
check_eq "model -J: 3 sizes x 3 algorithms" 9 "$(grep -c '"type": *"prediction"' "$TMP/p.jsonl")"
"$ARBENCH" model --xml "$DS" -b 1K -e 4K --algo oneshot-push --format json >"$TMP/j.jsonl"
check_eq "model --format json: records on stdout" 3 "$(grep -c prediction "$TMP/j.jsonl")"
# one-shot push, 1 KiB, two sockets: 6.6 + 2 x 0.6 (SYS hops) + 1024 B / (10 GB/s / 16 crossing flows)
check_eq "prediction p50 at 1K (us)" "9.438" "$(python3 -c "import json;r=[json.loads(l) for l in open('$TMP/j.jsonl')];r=[x for x in r if x['type']=='prediction'];print('%.3f'%r[0]['time_us']['p50'])")"
"$ARBENCH" table "$TMP/p.jsonl" "$ARBENCH_SRC/tests/fixtures/analysis/a.jsonl" >"$TMP/tab.txt" 2>&1
check_eq "table reads predictions: exit 0" 0 $?
check_eq "table: model columns, marked predicted" 1 "$(grep -c 'model:nccl-ring-ll (predicted) | model:oneshot-push (predicted) | model:islands (predicted)' "$TMP/tab.txt")"
grep -q 'shm-oneshot' "$TMP/tab.txt" && echo "ok: table: measured results still there" || check_fail "table lost measured results"

# compare reads predictions too: two boxes side by side (one-shot pull at 1 KiB: 9.82 / 7.87 us).
"$ARBENCH" model --xml "$SW" -b 1K -e 1K --algo oneshot-pull -J "$TMP/sw.jsonl" >/dev/null
"$ARBENCH" model --xml "$DS" -b 1K -e 1K --algo oneshot-pull -J "$TMP/ds.jsonl" >/dev/null
"$ARBENCH" compare "$TMP/sw.jsonl" "$TMP/ds.jsonl" >"$TMP/cmp.txt" 2>&1
check_eq "compare predictions: exit 0" 0 $?
check_eq "compare predictions: ratio" 1 "$(grep -c '| model | oneshot-pull |.*| 1K | 0/0 | 7.87 | 9.82 | 1.248 |' "$TMP/cmp.txt")"

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
check_eq "--against: diagnosis" "busbw 22.2 GB/s vs 41 predicted: NCCL is using SHM between NODE pairs — try NCCL_P2P_LEVEL=SYS" \
   "$(grep -o 'busbw 22.*' "$TMP/a.txt")"
check_eq "--against: host result not compared" 1 "$(grep -c '1 cell not compared' "$TMP/a.err")"
"$ARBENCH" model --against "$TMP/shm.jsonl" --xml "$SW" --format json >"$TMP/a.jsonl" 2>/dev/null
check_eq "--against json: ratio" "0.54" "$(python3 -c "import json;print('%.2f'%json.loads(open('$TMP/a.jsonl').readline())['ratio'])")"

# A port reporting a trained-down link is used as read, and said so.
"$ARBENCH" model --xml "$ARBENCH_SRC/tests/fixtures/topo/phb.xml" -b 1K -e 1K >"$TMP/phb.txt"
check_eq "trained-down link noted" 1 "$(grep -c '^# note: a link on the GPU paths reports 2.00 GB/s, below the GPUs. 15.75' "$TMP/phb.txt")"

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
