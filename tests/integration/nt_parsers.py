#!/usr/bin/env python3
"""nt_parsers.py — the format rules three real readers of nccl-tests output rely on, written here as rules
(their code is theirs, not copied), applied to a log: what each would read from it, as JSON on stdout.

  superbench  microsoft/superbenchmark, superbench/benchmarks/micro_benchmarks/cuda_nccl_bw_performance.py
              (nccl-bw / rccl-bw, _process_raw_result; as of commit 700d6501, unchanged since 2c88db9):
              takes the lines strictly between the LAST line containing 'out-of-place' and the LAST line
              containing 'Out of bounds values'; the first of them holding both 'time' and 'busbw' is the
              header: first character dropped, spaces squeezed, split on ' '; 'size' gives the size column,
              the first 'time'/'algbw'/'busbw' (counted from the end of the header) the out-of-place columns,
              the last ones the in-place columns; every line whose first token starts with a digit is a row,
              read at those positions counted from its end; rows of size 0 are skipped; no busbw -> failure.
  aws         aws-samples/awsome-distributed-training, micro-benchmarks/nccl-tests/nccl_to_csv.py (commit
              39c17d60): a row is a stripped line matching, from its start, size count type(float|double|int|
              half) op(sum|prod|max|min|none) root(-?int) and twice time algbw busbw (digits with an optional
              point) #wrong (digits or N/A); rows of every block are kept, unlabelled; the average is the
              number after '# Avg bus bandwidth :' on the last such line.
  azure       Azure/azurehpc-health-checks, customTests/azure_nccl_allreduce.nhc, check_nccl_allreduce (commit
              0e0a1ac): lines in order; one containing 'FAILED' fails the check (out of bounds values); the
              first containing 'bandwidth' is split on whitespace and its field 5 (from 0) is the average bus
              bandwidth, compared with the expected one; later lines are not read.
"""
import json
import re
import sys


def superbench(text, in_place=False):
    lines = text.splitlines()
    oop = oob = -1
    for i, line in enumerate(lines):
        if "out-of-place" in line:
            oop = i
        if "Out of bounds values" in line:
            oob = i
    if oop < 0 or oob < 0:
        return {"ok": False, "why": "no out-of-place or Out of bounds line"}
    body = lines[oop + 1:oob]
    idx = None
    for line in body:
        if "time" in line and "busbw" in line:
            head = re.sub(" +", " ", line[1:].strip(" ")).split(" ")
            size = head.index("size")
            if in_place:
                pos = {k: -1 - list(reversed(head)).index(k) for k in ("time", "algbw", "busbw")}
            else:
                pos = {k: head.index(k) - len(head) for k in ("time", "algbw", "busbw")}
            idx = (size, pos)
            break
    if idx is None:
        return {"ok": False, "why": "no header line"}
    rows = {}
    for line in body:
        tok = re.sub(" +", " ", line.strip(" ")).split(" ")
        if not tok or not re.match(r"\d+", tok[0]):
            continue
        size = int(tok[idx[0]])
        if size:
            rows[size] = {k: float(tok[v]) for k, v in idx[1].items()}
    return {"ok": bool(rows), "rows": rows}


AWS_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(float|double|int|half)\s+(sum|prod|max|min|none)\s+(-?\d+)"
                     r"\s+(\d+\.?\d*)\s+(\d+\.?\d*)\s+(\d+\.?\d*)\s+(\d+|N/A)"
                     r"\s+(\d+\.?\d*)\s+(\d+\.?\d*)\s+(\d+\.?\d*)\s+(\d+|N/A)")
AWS_AVG = re.compile(r"# Avg bus bandwidth\s*:\s*(\d+\.?\d*)")


def aws(text):
    rows, avg = [], None
    for line in text.splitlines(keepends=True):
        m = AWS_ROW.match(line.strip())
        if m:
            g = m.groups()
            rows.append({"size": int(g[0]), "count": int(g[1]), "type": g[2], "op": g[3], "root": int(g[4]),
                         "out": {"time": float(g[5]), "algbw": float(g[6]), "busbw": float(g[7]),
                                 "wrong": 0 if g[8] == "N/A" else int(g[8])},
                         "in": {"time": float(g[9]), "algbw": float(g[10]), "busbw": float(g[11]),
                                "wrong": 0 if g[12] == "N/A" else int(g[12])}})
        a = AWS_AVG.search(line)
        if a:
            avg = float(a.group(1))
    return {"ok": bool(rows), "rows": rows, "avg": avg}


def azure(text, expected):
    avg = None
    for line in text.splitlines():
        if "FAILED" in line:
            return {"ok": False, "why": "Out of bounds values failed", "avg": avg}
        if "bandwidth" in line:
            avg = line.split()[5]
            break
    if avg is None:
        return {"ok": False, "why": "no bandwidth line"}
    return {"ok": float(avg) >= expected, "avg": avg}


if __name__ == "__main__":
    rule, path = sys.argv[1], sys.argv[2]
    text = open(path, encoding="utf-8").read()
    if rule == "superbench":
        out = superbench(text, len(sys.argv) > 3 and sys.argv[3] == "in")
    elif rule == "aws":
        out = aws(text)
    elif rule == "azure":
        out = azure(text, float(sys.argv[3]) if len(sys.argv) > 3 else 0.0)
    else:
        sys.exit("unknown rule " + rule)
    json.dump(out, sys.stdout, sort_keys=True)
    print()
