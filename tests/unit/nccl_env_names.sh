#!/usr/bin/env bash
# nccl_env_names.sh — scripts/nccl-env-names.sh on a made-up NCCL history (two release tags, one other tag): each
# way a tag reads a variable is found (NCCL_PARAM's "NCCL_" + its second argument, 2.30's DEFINE_NCCL_PARAM key,
# getenv/ncclGetEnv literals, a literal passed on), macros, enum members and contrib/ are not, and each name gets
# its first and last release; the highest -N of a version is read.
source "$(dirname "$0")/../lib/common.sh"
command -v git >/dev/null || { echo "skipped: git is missing"; exit 77; }
R=$TMP/nccl
mkdir -p "$R/src/include" "$R/contrib" "$R/plugins/tuner"
g() { git -C "$R" -c user.name=t -c user.email=t@t "$@" >/dev/null; }
g init -q
cat >"$R/src/a.cc" <<'C'
NCCL_PARAM(ShmUseCudaMemcpy, "SHM_USE_CUDA_MEMCPY", 0);
const char *p = ncclGetEnv("NCCL_PROTO");
NCCL_CHECK(getLevel(&l, "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"));
C
printf '#define NCCL_COMM_PROPERTIES_INITIALIZER {0}\nenum { NCCL_GIN_TYPE_NONE = 0,\n  NCCL_GIN_TYPE_PROXY,\n};\nconst char *m = "NCCL_COMM_PROPERTIES_INITIALIZER";\nconst char *n = "NCCL_GIN_TYPE_PROXY";\n' >"$R/src/include/h.h"
echo 'const char *e = getenv("NCCL_EP_JIT_LOG");' >"$R/contrib/ep.cc"
g add -A && g commit -qm one && g tag v2.29.7-1
git -C "$R" tag v2.29.7-0
cat >"$R/src/a.cc" <<'C'
DEFINE_NCCL_PARAM(ncclParamDebugLevel, ncclDebugLogLevel, NCCL_DEBUG, NCCL_LOG_NONE,
const char *p = ncclGetEnv("NCCL_PROTO");
NCCL_PARAM(MaxP2pPeers, "P2P_MAX_PEERS", -1);
C
echo 'const char *f = getenv("NCCL_TUNER_CONFIG_FILE");' >"$R/plugins/tuner/t.c"
g add -A && g commit -qm two && g tag v2.30.7-1 && g tag nccl4py-v0.1.0
out=$("$ARBENCH_SRC/scripts/nccl-env-names.sh" "$R")
got=$(grep -E '^  (\{"|[0-9])' <<<"$out" | sed 's/^ *//' | paste -sd' ')
expect_eq "versions and names" '22907, /* v2.29.7-1 */ 23007, /* v2.30.7-1 */ {"NCCL_DEBUG", 23007, 23007}, {"NCCL_P2P_DISABLE", 22907, 22907}, {"NCCL_P2P_LEVEL", 22907, 22907}, {"NCCL_P2P_MAX_PEERS", 23007, 23007}, {"NCCL_PROTO", 22907, 23007}, {"NCCL_SHM_USE_CUDA_MEMCPY", 22907, 22907}, {"NCCL_TUNER_CONFIG_FILE", 23007, 23007},' "$got"
grep -qF "2 release tags" <<<"$out" || fail "the header does not count the tags"
expect_status 2 "$ARBENCH_SRC/scripts/nccl-env-names.sh" "$TMP/none"
echo "ok: nccl-env-names.sh"
