#!/usr/bin/env python3
"""fleet_gen.py — crafted results files of a fleet of 8-GPU boxes for `arbench fleet` (tests/analysis/fleet.sh and
bench/perf/fleet-1000.sh): one file per box, as `run --per-node` / `links --per-node` write them (a run record with
the host, its GPUs, stack and topology summary, then result and link records carrying the host), with seeded noise:
box-to-box spread, run-to-run drift and per-iteration samples (lognormal). Boxes can be made slow from a size on, have
a slow GPU pair, a GPU link at x8, wrong results, or another GPU model."""
import argparse
import json
import math
import os
import random

SIZES = [8 << (2 * k) for k in range(13)]  # 8 B .. 128 MiB, x4
BACKENDS = [("nccl", 24.0, 44.0), ("p2p-oneshot", 7.5, 20.0)]  # (spec, fixed us, GB/s)


def topology(gpus, x8):
    link = [63.02] * gpus
    for g in x8:
        link[g] = 31.51
    paths = [["X" if i == j else ("PIX" if i // 4 == j // 4 else "SYS") for j in range(gpus)] for i in range(gpus)]
    return {"order": "pci bus id", "packages": 2, "numa_nodes": 2, "cores": 64, "pus": 128, "numa": [],
            "gpus": [{"index": i, "busid": "0000:%02x:00.0" % (0x18 + 0x10 * i), "pci_id": "10de:2bb1", "class": "0302",
                      "numa": i // 4, "package": i // 4, "link_gbs": link[i], "cpus": "0-63"} for i in range(gpus)],
            "paths": paths, "source": "live", "digest": "fnv1a64:crafted"}


def run_record(host, run_id, model, gpus, stack, x8, job):
    return {"type": "run", "run_id": run_id, "schema": 1, "host": host, "hosts": [host], "ranks": gpus, "nodes": 1,
            "stack": {"name": stack}, "topology": topology(gpus, x8), "per_node": {"job": job, "nodes": 0, "node": 0},
            "gpus": [{"index": i, "name": model, "busid": "0000:%02x:00.0" % (0x18 + 0x10 * i), "cc": "12.0"}
                     for i in range(gpus)], "slurm": {"job_id": "4242", "step_id": "0", "node": host}}


def samples(rng, level, n, sd):
    return [round(level * math.exp(rng.gauss(0, sd)), 3) for _ in range(n)]


def box_files(a, i, rng, out):
    host = "box%02d" % i if a.boxes < 100 else "box%04d" % i
    model_b = i >= a.boxes - a.model_b
    model = "NVIDIA L40S" if model_b else "NVIDIA RTX PRO 6000 Blackwell Server Edition"
    speed = a.model_b_factor if model_b else 1.0
    box = math.exp(rng.gauss(0, a.box_sd))  # box-to-box spread (identical boxes are not identical)
    slow = {}
    for s in a.slow:  # HOST:FACTOR:FROM[:BACKEND]
        h, f, frm, *be = s.split(":")
        if h == host:
            slow[be[0] if be else "*"] = (float(f), int(frm))
    x8 = [int(s.split(":")[1]) for s in a.x8 if s.split(":")[0] == host]
    lines = []
    for r in range(a.runs):
        run_id = "%s-r%d" % (host, r)
        lines.append(run_record(host, run_id, model, 8, a.stack, x8, "job4242"))
        drift = math.exp(rng.gauss(0, a.run_sd))
        for spec, fixed, gbs in BACKENDS:
            for size in SIZES[: a.sizes]:
                t = (fixed + size / (gbs * 1e3)) * speed * box * drift
                f = slow.get(spec) or slow.get("*")
                if f and size >= f[1]:
                    t *= f[0]
                smp = samples(rng, t, a.samples, a.sample_sd)
                st = sorted(smp)
                rec = {"type": "result", "run_id": run_id, "host": host, "backend": spec.split(":")[0], "variant": "",
                       "spec": spec, "dtype": "bfloat16", "op": "sum", "placement": "out", "size": size,
                       "count": size // 2, "ranks": 8, "nodes": 1, "iters": a.samples, "samples_n": a.samples,
                       "checked": True, "wrong": 7 if host in a.wrong and size == SIZES[2] else 0,
                       "time_us": {"min": st[0], "p50": st[len(st) // 2], "p99": st[-1], "mean": sum(st) / len(st)},
                       "buffers": "hot", "timing": "iter", "average": "max", "repeat": 0, "repeats": 1,
                       "samples_us": smp}
                lines.append(rec)
        if a.links:
            for s in range(8):
                for d in range(8):
                    if s == d:
                        continue
                    g = (52.0 if s // 4 == d // 4 else 38.0) * box * drift
                    if "%s:%d->%d" % (host, s, d) in a.slow_pair:
                        g = 21.0
                    reps = [round(g * math.exp(rng.gauss(0, a.sample_sd)), 2) for _ in range(3)]
                    lines.append({"type": "link", "run_id": run_id, "host": host, "command": "links", "src": s, "dst": d,
                                  "method": "ce-read", "direction": "uni", "pattern": "pairs", "root": s, "flows": 1,
                                  "bytes": 64 << 20, "gbs": sorted(reps)[1], "path": "PIX" if s // 4 == d // 4 else "SYS",
                                  "repeats": 3, "samples_gbs": reps, "wrong": 0})
    with open(os.path.join(out, host + ".jsonl"), "w") as f:
        for rec in lines:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--boxes", type=int, default=40)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--samples", type=int, default=100)
    p.add_argument("--sizes", type=int, default=len(SIZES))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--stack", default="cu130")
    p.add_argument("--box-sd", type=float, default=0.02)
    p.add_argument("--run-sd", type=float, default=0.01)
    p.add_argument("--sample-sd", type=float, default=0.03)
    p.add_argument("--slow", action="append", default=[], help="HOST:FACTOR:FROM_BYTES[:BACKEND]")
    p.add_argument("--slow-pair", action="append", default=[], help="HOST:SRC->DST (21 GB/s)")
    p.add_argument("--x8", action="append", default=[], help="HOST:GPU (a link of 31.51 GB/s)")
    p.add_argument("--wrong", action="append", default=[], help="HOST (7 wrong elements at 128 B)")
    p.add_argument("--model-b", type=int, default=0, help="the last N boxes are another GPU model")
    p.add_argument("--model-b-factor", type=float, default=2.0)
    p.add_argument("--links", action="store_true")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    for i in range(a.boxes):
        box_files(a, i, rng, a.out)


if __name__ == "__main__":
    main()
