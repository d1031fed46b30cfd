#!/usr/bin/env python3
# cu2cc.py — a .cu file for the host C++ compiler of the CUDA stand-in build: every launch
# `kernel<<<grid, block[, shmem[, stream]]>>>(args)` becomes `ar_standin_launch(NAME, grid, block, shmem,
# stream, kernel, args)` (standin/cudart/include/cuda_runtime.h), line numbers kept (#line), the emu's CUDA
# (standin/kernels/ar_emu_cuda.h, with its flag hook) included first. NAME is the kernel as ptxas's report names it
# (kernel-report.py: `ns::kernel<1>`, template arguments as their values), the key of its register count
# (standin/cudart/registers.tsv). Usage: cu2cc.py IN.cu OUT.cc
import sys

IDENT = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:")


def kernel_start(src, end):
    """Start of the kernel expression ending at end (exclusive): a name, with :: and one <...> template list."""
    i = end
    if i > 0 and src[i - 1] == ">":  # template arguments
        depth = 0
        while i > 0:
            i -= 1
            depth += {">": 1, "<": -1}.get(src[i], 0)
            if depth == 0:
                break
    while i > 0 and src[i - 1] in IDENT:
        i -= 1
    return i


def closing(src, i, open_ch, close_ch):
    """Index just past the bracket closing the one at i."""
    depth = 0
    while i < len(src):
        depth += {open_ch: 1, close_ch: -1}.get(src[i], 0)
        i += 1
        if depth == 0:
            return i
    sys.exit("cu2cc: unbalanced %s%s" % (open_ch, close_ch))


def split_top(text):
    parts, depth, cur = [], 0, ""
    for c in text:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(c, 0)
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return [p.strip() for p in parts]


def name_expr(name):
    """The launch's name as a C++ expression: a literal, or for `ns::k<A, B>` the values of A and B at run time
    (ar_standin_kname), as c++filt prints the instance ptxas compiled."""
    if not name.endswith(">"):
        return '"%s"' % name
    base, _, args = name[:-1].partition("<")
    vals = ", ".join("(long long)(%s)" % a for a in split_top(args))
    return 'ar_standin_kname("%s", {%s})' % (base.strip(), vals)


def rewrite(src, path):
    out, pos = [], 0
    while True:
        at = src.find("<<<", pos)
        if at < 0:
            out.append(src[pos:])
            return "".join(out)
        start = kernel_start(src, at)
        name = src[start:at].strip()
        if not name:
            sys.exit("%s: a <<< without a kernel name before it" % path)
        close = src.find(">>>", at)
        cfg = split_top(src[at + 3:close])
        if not 2 <= len(cfg) <= 4:
            sys.exit("%s: launch of %s: expected 2 to 4 launch parameters, got %d" % (path, name, len(cfg)))
        cfg += ["0", "0"][len(cfg) - 2:]
        paren = close + 3
        while src[paren].isspace():
            paren += 1
        if src[paren] != "(":
            sys.exit("%s: launch of %s: no argument list after >>>" % (path, name))
        end = closing(src, paren, "(", ")")
        args = src[paren + 1:end - 1]
        out.append(src[pos:start])
        out.append('ar_standin_launch(%s, %s, %s%s%s)' % (name_expr(name), ", ".join(cfg), name,
                                                          ", " if args.strip() else "", args))
        pos = end


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: cu2cc.py IN.cu OUT.cc")
    src = open(sys.argv[1], encoding="utf-8").read()
    text = rewrite(src, sys.argv[1])
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write('#include "ar_emu_cuda.h" /* cu2cc.py: the CPU execution\'s CUDA first (its flag hook) */\n')
        f.write('#line 1 "%s"\n' % sys.argv[1])
        f.write(text)


main()
