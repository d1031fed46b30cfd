# common.sh — the impact tests' fixtures on top of tests/lib/common.sh, in counting mode: the crafted 8-GPU file
# (tests/fixtures/impact/make_impact.py), the Llama-3-70B-like config.json, and check_near for computed values.
source "$ARBENCH_SRC/tests/lib/common.sh"
ar_counting
FIX="$ARBENCH_SRC/tests/fixtures/impact"
CFG="$FIX/llama-70b-config.json"
"$PY" "$FIX/make_impact.py" "$TMP/a.jsonl" || check_fail "make_impact.py"
check_near() { # check_near NAME WANT GOT : equal to 1e-9 relative (values printed with 17 digits)
  if awk -v w="$2" -v g="$3" 'BEGIN { d = w - g; if (d < 0) d = -d; s = w < 0 ? -w : w; exit !(g != "" && d <= 1e-9 * (s > 1 ? s : 1)) }'
  then echo "ok: $1"; else check_fail "$1: expected [$2], got [$3]"; fi
}
