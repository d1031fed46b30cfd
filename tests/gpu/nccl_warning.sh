#!/usr/bin/env bash
# nccl_warning.sh — a loaded NCCL that differs from the headers arbench was built with (2.19.3 from a
# preloaded shim) is named in a warning by `arbench version` and in the run record's stack; the real one
# gives no warning. Needs no GPU; skipped when arbench is built without NCCL.
source "$(dirname "$0")/../lib/common.sh"
SHIM=${1:?usage: $0 PATH-OF-libnccl_version_shim.so}
"$ARBENCH" list --wide 2>/dev/null | qgrep -q '^nccl .*not compiled in' && { echo "skipped: built without NCCL"; exit 77; }
expect_status 0 "$ARBENCH" version
compiled=$(sed -n 's/^NCCL *compiled \([0-9.]*\), loaded \([0-9.]*\)$/\1/p' "$TMP/out")
[ -n "$compiled" ] || { cat "$TMP/out"; fail "no 'NCCL compiled X, loaded Y' line"; }
grep -q "^NCCL *compiled $compiled, loaded $compiled$" "$TMP/out" || fail "the real NCCL is not the compiled one here"
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "warning without a version difference"; }
want="arbench: warning: loaded NCCL 2.19.3 differs from the headers this binary was built with ($compiled)"
expect_status 0 env LD_PRELOAD="$SHIM" "$ARBENCH" version
grep -q "^NCCL *compiled $compiled, loaded 2.19.3$" "$TMP/out" || { cat "$TMP/out"; fail "loaded version not read at run time"; }
[ "$(cat "$TMP/err")" = "$want" ] || { cat "$TMP/err"; fail "no warning naming both versions"; }
expect_status 0 mpirun -q -np 1 -x LD_PRELOAD="$SHIM" "$ARBENCH" run --backend mpi --counts 7 -n 1 -w 0 -J "$TMP/r.jsonl"
"$PY" - "$TMP/r.jsonl" "$compiled" <<'PY' || fail "run record stack"
import json, sys
st = json.loads(open(sys.argv[1]).readline())["stack"]
assert st["nccl_loaded"] == "2.19.3" and st["nccl_compiled"] == sys.argv[2], st
assert st["warning"] == "loaded NCCL 2.19.3 differs from the headers this binary was built with (%s)" % sys.argv[2], st
PY
echo "nccl_warning: ok"
