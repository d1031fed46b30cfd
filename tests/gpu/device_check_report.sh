#!/usr/bin/env bash
# device_check_report.sh — the device-check scripts' one report reader (device_check_report.py) without a
# GPU: device-check's variants step passes only when every variant was measured and checked (all skips, or a
# variant missing, fail); the p2p/symm step tables on a real CPU run's results and on edited copies of them
# (a wrong element, a skip, an error, a wrong exit each fail the step); fused skip reasons, stall steps,
# link-record assertions and a bad call.
source "$(dirname "$0")/../lib/common.sh"
REPORT="$ARBENCH_SRC/tests/gpu/device_check_report.py"
variants() { # variants DIR KIND... : one record per variant: result (checked) or skip
  local dir=$1; shift
  mkdir -p "$dir"
  echo "variants-1rank 0 0 3" >"$dir/steps"
  : >"$dir/variants-1rank.err"
  local specs=("nccl:proto=Simple" "nccl:ctas=2" "nccl:reg=1") i=0
  for kind in "$@"; do
    if [ "$kind" = result ]; then
      printf '{"type":"result","spec":"%s","checked":true,"wrong":0,"dtype":"float","placement":"out","size":8}\n' "${specs[$i]}"
    elif [ "$kind" = skip ]; then
      printf '{"type":"skip","spec":"%s","reason":"not here"}\n' "${specs[$i]}"
    fi
    i=$((i + 1))
  done >"$dir/variants-1rank.jsonl"
}
verdict() { "$PY" "$REPORT" "$1" >"$TMP/out" 2>&1; echo "$? $(grep -E '^variants-1rank ' "$TMP/out" | awk '{print $NF}')"; }
variants "$TMP/all" result result result
[ "$(verdict "$TMP/all")" = "0 PASS" ] || { cat "$TMP/out"; fail "three measured variants do not pass"; }
variants "$TMP/skips" skip skip skip
[ "$(verdict "$TMP/skips")" = "1 FAIL" ] || { cat "$TMP/out"; fail "a variants step of skips only passes"; }
variants "$TMP/three" result result skip
[ "$(verdict "$TMP/three")" = "1 FAIL" ] || { cat "$TMP/out"; fail "a skipped variant passes"; }
variants "$TMP/none" none
[ "$(verdict "$TMP/none")" = "1 FAIL" ] || { cat "$TMP/out"; fail "a variants step without records passes"; }

# --- a real run on CPU ranks: 5 host backends x 3 sizes, all checked
R="$TMP/real"; mkdir -p "$R"
expect_status 0 ar_mpirun 2 run -b 1K -e 4K -J "$R/np2-host.jsonl"
expect_eq "real run: result records" 15 "$(grep -c '"type":"result"' "$R/np2-host.jsonl")"
echo "np2-host 0 0 3" >"$R/steps"
row() { # row SUITE DIR STEP : "EXIT | the step's table row, blanks squeezed"
  local rc=0
  "$PY" "$REPORT" --suite "$1" "$2" >"$TMP/out" 2>&1 || rc=$?
  echo "$rc | $(grep -E "^$3 " "$TMP/out" | tr -s ' ')"
}
expect_eq "p2p: real run passes" "0 | np2-host 0 0 15 0 0 0 3 PASS" "$(row p2p "$R" np2-host)"
grep -qx "device-check-p2p: PASS" "$TMP/out" || { cat "$TMP/out"; fail "p2p: no PASS verdict line"; }
expect_eq "symm: real run passes" "0 | np2-host 0 0 15 0 0 0 3 PASS" "$(row symm "$R" np2-host)"
grep -qx "device-check-symm: PASS" "$TMP/out" || { cat "$TMP/out"; fail "symm: no PASS verdict line"; }
cp "$R/np2-host.jsonl" "$R/sizes.jsonl"; echo "sizes 0 0 3" >"$R/steps.dc"
mkdir -p "$TMP/dc"; cp "$R/sizes.jsonl" "$TMP/dc/"; mv "$R/steps.dc" "$TMP/dc/steps"
expect_eq "device-check: real run as the sizes step" "0 | sizes 0 0 15 0 0 0 3 PASS" "$(row device-check "$TMP/dc" sizes)"
expect_eq "p2p: the wrong exit fails" "1 | np2-host 0 1 15 0 0 0 3 FAIL" \
  "$(echo "np2-host 0 1 3" >"$R/steps"; row p2p "$R" np2-host)"
echo "np2-host 0 0 3" >"$R/steps"
edit() { # edit PYTHON : rewrite $R/np2-host.jsonl from the real run, records r (a list) edited by PYTHON
  "$PY" - "$TMP/dc/sizes.jsonl" "$R/np2-host.jsonl" "$1" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
exec(sys.argv[3])
open(sys.argv[2], "w").write("".join(json.dumps(x) + "\n" for x in r))
PY
}
edit 'r[3]["wrong"] = 5'
expect_eq "p2p: a wrong element fails" "1 | np2-host 0 0 15 5 0 0 3 FAIL" "$(row p2p "$R" np2-host)"
expect_eq "symm: a wrong element fails" "1 | np2-host 0 0 15 5 0 0 3 FAIL" "$(row symm "$R" np2-host)"
edit 'r[5]["checked"] = False'
expect_eq "p2p: an unchecked result fails" "1 | np2-host 0 0 15 0 0 0 3 FAIL" "$(row p2p "$R" np2-host)"
edit 'r.append({"type": "skip", "spec": "p2p-oneshot", "reason": "not here"})'
expect_eq "p2p: a skip fails" "1 | np2-host 0 0 15 0 1 0 3 FAIL" "$(row p2p "$R" np2-host)"
edit 'r.append({"type": "error", "spec": "mpi", "error": "boom"})'
expect_eq "symm: an error fails" "1 | np2-host 0 0 15 0 0 1 3 FAIL" "$(row symm "$R" np2-host)"
edit 'r[:] = [x for x in r if x["type"] != "result"]'
expect_eq "symm: no results fails" "1 | np2-host 0 0 0 0 0 0 3 FAIL" "$(row symm "$R" np2-host)"
edit 'pass'; echo '{"type":"result","spec":"mp' >>"$R/np2-host.jsonl"
expect_eq "p2p: a torn last line is dropped" "0 | np2-host 0 0 15 0 0 0 3 PASS" "$(row p2p "$R" np2-host)"

# --- fused steps: checked within tolerance, skips only for the listed reasons, the wanted ones present
F="$TMP/fused"; mkdir -p "$F"; echo "np2-fused 0 0 5" >"$F/steps"
fused() { # fused REASON... : one tolerance-checked result and a skip per REASON
  printf '{"type":"result","spec":"fused","checked":"tolerance","wrong":0}\n' >"$F/np2-fused.jsonl"
  local why; for why in "$@"; do printf '{"type":"skip","spec":"fused","reason":"%s"}\n' "$why"; done >>"$F/np2-fused.jsonl"
}
fused "count 7 is not a whole number of rows" "fused works on bfloat16 only (float)"
expect_eq "fused: the wanted skips pass" "0 | np2-fused 0 0 1 0 2 0 5 PASS" "$(row p2p "$F" np2-fused)"
fused "count 7 is not a whole number of rows"
expect_eq "fused: a wanted skip missing fails" "1 | np2-fused 0 0 1 0 1 0 5 FAIL" "$(row p2p "$F" np2-fused)"
fused "count 7 is not a whole number of rows" "fused works on bfloat16 only (float)" "out of memory"
expect_eq "fused: an unlisted skip fails" "1 | np2-fused 0 0 1 0 3 0 5 FAIL" "$(row p2p "$F" np2-fused)"

# --- stall steps: judged on stderr
S="$TMP/stall"; mkdir -p "$S"; echo "np2-stall 1 1 4" >"$S/steps"; : >"$S/np2-stall.jsonl"
echo "arbench: rank 0: timeout after 3.6 s in the timed loop, waiting for rank 1" >"$S/np2-stall.err"
expect_eq "p2p: stall named" "0 | np2-stall 1 1 0 0 0 0 4 PASS" "$(row p2p "$S" np2-stall)"
echo "arbench: rank 0: timeout after 3.6 s" >"$S/np2-stall.err"
expect_eq "p2p: stall without the rank fails" "1 | np2-stall 1 1 0 0 0 0 4 FAIL" "$(row p2p "$S" np2-stall)"
expect_eq "symm: stall with a timeout but no phase fails" "1 | np2-stall 1 1 0 0 0 0 4 FAIL" "$(row symm "$S" np2-stall)"
echo "arbench: timeout: symm barrier" >"$S/np2-stall.err"
expect_eq "symm: stall names the phase" "0 | np2-stall 1 1 0 0 0 0 4 PASS" "$(row symm "$S" np2-stall)"

# --- link records: need() over recs (type link) and skips
L="$TMP/links.jsonl"
printf '%s\n' '{"type":"run"}' '{"type":"link","method":"ce-read","gbs":12.5,"wrong":0}' \
  '{"type":"link","method":"flag","us":2.0,"wrong":0}' '{"type":"skip","reason":"x"}' >"$L"
expect_status 0 "$PY" "$REPORT" --links "$L" 'need(len(recs) == 2 and len(skips) == 1, "counts")
need([r["gbs"] for r in recs if r["method"] == "ce-read"] == [12.5], "gbs")'
expect_status 1 "$PY" "$REPORT" --links "$L" 'need(not skips, "no pair skipped: %s" % skips)'
expect_eq "links: the failed need is named" "FAIL: no pair skipped: [{'type': 'skip', 'reason': 'x'}]" "$(cat "$TMP/out")"
echo '{"type":"link","meth' >>"$L"
expect_status 1 "$PY" "$REPORT" --links "$L" 'pass'
expect_status 1 "$PY" "$REPORT" --links "$TMP/none.jsonl" 'pass'
expect_status 2 "$PY" "$REPORT" --suite bogus "$R"
grep -q "^usage: device_check_report.py \[--suite device-check|p2p|symm\]" "$TMP/err" || fail "bad suite: no usage line"
echo "device_check_report: ok"
