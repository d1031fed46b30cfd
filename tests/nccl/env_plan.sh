#!/usr/bin/env bash
# env_plan.sh — the nccl backend's environment plan (bench/backends/nccl/nccl_env.c) seen from inside the NCCL
# stand-in: its "environment at init" line and NCCL's own ENV lines in each variant's kept log
# (ARBENCH_NCCL_LOGDIR). INIT forces the variant's NCCL_ALGO/NCCL_PROTO, sends INFO lines of INIT,ENV,GRAPH,TUNING
# to the log, clears NCCL_MIN_CTAS (the user's value goes into ncclConfig_t); QUIET stops the lines after the
# probe (one tuning line per probed size and dtype, none of the timed calls); RESTORE gives the next variant the
# user's environment back. The user's NCCL_DEBUG_FILE gets NCCL's lines appended.
# (The third variant is nccl:reg=1, which sets no NCCL variable: a configuration is given once, issue 50.)
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/standin.sh"
np=2
need_standin "$np"
mkdir -p "$TMP/logs"
env ARBENCH_NCCL_LOGDIR="$TMP/logs" NCCL_ALGO=Tree NCCL_MIN_CTAS=3 NCCL_DEBUG=INFO NCCL_DEBUG_FILE="$TMP/user.%h.%p" \
  mpirun -q --oversubscribe -np "$np" "$ARBENCH" run --backend 'nccl;nccl:algo=Ring,proto=LL;nccl:reg=1' --sizes 8,64K \
  -d float,int32 -n 4 -w 2 -c 2 -J "$TMP/r.jsonl" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "run exited $?"; }
"$PY" - "$TMP/logs" "$TMP/r.jsonl" "$TMP" <<'PY' || fail "what the stand-in saw"
import glob, json, os, re, sys
logs, recs, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
# arbench-nccl-HOST-PID-rRANK-USEC.log: rank 0's three, in the order made
mine = sorted(glob.glob(os.path.join(logs, "arbench-nccl-*-r0-*.log")), key=lambda p: int(p.rsplit("-", 1)[1][:-4]))
assert len(mine) == 3, mine
want = [("Tree", None), ("Ring", "LL"), ("Tree", None)]
for path, (algo, proto) in zip(mine, want):
    text = open(path).read()
    env = re.findall(r"environment at init: (.*)", text)
    assert len(env) == 1, (path, env)
    seen = dict(re.findall(r"(\w+)(?:=| )(\S+)", env[0]))
    def val(k):
        return None if seen.get(k) == "unset" else seen.get(k)
    assert val("NCCL_ALGO") == algo and val("NCCL_PROTO") == proto, (path, env[0])
    assert val("NCCL_DEBUG") == "INFO" and val("NCCL_DEBUG_SUBSYS") == "INIT,ENV,GRAPH,TUNING", env[0]
    assert val("NCCL_DEBUG_FILE") == path, (val("NCCL_DEBUG_FILE"), path)
    assert val("NCCL_MIN_CTAS") is None and val("NCCL_MAX_CTAS") is None, env[0]
    assert "Comm config Min CTAs set to 3" in text, path  # the user's NCCL_MIN_CTAS, through ncclConfig_t
    assert ("NCCL_ALGO set by environment to %s" % algo) in text, path
    # QUIET: the probe's calls only (2 sizes x 2 dtypes), not the checked and timed ones
    assert len(re.findall(r"NCCL INFO AllReduce: \d+ Bytes -> Algo", text)) == 4, path
res = [json.loads(l) for l in open(recs) if '"result"' in l]
got = [(r["variant"], r["nccl_algo"]) for r in res if r["type"] == "result" and r["dtype"] == "float" and r["size"] == 8]
assert [a for _, a in got] == ["TREE", "RING", "TREE"], got
user = glob.glob(os.path.join(tmp, "user.*"))
assert user, "no user NCCL_DEBUG_FILE written"
text = "".join(open(u).read() for u in user)
assert text.count("Init COMPLETE") >= 3, "the user's file lacks NCCL's init lines"
print("ok: INIT, QUIET and RESTORE as the stand-in saw them")
PY
echo "env_plan: ok"
