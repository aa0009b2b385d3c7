"""SM clock, memory clock and power while decode attention kernels run back to back.

Usage: python3 clocks.py OUT_DIR [--only=attention,gemm]

For each kernel (attention: FlashAttention-2's unsplit kernel at batch 32 / KV 32K, 32/8 heads;
cuDNN's grouped-rows kernel at batch 1 / KV 32K; a 2 GiB device copy. gemm: cuBLAS bf16
GEMMs of a prefill, M = 8192 by 4096 x 4096, 4096 x 12288 and 8192 x 8192), replays a CUDA graph of it for
~4 s while `nvidia-smi -lms 50` samples clocks.sm, clocks.mem and power.draw; writes the
per-call time and the samples' median to OUT_DIR/clocks.json. Answers whether a GPU runs these
kernels at a lower SM clock (power or thermal) than another.
"""
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
ONLY = [x for a in sys.argv if a.startswith("--only=") for x in a.split("=", 1)[1].split(",")] or ["attention", "gemm"]
os.makedirs(OUT, exist_ok=True)
DEV = "cuda"


def graph_of(fn, calls):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    torch.cuda.synchronize()
    return g


def run(name, fn, calls, seconds=4.0):
    g = graph_of(fn, calls)
    g.replay()
    torch.cuda.synchronize()
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu", "--format=csv,noheader,nounits", "-lms", "50"],
                           stdout=subprocess.PIPE, text=True)
    t0 = time.time()
    n = 0
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    while time.time() - t0 < seconds:
        g.replay()
        n += 1
        if n % 4 == 0:
            torch.cuda.synchronize()
    b.record()
    b.synchronize()
    smi.terminate()
    out = smi.communicate()[0]
    rows = [[float(x) for x in line.split(",")] for line in out.strip().splitlines() if line.count(",") == 3]
    rows = rows[len(rows) // 5:]  # skip the ramp
    us = a.elapsed_time(b) * 1e3 / (n * calls)
    r = {"kernel": name, "usPerCall": round(us, 3), "samples": len(rows),
         "smClockMHz": statistics.median(x[0] for x in rows) if rows else None,
         "memClockMHz": statistics.median(x[1] for x in rows) if rows else None,
         "powerW": statistics.median(x[2] for x in rows) if rows else None,
         "tempC": statistics.median(x[3] for x in rows) if rows else None}
    print(r, flush=True)
    return r


res = {"script": "bench/device/clocks.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "gpu": torch.cuda.get_device_name(0),
       "torch": torch.__version__, "rows": []}
if "attention" in ONLY:
    B, L = 32, 32768
    q = torch.randn(B, 32, 1, 128, dtype=torch.bfloat16, device=DEV)
    k = torch.randn(B, 8, L, 128, dtype=torch.bfloat16, device=DEV)
    v = torch.randn(B, 8, L, 128, dtype=torch.bfloat16, device=DEV)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        res["rows"].append(run("flash_fwd_kernel 32/8 b32 kv32768", lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), 4))
    del q, k, v
    q = torch.randn(1, 8, 4, 128, dtype=torch.bfloat16, device=DEV)
    k = torch.randn(1, 8, L, 128, dtype=torch.bfloat16, device=DEV)
    v = torch.randn(1, 8, L, 128, dtype=torch.bfloat16, device=DEV)
    res["rows"].append(run("cudnn grouped rows 32/8 b1 kv32768", lambda: F.scaled_dot_product_attention(q, k, v), 16))
    x = torch.empty(1 << 31, dtype=torch.uint8, device=DEV)
    y = torch.empty_like(x)
    res["rows"].append(run("2 GiB copy", lambda: y.copy_(x), 2))
    del q, k, v, x, y
if "gemm" in ONLY:
    for m, n, kk in ((8192, 4096, 4096), (8192, 4096, 12288), (8192, 8192, 8192)):
        a = torch.randn(m, kk, dtype=torch.bfloat16, device=DEV)
        w = torch.randn(n, kk, dtype=torch.bfloat16, device=DEV)
        r = run(f"F.linear bf16 M={m} N={n} K={kk}", lambda: F.linear(a, w), 8)
        r["tflops"] = round(2 * m * n * kk / (r["usPerCall"] * 1e6), 1)
        res["rows"].append(r)
        del a, w
with open(os.path.join(OUT, "clocks.json"), "w") as f:
    json.dump(res, f, indent=1)
