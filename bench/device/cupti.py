"""Does a finished torch.profiler session slow later CUDA-graph replays in the same process?

Usage: python3 cupti.py OUT_DIR

PyTorch's profiler leaves CUPTI attached after it exits when it does not tear it down (Kineto's
TEARDOWN_CUPTI; pytorch/pytorch#144455, #150957). Graphs of whole decode steps (sweep.py's dense
stack, Llama-3-8B shape: FlashAttention-2 split-KV at batch 1 and 32, cuDNN at batch 1), a
decode layer's GEMV chain and 200 trivial Triton launches are each timed (CUDA events, median of
20, three rounds) before any profiler session, then again after one profiler session on an
unrelated kernel. Run it twice: as is, and with TEARDOWN_CUPTI=1 in the environment.
"""
import json
import os
import sys
import time

import torch

ASKED = os.environ.get("TEARDOWN_CUPTI")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402
from sweep import capture, time_ms, touch_kernel  # noqa: E402

if ASKED is None:  # sweep.py tears CUPTI down by default; this script measures what happens without it
    os.environ.pop("TEARDOWN_CUPTI", None)

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)
DEV = "cuda"
torch.manual_seed(0)


def graphs():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sweep.probe_gqa()
    out = {}
    cfg = sweep.E2E_FAMILIES[2][0]
    for layout, b, kv in (("gqa", 1, 1024), ("rows", 1, 1024), ("gqa", 32, 2048)):
        m = sweep.Dense(cfg)
        m.alloc_kv(b, kv)
        tokens = torch.randint(0, cfg["vocab"], (b,), device=DEV)
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]) if layout == "gqa" else torch.no_grad():
            out[f"llama3-8b-{layout}-b{b}-kv{kv}"] = (capture(lambda: m.step(tokens, kv - 1, layout)), (m, tokens))  # keep the graph's inputs alive
    x = torch.empty(132 * 128, dtype=torch.int32, device=DEV)
    out["touch132x200"] = (capture(lambda: [touch_kernel[(132,)](x, BLOCK=128, num_warps=4) for _ in range(200)]), x)
    return out


def rounds(gs, label):
    res = {}
    for r in range(3):
        for name, (g, _) in gs.items():
            res.setdefault(name, []).append(round(time_ms(lambda: g.replay(), reps=20, warm=3) * 1e3, 2))
    print(f"[cupti] {label}: {res}", flush=True)
    return res


def main():
    result = {"script": "bench/device/cupti.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "gpu": torch.cuda.get_device_name(0),
              "torch": torch.__version__, "cuda": torch.version.cuda, "teardownCupti": os.environ.get("TEARDOWN_CUPTI"), "method": __doc__.strip().splitlines()[0]}
    gs = graphs()
    result["before"] = rounds(gs, "before any profiler session")
    y = torch.randn(1 << 20, device=DEV)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]):
        y.mul_(2)
        torch.cuda.synchronize()
    result["after"] = rounds(gs, "after one profiler session")
    tag = "teardown" if os.environ.get("TEARDOWN_CUPTI") == "1" else "default"
    with open(os.path.join(OUT, f"cupti-{tag}.json"), "w") as fh:
        json.dump(result, fh, indent=1)


main()
