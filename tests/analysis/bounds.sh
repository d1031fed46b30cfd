#!/bin/bash
# bounds.sh — one definition for a pick's bound and its verdict (issue 46 Wanted 2 and 4; noise.c ar_pair_judge): every
# comparison's interval is at the level Holm judged it, so no printed bound or interval contradicts its verdict
# (bounds.py says what each output must hold). Over many fixture tables: make_launches.py pairs as two sweep points
# (between launches: the t test on launches; the issue's "undecided" with "at least 13% faster"), make_decide.py
# tables (inside one launch: bootstrap and runs' t test) and its equivalent/agree files; in table (json and text),
# tune, compare (json and text) and the report page. Then the levels themselves: a launch row's interval recomputed
# at its Holm level, and the issue's example.
. "$(dirname "$0")/common.sh"
MK="$FIX/make_launches.py"
MD="$FIX/make_decide.py"
B="python3 $(dirname "$0")/bounds.py"
mkdir -p "$TMP/power" "$TMP/aa" "$TMP/small" "$TMP/dec" "$TMP/dec10" "$TMP/misc"
python3 "$MK" "$TMP/power" 4 3 2.0 && python3 "$MK" "$TMP/aa" 4 3 && python3 "$MK" "$TMP/small" 4 3 1.15 ||
  check_fail "make_launches.py"
python3 "$MD" tables "$TMP/dec" 4 3 0.05 && python3 "$MD" tables "$TMP/dec10" 6 3 0.05 1.1 &&
  python3 "$MD" equiv "$TMP/misc" && python3 "$MD" agree "$TMP/misc" || check_fail "make_decide.py"
point_file() { # point_file DIR K OUT: A's records as sweep point X=a, B's as X=b, one file (different launches)
  jq -c 'if .type == "result" or .type == "run" then .point = {"X": "a"} else . end' "$1/a$2.jsonl" >"$3"
  jq -c 'if .type == "result" or .type == "run" then .point = {"X": "b"} else . end' "$1/b$2.jsonl" >>"$3"
}
files=()
for d in power aa small; do
  for k in $(seq 0 3); do point_file "$TMP/$d" "$k" "$TMP/$d/p$k.jsonl" && files+=("$TMP/$d/p$k.jsonl"); done
done
files+=("$TMP"/dec/t*.jsonl "$TMP"/dec10/t*.jsonl "$TMP/misc/equiv.jsonl")
out="$TMP/out.txt"
: >"$out"
n=0
for f in "${files[@]}"; do
  n=$((n + 1))
  "$ARBENCH" table --format json "$f" >"$TMP/t.json" 2>/dev/null || check_fail "table json $f"
  "$ARBENCH" table "$f" >"$TMP/t.md" 2>/dev/null || check_fail "table $f"
  "$ARBENCH" tune "$f" -o "$TMP/tune" >"$TMP/tune.txt" 2>/dev/null || check_fail "tune $f"
  $B table-json "$TMP/t.json" >>"$out"
  $B table-md "$TMP/t.json" "$TMP/t.md" >>"$out"
  $B tune "$TMP/t.json" "$TMP/tune.txt" >>"$out"
done
"$ARBENCH" table --format json "$TMP/misc/agree.jsonl" >"$TMP/agree.json" && $B table-json "$TMP/agree.json" >>"$out"
# compare: between launches (the pairs' files) and inside one launch (one configuration's runs against another's)
for d in power aa small; do
  for k in $(seq 0 3); do
    "$ARBENCH" compare --format json "$TMP/$d/a$k.jsonl" "$TMP/$d/b$k.jsonl" >"$TMP/c.json" 2>/dev/null || check_fail "compare $d $k"
    "$ARBENCH" compare "$TMP/$d/a$k.jsonl" "$TMP/$d/b$k.jsonl" >"$TMP/c.md" 2>/dev/null
    $B compare "$TMP/c.json" "$TMP/c.md" >>"$out"
  done
done
for f in "$TMP"/dec10/t*.jsonl "$TMP/misc/equiv.jsonl"; do
  jq -c 'select(.type != "result" or .backend == "mpi")' "$f" >"$TMP/ca.jsonl"
  jq -c 'select(.type != "result" or .backend == "shm-oneshot") | if .type == "result" then .backend = "mpi" | .spec = "mpi" else . end' \
    "$f" >"$TMP/cb.jsonl"
  "$ARBENCH" compare --format json "$TMP/ca.jsonl" "$TMP/cb.jsonl" >"$TMP/c.json" 2>/dev/null || check_fail "compare in one launch $f"
  "$ARBENCH" compare "$TMP/ca.jsonl" "$TMP/cb.jsonl" >"$TMP/c.md" 2>/dev/null
  $B compare "$TMP/c.json" "$TMP/c.md" >>"$out"
done
# the report page: its bound per size against its verdict (the page reads table json's)
for f in "$TMP/power/p0.jsonl" "$TMP/small/p1.jsonl" "$TMP/dec10/t0.jsonl"; do
  "$ARBENCH" table --format json "$f" >"$TMP/t.json" 2>/dev/null
  ARBENCH_PLOT=/nonexistent "$ARBENCH" report "$f" -o "$TMP/p.html" >/dev/null 2>&1 || check_fail "report $f"
  $B page "$TMP/t.json" "$TMP/p.html" >>"$out"
done
check_eq "no bound or interval contradicts its verdict ($n tables, 18 compares, 3 pages)" "" "$(grep -v ' checked$' "$out")"
total=$(awk '/ checked$/ {s += $1} END {print s + 0}' "$out")
[ "$total" -ge 500 ] || check_fail "only $total bounds and intervals checked (expected 500 or more)"
# a mix of verdicts was checked, not one kind
check_eq "the tables hold clear, equivalent and undecided sizes" "clear equivalent undecided" \
  "$(for f in "${files[@]}"; do "$ARBENCH" table --format json "$f" 2>/dev/null | jq -r '.grids[].decisions[].verdict'; done | sort -u | xargs)"
# The issue's example: the power pair 0 as two points: undecided, and now a bound that says so (was "at least 13% faster").
"$ARBENCH" tune "$TMP/power/p0.jsonl" -o "$TMP/tune" >"$TMP/tune0.txt" 2>/dev/null
check_eq "the issue's example: tune's undecided range bound is 'at most'" \
  "| 8 .. 128K | shm-oneshot {X=a} | undecided (6 launches a side) | at most" \
  "$(grep '^| 8 .. 128K' "$TMP/tune0.txt" | awk -F' \\| ' '{print $1 " | " $2 " | " $3 " | " substr($NF, 1, 7)}')"
# compare's statistics text behind --explain (one line without), as table's and tune's (noise.sh)
"$ARBENCH" compare "$TMP/power/a0.jsonl" "$TMP/power/b0.jsonl" >"$TMP/cx0.md" 2>/dev/null
"$ARBENCH" compare --explain "$TMP/power/a0.jsonl" "$TMP/power/b0.jsonl" >"$TMP/cx1.md" 2>/dev/null
check_eq "compare: how intervals and verdicts are decided, behind --explain" "1 0 0 1" \
  "$(grep -c '^How the picks, verdicts and bounds are decided: arbench compare --explain' "$TMP/cx0.md") $(grep -c '^Intervals and verdicts: one definition' "$TMP/cx0.md") $(grep -c '^How the picks' "$TMP/cx1.md") $(grep -c '^Intervals and verdicts: one definition' "$TMP/cx1.md")"
# The level itself: a launch row's interval is exp(d +- t(1 - level/2, df) se) at its Holm level alpha / (m - r),
# recomputed here from the launches (Student's pooled t, 3 + 3 launches: df 4) and Holm over the row p-values.
"$ARBENCH" compare --format json "$TMP/power/a1.jsonl" "$TMP/power/b1.jsonl" >"$TMP/c1.json" 2>/dev/null
check_eq "a launch row's interval at its Holm level, recomputed" "ok" "$(python3 - "$TMP/power/a1.jsonl" "$TMP/power/b1.jsonl" "$TMP/c1.json" <<'PY'
import json, math, sys
def launches(path, be, size):
    v = {}
    for l in open(path):
        r = json.loads(l)
        if r.get("type") == "result" and r["backend"] == be and r["size"] == size:
            v.setdefault(r["run_id"], []).append(math.log(r["time_us"]["p50"]))
    return [sum(x) / len(x) for x in v.values()]
def tcdf(x, df):  # Student's t CDF by Simpson's rule on the density (df 4: smooth)
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    f = lambda u: c * (1 + u * u / df) ** (-(df + 1) / 2)
    n, a = 2000, 0.0
    h = x / n
    s = f(0) + f(x) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, n))
    return 0.5 + s * h / 3
def tq(p, df):
    lo, hi = 0.0, 200.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if tcdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2
c = json.load(open(sys.argv[3]))
ms = c["matches"]
ps = sorted((m["p"], i) for i, m in enumerate(ms) if m["p"] is not None)
m_, rej = len(ps), 0
while rej < m_ and ps[rej][0] <= 0.05 / (m_ - rej):
    rej += 1
level = {i: 0.05 / (m_ - (k if k < rej else rej)) for k, (p, i) in enumerate(ps)}
errs = []
for i, m in enumerate(ms):
    if m["verdict"] not in ("faster", "slower"):
        continue
    a, b = launches(sys.argv[1], m["backend"], m["size"]), launches(sys.argv[2], m["backend"], m["size"])
    ma, mb = sum(a) / 3, sum(b) / 3
    sp = (sum((x - ma) ** 2 for x in a) + sum((x - mb) ** 2 for x in b)) / 4
    se, d = math.sqrt(sp * (2 / 3)), mb - ma
    q = tq(1 - level[i] / 2, 4)
    lo, hi = math.exp(d - q * se), math.exp(d + q * se)
    if abs(m["level"] - level[i]) > 1e-12 or abs(lo / m["lo"] - 1) > 1e-4 or abs(hi / m["hi"] - 1) > 1e-4:
        errs.append((m["backend"], m["size"], m["level"], level[i], m["lo"], lo, m["hi"], hi))
print("ok" if not errs and any(m["verdict"] == "slower" for m in ms) else errs or "nothing called")
PY
)"
finish
