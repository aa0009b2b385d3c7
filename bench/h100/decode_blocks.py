"""cuDNN's grouped-rows decode attention at batch 1 on a few CTAs: the time one CTA takes per
KV block at each head dim (calibration microbenchmark; the decode rows of the validation
suites stay validation).

Usage: python3 decode_blocks.py OUT_DIR

F.scaled_dot_product_attention(q [1, H, 4, d], k, v [1, H, L, d]) bf16: each KV head's 4
queries as rows (a GQA group of 4), which PyTorch runs as cuDNN's sm90 flash kernel, one CTA a
KV head. H = 1, 2, 4 KV heads (1-4 CTAs, far from the HBM limit), d = 64, 128, 256, L = 8K and
32K. Each point: the kernel's profiled duration (median of 5 eager calls) and the replay of one
call captured in a CUDA graph (median of 20).
"""
import json
import os
import statistics
import sys
import time

os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pipeline as P  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
P.OUT = OUT
torch.manual_seed(0)
res = {"script": "bench/h100/decode_blocks.py", "use": "calibration (batch 1)", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
       "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(), "rows": []}
for d in (64, 128, 256):
    for h in (1, 2, 4):
        for L in (8192, 32768):
            q = torch.randn(1, h, 4, d, dtype=torch.bfloat16, device="cuda")
            k = torch.randn(1, h, L, d, dtype=torch.bfloat16, device="cuda")
            v = torch.randn_like(k)
            fn = lambda: F.scaled_dot_product_attention(q, k, v)
            g = P.capture(fn)
            us = P.time_ms(lambda: g.replay(), reps=20) * 1e3
            runs = [[x for x in P.kernels(fn) if "memset" not in x["name"].lower()] for _ in range(5)]
            main = [max(r, key=lambda x: x["us"]) for r in runs if r]
            row = {"headDim": d, "kvHeads": h, "kvLen": L, "us": round(us, 3),
                   "kernelUs": round(statistics.median(x["us"] for x in main), 3),
                   "kernel": main[0]["name"], "grid": main[0]["grid"], "kernelsPerCall": len(runs[0])}
            print(json.dumps(row), flush=True)
            res["rows"].append(row)
            del q, k, v, g
with open(os.path.join(OUT, "decode_blocks.json"), "w") as f:
    json.dump(res, f, indent=1)
