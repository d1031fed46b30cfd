#!/usr/bin/env bash
# mutant_lists.sh — every planted bug of tests/mutants/*.tsv still applies: its file exists, its search
# text occurs exactly once there, and every test it names is a test of this build (scripts/mutants.sh runs them).
source "$(dirname "$0")/../lib/common.sh"
SRC=${ARBENCH_SRC:?}
$PY - "$SRC" "${ARBENCH_BUILD:?}/meson-info/intro-tests.json" <<'PY'
import glob, json, os, re, sys
src, intro = sys.argv[1], sys.argv[2]
names = {t["name"] for t in json.load(open(intro))}
# and the tests another build defines (an ASan build has no TSan tests; only NVRTC stacks have gpu-rtc_images)
for mb in glob.glob(os.path.join(src, "tests/*/meson.build")):
    names |= set(re.findall(r"test\('([A-Za-z0-9_-]+)'", open(mb, encoding="utf-8").read()))
def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in "tn\\":
            out.append({"t": "\t", "n": "\n", "\\": "\\"}[s[i + 1]])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)
bad, n = [], 0
for f in sorted(glob.glob(os.path.join(src, "tests/mutants/*.tsv"))):
    for k, line in enumerate(open(f, encoding="utf-8"), 1):
        if line.startswith("#") or not line.strip():
            continue
        p = line.rstrip("\n").split("\t")
        where = "%s:%d" % (os.path.relpath(f, src), k)
        if len(p) != 5:
            bad.append("%s: %d fields, expected 5" % (where, len(p)))
            continue
        n += 1
        path = os.path.join(src, p[1])
        if not os.path.isfile(path):
            bad.append("%s: %s: no such file %s" % (where, p[0], p[1]))
            continue
        c = open(path, encoding="utf-8").read().count(unescape(p[2]))
        if c != 1:
            bad.append("%s: %s: the search text occurs %d times in %s (must be once)" % (where, p[0], c, p[1]))
        for t in p[4].split(","):
            t = t.split(":", 1)[1] if t.startswith("asan:") else t
            if t not in names:
                bad.append("%s: %s: no test named %s" % (where, p[0], t))
for b in bad:
    print("FAIL: " + b)
print("%d planted bugs, %d stale" % (n, len(bad)))
sys.exit(1 if bad else 0)
PY
echo "all passed"
