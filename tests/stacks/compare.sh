#!/usr/bin/env bash
# compare.sh — two CUDA/NCCL stacks side by side: this build and another one built from the same tree
# (scripts/stack.sh), each recording its own stack, and `arbench compare` matching their results.
source "$(dirname "$0")/../lib/common.sh"
mine=$("$ARBENCH" version | awk '/^stack/ {print $2}')
other=${ARBENCH_OTHER:-}
if [ -z "$other" ]; then
  for cand in "$ARBENCH_SRC"/build*/arbench; do
    [ -x "$cand" ] || continue
    [ "$(cd "$(dirname "$cand")" && pwd)" = "$(cd "$(dirname "$ARBENCH")" && pwd)" ] && continue
    ldd "$cand" 2>/dev/null | qgrep -q libasan && continue # a sanitizer build is no stack (and leaks MPI's memory)
    s=$("$cand" version 2>/dev/null | awk '/^stack/ {print $2}')
    [ -n "$s" ] && [ "$s" != "$mine" ] && { other=$cand; break; }
  done
fi
if [ -z "$other" ]; then
  echo "skipped: no second stack built beside $mine (build one with scripts/stack.sh cu128; stacks: scripts/stacks.conf)"
  exit 77
fi
theirs=$("$other" version | awk '/^stack/ {print $2}')
echo "comparing stack $mine ($ARBENCH) with $theirs ($other)"
# Each binary reports the stack it was built for; a wheel stack of scripts/stacks.conf has exact versions.
for b in "$ARBENCH" "$other"; do
  "$b" version >"$TMP/v"
  s=$(awk '/^stack/ {print $2}' "$TMP/v")
  read -r cuda nccl < <(awk -v n="$s" '{ sub(/#.*/, "") } $1 == n {print $2, $3}' "$ARBENCH_SRC/scripts/stacks.conf") || true
  if [[ ${cuda:-} =~ ^[0-9] ]]; then
    mm=$(cut -d. -f1,2 <<<"$cuda")
    grep -q "^CUDA runtime ${mm//./\\.}," "$TMP/v" || { cat "$TMP/v"; fail "$s does not report CUDA runtime $mm"; }
    grep -q "^NCCL *compiled ${nccl//./\\.}, loaded ${nccl//./\\.}$" "$TMP/v" || { cat "$TMP/v"; fail "$s does not report NCCL $nccl"; }
  fi
  cuda="" nccl=""
done
ar_mpirun 2 run --backend mpi,shm-oneshot -b 8 -e 4K -f 8 -n 30 -J "$TMP/a.jsonl" >/dev/null || fail "run with $mine failed"
mpirun -q --oversubscribe -np 2 "$other" run --backend mpi,shm-oneshot -b 8 -e 4K -f 8 -n 30 -J "$TMP/b.jsonl" >/dev/null \
  || fail "run with $theirs failed"
"$ARBENCH" compare --format json "$TMP/a.jsonl" "$TMP/b.jsonl" >"$TMP/c.json" || fail "compare failed"
"$PY" - "$TMP/c.json" "$mine" "$theirs" <<'PY'
import json, sys
c, mine, theirs = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
# a stack's label is its name, then its versions where it has some (host-only has none)
assert (c["a"]["stacks"][0] + " ").startswith(mine + " "), c["a"]["stacks"]
assert (c["b"]["stacks"][0] + " ").startswith(theirs + " "), c["b"]["stacks"]
m = c["matches"]
assert sorted((x["backend"], x["size"]) for x in m) == sorted(
    (b, s) for b in ("mpi", "shm-oneshot") for s in (8, 64, 512, 4096)), m
assert not c["only_a"] and not c["only_b"], (c["only_a"], c["only_b"])
for x in m:
    assert abs(x["ratio"] - x["b_p50_us"] / x["a_p50_us"]) < 1e-6 * x["ratio"], x
    # one launch a side between two stacks: the launch is the replicate, so no interval and nothing decided
    assert x["lo"] is None and x["hi"] is None and x["verdict"] == "undecided", x
    assert x["launches_a"] == 1 and x["launches_b"] == 1, x
assert {s["backend"]: s["matches"] for s in c["summary"]} == {"mpi": 4, "shm-oneshot": 4}, c["summary"]
print("ok: 8 matches across stacks", mine, "and", theirs)
PY
"$ARBENCH" compare "$TMP/a.jsonl" "$TMP/b.jsonl" | qgrep -q "stack $theirs" || fail "text compare does not name stack $theirs"
echo "stacks-compare: ok"
