#!/usr/bin/env python3
"""published.py: published NCCL allreduce tables as arbench result records (JSON Lines) for
`arbench model --against`, and the verdict over its json lines.
  published.py aic BOX VERSION NGPUS OUT.jsonl   aiconfigurator-core's systems/data/BOX/comm/nccl/VERSION/
                                                nccl_perf.parquet (the installed package's file; message_size
                                                counts elements of nccl_dtype, latency in ms), all_reduce, half
  published.py tsv FILE OUT.jsonl               a committed table (tests/fixtures/model/published/*.tsv:
                                                gpus, size in bytes, busbw GB/s or time us; '#' lines its source)
  published.py verdict AGAINST.jsonl            per size measured/predicted time, and the bound: within +-25%
                                                and beyond 1.5x counts
Exit 3 when pyarrow or aiconfigurator-core is missing (the caller skips and says what to install)."""
import json
import os
import sys

DTYPE_BYTES = {"half": 2, "bfloat16": 2, "float": 4, "int8": 1}


def record(spec, dtype, size, ranks, t_us):
    return {"type": "result", "run_id": "a" * 16, "backend": "nccl-tests", "variant": "", "spec": spec,
            "dtype": dtype, "op": "sum", "size": size, "count": size // DTYPE_BYTES[dtype], "ranks": ranks,
            "time_us": {"p50": t_us, "mean": t_us, "min": t_us, "max": t_us}, "check": "unchecked"}


def aic(box, version, ngpus, out):
    try:
        import pyarrow.parquet as pq
        import aiconfigurator_core
    except ImportError as e:
        print(f"published.py: {e.name} missing: pip install pyarrow aiconfigurator-core", file=sys.stderr)
        return 3
    path = os.path.join(os.path.dirname(aiconfigurator_core.__file__), "systems", "data", box, "comm", "nccl",
                        version, "nccl_perf.parquet")
    rows = [r for r in pq.read_table(path).to_pylist()
            if r["op_name"] == "all_reduce" and r["nccl_dtype"] == "half" and r["num_gpus"] == ngpus]
    with open(out, "w") as f:
        for r in sorted(rows, key=lambda r: r["message_size"]):
            size = r["message_size"] * DTYPE_BYTES[r["nccl_dtype"]]
            f.write(json.dumps(record(f"aic-{box}-{version}", "half", size, ngpus, r["latency"] * 1000.0)) + "\n")
    return 0


def tsv(path, out):
    name = os.path.basename(path).rsplit(".", 1)[0]
    with open(path) as f, open(out, "w") as o:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            gpus, size, kind, value = line.split()[:4]
            gpus, size, value = int(gpus), int(size), float(value)
            # nccl-tests' busbw = size / t x 2(n-1)/n
            t = value if kind == "us" else size / (value * 1e3) * 2.0 * (gpus - 1) / gpus
            o.write(json.dumps(record(f"{name}-{gpus}g", "float", size, gpus, t)) + "\n")
    return 0


def verdict(path):
    lines = [r for r in (json.loads(l) for l in open(path) if l.startswith("{")) if r.get("type") == "against"]
    within = beyond = 0
    for r in lines:
        q = r["measured_us"] / r["predicted_us"]
        within += abs(q - 1) <= 0.25
        beyond += q > 1.5 or q < 1 / 1.5
        print(f'{r["spec"]:<34} {r["ranks"]:>2} {r["size"]:>10} {r["model"]:<17} {r["measured_us"]:>10.1f} '
              f'{r["predicted_us"]:>10.1f} {q:6.2f}')
    print(f"sizes {len(lines)} within25 {within} beyond1.5 {beyond}")
    return 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[:1] == ["aic"] and len(a) == 5:
        sys.exit(aic(a[1], a[2], int(a[3]), a[4]))
    if a[:1] == ["tsv"] and len(a) == 3:
        sys.exit(tsv(a[1], a[2]))
    if a[:1] == ["verdict"] and len(a) == 2:
        sys.exit(verdict(a[1]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
