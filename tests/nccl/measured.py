#!/usr/bin/env python3
"""measured.py OUT NP SIZE... — GPU-box measurements as `arbench run` records them (not stand-in timings): default
nccl and Ring/LL, Ring/Simple on NP ranks, float, where Ring/LL is the faster up to 256 KiB and Ring/Simple above,
so that `arbench tune` decides Ring/LL small, Ring/Simple large. Used by tuner.sh and verify.sh."""
import json
import sys

out, np, sizes = sys.argv[1], int(sys.argv[2]), [int(s) for s in sys.argv[3:]]
cost = {"algo=Ring,proto=LL": lambda s: 10.0 + s / 20000.0, "algo=Ring,proto=Simple": lambda s: 20.0 + s / 40000.0,
        "": lambda s: 30.0 + s / 30000.0}
with open(out, "w") as f:
    f.write(json.dumps({"type": "run", "run_id": "m", "schema": 1, "arbench": {"version": "0.1.0", "git": "fixture"},
                        "hosts": ["box"], "ranks": np, "nodes": 1,
                        "stack": {"name": "cu130-nccl2.28.9", "nccl_loaded": "2.28.9"}, "topology": None}) + "\n")
    for var, t in cost.items():
        for s in sizes:
            us = [round(t(s) * (1 + 0.002 * k), 4) for k in range(5)]
            bw = s / us[2] / 1e3
            f.write(json.dumps({
                "type": "result", "run_id": "m", "backend": "nccl", "variant": var, "spec": "nccl" + (":" + var if var else ""),
                "dtype": "float", "op": "sum", "placement": "out", "size": s, "count": s // 4, "ranks": np, "nodes": 1,
                "iters": 5, "warmup": 5, "graph": 0, "samples_n": 5, "checked": True, "wrong": 0,
                "time_us": {"min": us[0], "p10": us[0], "p50": us[2], "p90": us[4], "p99": us[4], "max": us[4],
                            "mean": sum(us) / 5, "stddev": 0.0},
                "algbw_gbs": bw, "busbw_gbs": bw * 2 * (np - 1) / np, "algbw_p50_gbs": bw,
                "busbw_p50_gbs": bw * 2 * (np - 1) / np, "samples_us": us}) + "\n")
