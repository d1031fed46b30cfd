#!/bin/bash
# fold.sh — sweep columns that differ only by an axis that does not apply to a backend are one configuration
# (issue 42, item 8): the sweep record's "applies" says axis A applies to mpi only, so shm-oneshot's runs at A=1,2,3
# pool into one column (p50 = the median over the three runs), named as pooled; mpi keeps a column per value. A
# file without "applies" keeps every column; --point filters on the launch's point; compare matches folded.
. "$(dirname "$0")/common.sh"
"$PY" - "$TMP/f.jsonl" "$TMP/plain.jsonl" <<'PY'
import json, sys
def recs(applies):
    out = [{"type": "sweep", "sweep_id": "s1", "axes": {"np": [2], "A": ["1", "2", "3"]}, "points": 3, "launches": 3}]
    if applies:
        out[0]["applies"] = {"A": {"backends": ["mpi"], "by": "test"}}
    for k, (m, s) in enumerate(((10.0, 5.0), (20.0, 7.0), (30.0, 6.0))):
        rid, point = "r%d" % k, {"np": 2, "A": str(k + 1)}
        out.append({"type": "run", "run_id": rid, "schema": 1, "ranks": 2, "nodes": 1, "stack": {"name": "s"}, "point": point})
        for b, p in (("mpi", m), ("shm-oneshot", s)):
            out.append({"type": "result", "run_id": rid, "backend": b, "variant": "", "spec": b, "dtype": "float",
                        "op": "sum", "placement": "out", "size": 8, "count": 2, "ranks": 2, "nodes": 1, "point": point,
                        "buffers": "hot", "timing": "iter", "average": "max", "iters": 5, "samples_n": 5, "wrong": 0,
                        "time_us": {"min": p, "p10": p, "p50": p, "p90": p, "p99": p, "max": p, "mean": p},
                        "samples_us": [p * (1 + 0.001 * i) for i in range(5)]})
        out.append({"type": "point", "sweep_id": "s1", "point": point, "status": "done", "run_ids": [rid]})
    return out
for path, applies in ((sys.argv[1], True), (sys.argv[2], False)):
    with open(path, "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in recs(applies)))
PY
"$ARBENCH" table "$TMP/f.jsonl" >"$TMP/t" 2>"$TMP/terr"
check_eq "table: exit 0" 0 $?
check_eq "four columns: mpi per value of A, shm-oneshot once" "| size | mpi {A=1} | shm-oneshot | mpi {A=2} | mpi {A=3} | decision |" \
  "$(grep '^| size' "$TMP/t")"
check_eq "shm-oneshot: the median of its three runs (5, 7, 6)" "6.00" "$(grep '^| 8 |' "$TMP/t" | cut -d'|' -f4 | tr -d ' *~')"
check_eq "the points pooled, named" 1 \
  "$(grep -cF 'shm-oneshot pools its runs of the sweep points A=1,2,3 (the sweep'"'"'s "applies": the axis does not apply to it).' "$TMP/t")"
"$ARBENCH" table --format json "$TMP/f.jsonl" >"$TMP/j"
check_eq "json: shm-oneshot pooled, 3 runs" '"A=1,2,3" 3' \
  "$(jq -r '.grids[0] as $g | ($g.configs | map(.label) | index("shm-oneshot")) as $c | "\($g.configs[$c].pooled | tojson) \($g.cells[] | select(.config == $c) | .runs)"' "$TMP/j")"
check_eq "json: mpi not pooled" "null" "$(jq -c '[.grids[0].configs[] | select(.backend == "mpi") | .pooled] | unique[]' "$TMP/j")"
"$ARBENCH" table "$TMP/plain.jsonl" >"$TMP/p" 2>&1
check_eq "without applies: every column" 6 "$(grep '^| size' "$TMP/p" | tr -cd '{' | wc -c)"
"$ARBENCH" table --point A=2 "$TMP/f.jsonl" >"$TMP/a2" 2>&1
check_eq "--point A=2: the launch's point filters: mpi, then shm-oneshot from A=2 only" "| size | mpi | shm-oneshot | decision | 7.00" \
  "$(grep '^| size' "$TMP/a2") $(grep '^| 8 |' "$TMP/a2" | cut -d'|' -f4 | tr -d ' *~')"
"$ARBENCH" compare --format json "$TMP/f.jsonl" "$TMP/f.jsonl" >"$TMP/c" 2>/dev/null
check_eq "compare: shm-oneshot matched once (folded), mpi three times" "mpi mpi mpi shm-oneshot" \
  "$(jq -r '[.matches[].backend] | sort | join(" ")' "$TMP/c")"
# End to end: a real sweep records "applies" for Open MPI's allreduce algorithm axis, and table folds by it.
"$ARBENCH" sweep --np 2 --env OMPI_MCA_coll_tuned_use_dynamic_rules=1 --env OMPI_MCA_coll_tuned_allreduce_algorithm=1,2 \
  -J "$TMP/s.jsonl" -- --backend mpi,shm-oneshot -b 8 -e 8 -n 2 -w 0 >/dev/null 2>"$TMP/serr"
check_eq "sweep: exit 0" 0 $?
check_eq "sweep said which backend the axis applies to" 2 "$(grep -c '^arbench sweep: OMPI_MCA_coll_tuned_[a-z_]* applies to mpi only' "$TMP/serr")"
check_eq "sweep record: applies" '["mpi"] ["mpi"]' \
  "$(jq -r 'select(.type == "sweep") | .applies | "\(.OMPI_MCA_coll_tuned_allreduce_algorithm.backends | tojson) \(.OMPI_MCA_coll_tuned_use_dynamic_rules.backends | tojson)"' "$TMP/s.jsonl")"
"$ARBENCH" table "$TMP/s.jsonl" >"$TMP/st" 2>&1
check_eq "table of the sweep: shm-oneshot once" \
  "| size | mpi {OMPI_MCA_coll_tuned_allreduce_algorithm=1} | shm-oneshot | mpi {OMPI_MCA_coll_tuned_allreduce_algorithm=2} | decision |" \
  "$(grep '^| size' "$TMP/st")"
finish
