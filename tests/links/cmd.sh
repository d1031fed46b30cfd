#!/usr/bin/env bash
# cmd.sh — bench/links/cmd.c: `arbench links` on 2 and 4 CPU ranks prints one n x n matrix per method and
# direction and the latency matrix (X on the diagonal, a path class in every cell), writes exact link records
# after the run record, and refuses bad input in one line with exit 2 before anything runs.
source "$(dirname "$0")/../lib/common.sh"
SMALL=(-b 4K -e 16K -f 4 --repeat 2 -n 2 -w 1 --lat-iters 5)
for np in 2 4; do
  J=$TMP/l$np.jsonl
  expect_status 0 ar_mpirun $np links "${SMALL[@]}" -J "$J"
  cp "$TMP/out" "$TMP/out$np"
  $PY - "$TMP/out$np" "$J" $np <<'PY'
import json, re, sys
out, path, n = open(sys.argv[1]).read().splitlines(), sys.argv[2], int(sys.argv[3])
heads = [i for i, l in enumerate(out) if l.startswith("# ") and "row = source, column = destination" in l]
want = ["# read (the destination pulls), unidirectional, each pair alone, 16K",
        "# read (the destination pulls), bidirectional (both directions at once, summed), each pair alone, 16K",
        "# write (the source pushes), unidirectional, each pair alone, 16K",
        "# write (the source pushes), bidirectional (both directions at once, summed), each pair alone, 16K",
        "# one-way flag latency (release/acquire ping-pong, round trip halved), us"]
assert [re.split(r": | \(path class\)", out[i])[0] for i in heads] == want, [out[i] for i in heads]
for h in heads:
    assert out[h + 1].split() == ["src\\dst"] + [str(t) for t in range(n)], out[h + 1]
    rows = out[h + 2:h + 2 + n]
    for s, row in enumerate(rows):
        cells = re.findall(r" {1,}(X|[0-9.]+ (?:PIX|PXB|PHB|NODE|SYS))(?= |$)", row[10:])
        assert row[:10].strip() == str(s) and len(cells) == n, (row, cells)
        for t, c in enumerate(cells):
            assert (c == "X") == (s == t), (row, c)
    assert out[h + 2 + n] == "", "matrix of %d rows has more: %r" % (n, out[h + 2 + n])
assert "# findings" in out, out
recs = [json.loads(l) for l in open(path)]
assert recs[0]["type"] == "run" and recs[0]["links"]["patterns"] == ["pairs", "all", "to-one", "from-one", "oneshot", "ring"]
assert recs[0]["options"]["sizes"] == [4096, 16384] and recs[0]["options"]["repeat"] == 2
links = [r for r in recs if r["type"] == "link"]
assert len(links) == len(recs) - 1 and all(r["run_id"] == recs[0]["run_id"] for r in links)
keys = ["type", "run_id", "command", "src", "dst", "src_id", "dst_id", "method", "direction", "pattern", "root",
        "flows", "bytes", "gbs", "us", "path", "bottleneck_gbs", "expected_gbs", "ratio", "score", "isolated_gbs",
        "loaded_ratio", "repeats", "iters"]
# flows per instance, independently of the generator: pairs uni 1 (n(n-1) instances), bi 2 (n(n-1)/2); all and
# oneshot n(n-1) either way; to-one/from-one n-1 uni, 2(n-1) bi, n roots; ring n uni, 2n bi (n > 2; n = 2: 2)
ring = lambda d: (n if d == "uni" else 2 * n) if n > 2 else 2
per = {("pairs", "uni"): n * (n - 1), ("pairs", "bi"): n * (n - 1), ("all", "uni"): n * (n - 1), ("all", "bi"): n * (n - 1),
       ("oneshot", "uni"): n * (n - 1), ("oneshot", "bi"): n * (n - 1), ("to-one", "uni"): n * (n - 1),
       ("to-one", "bi"): 2 * n * (n - 1), ("from-one", "uni"): n * (n - 1),
       ("from-one", "bi"): 2 * n * (n - 1), ("ring", "uni"): ring("uni"), ("ring", "bi"): ring("bi")}
bw = [r for r in links if r["method"] != "flag"]
assert len(bw) == 2 * 2 * sum(per.values()), (len(bw), sum(per.values()))
for r in bw:
    assert list(r)[:len(keys)] == keys and list(r)[len(keys):] == ["samples_gbs", "wrong"], list(r)
    assert r["command"] == "links" and r["method"] in ("read", "write") and r["bytes"] in (4096, 16384), r
    assert 0 <= r["src"] < n and 0 <= r["dst"] < n and r["src"] != r["dst"] and r["wrong"] == 0, r
    assert r["gbs"] > 0 and abs(r["us"] - r["bytes"] / (r["gbs"] * 1e3)) < 1e-6 * r["us"], r
    assert len(r["samples_gbs"]) == 2 and abs(r["gbs"] - sum(r["samples_gbs"]) / 2) <= 1e-6 * r["gbs"], r  # the p50
    assert r["path"] in ("NODE", "SYS") and re.fullmatch(r".+:numa[0-9]+", r["src_id"]), r
    assert r["bottleneck_gbs"] is None and r["expected_gbs"] is None and r["ratio"] is None and r["score"] is None, r
    assert r["repeats"] == 2 and r["iters"] == 2, r
    alone = r["pattern"] == "pairs" and r["direction"] == "uni"
    assert (r["isolated_gbs"] is None) == alone and (r["loaded_ratio"] is None) == alone, r
    if not alone:
        iso = [x for x in bw if x["pattern"] == "pairs" and x["direction"] == "uni" and x["method"] == r["method"]
               and x["bytes"] == r["bytes"] and x["src"] == r["src"] and x["dst"] == r["dst"]]
        assert r["isolated_gbs"] == iso[0]["gbs"] and abs(r["loaded_ratio"] - r["gbs"] / iso[0]["gbs"]) < 1e-6 * r["loaded_ratio"], r
    if r["pattern"] in ("to-one", "from-one"):
        assert r["root"] == (r["dst"] if r["pattern"] == "to-one" else r["src"]) or r["direction"] == "bi", r
    if r["pattern"] == "ring" and r["direction"] == "uni":
        assert r["dst"] == (r["src"] + 1) % n, r
lat = [r for r in links if r["method"] == "flag"]
assert sorted((r["src"], r["dst"]) for r in lat) == [(s, d) for s in range(n) for d in range(n) if s != d], lat
for r in lat:
    assert r["direction"] == "pingpong" and r["bytes"] == 4 and r["gbs"] is None and r["us"] > 0, r
    assert list(r)[len(keys):] == ["samples_us", "wrong"] and len(r["samples_us"]) == 2, r
PY
done
# bad input: one line, exit 2, nothing written
expect_one_line_error "bad --method 'pull' (allowed: read, write, ce-read, ce-write, sm-read, sm-write)" ar_mpirun 2 links --method pull -J "$TMP/bad.jsonl"
expect_one_line_error "bad --pattern 'tree'" ar_mpirun 2 links --pattern pairs,tree -J "$TMP/bad.jsonl"
expect_one_line_error "bad --direction 'both' (allowed: uni, bi)" ar_mpirun 2 links --direction both
expect_one_line_error "bad size '8X'" ar_mpirun 2 links -b 8X
# GPU methods on CPU ranks: refused in one line naming why (no CUDA device here, or a build without CUDA)
expect_one_line_error "--method ce-read needs a CUDA device on every rank: " ar_mpirun 2 links --method ce-read -J "$TMP/bad.jsonl"
expect_one_line_error "--method sm-write needs a CUDA device on every rank: " ar_mpirun 2 links --method read,sm-write
expect_one_line_error "bad --devices '0,x'" ar_mpirun 2 links --devices 0,x -J "$TMP/bad.jsonl"
expect_one_line_error "links needs 2 or more ranks, got 1: arbench links --np N (or mpirun -np N arbench links)" ar_mpirun 1 links -J "$TMP/bad.jsonl"
expect_one_line_error "bad ARBENCH_INJECT_SILENT '9' (allowed: one RANK, 0 to 1)" \
  env ARBENCH_INJECT_SILENT=9 mpirun -q --oversubscribe -x ARBENCH_INJECT_SILENT -np 2 "$ARBENCH" links -J "$TMP/bad.jsonl"
expect_one_line_error "bad ARBENCH_INJECT_FAULT" \
  env ARBENCH_INJECT_FAULT=x mpirun -q --oversubscribe -x ARBENCH_INJECT_FAULT -np 2 "$ARBENCH" links
[ ! -e "$TMP/bad.jsonl" ] || fail "a links run refused for bad input left a results file"
expect_status 0 "$ARBENCH" links --help
grep -q -- "--pattern LIST" "$TMP/out" || fail "links --help does not list --pattern"
"$ARBENCH" --help | qgrep -q "^  links " || fail "arbench --help does not list links"
# The loaded/isolated section is a ratio, labelled as one (issue 50 item 11), never "GB/s".
if grep -q 'loaded' "$TMP/out4"; then
  grep -q "^# ratio of a flow's GB/s loaded to isolated (1 = unslowed), at the largest size" "$TMP/out4" \
    || { cat "$TMP/out4"; fail "the loaded/isolated section is not labelled a ratio"; }
  ! grep -q "isolated GB/s per flow" "$TMP/out4" || fail "a ratio labelled GB/s"
fi
echo "ok"
