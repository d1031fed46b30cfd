#!/bin/bash
# launches.sh — between launches the launch is the replicate (issue 46 Wanted 2; bench/analysis/noise.c launch_test):
# make_launches.py pairs whose launches move each backend by its own factor (sd 10%) while the 3 --repeat runs inside a
# launch agree within 1%. One launch a side (20 A/A pairs): never faster/slower, every row says so. Three interleaved
# launches a side: 20 A/A pairs with no faster/slower; B's shm-oneshot 2x slower: called slower at all 8 sizes in 17 of
# 20 tables (85%), nothing else called. No row's verdict contradicts its own interval; a side with three launches
# against one says what three a side would detect; table and tune over points of different launches; --shift is gone.
. "$(dirname "$0")/common.sh"
MK="$FIX/make_launches.py"
mkdir -p "$TMP/one" "$TMP/three" "$TMP/power"
python3 "$MK" "$TMP/one" 20 1 && python3 "$MK" "$TMP/three" 20 3 && python3 "$MK" "$TMP/power" 20 3 2.0 || check_fail "make_launches.py"
calls() { # pairs with any faster/slower, and the called (backend, verdict) kinds, over the 20 pairs of $1
  local n=0 k c
  for k in $(seq 0 19); do
    "$ARBENCH" compare --format json "$TMP/$1/a$k.jsonl" "$TMP/$1/b$k.jsonl" >"$TMP/$1/c$k.json" 2>/dev/null || check_fail "compare $1 $k"
    c=$(jq '[.matches[] | select(.verdict == "faster" or .verdict == "slower")] | length' "$TMP/$1/c$k.json")
    [ "$c" -gt 0 ] && n=$((n + 1))
  done
  echo "$n $(jq -rs '[.[].matches[] | select(.verdict == "faster" or .verdict == "slower") | "\(.backend) \(.verdict)"] | unique | join(",")' "$TMP/$1"/c*.json)"
}
check_eq "one launch a side (3 runs each): 0 of 20 A/A pairs called" "0 " "$(calls one)"
check_eq "one launch a side: every row undecided, no interval, unit launch" "16 16 16" \
  "$(jq -r '"\([.matches[] | select(.verdict == "undecided")] | length) \([.matches[] | select(.lo == null)] | length) \([.matches[] | select(.unit == "launch" and .launches_a == 1 and .runs_a == 3)] | length)"' "$TMP/one/c0.json")"
check_eq "one launch a side: the text says so on every row" 16 \
  "$("$ARBENCH" compare "$TMP/one/a0.jsonl" "$TMP/one/b0.jsonl" 2>/dev/null | grep -c '| 3/3 in 1/1 launches | .* | - | undecided (one launch a side: cannot tell a change from launch-to-launch spread; its spread is unmeasured: record 3+ launches a side, A and B interleaved) |$')"
check_eq "three launches a side: 0 of 20 A/A pairs called" "0 " "$(calls three)"
check_eq "three launches a side, B's shm-oneshot 2x: 17 of 20 tables call, only shm-oneshot slower" "17 shm-oneshot slower" "$(calls power)"
check_eq "power: those 17 call all 8 sizes" "8" \
  "$(jq -s '[.[] | [.matches[] | select(.verdict == "slower")] | length | select(. > 0)] | unique[]' "$TMP/power"/c*.json)"
check_eq "no verdict contradicts its interval (60 tables)" 0 \
  "$(jq -s '[.[].matches[] | select((.verdict == "faster" and .hi >= 1) or (.verdict == "slower" and .lo <= 1))] | length' "$TMP"/*/c*.json)"
check_eq "power: the undecided tables print what they could detect" "true" \
  "$(jq -s '[.[] | select([.matches[] | select(.verdict == "slower")] | length == 0) | .matches[] | select(.backend == "shm-oneshot") | .detectable_ratio > 2] | all' "$TMP/power"/c*.json)"
# the interval of one row, computed here: per launch the mean of its 3 runs' log p50s, Student's pooled t on 3 and 3
# launch values (df 4, t 0.975 = 2.7764451051977987), exp(d -+ t se); B/A = exp(d)
check_eq "power pair 0, shm-oneshot 8 B: ratio exact, interval exp(d +- t se) at its Holm level" "ok" "$(python3 - "$TMP/power" <<'PY'
import json, math, sys
d = sys.argv[1]
def launches(path):
    v = {}
    for l in open(path):
        r = json.loads(l)
        if r.get("type") == "result" and r["backend"] == "shm-oneshot" and r["size"] == 8:
            v.setdefault(r["run_id"], []).append(math.log(r["time_us"]["p50"]))
    return [sum(x) / len(x) for x in v.values()]
a, b = launches(d + "/a0.jsonl"), launches(d + "/b0.jsonl")
ma, mb = sum(a) / 3, sum(b) / 3
va, vb = sum((x - ma) ** 2 for x in a) / 2, sum((x - mb) ** 2 for x in b) / 2
se = math.sqrt((va + vb) / 2 * (2 / 3))
m = [x for x in json.load(open(d + "/c0.json"))["matches"] if x["backend"] == "shm-oneshot" and x["size"] == 8][0]
def tcdf(x, df):  # Student's t CDF, Simpson's rule on the density
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    f = lambda u: c * (1 + u * u / df) ** (-(df + 1) / 2)
    n, h = 2000, x / 2000
    return 0.5 + (f(0) + f(x) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, n))) * h / 3
lo_, hi_ = 0.0, 200.0  # the t quantile at the row's level (its Holm level: issue 46), df 4; 2.776 at 5%
for _ in range(100):
    mid = (lo_ + hi_) / 2
    lo_, hi_ = (mid, hi_) if tcdf(mid, 4) < 1 - m["level"] / 2 else (lo_, mid)
q = (lo_ + hi_) / 2
want = (math.exp(mb - ma), math.exp(mb - ma - q * se), math.exp(mb - ma + q * se))
got = (m["ratio"], m["lo"], m["hi"])
print("ok" if abs(got[0] / want[0] - 1) < 1e-7 and all(abs(g / w - 1) < 1e-5 for g, w in zip(got, want)) and q > 2.7764
      else "want %s got %s" % (want, got))
PY
)"
check_eq "B/A is the ratio of the launches' geometric means (json, 60 tables; 10 digits)" 0 \
  "$(jq -s '[.[].matches[] | select(.unit == "launch" and ((.ratio - .b_launches_us / .a_launches_us) | fabs) > 1e-8 * .ratio)] | length' "$TMP"/*/c*.json)"
check_eq "text: the A and B columns are what B/A divides (16 rows)" "16 ok" "$("$ARBENCH" compare "$TMP/power/a1.jsonl" "$TMP/power/b1.jsonl" | python3 -c '
import sys
rows = [l.split("|") for l in sys.stdin if "launches |" in l]
bad = [r for r in rows if abs(float(r[10]) / float(r[9]) / float(r[11]) - 1) > 0.01]
print(len(rows), "ok" if not bad else bad)')"
# three launches in A against one in B: what three a side would detect, from A's measured launch spread
check_eq "one launch in B: 3 launches a side would detect" 16 \
  "$("$ARBENCH" compare "$TMP/three/a0.jsonl" "$TMP/one/b0.jsonl" 2>/dev/null | grep -c '| 9/3 in 3/1 launches | .* | - | undecided (one launch in B: cannot tell a change from launch-to-launch spread; 3 launches a side would detect [0-9]*%) |$')"
check_eq "the same launches on both sides: the runs are compared (bootstrap path), unit run" "run" \
  "$("$ARBENCH" compare --format json "$TMP/three/a0.jsonl" "$TMP/three/a0.jsonl" 2>/dev/null | jq -r '[.matches[].unit] | unique[]')"
# table and tune over sweep points from different launches (point X=a: A's launches, X=b: B's): a column against one
# of another point is tested on launches. Power pair 1 (3 launches a point): every size clear; one-launch pair 0:
# every size "one launch a side", json one_launch, tune says what to record.
sweep_of() { # sweep_of DIR K OUT: A's records as point X=a, B's as X=b, one file
  jq -c 'if .type == "result" or .type == "run" then .point = {"X": "a"} else . end' "$TMP/$1/a$2.jsonl" >"$3"
  jq -c 'if .type == "result" or .type == "run" then .point = {"X": "b"} else . end' "$TMP/$1/b$2.jsonl" >>"$3"
}
sweep_of power 1 "$TMP/p1.jsonl"
sweep_of one 0 "$TMP/o0.jsonl"
check_eq "table, 3 launches a point: 8 clear" "Verdicts: 8 clear, 0 equivalent, 0 undecided." "$("$ARBENCH" table "$TMP/p1.jsonl" | grep '^Verdicts')"
check_eq "table, one launch a point: every size says so" 8 \
  "$("$ARBENCH" table "$TMP/o0.jsonl" | grep -c '^| [0-9K]* | .* ? | undecided: one launch a side (between launches) |$')"
check_eq "table json, one launch a point: one_launch, launches, no bound" "true launches null" \
  "$("$ARBENCH" table --format json "$TMP/o0.jsonl" | jq -r '[.grids[0].decisions[] | "\(.one_launch) \(.runs_needed_unit) \(.bound_pct)"] | unique[]')"
"$ARBENCH" tune "$TMP/o0.jsonl" -o "$TMP/tune-o0" >"$TMP/tune-o0.txt" 2>&1
check_eq "tune, one launch a point: what to record" 1 \
  "$(grep -c '^| 8 .. 128K | shm-oneshot {X=a} | undecided (one launch a side: record 3+ launches of each) |' "$TMP/tune-o0.txt")"
# Launches shared in part: shm-oneshot in three launches (the last two 3x slower), mpi in the first only. The two are
# compared inside the launch they share (shm-oneshot faster there), not over shm-oneshot's other launches: undecided,
# not "clear" for mpi (whose p50 is the lower over all runs).
L0=$(jq -r 'select(.type == "run") | .run_id' "$TMP/three/a0.jsonl" | head -1)
jq -c --arg l "$L0" 'if .type == "run" or .run_id == $l then . elif .backend == "shm-oneshot"
  then .time_us.p50 *= 3 | .samples_us |= map(. * 3) else empty end' "$TMP/three/a0.jsonl" >"$TMP/part.jsonl"
check_eq "shared in part: compared inside the shared launch" "| 8 | **4.47** ? n=3 (fewer runs) | 9.75 ? | undecided: repeat 4 |" \
  "$("$ARBENCH" table "$TMP/part.jsonl" | grep '^| 8 |')"
check_bad "--shift is gone" "--shift auto: the launch shift was removed" "$ARBENCH" compare --shift auto "$TMP/one/a0.jsonl" "$TMP/one/b0.jsonl"
finish
