"""End-to-end and per-operator references for Fleet's H100 backend, in plain PyTorch.

Usage: python3 e2e.py OUT_DIR [--quick]

Sections (each independent; a failure is recorded and the rest run):
  env        device, driver, CUDA, cuDNN and PyTorch versions; HBM copy bandwidth
  linear     y = F.linear(x, W) (cuBLAS) for Qwen3-8B's shapes at M = 1..64, cold L2 (weights
             rotated over > 200 MB): per op in a CUDA graph, back-to-back eager, and the kernels'
             own durations and grids from the profiler
  qwen3      Qwen3-8B bf16 decode (random weights, no downloads), one CUDA graph per step, TPOT at
             batch 1..64 for 64 prompt + 1024 decode tokens (4 representative positions), and a
             per-kernel profile of one replayed step at batch 1 and 64; with --eager also each
             step launched eagerly (kernel-per-op)
Options: --quick (batch 1 and 64 only), --eager, --only=env,qwen3 (sections to run)
  llama2     Llama2-7B fp16 decode at batch 1, contexts 1K-16K (one CUDA graph per step)
Everything timed is the median of repeated runs (CUDA events).
"""
import json
import math
import os
import statistics
import subprocess
import sys
import time
import traceback

# a finished profiler session must not slow later timings (bench/device/README.md, CUPTI)
os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch  # noqa: E402
import torch.nn.functional as F

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
QUICK = "--quick" in sys.argv
EAGER = "--eager" in sys.argv  # also time each step launched eagerly (kernel-per-op)
ONLY = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")]
DEV = "cuda"
torch.backends.cuda.matmul.allow_tf32 = False
torch.manual_seed(0)

result = {"script": "bench/h100/e2e.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def log(*a):
    print("[e2e]", *a, flush=True)


def section(name):
    def deco(f):
        def run():
            log(name, "...")
            t0 = time.time()
            try:
                result[name] = f()
            except Exception as e:  # keep going: other sections are independent
                traceback.print_exc()
                result[name + "Error"] = f"{type(e).__name__}: {e}"
            log(name, f"done in {time.time() - t0:.1f}s")
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
            save()

        return run

    return deco


def save():
    with open(os.path.join(OUT, "e2e.json"), "w") as f:
        json.dump(result, f, indent=1)


def med(xs):
    return statistics.median(xs)


def time_ms(fn, reps=20, warm=3):
    """Median of `reps` timed calls of fn (CUDA events), ms."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return med(ts)


def capture(fn, pool=None):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, pool=pool):
        out = fn()
    torch.cuda.synchronize()
    return g, out


def kernels_of(prof):
    """Kernel events (name, ts us, dur us, grid, block) from a profiler run, in time order."""
    path = os.path.join(OUT, "_trace_tmp.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        tr = json.load(f)
    os.remove(path)
    ks = []
    for e in tr.get("traceEvents", []):
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel"):
            a = e.get("args", {})
            ks.append({"name": e.get("name", ""), "ts": float(e["ts"]), "dur": float(e.get("dur", 0)), "grid": a.get("grid"), "block": a.get("block")})
    ks.sort(key=lambda k: k["ts"])
    return ks


def category(name):
    n = name.lower()
    if "gemv" in n or "gemm" in n or "sm90_xmma" in n or "cutlass" in n or "nvjet" in n or "splitk" in n or "cublas" in n:
        return "gemm"
    if "flash" in n or "fmha" in n or "attention" in n or "cudnn" in n or "sdpa" in n or "efficient" in n:
        return "attention"
    if "rms" in n or "norm" in n:
        return "norm"
    if "reduce" in n or "argmax" in n:
        return "reduce"
    if "index" in n or "embedding" in n or "gather" in n:
        return "index"
    if "copy" in n or "cat" in n:
        return "copy"
    return "elementwise"


def summarize(ks, total_ms=None):
    out = {"kernels": len(ks)}
    if not ks:
        return out
    busy = sum(k["dur"] for k in ks)
    span = ks[-1]["ts"] + ks[-1]["dur"] - ks[0]["ts"]
    gaps = [ks[i]["ts"] - (ks[i - 1]["ts"] + ks[i - 1]["dur"]) for i in range(1, len(ks))]
    cats = {}
    for k in ks:
        c = category(k["name"])
        d = cats.setdefault(c, {"count": 0, "us": 0.0})
        d["count"] += 1
        d["us"] += k["dur"]
    out.update(
        {
            "kernelBusyUs": busy,
            "spanUs": span,
            "medianGapUs": med(gaps) if gaps else 0,
            "meanGapUs": (sum(gaps) / len(gaps)) if gaps else 0,
            "byCategory": cats,
        }
    )
    if total_ms is not None:
        out["replayMs"] = total_ms
    return out


# ---------------------------------------------------------------------------------------------
@section("env")
def env():
    p = torch.cuda.get_device_properties(0)
    try:
        smi = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm,power.limit", "--format=csv,noheader"],
            capture_output=True,
            text=True,
        ).stdout.strip()
    except Exception as e:  # noqa
        smi = str(e)
    x = torch.empty(1 << 30, dtype=torch.uint8, device=DEV)  # 1 GiB
    y = torch.empty_like(x)
    ms = time_ms(lambda: y.copy_(x), reps=10)
    r = torch.empty(2 << 30, dtype=torch.uint8, device=DEV).view(torch.float32)
    r.fill_(1.0)
    ms_read = time_ms(lambda: r.sum(), reps=10)
    return {
        "gpu": p.name,
        "sms": p.multi_processor_count,
        "l2Bytes": getattr(p, "L2_cache_size", None),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "nvidiaSmi": smi,
        "copyTBpsReadPlusWrite": 2 * (1 << 30) / (ms * 1e-3) / 1e12,
        "sumReadTBps": (2 << 30) / (ms_read * 1e-3) / 1e12,
    }


# ---------------------------------------------------------------------------------------------
LINEAR_SHAPES = {"qkv_proj": (6144, 4096), "o_proj": (4096, 4096), "gate_up_proj": (24576, 4096), "down_proj": (4096, 12288), "lm_head": (151936, 4096)}
MS = [1, 2, 4, 8, 16, 32, 64]


@section("linear")
def linear():
    rows = []
    for name, (n, k) in LINEAR_SHAPES.items():
        wbytes = n * k * 2
        copies = max(2, math.ceil(256e6 / wbytes))
        ws = [torch.randn(n, k, dtype=torch.bfloat16, device=DEV).mul_(0.02) for _ in range(copies)]
        for m in MS:
            x = torch.randn(m, k, dtype=torch.bfloat16, device=DEV)
            reps_per = max(1, 16 // copies)

            def body():
                y = None
                for _ in range(reps_per):
                    for i in range(copies):
                        y = F.linear(x, ws[i])
                return y

            count = reps_per * copies
            eager = time_ms(body, reps=10) / count
            g, _ = capture(body)
            graph = time_ms(lambda: g.replay(), reps=10) / count
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                body()
                torch.cuda.synchronize()
            ks = kernels_of(prof)
            names = sorted(set(kk["name"][:90] for kk in ks))
            kdur = [kk["dur"] for kk in ks]
            per_op_kernels = len(ks) / count
            kernel_us = sum(kdur) / count
            rows.append(
                {
                    "op": name,
                    "m": m,
                    "n": n,
                    "k": k,
                    "weightCopies": copies,
                    "graphUsPerOp": graph * 1e3,
                    "eagerUsPerOp": eager * 1e3,
                    "kernelUsPerOp": kernel_us,
                    "kernelsPerOp": per_op_kernels,
                    "kernelNames": names,
                    "grids": sorted(set(str(kk["grid"]) for kk in ks)),
                    "blocks": sorted(set(str(kk["block"]) for kk in ks)),
                }
            )
            log(f"linear {name} m={m}: graph {graph*1e3:.1f} us, eager {eager*1e3:.1f} us, kernels {kernel_us:.1f} us x{per_op_kernels:.1f} {names[:2]}")
            del g, x
        del ws
        torch.cuda.empty_cache()
    return {
        "method": "F.linear(x, W) (cuBLAS), bf16, weights rotated over >= 256 MB of copies so every call reads W from HBM; graphUsPerOp: one CUDA graph of >= 16 back-to-back calls, replay time / calls; eagerUsPerOp: the same calls issued eagerly; kernelUsPerOp: the kernels' own durations from the profiler; medians of 10",
        "rows": rows,
    }


# ---------------------------------------------------------------------------------------------
class Model:
    def __init__(self, cfg, dtype):
        self.cfg = cfg
        self.dtype = dtype
        h, nh, nkv, hd, inter, v = cfg["hidden"], cfg["heads"], cfg["kvHeads"], cfg["headDim"], cfg["inter"], cfg["vocab"]
        r = lambda *s: torch.randn(*s, dtype=dtype, device=DEV).mul_(0.02)
        one = lambda *s: torch.ones(*s, dtype=dtype, device=DEV)
        self.embed = r(v, h)
        self.layers = []
        for _ in range(cfg["layers"]):
            L = {
                "ln1": one(h),
                "wqkv": r((nh + 2 * nkv) * hd, h),
                "wo": r(h, nh * hd),
                "ln2": one(h),
                "wgu": r(2 * inter, h),
                "wd": r(h, inter),
            }
            if cfg["qkNorm"]:
                L["qn"] = one(hd)
                L["kn"] = one(hd)
            self.layers.append(L)
        self.lnf = one(h)
        self.lm_head = r(v, h)
        theta = cfg["ropeTheta"]
        inv = 1.0 / (theta ** (torch.arange(0, hd, 2, device=DEV, dtype=torch.float32) / hd))
        t = torch.arange(cfg["maxPos"], device=DEV, dtype=torch.float32)
        fr = torch.outer(t, inv)
        emb = torch.cat([fr, fr], dim=-1)
        self.cos = emb.cos().to(dtype)
        self.sin = emb.sin().to(dtype)

    def alloc_kv(self, batch, maxlen):
        c = self.cfg
        shape = (c["layers"], batch, c["kvHeads"], maxlen, c["headDim"])
        self.kc = torch.empty(shape, dtype=self.dtype, device=DEV).normal_()
        self.vc = torch.empty(shape, dtype=self.dtype, device=DEV).normal_()

    def step(self, tokens, pos):
        """One decode step: every request has `pos` cached tokens; returns the next tokens."""
        c = self.cfg
        B = tokens.shape[0]
        h_, nh, nkv, hd, inter, eps = c["hidden"], c["heads"], c["kvHeads"], c["headDim"], c["inter"], c["eps"]
        grp = nh // nkv
        cos = self.cos[pos].view(1, 1, hd)
        sin = self.sin[pos].view(1, 1, hd)

        def rot(x):
            x1 = x[..., : hd // 2]
            x2 = x[..., hd // 2 :]
            return torch.cat((-x2, x1), dim=-1)

        h = F.embedding(tokens, self.embed)
        for li, L in enumerate(self.layers):
            x = F.rms_norm(h, (h_,), L["ln1"], eps)
            qkv = F.linear(x, L["wqkv"])
            q = qkv[:, : nh * hd].view(B, nh, hd)
            k = qkv[:, nh * hd : (nh + nkv) * hd].view(B, nkv, hd)
            v = qkv[:, (nh + nkv) * hd :].view(B, nkv, hd)
            if c["qkNorm"]:
                q = F.rms_norm(q, (hd,), L["qn"], eps)
                k = F.rms_norm(k, (hd,), L["kn"], eps)
            q = q * cos + rot(q) * sin
            k = k * cos + rot(k) * sin
            self.kc[li][:, :, pos] = k
            self.vc[li][:, :, pos] = v
            kk = self.kc[li][:, :, : pos + 1]
            vv = self.vc[li][:, :, : pos + 1]
            # GQA decode: the group's query heads are the query rows of their KV head
            o = F.scaled_dot_product_attention(q.view(B, nkv, grp, hd), kk, vv)
            o = F.linear(o.reshape(B, nh * hd), L["wo"])
            h = h + o
            x = F.rms_norm(h, (h_,), L["ln2"], eps)
            gu = F.linear(x, L["wgu"])
            a = F.silu(gu[:, :inter]) * gu[:, inter:]
            h = h + F.linear(a, L["wd"])
        x = F.rms_norm(h, (h_,), self.lnf, eps)
        logits = F.linear(x, self.lm_head)
        return logits.argmax(dim=-1)


QWEN3 = {"name": "qwen3-8b", "hidden": 4096, "layers": 36, "heads": 32, "kvHeads": 8, "headDim": 128, "inter": 12288, "vocab": 151936, "eps": 1e-6, "ropeTheta": 1e6, "qkNorm": True, "maxPos": 1 << 15}
LLAMA2 = {"name": "llama2-7b", "hidden": 4096, "layers": 32, "heads": 32, "kvHeads": 32, "headDim": 128, "inter": 11008, "vocab": 32000, "eps": 1e-5, "ropeTheta": 1e4, "qkNorm": False, "maxPos": 1 << 15}


def eager_tpot_at(model, batch, positions, reps=10):
    """Median time of one decode step launched eagerly (no graph) at each position, ms."""
    tokens = torch.randint(0, model.cfg["vocab"], (batch,), device=DEV)
    return {pos: time_ms(lambda: model.step(tokens, pos), reps=reps) for pos in positions}


def tpot_at(model, batch, positions, profile_pos=None, profile_name=None, reps=20):
    """Median replay time of one captured decode step at each position, ms; optional kernel profile."""
    tokens = torch.randint(0, model.cfg["vocab"], (batch,), device=DEV)
    pool = None  # each graph its own pool, freed before the next capture
    per = {}
    prof_out = None
    for pos in positions:
        g, _ = capture(lambda: model.step(tokens, pos), pool)
        per[pos] = time_ms(lambda: g.replay(), reps=reps)
        if profile_pos == pos:
            try:
                with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                    g.replay()
                    torch.cuda.synchronize()
                ks = kernels_of(prof)
                if len(ks) < 10:  # graph kernels not visible: profile an eager step instead
                    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                        model.step(tokens, pos)
                        torch.cuda.synchronize()
                    ks = kernels_of(prof)
                    src = "eager"
                else:
                    src = "graph-replay"
                prof_out = summarize(ks, per[pos])
                prof_out["source"] = src
                prof_out["position"] = pos
                prof_out["batch"] = batch
                # per kernel of layer 1 (a steady layer): name, duration, gap before it
                nk = len(ks)
                prof_out["sequence"] = [
                    {"name": k["name"][:80], "cat": category(k["name"]), "us": round(k["dur"], 2), "gapUs": round(k["ts"] - (ks[i - 1]["ts"] + ks[i - 1]["dur"]), 2) if i else 0, "grid": k["grid"]}
                    for i, k in enumerate(ks)
                ][: min(nk, 80)]
            except Exception as e:  # noqa
                prof_out = {"error": str(e)}
        del g
    return per, prof_out


@section("qwen3")
def qwen3():
    model = Model(QWEN3, torch.bfloat16)
    prompt, decode = 64, 1024
    positions = [prompt + (2 * i + 1) * decode // 8 for i in range(4)]  # midpoints of the quarters
    rows = []
    profiles = []
    for b in ([1, 64] if QUICK else MS):
        model.alloc_kv(b, prompt + decode + 8)
        prof_pos = positions[1] if b in (1, 8, 64) else None
        per, prof = tpot_at(model, b, positions, profile_pos=prof_pos)
        tpot = sum(per.values()) / len(per)
        row = {"batch": b, "tpotMs": tpot, "byPosition": {str(k): v for k, v in per.items()}}
        if EAGER:
            ep = eager_tpot_at(model, b, positions)
            row["eagerTpotMs"] = sum(ep.values()) / len(ep)
            row["eagerByPosition"] = {str(k): v for k, v in ep.items()}
            log(f"qwen3 batch {b}: eager TPOT {row['eagerTpotMs']:.3f} ms")
        rows.append(row)
        if prof:
            profiles.append(prof)
        log(f"qwen3 batch {b}: TPOT {tpot:.3f} ms {per}")
        del model.kc, model.vc
        torch.cuda.empty_cache()
    del model
    return {
        "model": "qwen3-8b (bf16, random weights, 36 layers, fused QKV and gate+up weights, tied=false)",
        "method": "one CUDA graph per decode step (all layers + final norm + LM head + argmax); TPOT = mean over 4 positions (64 prompt + the midpoints of the 4 quarters of 1024 decode tokens) of the median of 20 replays; ops: F.embedding, F.rms_norm, F.linear (cuBLAS), q/k F.rms_norm, rotate-half RoPE, KV-cache slice assignment, F.scaled_dot_product_attention (GQA as query rows per KV head), residual adds, F.silu * mul",
        "promptTokens": prompt,
        "decodeTokens": decode,
        "positions": positions,
        "rows": rows,
        "profiles": profiles,
    }


@section("llama2")
def llama2():
    model = Model(LLAMA2, torch.float16)
    ctxs = [1024, 2048, 4096, 8192, 16384]
    model.alloc_kv(1, max(ctxs) + 8)
    rows = []
    profiles = []
    for ctx in ctxs:
        per, prof = tpot_at(model, 1, [ctx - 1], profile_pos=(ctx - 1) if ctx in (1024, 16384) else None)
        rows.append({"batch": 1, "context": ctx, "tpotMs": per[ctx - 1]})
        if prof:
            profiles.append(prof)
        log(f"llama2 ctx {ctx}: {per[ctx-1]:.3f} ms")
    del model
    return {
        "model": "llama2-7b (fp16, random weights, 32 layers, MHA 32 heads, fused QKV and gate+up weights)",
        "method": "one CUDA graph per decode step at batch 1 attending over `context` tokens (context-1 cached + the new one); median of 20 replays",
        "rows": rows,
        "profiles": profiles,
    }


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for name, f in (("env", env), ("qwen3", qwen3), ("linear", linear), ("llama2", llama2)):
        if not ONLY or name in ONLY[0].split(","):
            f()
    save()
    log("wrote", os.path.join(OUT, "e2e.json"))
