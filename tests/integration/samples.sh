#!/usr/bin/env bash
# samples.sh — what a result record says about its samples, on a quick run: every statistic recomputed
# from the samples, the buffer-set count of --buffers cold (check_table.py), and --max-samples capping the
# samples kept.
source "$(dirname "$0")/../lib/common.sh"
J=$TMP/r.jsonl
ar_mpirun 2 run --backend mpi --counts 7,4097 -d float,half --inplace both -n 12 -w 1 --buffers cold -J "$J" >"$TMP/t" \
  || { cat "$TMP/t"; fail "run failed"; }
"$PY" "$ARBENCH_SRC/tests/integration/check_table.py" "$TMP/t" "$J" 2 2 2 2 || fail "records disagree"
# The table marks each cell whose --buffers cold rotation spanned under 2 x the cache (cold_reached false): ^.
warm=$(jq -s '[.[] | select(.type=="result" and .cold_reached == false)] | length' "$J")
"$ARBENCH" table "$J" >"$TMP/table" || fail "table failed"
[ "$warm" -gt 0 ] && [ "$(grep -o ' ^ |' "$TMP/table" | wc -l)" = "$warm" ] && grep -q '^^ = not cold' "$TMP/table" \
  || { cat "$TMP/table"; fail "table does not mark the $warm not-cold results"; }
# ... and each such record's method says it (buffers_note), exactly those
"$PY" - "$J" <<'PY' || fail "buffers_note not on exactly the not-cold records"
import json, sys
res = [json.loads(l) for l in open(sys.argv[1]) if '"result"' in l]
for r in res:
    note = r.get("buffers_note")
    assert (note is not None) == (not r["cold_reached"]), r
    assert note is None or note.startswith("not cold: --buffers cold, but its %d sets span %d bytes" % (r["nsets"], r["rotation_bytes"])), note
PY
# --max-samples caps the samples kept (evenly spaced), not the iterations the statistics cover.
J=$TMP/cap.jsonl
ar_mpirun 2 run --backend mpi --counts 7 -n 40 -w 0 --max-samples 8 -J "$J" >/dev/null || fail "--max-samples run failed"
"$PY" - "$J" <<'PY' || fail "--max-samples 8 not applied"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if '"result"' in l][0]
assert r["samples_n"] == 40 and len(r["samples_us"]) == 8, (r["samples_n"], len(r["samples_us"]))
PY
"$ARBENCH" table "$J" >"$TMP/table" || fail "table failed"
! grep -q ' ^ |' "$TMP/table" || { cat "$TMP/table"; fail "a --buffers hot result marked not cold"; }
echo "samples: ok"
