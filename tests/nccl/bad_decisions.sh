#!/usr/bin/env bash
# bad_decisions.sh — a bad or missing decisions file on the deploy path (NCCL_TUNER_PLUGIN and ARBENCH_TUNER_FILE
# in the user's environment, as a serving job sets them): NCCL loads the plugin, the plugin says why in one NCCL
# WARN line (seen in NCCL's log with TUNING, recorded as nccl_tuner.error), and NCCL tunes on its own (the default
# choices run, 0 wrong). nccl:tuner= with a torn file is refused before anything runs.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
np=2
need_standin "$np"
lib=$ARBENCH_BUILD/tuner/libarbench-tuner.so
[ -f "$lib" ] || fail "no $lib"
echo '{"schema": "arbench.tuner", "version": 1, "groups": [' >"$TMP/torn.json"
run() { # run NAME ENV...
  local name=$1; shift
  env "$@" mpirun -q --oversubscribe -np "$np" "$ARBENCH" run --backend nccl --sizes 4K,512K -d float -n 3 -w 1 -c 1 \
    -J "$TMP/$name.jsonl" >"$TMP/$name.out" 2>"$TMP/$name.err" || { cat "$TMP/$name.err"; fail "$name: run exited $?"; }
}
run torn NCCL_TUNER_PLUGIN="$lib" ARBENCH_TUNER_FILE="$TMP/torn.json"
run missing -u ARBENCH_TUNER_FILE NCCL_TUNER_PLUGIN="$lib"
"$PY" - "$TMP" <<'PY' || fail "records"
import json, os, sys
tmp = sys.argv[1]
why = {"torn": "arbench tuner: %s/torn.json: not valid JSON" % tmp, "missing": "arbench tuner: ARBENCH_TUNER_FILE is not set"}
for name, needle in why.items():
    res = [r for r in map(json.loads, open(os.path.join(tmp, name + ".jsonl"))) if r["type"] == "result"]
    assert len(res) == 2, res
    for r in res:
        t = r["nccl_tuner"]
        assert r["wrong"] == 0 and t["ran"] is True and t["error"].startswith(needle[len("arbench tuner: "):]), (name, t)
        assert r["nccl"]["nccl_warnings"] >= 1 and r["nccl"]["first_warning"].startswith(needle), r["nccl"]
        # the plugin came from the environment, not from a tuner= variant (nor an earlier one): the record says so
        assert t["plugin"].endswith("libarbench-tuner.so") and "this environment's NCCL_TUNER_PLUGIN" in t["note"], t
        assert r["warning"].startswith("nccl: no tuner= here"), r["warning"]
        want = ("RING", "LL") if r["size"] == 4096 else ("RING", "SIMPLE")  # NCCL's own tuning
        assert (r["nccl_algo"], r["nccl_proto"]) == want, (name, r["size"], r["nccl_algo"], r["nccl_proto"])
print("ok: one WARN each, recorded, NCCL's own tuning ran")
PY
expect_status 2 ar_mpirun "$np" run --backend "nccl:tuner=$TMP/torn.json" --sizes 4K
grep -q "nccl variant tuner=$TMP/torn.json: arbench tuner: .*not valid JSON" "$TMP/err" || { cat "$TMP/err"; fail "torn tuner= not refused up front"; }
echo "bad_decisions: ok"
