"""cuDNN's prefill attention kernel on its own, at batch 1: how its time grows with the tiles
each persistent CTA runs (calibration microbenchmark; the batch > 1 prefill rows of phases.py
stay validation).

Usage: python3 prefill_tiles.py OUT_DIR

F.scaled_dot_product_attention(q [1, H, S, 128], k, v [1, H/4, S, 128], enable_gqa) bf16:
  tiles     non-causal, S = 512 (4 KV blocks a tile): H = 8 … 256 query heads, so the 128-query
            tiles (H x S/128) run 0.25 … 7.8 a CTA on the 132-CTA persistent grid; every tile
            alike, so the slope over tiles a CTA is one tile's time and the intercept the
            kernel's once-per-CTA part
  blocks    non-causal, H = 32: S = 256 … 4096 (2 … 32 KV blocks a tile)
  causal    causal, S = 512, H = 32 … 256 (the validation rows' tile mix, at batch 1)
Each point: replay time of one call captured in a CUDA graph (median of 20) and the kernel's
profiled duration (median over 5 eager calls).
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


def point(h, s, causal):
    q = torch.randn(1, h, s, 128, dtype=torch.bfloat16, device="cuda")
    k = torch.randn(1, max(1, h // 4), s, 128, dtype=torch.bfloat16, device="cuda")
    v = torch.randn_like(k)
    fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
    g = P.capture(fn)
    us = P.time_ms(lambda: g.replay(), reps=20) * 1e3
    runs = [[k_ for k_ in P.kernels(fn) if "flash" in k_["name"] or "sdpa" in k_["name"]] for _ in range(5)]
    main = [r[0] for r in runs if r]
    row = {"heads": h, "kvHeads": max(1, h // 4), "promptLen": s, "causal": causal, "us": round(us, 3),
           "kernelUs": round(statistics.median(k_["us"] for k_ in main), 3) if main else None,
           "kernel": main[0]["name"] if main else None, "grid": main[0]["grid"] if main else None,
           "tiles": h * ((s + 127) // 128)}
    print(json.dumps(row), flush=True)
    return row


res = {"script": "bench/h100/prefill_tiles.py", "use": "calibration (batch 1)", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
       "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(), "rows": []}
for h in (8, 16, 32, 48, 64, 96, 128, 192, 256):
    res["rows"].append(dict(point(h, 512, False), section="tiles"))
for s in (256, 1024, 2048, 4096):
    res["rows"].append(dict(point(32, s, False), section="blocks"))
for h in (32, 64, 128, 256):
    res["rows"].append(dict(point(h, 512, True), section="causal"))
with open(os.path.join(OUT, "prefill_tiles.json"), "w") as f:
    json.dump(res, f, indent=1)
