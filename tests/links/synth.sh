# synth.sh — sourced by the link analysis tests: synth OUT VARIANT RUNS writes a synthetic 4-rank box's link
# records with exactly known numbers. Ranks 0, 1 on NUMA node 0, ranks 2, 3 on node 1 (NODE within, SYS
# across). A copy of B bytes takes fixed + B / (GB/s x 1e3) us: write NODE 2 us + 20 GB/s, write SYS 3 us +
# 10 GB/s, read NODE 1 us + 25 GB/s, read SYS 4 us + 8 GB/s, at 64K, 256K and 1M; the flag latency 0.5 us
# (NODE), 1.5 us (SYS). Under load a flow gets a fixed share of its pair alone: ring 0.5, oneshot and all
# 0.25. Repeats: the value x 0.99, 1, 1.01 (p50 = the value). Run r of RUNS scales everything by 1, 1.01,
# 0.99 (run-to-run drift); the file holds run 1 first when there are two or more (so the first record of a flow
# is not its median). VARIANT b: every write flow of a SYS pair (alone and under load) at half the bandwidth, fixed
# cost doubled too, and every read flow 6% faster: with 3 runs a side each such match alone has p = 0.002,
# which Holm over the whole family does not confirm (compare must call it the same).
# VARIANT host2: the same box named boxB. VARIANT asym: every flow rank 3 sends at half its value (a matrix
# that is not symmetric), and the pairs also bidirectional: s->t at 0.8 of its value alone (0.48 when s > t).
synth() {
  $PY - "$@" <<'PY'
import json, sys
out, variant, nruns = sys.argv[1], sys.argv[2], int(sys.argv[3])
numa = [0, 0, 1, 1]
LINK = {("write", "NODE"): (2.0, 20.0), ("write", "SYS"): (3.0, 10.0),
        ("read", "NODE"): (1.0, 25.0), ("read", "SYS"): (4.0, 8.0)}
FLAG = {"NODE": 0.5, "SYS": 1.5}
LOAD = {"ring": 0.5, "oneshot": 0.25, "all": 0.25}
SIZES = [65536, 262144, 1048576]
host = "boxB" if variant == "host2" else "boxA"
def path(s, d): return "NODE" if numa[s] == numa[d] else "SYS"
def gbs(m, c, b):
    fx, bw = LINK[(m, c)]
    if variant == "b" and (m, c) == ("write", "SYS"):
        fx, bw = 2 * fx, bw / 2
    return (1.06 if variant == "b" and m == "read" else 1.0) * b / ((fx + b / (bw * 1e3)) * 1e3)
def val(m, s, t, b): return (0.5 if variant == "asym" and s == 3 else 1.0) * gbs(m, path(s, t), b)
pairs = [(s, d) for s in range(4) for d in range(4) if s != d]
flows = {"ring": [(r, (r + 1) % 4) for r in range(4)], "oneshot": pairs, "all": pairs}
with open(out, "w") as f:
    for run in ([1, 0] + list(range(2, nruns)) if nruns >= 2 else [0]):
        k = [1.0, 1.01, 0.99][run % 3]
        rid = "%016x" % (0xa000 + run + {"b": 0x100, "host2": 0x200}.get(variant, 0))
        f.write(json.dumps({"type": "run", "run_id": rid, "schema": 1, "command": "links", "hosts": [host],
                            "ranks": 4, "stack": {"name": "host-only"},
                            "links": {"transport": "host: MPI shared-memory windows"}}) + "\n")
        def rec(m, d, p, s, t, b, v, nf):
            flag = m == "flag"
            r = {"type": "link", "run_id": rid, "command": "links", "src": s, "dst": t,
                 "src_id": "%s:numa%d" % (host, numa[s]), "dst_id": "%s:numa%d" % (host, numa[t]), "method": m,
                 "direction": d, "pattern": p, "root": s if p == "pairs" else None, "flows": nf, "bytes": b,
                 "gbs": None if flag else v, "us": v if flag else b / (v * 1e3), "path": path(s, t),
                 "bottleneck_gbs": None, "expected_gbs": None, "ratio": None, "score": None, "repeats": 3,
                 "iters": 20, "wrong": 0}
            r["samples_us" if flag else "samples_gbs"] = [v * 0.99, v, v * 1.01]
            f.write(json.dumps(r) + "\n")
        for m in ("read", "write"):
            for b in SIZES:
                for s, t in pairs:
                    rec(m, "uni", "pairs", s, t, b, k * val(m, s, t, b), 1)
                    if variant == "asym":
                        rec(m, "bi", "pairs", s, t, b, k * (0.8 if s < t else 0.48) * val(m, s, t, b), 2)
            for p, fl in flows.items():
                for b in SIZES:
                    for s, t in fl:
                        rec(m, "uni", p, s, t, b, k * LOAD[p] * val(m, s, t, b), len(fl))
        for s, t in pairs:
            rec("flag", "pingpong", "pairs", s, t, 4, k * FLAG[path(s, t)], 1)
PY
}
