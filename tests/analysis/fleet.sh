#!/usr/bin/env bash
# fleet.sh — `arbench fleet` on crafted fleets (fleet_gen.py: seeded box-to-box spread, run drift and samples):
# one slow box among 40 (named, and only it, from the size it slows down at), all boxes healthy (none named, at
# 3 runs a box and at 1), 300 healthy boxes (none named), two GPU models (grouped apart, neither flagged), link
# records (a slow pair named with its GB/s), topology (a GPU at x8) and wrong results as findings, the text and
# JSON outputs, exit statuses 0 / 4 / 3 / 2.
source "$(dirname "$0")/common.sh"
GEN=("$PY" "$ARBENCH_SRC/tests/analysis/fleet_gen.py")
fleet() { "$ARBENCH" fleet "$@"; }
flagged() { # flagged JSON: the flagged hosts, sorted, space-separated
  "$PY" -c 'import json,sys; v=json.load(open(sys.argv[1])); print(" ".join(sorted(f["host"] for f in v["findings"])))' "$1"
}

# One slow box: p2p-oneshot 1.6x the time from 64K (the first size at or above it: 128K).
"${GEN[@]}" --out "$TMP/slow" --boxes 40 --slow box17:1.6:65536:p2p-oneshot --seed 11
rc=0; fleet "$TMP"/slow/*.jsonl >"$TMP/slow.txt" 2>"$TMP/slow.err" || rc=$?
check_eq "one slow box: exit" 4 "$rc"
check_eq "one slow box: one finding line" 1 "$(grep -c '^box' "$TMP/slow.txt")"
check_eq "one slow box: the finding" \
  "box17: p2p-oneshot bfloat16 8 ranks 37% below the fleet from 128K (worst 38% below the fleet at 2M)" \
  "$(grep '^box' "$TMP/slow.txt")"
check_eq "one slow box: its row" "| box17 | 26 | 1.115 | p2p-oneshot bfloat16 8 ranks 2M: 1.605 | slower |" \
  "$(grep '^| box17 ' "$TMP/slow.txt")"
check_eq "one slow box: the others' verdicts" 39 "$(grep -c '^| box.* | equivalent |$' "$TMP/slow.txt")"
fleet --format json "$TMP"/slow/*.jsonl >"$TMP/slow.json" || true
check_eq "one slow box: json findings" "box17" "$(flagged "$TMP/slow.json")"
"$PY" - "$TMP/slow.json" <<'PY' || check_fail "one slow box: json"
import json, sys
v = json.load(open(sys.argv[1]))
assert v["flagged"] == 1 and v["boxes"] == 40 and v["margin"] == 0.1, (v["flagged"], v["boxes"], v["margin"])
assert v["family"] == {"correction": "holm", "tests": 1040, "alpha": 0.05}, v["family"]
(g,) = v["groups"]
assert g["model"] == "NVIDIA RTX PRO 6000 Blackwell Server Edition" and g["gpus"] == 8 and g["stack"] == "cu130", g["group"]
box = {b["host"]: b for b in g["boxes"]}["box17"]
slow = sorted(c["size"] for c in box["slow_cells"])
assert slow == [8 << (2 * k) for k in range(7, 13)], slow  # 128K .. 128M: every size from the slow one up
assert all(c["cell"] == "p2p-oneshot bfloat16 8 ranks" and 1.5 < c["ratio"] < 1.75 for c in box["slow_cells"]), box
assert box["slurm_job"] == "4242" and box["verdict"] == "slower", box
print("ok: json: box17's six slow cells, 1040 tests, family-wise 5%")
PY

# Margins: 1.6x the time is not off at --margin 70 (1.7x), and is at --margin 50 (1.5x).
check_eq "--margin 70: exit" 0 "$(fleet --margin 70 "$TMP"/slow/*.jsonl >/dev/null 2>&1; echo $?)"
check_eq "--margin 50: exit" 4 "$(fleet --margin 50 "$TMP"/slow/*.jsonl >/dev/null 2>&1; echo $?)"

# Just beyond the margin (1.13x the fleet's time at every size): not beyond the noise of a family of 1040 tests
# (one test alone would say so: p about 2e-4), so undecided and not named.
"${GEN[@]}" --out "$TMP/near" --boxes 40 --slow box09:1.13:8 --seed 21
rc=0; fleet "$TMP"/near/*.jsonl >"$TMP/near.txt" 2>&1 || rc=$?
check_eq "1.13x: exit" 0 "$rc"
check_eq "1.13x: its row" "| box09 | 26 | 1.141 | nccl bfloat16 8 ranks 512: 1.148 | undecided |" "$(grep '^| box09 ' "$TMP/near.txt")"

# The same records twice (a file given twice, a job's file copied): each run counts once.
fleet --format json "$TMP"/slow/*.jsonl "$TMP"/slow/box1*.jsonl >"$TMP/twice.json" 2>/dev/null || true
check_eq "files given twice: the same verdicts" "" "$(diff "$TMP/slow.json" "$TMP/twice.json" | head -5)"

# All healthy: no box named, three runs a box, one run a box, and 300 boxes (a family of 7800 tests).
"${GEN[@]}" --out "$TMP/ok" --boxes 40 --seed 12
rc=0; fleet "$TMP"/ok/*.jsonl >"$TMP/ok.txt" 2>&1 || rc=$?
check_eq "all healthy: exit" 0 "$rc"
check_eq "all healthy: findings" "# findings: 0 boxes flagged" "$(grep '^# findings' "$TMP/ok.txt")"
check_eq "all healthy: no slower box" 0 "$(grep -c '| slower |' "$TMP/ok.txt")"
"${GEN[@]}" --out "$TMP/ok1" --boxes 40 --runs 1 --seed 13
check_eq "all healthy, one run a box: exit" 0 "$(fleet "$TMP"/ok1/*.jsonl >/dev/null 2>&1; echo $?)"
"${GEN[@]}" --out "$TMP/ok300" --boxes 300 --sizes 13 --samples 40 --seed 14
rc=0; fleet --format json "$TMP"/ok300/*.jsonl >"$TMP/ok300.json" 2>&1 || rc=$?
check_eq "300 healthy boxes: exit" 0 "$rc"
check_eq "300 healthy boxes: flagged" "" "$(flagged "$TMP/ok300.json")"

# One slow box measured in a single run: the run's samples are its noise.
"${GEN[@]}" --out "$TMP/one" --boxes 40 --runs 1 --slow box11:1.6:65536 --seed 15
rc=0; fleet "$TMP"/one/*.jsonl >"$TMP/one.txt" 2>&1 || rc=$?
check_eq "one run a box, one slow: exit" 4 "$rc"
check_eq "one run a box, one slow: named" "box11" "$(grep '^box' "$TMP/one.txt" | cut -d: -f1 | paste -sd' ')"

# Two GPU models: grouped apart (the L40S boxes are 2x slower, and none of them is off).
"${GEN[@]}" --out "$TMP/mixed" --boxes 40 --model-b 15 --seed 16
rc=0; fleet --format json "$TMP"/mixed/*.jsonl >"$TMP/mixed.json" 2>&1 || rc=$?
check_eq "two models: exit" 0 "$rc"
check_eq "two models: groups" "NVIDIA L40S x 8, stack cu130:15 NVIDIA RTX PRO 6000 Blackwell Server Edition x 8, stack cu130:25" \
  "$("$PY" -c 'import json,sys; print(" ".join(sorted("%s:%d" % (g["group"], len(g["boxes"])) for g in json.load(open(sys.argv[1]))["groups"])))' "$TMP/mixed.json")"
# ... and a slow box among the second model is named within its group
"${GEN[@]}" --out "$TMP/mixed2" --boxes 40 --model-b 15 --slow box30:1.6:65536 --seed 17
check_eq "two models, a slow L40S: named" "box30" \
  "$(fleet --format json "$TMP"/mixed2/*.jsonl 2>/dev/null >"$TMP/m2.json"; flagged "$TMP/m2.json")"

# Link records: a slow pair (3->5 at 21 GB/s where the fleet reads 38) is named with its GB/s.
"${GEN[@]}" --out "$TMP/links" --boxes 12 --sizes 4 --links --slow-pair 'box07:3->5' --seed 18
rc=0; fleet "$TMP"/links/*.jsonl >"$TMP/links.txt" 2>&1 || rc=$?
check_eq "slow pair: exit" 4 "$rc"
check_eq "slow pair: the finding" "box07: its link 3->5 ce-read (SYS) 21.3 GB/s vs fleet 37.3 at 64M" \
  "$(grep '^box' "$TMP/links.txt")"

# Topology and wrong results are findings, whatever the times say.
"${GEN[@]}" --out "$TMP/topo" --boxes 12 --sizes 4 --x8 box03:3 --wrong box05 --seed 19
rc=0; fleet "$TMP"/topo/*.jsonl >"$TMP/topo.txt" 2>&1 || rc=$?
check_eq "x8 and wrong: exit" 4 "$rc"
check_eq "x8: the finding" "box03: GPU 3 (0000:48:00.0) has a PCIe link of 31.51 GB/s where its group's boxes have 63.02: a link trained narrower or slower (x8 for x16, Gen4 for Gen5), a riser or slot to check" \
  "$(grep '^box03' "$TMP/topo.txt")"
check_eq "wrong: the finding" "box05: 42 wrong elements in its results (first: nccl bfloat16 result ($TMP/topo/box05.jsonl:4)): the box computes wrong sums" \
  "$(grep '^box05' "$TMP/topo.txt")"
check_eq "x8 and wrong: their verdicts" "box03 topology differs,box05 wrong results" \
  "$(awk -F' [|] ' '/^[|] box0[35] /{print substr($1, 3) " " $5}' "$TMP/topo.txt" | sed 's/ |$//' | paste -sd,)"
check_eq "x8 and wrong: the others" 10 "$(grep -c '^| box.* | equivalent |$' "$TMP/topo.txt")"

# Exit 3: nothing to compare; exit 2: bad input, one line.
check_eq "one box: exit" 3 "$(fleet "$TMP/ok/box01.jsonl" >/dev/null 2>&1; echo $?)"
fleet "$TMP/ok/box01.jsonl" 2>"$TMP/one.err" >/dev/null || true
check_eq "one box: message" "arbench fleet: nothing to compare in 1 file: no group with two boxes (a group: the same GPU model, GPU count and stack)" "$(cat "$TMP/one.err")"
: >"$TMP/empty.jsonl"
check_eq "empty file: exit" 3 "$(fleet "$TMP/empty.jsonl" >/dev/null 2>&1; echo $?)"
check_bad "no files" "no results files" fleet
check_bad "bad margin" "bad --margin 'ten'" fleet --margin ten "$TMP/ok/box01.jsonl"
check_bad "bad format" "bad --format 'xml'" fleet --format xml "$TMP/ok/box01.jsonl"
check_bad "unknown option" "unknown option '--bogus'" fleet --bogus "$TMP/ok/box01.jsonl"
check_bad "missing file" "cannot open results file" fleet "$TMP/nope.jsonl" "$TMP/ok/box01.jsonl"
grep -v '"type":"run"' "$TMP/ok/box02.jsonl" >"$TMP/norun.jsonl"
check_bad "result without its run record" "record of run 'box02-r0' before (or without) its run record" \
  fleet "$TMP/ok/box01.jsonl" "$TMP/norun.jsonl"
{ head -1 "$TMP/ok/box03.jsonl"; echo '{"type":"result","run_id":"box03-r0","backend":"nccl"'; tail -1 "$TMP/ok/box03.jsonl"; } >"$TMP/bad.jsonl"
check_bad "malformed line" "bad.jsonl:2" fleet "$TMP/ok/box01.jsonl" "$TMP/bad.jsonl"
sed '2s/"size":8,/"size":-8,/' "$TMP/ok/box04.jsonl" >"$TMP/neg.jsonl"
check_bad "negative size" "neg.jsonl:2: result record with a missing or impossible" fleet "$TMP/ok/box01.jsonl" "$TMP/neg.jsonl"
finish
