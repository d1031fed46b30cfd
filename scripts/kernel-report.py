#!/usr/bin/env python3
# kernel-report.py — the per-stack kernel compile report: ptxas -v logs (from nvcc or the stack's NVRTC)
# turned into JSON with one entry per kernel and SM arch (compiled or the error, registers, spills).
"""usage:
  kernel-report.py nvcc --nvcc PATH --archs 80,90 --out OUT.json SRC=LOG ...
  kernel-report.py nvrtc --archs 80,90 --out OUT.json LOG ...     (LOG named SRCBASE.smNN.log)
  kernel-report.py none --why TEXT --out OUT.json
  kernel-report.py header IN.json OUT.h                            (the JSON as a C string)
  kernel-report.py table REPORT.json ...                           (one table row per kernel)
  kernel-report.py md NAME=REPORT.json ...                         (markdown: stack x kernel rows, arch columns)
  kernel-report.py registers REPORT.json TABLE                     (TABLE's rows of REPORT's compiler and archs: replaced)
  kernel-report.py registers-check REPORT.json TABLE               (REPORT against TABLE; every block fits; exit 1 if not)
  kernel-report.py registers-header TABLE COMPILER ARCH OUT.h      (TABLE's counts of COMPILER, ARCH as a C table)
TABLE: standin/cudart/registers.tsv (compiler, arch, kernel, registers, the largest block arbench launches it with)."""
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


def max_threads(regs):
    """The largest block (a multiple of 32) whose registers fit a block's 65536 at regs a thread: the hardware check of
    cuda_occupancy.h cudaOccMaxBlocksPerSMRegsLimit (256-register units per warp, warps rounded up to 4 sub-partitions,
    at most 255 a thread; the same on sm_80..sm_120), as standin/cudart/launch.c ar_standin_regs_fit."""
    if regs > 255:
        return 0
    per_warp = (regs * 32 + 255) // 256 * 256
    return max((w * 32 for w in range(1, 33) if per_warp * ((w + 3) // 4 * 4) <= 65536), default=0)


COLS = ("compiler", "arch", "kernel", "registers", "block")


def read_table(path):
    """(comment lines, rows as dicts) of a registers table."""
    head, rows = [], []
    for n, line in enumerate(open(path).read().splitlines(), 1):
        if not line or line.startswith("#"):
            if not rows:
                head.append(line)
            continue
        f = line.split("\t")
        if len(f) != len(COLS) or not f[3].isdigit() or not f[4].isdigit():
            die("%s:%d: expected %s (tab-separated), got '%s'" % (path, n, ", ".join(COLS), line))
        rows.append({"compiler": f[0], "arch": f[1], "kernel": f[2], "registers": int(f[3]), "block": int(f[4])})
    return head, rows


def compiled(report):
    r = json.load(open(report))
    if r["compiler"] is None:
        die("%s compiled no kernels (%s)" % (report, r.get("why", "")))
    return r, [e for e in r["kernels"] if e["compiled"]]


def cmd_registers(argv):
    if len(argv) != 2:
        die("usage: registers REPORT.json TABLE")
    r, es = compiled(argv[0])
    head, rows = read_table(argv[1])
    block = {row["kernel"]: row["block"] for row in rows}
    new = [e for e in es if e["kernel"] not in block]
    if new:
        die("no block size for %s in %s: add a row with the largest block arbench launches it with"
            % (", ".join(sorted({e["kernel"] for e in new})), argv[1]))
    done = {(r["compiler"], e["arch"]) for e in es}
    keep = [row for row in rows if (row["compiler"], row["arch"]) not in done]
    keep += [{"compiler": r["compiler"], "arch": e["arch"], "kernel": e["kernel"], "registers": e["registers"],
              "block": block[e["kernel"]]} for e in es]
    keep.sort(key=lambda row: (row["compiler"], int(row["arch"][3:]), row["kernel"]))
    with open(argv[1], "w") as f:
        f.write("\n".join(head) + "\n")
        for row in keep:
            f.write("\t".join(str(row[c]) for c in COLS) + "\n")
    print("%s: %d rows of %s (%s)" % (argv[1], len(es), r["compiler"], ", ".join(sorted(a for _, a in done))))


def cmd_registers_check(argv):
    """Exact counts where TABLE has rows of REPORT's compiler and arch; on every arch, each kernel's largest launch
    fits its registers (a kernel a launch may run at 1024 threads needs __launch_bounds__ or __maxnreg__)."""
    if len(argv) != 2:
        die("usage: registers-check REPORT.json TABLE")
    r, es = compiled(argv[0])
    _, rows = read_table(argv[1])
    block = {row["kernel"]: row["block"] for row in rows}
    have = {(row["compiler"], row["arch"], row["kernel"]): row["registers"] for row in rows}
    pairs = {(row["compiler"], row["arch"]) for row in rows}
    bad, exact = [], 0
    for e in es:
        k = e["kernel"]
        if k not in block:
            bad.append("%s: not in %s" % (k, argv[1]))
            continue
        top = max_threads(e["registers"])
        if top < block[k]:
            bad.append("%s %s %s: %d registers fit %d threads a block, arbench launches up to %d"
                       % (r["compiler"], e["arch"], k, e["registers"], top, block[k]))
        if (r["compiler"], e["arch"]) in pairs:
            exact += 1
            want = have.get((r["compiler"], e["arch"], k))
            if want != e["registers"]:
                bad.append("%s %s %s: %d registers, %s says %s" % (r["compiler"], e["arch"], k, e["registers"],
                                                                     argv[1], want))
    for (c, a) in sorted(pairs):
        if c == r["compiler"] and a in {e["arch"] for e in es}:
            gone = {row["kernel"] for row in rows if (row["compiler"], row["arch"]) == (c, a)} - {
                e["kernel"] for e in es if e["arch"] == a}
            bad += ["%s %s %s: in %s, not compiled" % (c, a, k, argv[1]) for k in sorted(gone)]
    for b in bad:
        print("registers: " + b)
    if bad:
        print("regenerate (a CUDA build of the table's compiler): scripts/kernel-report.py registers %s %s"
              % (argv[0], argv[1]))
        sys.exit(1)
    print("%s: %d kernel x arch entries fit their largest launch; %d compared exactly with %s"
          % (r["compiler"], len(es), exact, argv[1]))


def cmd_registers_header(argv):
    if len(argv) != 4:
        die("usage: registers-header TABLE COMPILER ARCH OUT.h")
    _, rows = read_table(argv[0])
    rows = [row for row in rows if (row["compiler"], row["arch"]) == (argv[1], argv[2])]
    if not rows:
        die("%s has no rows of %s %s" % (argv[0], argv[1], argv[2]))
    with open(argv[3], "w") as f:
        f.write("/* generated by scripts/kernel-report.py registers-header from %s */\n" % os.path.basename(argv[0]))
        f.write('#define AR_STANDIN_REGISTERS_FROM "%s, %s"\n' % (argv[1], argv[2]))
        f.write("static const struct { const char *kernel; int registers; } ar_standin_registers[] = {\n")
        for row in rows:
            f.write('  {"%s", %d},\n' % (row["kernel"], row["registers"]))
        f.write("};\n")


def main():
    cmds = {"nvcc": cmd_nvcc, "nvrtc": cmd_nvrtc, "none": cmd_none, "header": cmd_header, "table": cmd_table,
            "md": cmd_md, "registers": cmd_registers, "registers-check": cmd_registers_check,
            "registers-header": cmd_registers_header}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
