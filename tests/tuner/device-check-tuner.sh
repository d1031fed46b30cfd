#!/usr/bin/env bash
# device-check-tuner.sh — on >= 2 GPUs: nccl:tuner=FILE inside a real NCCL. The plugin must load (as the
# ABI version this NCCL takes), match the communicator, and NCCL must run what it chose (its own
# tuning lines: algorithm, protocol, channels <= the chosen count); a default run in its own process
# carries no nccl_tuner; a bad file is exit 2 before anything runs. Called by tests/gpu/device-check.sh.
# Usage: ARBENCH=path/to/arbench tests/tuner/device-check-tuner.sh    (exit 77 with fewer than 2 GPUs)
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
gpus=$("$ARBENCH" list --wide 2>/dev/null | sed -n 's/^GPUs visible: \([0-9]*\).*/\1/p')
[ "${gpus:-0}" -ge 2 ] || { echo "skipped: nccl:tuner= needs 2 GPUs (found ${gpus:-0})"; exit 77; }
why=$("$ARBENCH" list --wide 2>/dev/null | sed -n 's/^nccl  *gpu  *not compiled in: \(.*\) ncclAllReduce$/\1/p')
[ -z "$why" ] || { echo "skipped: nccl:tuner= needs the nccl backend, not compiled in: $why"; exit 77; }
np=$(( gpus > 8 ? 8 : gpus ))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cat >"$tmp/tuner.json" <<JSON
{"schema": "arbench.tuner", "version": 1, "groups": [{"collective": "allreduce", "nranks": $np, "nnodes": 1, "ranges": [
 {"min_bytes": 0, "max_bytes": 65536, "algorithm": "ring", "protocol": "ll", "channels": 2},
 {"min_bytes": 65537, "max_bytes": 16777216, "algorithm": "ring", "protocol": "simple", "channels": 4}]}]}
JSON
echo "== tuner: nccl:tuner= on $np ranks"
mpirun -np "$np" "$ARBENCH" run --backend "nccl:tuner=$tmp/tuner.json" --sizes 8K,1M -d float -n 20 -w 5 -c 1 \
  -J "$tmp/t.jsonl" >"$tmp/t.out" 2>"$tmp/t.err" || { echo "FAIL: tuned run exited $?"; tail -5 "$tmp/t.err"; fail=1; }
python3 - "$tmp/t.jsonl" <<'PY' || fail=1
import json, sys
want = {8192: ("RING", "LL", 2), 1048576: ("RING", "SIMPLE", 4)}
recs = [json.loads(l) for l in open(sys.argv[1]) if '"type":"result"' in l.replace(" ", "")]
bad = 0
for r in recs:
    t, a = r.get("nccl_tuner") or {}, want.get(r["size"])
    got = (r.get("nccl_algo"), r.get("nccl_proto"), r.get("nccl_channels"))
    ok = t.get("ran") is True and t.get("match") == "exact" and t.get("abi") and a and got[:2] == a[:2] \
        and isinstance(got[2], int) and 1 <= got[2] <= a[2] and r.get("wrong", 1) == 0
    print("  %8d B: plugin ran %s as %s, NCCL ran %s/%s on %s channels (chose %s) %s" % (
        r["size"], t.get("ran"), t.get("abi"), got[0], got[1], got[2], a, "ok" if ok else "FAIL"))
    bad += not ok
if len(recs) != 2: print("FAIL: %d records, want 2" % len(recs)); bad += 1
sys.exit(1 if bad else 0)
PY
mpirun -np "$np" "$ARBENCH" run --backend nccl --sizes 8K -d float -n 5 -c 1 -J "$tmp/d.jsonl" >/dev/null 2>&1 ||
  { echo "FAIL: default run"; fail=1; }
grep -q nccl_tuner "$tmp/d.jsonl" && { echo "FAIL: a default run carries nccl_tuner"; fail=1; }
echo '{"schema": "arbench.tuner", "version": 1, "groups": [' >"$tmp/torn.json"
mpirun -np "$np" "$ARBENCH" run --backend "nccl:tuner=$tmp/torn.json" --sizes 8K >/dev/null 2>"$tmp/b.err"
rc=$?
[ $rc = 2 ] && grep -q 'not valid JSON' "$tmp/b.err" || { echo "FAIL: torn decisions: exit $rc, want 2"; fail=1; }
echo "tuner: $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
