#!/usr/bin/env bash
# layout.sh — the tree's rules, checked on the source and the build (issues 25, 48): no file in bench/ includes a
# header of a folder above its own (bench/*.h core headers excepted), and bench/'s top level (what every command
# shares) includes no header of bench/run/ (`arbench run`'s own files); no source file of bench/, kernels/, standin/,
# topo/ or tuner/ includes by a relative path; kernels/ holds no CPU stand-in (standin/ does: no kernels/ file named
# for the emulation or including a header of standin/); no backend table compared by pointer outside the registry;
# every test named folder-filestem[-variant]; every source file's header comment opens with its own name.
source "$(dirname "$0")/../lib/common.sh"
SRC=${ARBENCH_SRC:?}
BUILD=${ARBENCH_BUILD:?}
$PY - "$SRC" "$BUILD/meson-info/intro-tests.json" <<'PY'
import json, os, re, sys
src, intro = sys.argv[1], sys.argv[2]
bench, bad = os.path.join(src, "bench"), []
for d, _, fs in os.walk(bench):
    for f in sorted(fs):
        if not f.endswith((".c", ".h", ".cu", ".cuh", ".cc")):
            continue
        p = os.path.join(d, f)
        rel = os.path.relpath(p, bench)
        own = os.path.dirname(rel)
        text = open(p, encoding="utf-8").read()
        for n, line in enumerate(text.split("\n"), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            h = m.group(1)
            if ".." in h.split("/"):
                bad.append("bench/%s:%d: includes %s by a relative path" % (rel, n, h))
                continue
            if os.path.exists(os.path.join(d, h)):
                target = os.path.normpath(os.path.join(own, h))
            elif os.path.exists(os.path.join(bench, h)):
                target = os.path.normpath(h)
            else:
                continue  # kernels/, topo/, tuner/ or the build's generated headers
            tdir = os.path.dirname(target)
            if tdir and tdir != own and (own + "/").startswith(tdir + "/"):
                bad.append("bench/%s:%d: includes %s, a header of %s/ above its own folder" % (rel, n, h, tdir))
            if not own and (tdir + "/").startswith("run/"):
                bad.append("bench/%s:%d: includes %s: the shared core (bench/*) does not depend on `run` (bench/run/)"
                           % (rel, n, h))
        if not rel.startswith("backends/registry") and re.search(r"[!=]= *&ar_be_", text):
            bad.append("bench/%s: compares a backend table by pointer (ask the ops table instead)" % rel)
# The stand-ins and the CPU execution of the kernels are standin/'s (test infrastructure the product never links):
# kernels/ is the GPU algorithms and the core they share with the host backends.
standin = os.path.join(src, "standin")
standin_h = set()
for d, _, fs in os.walk(standin):
    standin_h.update(f for f in fs if f.endswith((".h", ".cuh")))
# Every source file opens with its header comment, whose first word is the file's own name (a moved or renamed file
# that still calls itself by its old name misleads its reader).
for top in ("bench", "kernels", "standin", "topo", "tuner"):
    for d, _, fs in os.walk(os.path.join(src, top)):
        for f in sorted(fs):
            if not f.endswith((".c", ".h", ".cu", ".cuh", ".cc")):
                continue
            first = open(os.path.join(d, f), encoding="utf-8").readline()
            m = re.match(r"/\* ([\w.+-]+) —", first)
            if not m or m.group(1) != f:
                bad.append("%s: its header comment does not open with its own name ('/* %s — ...'): %s"
                           % (os.path.relpath(os.path.join(d, f), src), f, first.strip()[:60]))
for top in ("kernels", "standin", "topo", "tuner"):
    for d, _, fs in os.walk(os.path.join(src, top)):
        for f in sorted(fs):
            rel = os.path.relpath(os.path.join(d, f), src)
            if top == "kernels" and re.search(r"emu|standin", f):
                bad.append("%s: CPU emulation or stand-in file in kernels/ (its place is standin/)" % rel)
            if not f.endswith((".c", ".h", ".cu", ".cuh", ".cc")):
                continue
            for n, line in enumerate(open(os.path.join(d, f), encoding="utf-8").read().split("\n"), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                h = m.group(1)
                if ".." in h.split("/"):
                    bad.append("%s:%d: includes %s by a relative path" % (rel, n, h))
                elif top == "kernels" and os.path.basename(h) in standin_h and not os.path.exists(os.path.join(d, h)):
                    bad.append("%s:%d: includes %s, a header of standin/" % (rel, n, h))
tests = json.load(open(intro))
stems = {}
for t in tests:
    name = t["name"]
    folder, _, rest = name.partition("-")
    if not os.path.isdir(os.path.join(src, "tests", folder)) or not rest:
        bad.append("test %s: the name does not start with a folder of tests/" % name)
        continue
    files = set()
    for f in os.listdir(os.path.join(src, "tests", folder)):
        stem = os.path.splitext(f)[0]
        stem = stem[5:] if stem.startswith("test_") else stem
        stem = stem[len(folder) + 1:] if stem.startswith(folder + "_") else stem
        files.add(stem)
    if not any(rest == s or rest.startswith(s + "-") for s in files):
        bad.append("test %s: no file in tests/%s/ has the stem %s (name = folder-filestem[-variant])" % (name, folder, rest))
for b in bad:
    print("FAIL: " + b)
print("%d tests, %d rule breaks" % (len(tests), len(bad)))
sys.exit(1 if bad else 0)
PY
echo "all passed"
