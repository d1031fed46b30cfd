#!/usr/bin/env bash
# tune_json.sh TEST_PLUGIN LIB — `arbench tune -o DIR` writes DIR/tuner.json (exact ranges: the tuner
# CSV's, per nRanks x nNodes; where a custom allreduce beats NCCL and by how much), and the plugin,
# loaded from LIB, picks from that very file what tune chose, range edges included.
set -u
tp=$1 lib=$2 fail=0
T=$ARBENCH_SRC/tests/fixtures/analysis/tune.jsonl
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
eq() { [ "$2" = "$3" ] || { printf 'FAIL: %s\n--- want\n%s\n--- got\n%s\n' "$1" "$2" "$3"; fail=1; }; }
command -v jq >/dev/null || { echo "skipped: no jq"; exit 77; }
"$ARBENCH" tune "$T" -o "$TMP/out" >/dev/null 2>"$TMP/err" || { echo "FAIL: tune exited $?"; cat "$TMP/err"; exit 1; }
J=$TMP/out/tuner.json
eq "schema" "arbench.tuner 1" "$(jq -r '"\(.schema) \(.version)"' "$J")"
# Ring/LL128 is the fixture's fastest from 16K to 128K but forces LL128 without NVLink: never chosen.
eq "ranges per group" "8x1 0 32768 tree ll 2 nccl:algo=Tree,proto=LL,ctas=2
8x1 32769 1048576 ring simple -1 nccl:algo=Ring,proto=Simple
4x1 0 4096 tree ll 2 nccl
4x1 4097 65536 ring simple 4 nccl" \
  "$(jq -r '.groups[] | . as $g | .ranges[] | "\($g.nranks)x\($g.nnodes) \(.min_bytes) \(.max_bytes) \(.algorithm) \(.protocol) \(.channels) \(.config)"' "$J")"
eq "ranges = the tuner CSV's lines" "$(grep -v '^#' "$TMP/out/nccl_tuner.conf" | cut -d, -f2-6 | tr , ' ')" \
  "$(jq -r '.groups[] | .ranges[] | "\(.min_bytes) \(.max_bytes) \(.algorithm) \(.protocol) \(.channels)"' "$J")"
eq "custom beats nccl (8 ranks): size custom best-nccl 1000 x speedup" "1024 p2p-oneshot:pull nccl:algo=Tree,proto=LL,ctas=2 2000
2048 p2p-oneshot:pull nccl:algo=Tree,proto=LL,ctas=2 2000
4096 p2p-oneshot:pull nccl:algo=Tree,proto=LL,ctas=2 1833
8192 p2p-oneshot:pull nccl:algo=Tree,proto=LL,ctas=2 1714
16384 p2p-oneshot:pull nccl:algo=Tree,proto=LL,ctas=2 1556
32768 p2p-twoshot:flat nccl:algo=Tree,proto=LL,ctas=2 1429
65536 p2p-twoshot:flat nccl:algo=Ring,proto=Simple 1500
131072 p2p-twoshot:flat nccl:algo=Ring,proto=Simple 1400" \
  "$(jq -r '.groups[] | select(.nranks == 8) | .custom_beats_nccl[] | "\(.bytes) \(.custom) \(.best_nccl) \(.speedup * 1000 | round)"' "$J")"
eq "no custom results for 4 ranks: none marked" 0 "$(jq '.groups[] | select(.nranks == 4) | .custom_beats_nccl | length' "$J")"
eq "plugin picks from tune's file (8 ranks)" "0 tree/ll 2
16384 tree/ll 2
32768 tree/ll 2
32769 ring/simple 0
131072 ring/simple 0
1048576 ring/simple 0
1048577 -" "$("$tp" "$lib" --choose "$J" 8 1 0 16384 32768 32769 131072 1048576 1048577 2>/dev/null)"
eq "plugin picks from tune's file (4 ranks)" "4096 tree/ll 2
4097 ring/simple 4" "$("$tp" "$lib" --choose "$J" 4 1 4096 4097 2>/dev/null)"
"$ARBENCH" tune "$T" --tuner-json /nonexistent/dir/t.json >/dev/null 2>"$TMP/e2"
rc=$?
eq "unwritable --tuner-json: exit 2 naming it" "2 1" "$rc $(grep -c "cannot write '/nonexistent/dir/t.json.tmp'" "$TMP/e2")"
# The custom allreduces are told by the backend's family (the registry's), not its name: the same numbers
# under symm are marked as p2p's were; under fused (more work than an allreduce) never.
want=$(jq -r '.groups[] | select(.nranks == 8) | .custom_beats_nccl[] | "\(.bytes) \(.custom) \(.speedup * 1000 | round)"' "$J")
sed 's/"backend":"p2p-oneshot","variant":"pull","spec":"p2p-oneshot:pull"/"backend":"symm","variant":"pull","spec":"symm:pull"/' "$T" >"$TMP/symm.jsonl"
sed 's/"backend":"p2p-oneshot","variant":"pull","spec":"p2p-oneshot:pull"/"backend":"fused","variant":"pull","spec":"fused:pull"/' "$T" >"$TMP/fused.jsonl"
"$ARBENCH" tune "$TMP/symm.jsonl" -o "$TMP/symm" >/dev/null 2>&1 || { echo "FAIL: tune (symm) exited $?"; exit 1; }
"$ARBENCH" tune "$TMP/fused.jsonl" -o "$TMP/fused" >/dev/null 2>&1 || { echo "FAIL: tune (fused) exited $?"; exit 1; }
eq "symm marked as the p2p backend it stands in for" "${want//p2p-oneshot:pull/symm:pull}" \
  "$(jq -r '.groups[] | select(.nranks == 8) | .custom_beats_nccl[] | "\(.bytes) \(.custom) \(.speedup * 1000 | round)"' "$TMP/symm/tuner.json")"
eq "fused never marked, p2p-twoshot marked where it now wins" "0 0 true" \
  "$(jq '[.groups[].custom_beats_nccl[] | select(.custom | startswith("fused"))] | length' "$TMP/fused/tuner.json") $(jq '[.groups[].custom_beats_nccl[] | select(.custom | startswith("p2p-twoshot") | not)] | length' "$TMP/fused/tuner.json") $(jq '[.groups[].custom_beats_nccl[]] | length > 0' "$TMP/fused/tuner.json")"
# NCCL caps a tuner plugin's channel count at the communicator's (enqueue.cc): a range measured with ctas=16 on a
# box whose default communicator has 4 channels (the nccl records ran 4) is written with NCCL's count, the
# measured one said beside it, and nccl_env.sh names NCCL_MIN_CTAS; with 16 channels in the communicator
# (its init line, nccl.coll_channels) it is kept; a CollNet range's count is never written.
# (the ctas=16 records say 16 channels ran, as NCCL reports: what a forced communicator ran is no bound on the
# default one's)
sed 's/ctas=2/ctas=16/g' "$T" | jq -c 'if (.spec // "" | endswith("ctas=16")) then .nccl_channels = 16 else . end' >"$TMP/c16.jsonl"
"$ARBENCH" tune "$TMP/c16.jsonl" -o "$TMP/c16" >/dev/null 2>&1 || { echo "FAIL: tune (ctas=16) exited $?"; exit 1; }
eq "ctas=16 over a 4-channel communicator: NCCL's count, the measured one said" "0 32768 -1 16 4
32769 1048576 -1 null null" \
  "$(jq -r '.groups[] | select(.nranks == 8) | .ranges[] | "\(.min_bytes) \(.max_bytes) \(.channels) \(.channels_measured) \(.comm_channels)"' "$TMP/c16/tuner.json")"
eq "the tuner CSV too" "allreduce,0,32768,tree,ll,-1,1,8,-1,-1" "$(grep '^allreduce,0,32768' "$TMP/c16/nccl_tuner.conf")"
eq "nccl_env.sh names NCCL_MIN_CTAS for it" "# tuner plugin: allreduce 0..32768 B was measured with 16 channels (nccl:algo=Tree,proto=LL,ctas=16); NCCL caps a plugin's channel count at the communicator's (4), so tuner.json leaves it to NCCL
# to run it with the plugin as measured (every size's communicator then has 16 channels):
# export NCCL_MIN_CTAS=16" "$(grep -A2 '^# tuner plugin:' "$TMP/c16/nccl_env.sh")"
jq -c 'if .spec == "nccl" and .ranks == 8 then .nccl = {"coll_channels": 16} else . end' "$TMP/c16.jsonl" >"$TMP/c16big.jsonl"
"$ARBENCH" tune "$TMP/c16big.jsonl" -o "$TMP/c16big" >/dev/null 2>&1 || { echo "FAIL: tune (16 channels) exited $?"; exit 1; }
eq "ctas=16 over a 16-channel communicator: kept" "0 32768 16 null" \
  "$(jq -r '.groups[] | select(.nranks == 8) | .ranges[0] | "\(.min_bytes) \(.max_bytes) \(.channels) \(.channels_measured)"' "$TMP/c16big/tuner.json")"
eq "no NCCL_MIN_CTAS then" 0 "$(grep -c 'NCCL_MIN_CTAS' "$TMP/c16big/nccl_env.sh")"
sed 's/algo=Tree,proto=LL,ctas=2/algo=CollNetDirect,proto=LL,ctas=2/g' "$T" >"$TMP/cn.jsonl"
"$ARBENCH" tune "$TMP/cn.jsonl" -o "$TMP/cn" >/dev/null 2>&1 || { echo "FAIL: tune (collnet) exited $?"; exit 1; }
eq "a CollNet range: no channel count" "collnet_direct -1" \
  "$(jq -r '.groups[] | select(.nranks == 8) | .ranges[0] | "\(.algorithm) \(.channels)"' "$TMP/cn/tuner.json")"
[ $fail = 0 ] && echo "ok: tuner.json from tune, read back by the plugin"
exit $fail
