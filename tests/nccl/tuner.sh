#!/usr/bin/env bash
# tuner.sh — the deploy path end to end on the NCCL stand-in: `arbench tune` decides from measurements (Ring/LL
# fastest up to 256 KiB, Ring/Simple above: GPU-box numbers written here, not stand-in timings), then
# nccl:tuner=DIR/tuner.json makes NCCL load libarbench-tuner.so through NCCL_TUNER_PLUGIN (v5, the newest 2.28.9
# knows) and run, per size, what was decided (NCCL's own tuning lines say so), where default NCCL runs Simple
# at 256 KiB; every size checked (0 wrong). Two ranks.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
np=2
need_standin "$np"
"$PY" "$(dirname "$0")/measured.py" "$TMP/measured.jsonl" "$np" $(for k in 0 1 2 3 4 5 6 7 8; do echo $((4096 << k)); done)
expect_status 0 "$ARBENCH" tune "$TMP/measured.jsonl" -o "$TMP/d"
J=$TMP/d/tuner.json
"$PY" - "$J" "$np" <<'PY' || fail "tune's decisions"
import json, sys
g = [g for g in json.load(open(sys.argv[1]))["groups"] if g["nranks"] == int(sys.argv[2])]
got = [(r["min_bytes"], r["max_bytes"], r["algorithm"], r["protocol"]) for r in g[0]["ranges"]]
assert got == [(0, 262144, "ring", "ll"), (262145, 1048576, "ring", "simple")], got
PY
run() { # run NAME BACKEND
  ar_mpirun "$np" run --backend "$2" --sizes 4K,256K,512K -d float -n 3 -w 1 -c 1 -J "$TMP/$1.jsonl" >"$TMP/$1.out" \
    2>"$TMP/$1.err" || { cat "$TMP/$1.err"; fail "$1 run exited $?"; }
}
run tuned "nccl:tuner=$J"
run default nccl
"$PY" - "$TMP/tuned.jsonl" "$TMP/default.jsonl" "$np" <<'PY' || fail "records"
import json, sys
def results(p):
    return {r["size"]: r for r in map(json.loads, open(p)) if r["type"] == "result"}
tuned, default, np = results(sys.argv[1]), results(sys.argv[2]), int(sys.argv[3])
want = {4096: "LL", 262144: "LL", 524288: "SIMPLE"}
for size, proto in want.items():
    r = tuned[size]
    t = r["nccl_tuner"]
    assert r["wrong"] == 0 and r["checked"], r
    assert (r["nccl_algo"], r["nccl_proto"]) == ("RING", proto), (size, r["nccl_algo"], r["nccl_proto"])
    assert t["ran"] is True and t["abi"] == "v5" and t["match"] == "exact", t
    assert t["group_nranks"] == np and t["ranges"] == 2 and t["applied_ranges"] == 2 and "error" not in t, t
    assert "nccl_tuner" not in default[size] and default[size]["wrong"] == 0, default[size]
assert (default[262144]["nccl_algo"], default[262144]["nccl_proto"]) == ("RING", "SIMPLE"), default[262144]
print("ok: the plugin's choices ran per size (256K: LL where default NCCL runs SIMPLE)")
PY
# After a plain nccl variant NCCL (2.28.9 keeps a failed plugin load for the process) does not load the plugin for a
# later tuner= variant of the same run: its records say so and rank 0 says so on stderr (not NCCL's tuning passed
# off as the plugin's).
ar_mpirun "$np" run --backend "nccl;nccl:tuner=$J" --sizes 256K -d float -n 2 -w 1 -c 1 -J "$TMP/late.jsonl" \
  >"$TMP/late.out" 2>"$TMP/late.err" || { cat "$TMP/late.err"; fail "late tuner= run exited $?"; }
grep -q "^arbench: warning: nccl:tuner=$J: the tuner plugin did not run: NCCL loads it once per process" "$TMP/late.err" ||
  { cat "$TMP/late.err"; fail "no warning that the late tuner= variant ran without the plugin"; }
"$PY" - "$TMP/late.jsonl" <<'PY' || fail "late tuner= records"
import json, sys
res = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "result"]
late = [r for r in res if r["variant"].startswith("tuner=")]
assert len(late) == 1 and late[0]["nccl_tuner"]["ran"] is False and "did not run" in late[0]["warning"], late
assert (late[0]["nccl_algo"], late[0]["nccl_proto"]) == ("RING", "SIMPLE"), late[0]  # NCCL's own, not the plugin's LL
PY
echo "tuner: ok"
