#!/usr/bin/env python3
"""published.py: published NCCL allreduce tables as arbench result records (JSON Lines) for
`arbench model --against`, and the verdict over its json lines.
  published.py aic BOX VERSION NGPUS OUT.jsonl   aiconfigurator-core's systems/data/BOX/comm/nccl/VERSION/
                                                nccl_perf.parquet (the installed package's file; message_size
                                                counts elements of nccl_dtype, latency in ms), all_reduce, half
  published.py tsv FILE OUT.jsonl               a committed table (tests/fixtures/model/published/*.tsv:
                                                gpus, size in bytes, busbw GB/s or time us; '#' lines its source)
  published.py aicar BOX FW VERSION NGPUS MODE OUT.jsonl
                                                aiconfigurator-core's systems/data/BOX/comm/FW/VERSION/
                                                custom_allreduce_perf.parquet (FW vllm, sglang or trtllm; MODE graph or
                                                eager, trtllm: graph), bfloat16: each row as what the engine runs
                                                there (below)
  published.py verdict AGAINST.jsonl            per size measured/predicted time, and the bound: within +-25%
                                                and beyond 1.5x counts (all, and split by the transport NCCL's
                                                default runs on the ring there: p2p, or shm when a hop is SHM)
Exit 3 when pyarrow or aiconfigurator-core is missing (the caller skips and says what to install)."""
import json
import os
import sys

DTYPE_BYTES = {"half": 2, "bfloat16": 2, "float": 4, "int8": 1}


# How the sources measured (the model's input: bench/model/method.c). aiconfigurator's collector at
# ai-dynamo/aiconfigurator 1d12d3211 (2026-05-19; unchanged to 095f58a5), collector/network/collect_nccl.py:
# `all_reduce_perf -b S -e S -t N -d half -w 40 -a 1 -n 100 (60 above 16 MiB) -c 0`, no -G: nccl-tests' plain
# launches, back to back, one interval over the loop (its out-of-place time column), mean over ranks.
# collect_all_reduce.py: vLLM/SGLang "graph" rows replay one CUDA graph of 5 allreduces 20 times between two events,
# "eager" rows time 20 x 5 calls (each on input.clone()) between two events; TRT-LLM's rows are CUDA graphs too.
NCCL_TESTS = {"timing": "loop", "graph": 0, "average": "mean"}


def record(spec, dtype, size, ranks, t_us, method=NCCL_TESTS, backend="nccl-tests", variant=""):
    r = {"type": "result", "run_id": "a" * 16, "backend": backend, "variant": variant, "spec": spec,
         "dtype": dtype, "op": "sum", "size": size, "count": size // DTYPE_BYTES[dtype], "ranks": ranks,
         "time_us": {"p50": t_us, "mean": t_us, "min": t_us, "max": t_us}, "check": "unchecked"}
    r.update(method)
    return r


def parquet(box, kind, fw, version, name):
    try:
        import pyarrow.parquet as pq
        import aiconfigurator_core
    except ImportError as e:
        print(f"published.py: {e.name} missing: pip install pyarrow aiconfigurator-core", file=sys.stderr)
        return None
    return pq.read_table(os.path.join(os.path.dirname(aiconfigurator_core.__file__), "systems", "data", box, kind, fw,
                                      version, name)).to_pylist()


# What each engine runs for a bf16 allreduce on PCIe-only GPUs (bench/analysis/serving_rules.c, read from the
# engines' source): vLLM's and SGLang's custom allreduce only on 2 GPUs (more than two without full NVLink: disabled),
# the one-stage kernel there (each rank loads its peers' buffers: p2p-oneshot mode=pull), below vLLM's max_size
# (inp_size < 8 MiB) or up to SGLang's (<= 8 MiB); NCCL otherwise. TRT-LLM's AUTO resolves to NCCL on this box
# (ai-dynamo/aiconfigurator c9c4b977e: "latencies match NCCL on PCIe, AUTO resolves to NCCL").
def engine_runs(fw, ngpus, size):
    custom = fw in ("vllm", "sglang") and ngpus == 2 and (size < 8 << 20 if fw == "vllm" else size <= 8 << 20)
    return ("p2p-oneshot", "mode=pull") if custom else ("nccl", "")


def aicar(box, fw, version, ngpus, mode, out):
    rows = parquet(box, "comm", fw, version, "custom_allreduce_perf.parquet")
    if rows is None:
        return 3
    key = "implementation" if fw == "trtllm" else "backend"
    want = "trtllm" if fw == "trtllm" else f"{fw}_{mode}"
    method = {"timing": "loop", "graph": 20 if mode == "graph" else 0, "average": "rank0"}
    rows = [r for r in rows if r[key] == want and r["num_gpus"] == ngpus and r["allreduce_dtype"] == "bfloat16"]
    with open(out, "w") as f:
        for r in sorted(rows, key=lambda r: r["message_size"]):
            size = r["message_size"] * 2
            backend, variant = engine_runs(fw, ngpus, size)
            if backend == "p2p-oneshot":
                variant += ",reg=1" if mode == "graph" else ",reg=0"
            f.write(json.dumps(record(f"aic-{fw}-{version}-{mode}", "bfloat16", size, ngpus, r["latency"] * 1000.0,
                                      method, backend, variant)) + "\n")
    return 0


def aic(box, version, ngpus, out):
    rows = parquet(box, "comm", "nccl", version, "nccl_perf.parquet")
    if rows is None:
        return 3
    rows = [r for r in rows if r["op_name"] == "all_reduce" and r["nccl_dtype"] == "half" and r["num_gpus"] == ngpus]
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
            # nccl-tests' busbw = size / t x 2(n-1)/n; its method (NCCL_TESTS): the fixtures say nccl-tests
            t = value if kind == "us" else size / (value * 1e3) * 2.0 * (gpus - 1) / gpus
            o.write(json.dumps(record(f"{name}-{gpus}g", "float", size, gpus, t)) + "\n")
    return 0


def verdict(path):
    lines = [r for r in (json.loads(l) for l in open(path) if l.startswith("{")) if r.get("type") == "against"]
    within = beyond = 0
    by = {}  # NCCL's default transport on the ring, as the model reads NCCL's rules (paths.cc): p2p or shm
    for r in lines:
        q = r["measured_us"] / r["predicted_us"]
        within += abs(q - 1) <= 0.25
        beyond += q > 1.5 or q < 1 / 1.5
        if "nccl_shm_hops" in r:
            c = by.setdefault("shm" if r["nccl_shm_hops"] else "p2p", [0, 0, 0])
            c[0] += 1
            c[1] += abs(q - 1) <= 0.25
            c[2] += q > 1.5 or q < 1 / 1.5
        print(f'{r["spec"]:<34} {r["ranks"]:>2} {r["size"]:>10} {r["model"]:<17} {r["measured_us"]:>10.1f} '
              f'{r["predicted_us"]:>10.1f} {q:6.2f} {r.get("method", "?")}')
    if by:  # one line, never 8 fields (the rows above are)
        print("transport: " + "; ".join(f"{k} sizes={v[0]} within25={v[1]} beyond1.5={v[2]}" for k, v in sorted(by.items())))
    print(f"sizes {len(lines)} within25 {within} beyond1.5 {beyond}")
    return 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[:1] == ["aic"] and len(a) == 5:
        sys.exit(aic(a[1], a[2], int(a[3]), a[4]))
    if a[:1] == ["tsv"] and len(a) == 3:
        sys.exit(tsv(a[1], a[2]))
    if a[:1] == ["aicar"] and len(a) == 7 and a[5] in ("graph", "eager"):
        sys.exit(aicar(a[1], a[2], a[3], int(a[4]), a[5], a[6]))
    if a[:1] == ["verdict"] and len(a) == 2:
        sys.exit(verdict(a[1]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
