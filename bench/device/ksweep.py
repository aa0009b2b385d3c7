"""cuBLASLt skinny GEMMs over K at fixed N: separates a kernel's fixed cost from its stream rate.

Usage: python3 ksweep.py OUT_DIR [--m=1,8] [--shapes=NxK,...]

F.linear bf16 (cold weights, one CUDA graph, as sweep.py's linear section) at M ∈ {1, 8} (--m),
N ∈ {4096, 6144, 12288, 24576}, K = 1024 … 32768. Per kernel name and grid, a least-squares
line through (weight bytes, profiled kernel µs) gives the fixed cost and the steady rate; both
are written beside the points. `--shapes` replaces the N × K grid with a list (e.g. the
tensor-parallel shards of a model's projections). Writes OUT_DIR/ksweep.json.
"""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep import linear_point  # noqa: E402

NS = [4096, 6144, 12288, 24576]
KS = [1024, 2048, 4096, 8192, 12288, 16384, 24576, 32768]
MS = [1, 8]


def fit(points):
    """Least squares us = a + b * bytes: fixed µs and TB/s."""
    n = len(points)
    sx = sum(p[0] for p in points)
    sy = sum(p[1] for p in points)
    sxx = sum(p[0] * p[0] for p in points)
    sxy = sum(p[0] * p[1] for p in points)
    den = n * sxx - sx * sx
    if n < 3 or den == 0:
        return None
    b = (n * sxy - sx * sy) / den
    a = (sy - b * sx) / n
    return {"fixedUs": round(a, 3), "TBps": round(1e-6 / b, 4) if b > 0 else None, "points": n}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    ms = [int(x) for x in next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--m=")), ",".join(map(str, MS))).split(",")]
    given = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--shapes=")), None)
    shapes = [tuple(int(x) for x in s.split("x")) for s in given.split(",")] if given else [(n, k) for n in NS for k in KS]
    rows = []
    for m in ms:
        for n, k in shapes:
            r = linear_point(n, k, m)
            rows.append(r)
            print(f"m={m} n={n} k={k}: {r['usPerCall']:.2f} us/call; " + "; ".join(f"{x['name'][:40]} {x['grid']} {x['us']}" for x in r["kernels"]), flush=True)
    groups = {}
    for r in rows:
        main_k = max(r["kernels"], key=lambda x: x["us"])
        key = f"{main_k['name']} grid={main_k['grid']} m={r['m']}"
        groups.setdefault(key, []).append((r["n"] * r["k"] * 2, main_k["us"]))
    result = {"script": "bench/device/ksweep.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "gpu": torch.cuda.get_device_name(0),
              "torch": torch.__version__, "method": __doc__.strip().splitlines()[4:8], "rows": rows,
              "fits": {k: fit(v) for k, v in groups.items()}}
    with open(os.path.join(out, "ksweep.json"), "w") as f:
        json.dump(result, f, indent=1)
    for k, v in result["fits"].items():
        print(k, v)


if __name__ == "__main__":
    main()
