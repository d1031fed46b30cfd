#!/usr/bin/env python3
# kernel-report.py — the per-stack kernel compile report: ptxas -v logs (from nvcc or the stack's NVRTC)
# turned into JSON with one entry per kernel and SM arch (compiled or the error, registers, spills).
"""usage:
  kernel-report.py nvcc --nvcc PATH --archs 80,90 --out OUT.json SRC=LOG ...
  kernel-report.py nvrtc --archs 80,90 --out OUT.json LOG ...     (LOG named SRCBASE.smNN.log)
  kernel-report.py none --why TEXT --out OUT.json
  kernel-report.py header IN.json OUT.h                            (the JSON as a C string)
  kernel-report.py table REPORT.json ...                           (one table row per kernel)
  kernel-report.py md NAME=REPORT.json ...                         (markdown: stack x kernel rows, arch columns)"""
import json
import os
import re
import subprocess
import sys

ENTRY = re.compile(r"Compiling entry function '([^']+)' for 'sm_(\d+)'")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers")


def die(msg):
    print("kernel-report: " + msg, file=sys.stderr)
    sys.exit(2)


def demangle(names):
    """Mangled -> 'ns::kernel<T>' (no return type, no parameters); the raw name without c++filt."""
    if not names:
        return {}
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                             check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        out = names
    pretty = {}
    for raw, d in zip(names, out):
        d = re.sub(r"^void ", "", d)
        pretty[raw] = d.split("(")[0] if "(" in d else d
    return pretty


def parse_ptxas(text, source):
    """Entries for every kernel ptxas compiled in text: [{source, kernel, arch, ...}] in log order."""
    entries, cur = [], None
    for line in text.splitlines():
        m = ENTRY.search(line)
        if m:
            cur = {"source": source, "kernel": m.group(1), "arch": "sm_" + m.group(2), "compiled": True,
                   "registers": None, "spill_stores": None, "spill_loads": None, "stack_bytes": None}
            entries.append(cur)
            continue
        if cur is None:
            continue
        m = FRAME.search(line)
        if m:
            cur["stack_bytes"], cur["spill_stores"], cur["spill_loads"] = (int(g) for g in m.groups())
        m = USED.search(line)
        if m:
            cur["registers"] = int(m.group(1))
    for e in entries:
        if e["registers"] is None or e["spill_stores"] is None:
            die("%s: no register/spill report for %s %s" % (source, e["kernel"], e["arch"]))
    return entries


def finish(compiler, archs, entries, out):
    names = demangle(sorted({e["kernel"] for e in entries if e["kernel"]}))
    for e in entries:
        if e["kernel"]:
            e["kernel"] = names.get(e["kernel"], e["kernel"])
    entries.sort(key=lambda e: (e["source"], e["kernel"] or "", int(e["arch"][3:])))
    report = {"compiler": compiler, "archs": ["sm_" + a for a in archs], "kernels": entries}
    with open(out, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")


def split_archs(s):
    archs = [a.strip() for a in s.split(",") if a.strip()]
    if not archs or not all(a.isdigit() for a in archs):
        die("bad --archs '%s' (expected e.g. 80,90,120)" % s)
    return archs


def opts(argv, names):
    got, rest, i = {}, [], 0
    while i < len(argv):
        if argv[i] in names and i + 1 < len(argv):
            got[argv[i]] = argv[i + 1]
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    return got, rest


def cmd_nvcc(argv):
    o, logs = opts(argv, ("--nvcc", "--archs", "--out"))
    archs = split_archs(o.get("--archs", ""))
    ver = subprocess.run([o["--nvcc"], "--version"], capture_output=True, text=True).stdout
    m = re.search(r"V(\d+\.\d+\.\d+)", ver)
    entries = []
    for pair in logs:
        src, _, log = pair.partition("=")
        entries += parse_ptxas(open(log).read(), src)
    finish("nvcc " + (m.group(1) if m else "?"), archs, entries, o["--out"])


def cmd_nvrtc(argv):
    o, logs = opts(argv, ("--archs", "--out"))
    archs = split_archs(o.get("--archs", ""))
    compiler, entries = "nvrtc ?", []
    for log in logs:
        m = re.match(r"(.+)\.sm(\d+)\.log$", os.path.basename(log))
        if not m:
            die("log name '%s' is not SRCBASE.smNN.log" % log)
        src, arch = m.group(1) + ".cu", m.group(2)
        text = open(log).read()
        head, _, body = text.partition("\n")
        h = re.match(r"(nvrtc \S+) (ok|error: (.*))$", head)
        if not h:
            die("%s: first line '%s' is not 'nvrtc VERSION ok|error: ...'" % (log, head))
        compiler = h.group(1)
        if h.group(2) == "ok":
            got = parse_ptxas(body, src)
            if not got:
                die("%s: NVRTC compiled no kernel" % log)
            entries += got
        else:
            first = [l for l in body.splitlines() if "error" in l][:3]
            entries.append({"source": src, "kernel": None, "arch": "sm_" + arch, "compiled": False,
                            "error": "; ".join([h.group(3)] + first)})
    finish(compiler, archs, entries, o["--out"])


def cmd_none(argv):
    o, _ = opts(argv, ("--why", "--out"))
    with open(o["--out"], "w") as f:
        json.dump({"compiler": None, "archs": [], "kernels": [], "why": o.get("--why", "")}, f)
        f.write("\n")


def cmd_header(argv):
    text = json.dumps(json.load(open(argv[0])), separators=(",", ":"))
    lit = text.replace("\\", "\\\\").replace('"', '\\"')
    with open(argv[1], "w") as f:
        f.write("/* generated by scripts/kernel-report.py from %s */\n" % os.path.basename(argv[0]))
        f.write('#define AR_KERNEL_REPORT "%s"\n' % lit)


def row(e):
    if not e["compiled"]:
        return "%-7s %-24s %s" % (e["arch"], e["kernel"] or e["source"], "error: " + e["error"])
    return "%-7s %-24s %4d regs  spills %d/%d bytes" % (e["arch"], e["kernel"], e["registers"],
                                                        e["spill_stores"], e["spill_loads"])


def cmd_table(argv):
    for path in argv:
        r = json.load(open(path))
        print("%s: %s" % (path, r["compiler"] or "no kernels (" + r.get("why", "") + ")"))
        for e in r["kernels"]:
            print("  " + row(e))


def cell(e):
    if not e["compiled"]:
        return "error"
    s = str(e["registers"])
    return s + (" +s%d/%d" % (e["spill_stores"], e["spill_loads"]) if e["spill_stores"] or e["spill_loads"] else "")


def cmd_md(argv):
    stacks = [(a.partition("=")[0], json.load(open(a.partition("=")[2]))) for a in argv]
    archs = []
    for _, r in stacks:
        archs += [a for a in r["archs"] if a not in archs]
    archs.sort(key=lambda a: int(a[3:]))
    print("| stack | compiler | kernel | " + " | ".join(archs) + " |")
    print("|" + " --- |" * (3 + len(archs)))
    for name, r in stacks:
        kernels = []
        for e in r["kernels"]:
            k = e["kernel"] or e["source"]
            if k not in kernels:
                kernels.append(k)
        for k in kernels:
            by = {e["arch"]: cell(e) for e in r["kernels"] if (e["kernel"] or e["source"]) == k}
            print("| %s | %s | `%s` | %s |" % (name, r["compiler"], k, " | ".join(by.get(a, "") for a in archs)))


def main():
    cmds = {"nvcc": cmd_nvcc, "nvrtc": cmd_nvrtc, "none": cmd_none, "header": cmd_header, "table": cmd_table,
            "md": cmd_md}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
