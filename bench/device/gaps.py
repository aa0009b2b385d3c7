"""What a kernel boundary costs inside a CUDA graph, read off the profiler's timeline of a replay.

Usage: python3 gaps.py OUT_DIR [--only=touch,layer,sdpa,e2e]

Each chain is captured in one CUDA graph and replayed under the profiler; for every pair of
consecutive activities the gap is the next one's start less this one's end (the GPU idle
between them). Chains:
  touch   200 dependent launches of a Triton kernel (128 threads a CTA, 512 B stored a CTA), grids
          1, 8, 132, 264, 1056 CTAs; and 50 and 800 launches at 1 and 132 CTAs (the replay's
          length against the chain's separates the graph's own launch from the per-kernel period)
  layer   a decode layer's kernel mix at batch 1 (F.rms_norm, F.linear GEMVs with cold weights,
          residual add, SiLU and mul), 8 layers
  sdpa    20 decode attention calls (batch 1, 32 query / 8 KV heads, head dim 128, KV 1024 and
          8192): 'rows' (cuDNN) and 'gqa' (q [B, Hq, 1, D], enable_gqa, FLASH backend:
          FlashAttention-2 split-KV); every GPU activity is listed (kernels, memsets, memcpys)
  e2e     whole decode steps of sweep.py's dense stack (Llama-3.2-1B and Llama-3-8B shapes, both
          attention layouts): VALIDATION data, for finding where the idle goes, not calibration
Also: each chain's replay time (CUDA events, median of 10) beside its profiled busy time, so the
idle share is known without the profiler's own effect on it.
"""
import contextlib
import json
import os
import statistics
import sys
import time

os.environ.setdefault("TEARDOWN_CUPTI", "1")  # as sweep.py: a finished profiler session must not slow later replays
import torch  # noqa: E402
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402
from sweep import capture, profile_events, time_ms, touch_kernel  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)
DEV = "cuda"
torch.manual_seed(0)


def med(xs):
    return statistics.median(xs) if xs else None


def replay_us(g, reps=10):
    return time_ms(lambda: g.replay(), reps=reps, warm=3) * 1e3


def timeline(g):
    """GPU activities of one replay, in order: kernels, memsets, memcpys."""
    acts = []
    for e in profile_events(g.replay):
        cat = str(e.get("cat", "")).lower()
        if e.get("ph") == "X" and cat in ("kernel", "gpu_memset", "gpu_memcpy"):
            a = e.get("args", {})
            acts.append({"cat": cat, "name": e.get("name", "")[:120], "ts": float(e["ts"]), "us": float(e.get("dur", 0)), "grid": a.get("grid")})
    acts.sort(key=lambda k: k["ts"])
    return acts


def summarise(name, g):
    period = replay_us(g)
    acts = timeline(g)
    gaps = [acts[i + 1]["ts"] - (acts[i]["ts"] + acts[i]["us"]) for i in range(len(acts) - 1)]
    busy = sum(a["us"] for a in acts)
    by_next = {}
    for i, gap in enumerate(gaps):
        by_next.setdefault(acts[i + 1]["name"], []).append(gap)
    pairs = {}
    for i, gap in enumerate(gaps):
        pairs.setdefault((acts[i]["name"][:60], acts[i + 1]["name"][:60]), []).append(gap)
    transitions = sorted(({"from": a, "to": b, "count": len(v), "gapMedianUs": round(med(v), 3)} for (a, b), v in pairs.items()), key=lambda t: -t["gapMedianUs"] * t["count"])
    kinds = {}
    for a in acts:
        k = kinds.setdefault(a["name"], {"name": a["name"], "cat": a["cat"], "grid": a["grid"], "count": 0, "us": []})
        k["count"] += 1
        k["us"].append(a["us"])
    row = {
        "chain": name,
        "activities": len(acts),
        "replayUs": round(period, 3),
        "profiledSpanUs": round(acts[-1]["ts"] + acts[-1]["us"] - acts[0]["ts"], 3) if acts else None,
        "busyUs": round(busy, 3),
        "gapMedianUs": round(med(gaps), 3) if gaps else None,
        "gapMeanUs": round(sum(gaps) / len(gaps), 3) if gaps else None,
        "gapP10Us": round(sorted(gaps)[len(gaps) // 10], 3) if gaps else None,
        "gapP90Us": round(sorted(gaps)[(9 * len(gaps)) // 10], 3) if gaps else None,
        "idlePerActivityUs": round((period - busy) / len(acts), 3) if acts else None,
        "gapBeforeMedianUs": {n: round(med(v), 3) for n, v in by_next.items()},
        "transitions": transitions[:16],
        "kinds": [{**k, "us": round(med(k["us"]), 3)} for k in kinds.values()],
    }
    print(f"[gaps] {name}: {len(acts)} acts, replay {period:.1f} us, busy {busy:.1f}, gap median {row['gapMedianUs']} mean {row['gapMeanUs']}, idle/act {row['idlePerActivityUs']}", flush=True)
    return row


def touch_chains():
    rows = []
    for ctas, n in [(1, 200), (8, 200), (132, 200), (264, 200), (1056, 200), (1, 50), (132, 50), (1, 800), (132, 800)]:
        out = torch.empty(ctas * 128, dtype=torch.int32, device=DEV)
        g = capture(lambda: [touch_kernel[(ctas,)](out, BLOCK=128, num_warps=4) for _ in range(n)])
        rows.append({"ctas": ctas, "launches": n, **summarise(f"touch{ctas}x{n}", g)})
        del g
    return rows


def layer_chain():
    hidden, inter, qkv = 4096, 12288, 6144
    layers = 8
    w = [{"qkv": torch.randn(qkv, hidden, dtype=torch.bfloat16, device=DEV) * 0.02,
          "o": torch.randn(hidden, hidden, dtype=torch.bfloat16, device=DEV) * 0.02,
          "gu": torch.randn(2 * inter, hidden, dtype=torch.bfloat16, device=DEV) * 0.02,
          "d": torch.randn(hidden, inter, dtype=torch.bfloat16, device=DEV) * 0.02} for _ in range(layers)]
    gamma = torch.ones(hidden, dtype=torch.bfloat16, device=DEV)
    x = torch.randn(1, hidden, dtype=torch.bfloat16, device=DEV)

    def body():
        h = x
        for l in range(layers):
            a = F.rms_norm(h, (hidden,), gamma, 1e-6)
            q = F.linear(a, w[l]["qkv"])
            o = F.linear(q[:, :hidden], w[l]["o"])
            h = h + o
            a = F.rms_norm(h, (hidden,), gamma, 1e-6)
            gu = F.linear(a, w[l]["gu"])
            m = F.silu(gu[:, :inter]) * gu[:, inter:]
            h = h + F.linear(m, w[l]["d"])
        return h

    g = capture(body)
    row = summarise("layer", g)
    del g, w
    return row


def sdpa_chains():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    rows = []
    for L in [1024, 8192]:
        ks = [torch.randn(1, 8, L, 128, dtype=torch.bfloat16, device=DEV) for _ in range(20)]
        vs = [torch.randn(1, 8, L, 128, dtype=torch.bfloat16, device=DEV) for _ in range(20)]
        qr = torch.randn(1, 8, 4, 128, dtype=torch.bfloat16, device=DEV)
        qg = torch.randn(1, 32, 1, 128, dtype=torch.bfloat16, device=DEV)
        g = capture(lambda: [F.scaled_dot_product_attention(qr, ks[i], vs[i]) for i in range(20)])
        rows.append({"layout": "rows", "kvLen": L, **summarise(f"sdpa-rows-{L}", g)})
        del g
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            g = capture(lambda: [F.scaled_dot_product_attention(qg, ks[i], vs[i], enable_gqa=True) for i in range(20)])
            rows.append({"layout": "gqa", "kvLen": L, **summarise(f"sdpa-gqa-{L}", g)})
        del g, ks, vs
        torch.cuda.empty_cache()
    return rows


def e2e_chains():
    """Whole decode steps of bench/device/sweep.py's dense stack, one graph each: where the idle goes."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    rows = []
    for cfg in (sweep.E2E_FAMILIES[0][0], sweep.E2E_FAMILIES[2][0]):
        model = sweep.Dense(cfg)
        for layout, b, kv in (("gqa", 1, 1024), ("rows", 1, 1024), ("gqa", 32, 2048)):
            model.alloc_kv(b, kv)
            tokens = torch.randint(0, cfg["vocab"], (b,), device=DEV)
            ctx = sdpa_kernel([SDPBackend.FLASH_ATTENTION]) if layout == "gqa" else contextlib.nullcontext()
            with ctx:
                g = capture(lambda: model.step(tokens, kv - 1, layout))
                rows.append({"model": cfg["name"], "layout": layout, "batch": b, "kvLen": kv, **summarise(f"e2e-{cfg['name']}-{layout}-{b}-{kv}", g)})
            del g
            model.kc = model.vc = None
            torch.cuda.empty_cache()
        del model
        torch.cuda.empty_cache()
    return rows


result = {"script": "bench/device/gaps.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
          "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
          "method": __doc__.strip().splitlines()[0]}
SECTIONS = [("touch", touch_chains), ("layer", layer_chain), ("sdpa", sdpa_chains), ("e2e", e2e_chains)]
ONLY = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")]
for name, f in SECTIONS:
    if ONLY and name not in ONLY[0].split(","):
        continue
    try:
        result[name] = f()
    except Exception as e:  # record and go on: each chain stands alone
        result[name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
        print(f"[gaps] {name} failed: {e}", flush=True)
    with open(os.path.join(OUT, "gaps.json"), "w") as fh:
        json.dump(result, fh, indent=1)
