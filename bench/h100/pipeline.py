"""Microbenchmarks for Fleet's tile pipeline model, and end-to-end decode to validate it.

Usage: python3 pipeline.py OUT_DIR [--only=gemm,sdpa,...] [--decode-plan=MODEL:BATCH:KV,...]

Sections (each independent; a failure is recorded and the rest run). Calibration sections
may set model parameters; validation sections (marked) may not.
  env        device, versions, HBM read / copy bandwidth
  gemm       F.linear (cuBLAS) for several N x K at M = 1 … 8192, cold weights (rotated over
             >= 256 MB): time per call in a CUDA graph, the kernels cuBLAS picked (names encode
             tile, stages, cluster, split-K), their grids, blocks and durations
  sdpa       F.scaled_dot_product_attention decode (one query token; GQA as query rows per KV
             head, and MHA): batch x KV length, cold KV; kernels and grids (split-KV count)
  rows       elementwise / norm kernels (rms_norm, silu*mul, add, rotate-half RoPE) at several
             row counts, in a CUDA graph of back-to-back calls
  int4       torch._weight_int4pack_mm (W4A16, group 128) at M = 1 … 64
  decode     VALIDATION: Qwen3-8B / Llama3-8B bf16 decode (random weights), one CUDA graph per
             step, TPOT at batch 1 … 256 and KV length up to 32K; per-kernel profile of a few steps
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
ONLY = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")]
DEV = "cuda"
torch.backends.cuda.matmul.allow_tf32 = False
torch.manual_seed(0)
result = {"script": "bench/h100/pipeline.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
T0 = time.time()


def log(*a):
    print(f"[pipeline {time.time() - T0:6.1f}s]", *a, flush=True)


def save():
    with open(os.path.join(OUT, "pipeline.json"), "w") as f:
        json.dump(result, f, indent=1)


def section(name):
    def deco(f):
        def run():
            log(name, "...")
            t0 = time.time()
            try:
                result[name] = f()
            except Exception as e:  # other sections are independent
                traceback.print_exc()
                result[name + "Error"] = f"{type(e).__name__}: {e}"
            log(name, f"done in {time.time() - t0:.1f}s")
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
            save()

        return run

    return deco


def time_ms(fn, reps=10, warm=2):
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
    return statistics.median(ts)


def capture(fn):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    torch.cuda.synchronize()
    return g


def kernels(fn):
    """Kernels one call of fn runs: name, duration (us), grid, block — from the profiler."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    path = os.path.join(OUT, "_trace_tmp.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        tr = json.load(f)
    os.remove(path)
    ks = []
    for e in tr.get("traceEvents", []):
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel"):
            a = e.get("args", {})
            ks.append({"name": e.get("name", "")[:160], "ts": float(e["ts"]), "us": float(e.get("dur", 0)), "grid": a.get("grid"), "block": a.get("block"),
                       "regs": a.get("registers per thread"), "smem": a.get("shared memory"), "occupancy": a.get("est. achieved occupancy %")})
    ks.sort(key=lambda k: k["ts"])
    return ks


def distinct(ks):
    """One entry per distinct kernel name, with its mean duration and count."""
    out = {}
    for k in ks:
        d = out.setdefault(k["name"], {"name": k["name"], "count": 0, "us": 0.0, "grid": k["grid"], "block": k["block"], "regs": k["regs"], "smem": k["smem"]})
        d["count"] += 1
        d["us"] += k["us"]
    for d in out.values():
        d["us"] = round(d["us"] / d["count"], 3)
    return list(out.values())


def rotating(make, bytes_each, target=256e6, cap=64):
    n = max(2, min(cap, math.ceil(target / max(1, bytes_each))))
    return [make() for _ in range(n)]


# ---------------------------------------------------------------------------------------------
@section("env")
def env():
    p = torch.cuda.get_device_properties(0)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm,power.limit", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    x = torch.empty(1 << 30, dtype=torch.uint8, device=DEV)
    y = torch.empty_like(x)
    ms_copy = time_ms(lambda: y.copy_(x))
    r = torch.ones((2 << 30) // 4, dtype=torch.float32, device=DEV)
    ms_read = time_ms(lambda: r.sum())
    del x, y, r
    return {"gpu": p.name, "sms": p.multi_processor_count, "l2Bytes": getattr(p, "L2_cache_size", None), "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(), "nvidiaSmi": smi,
            "copyTBpsReadPlusWrite": 2 * (1 << 30) / (ms_copy * 1e-3) / 1e12, "sumReadTBps": (2 << 30) / (ms_read * 1e-3) / 1e12}


# ---------------------------------------------------------------------------------------------
GEMM_SHAPES = {
    "qkv_proj": (6144, 4096), "o_proj": (4096, 4096), "gate_up_proj": (24576, 4096), "down_proj": (4096, 12288),
    # not Qwen3-8B: Llama3-8B FFN and a narrow projection, to check the selection rules elsewhere
    "llama3_gate_up": (28672, 4096), "llama3_down": (4096, 14336), "kv_narrow": (1024, 4096), "square8k": (8192, 8192),
}
GEMM_MS = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 160, 192, 256, 384, 512, 768, 1024, 2048, 4096, 8192]


@section("gemm")
def gemm():
    rows = []
    for name, (n, k) in GEMM_SHAPES.items():
        ws = rotating(lambda: torch.randn(n, k, dtype=torch.bfloat16, device=DEV).mul_(0.02), n * k * 2)
        for m in GEMM_MS:
            if name == "square8k" and m not in (1, 16, 64, 128, 256, 1024, 4096, 8192):
                continue
            x = torch.randn(m, k, dtype=torch.bfloat16, device=DEV)
            flop = 2 * m * n * k
            calls = len(ws) if flop * len(ws) < 4e12 else max(2, int(4e12 // flop))

            def body():
                for i in range(calls):
                    F.linear(x, ws[i % len(ws)])

            g = capture(body)
            us = time_ms(lambda: g.replay(), reps=7) * 1e3 / calls
            ks = kernels(lambda: F.linear(x, ws[0]))
            rows.append({"op": name, "m": m, "n": n, "k": k, "calls": calls, "usPerCall": round(us, 3), "tflops": round(flop / us / 1e6, 1),
                         "weightTBps": round(n * k * 2 / us / 1e6, 3), "kernels": distinct(ks)})
            log(f"gemm {name} m={m}: {us:.1f} us {[kk['name'][:60] for kk in distinct(ks)]} grids {[kk['grid'] for kk in distinct(ks)]}")
            del g, x
        del ws
        torch.cuda.empty_cache()
    return {"method": "F.linear(x, W) bf16 (cuBLAS/cuBLASLt), W rotated over >= 256 MB of copies (cold in the 50 MB L2); one CUDA graph of back-to-back calls, replay time / calls, median of 7; kernels: one profiled eager call", "rows": rows}


# ---------------------------------------------------------------------------------------------
@section("sdpa")
def sdpa():
    rows = []
    layouts = {"gqa32x8": (32, 8), "mha32": (32, 32)}
    for lname, (nh, nkv) in layouts.items():
        grp = nh // nkv
        for b in [1, 2, 4, 8, 16, 32, 64, 128, 256]:
            for L in [512, 1024, 2048, 4096, 8192, 16384, 32768]:
                tokens = b * L
                if tokens > (1 << 21) or (lname == "mha32" and (tokens > (1 << 19) or b not in (1, 4, 16, 64))):
                    continue
                kv_bytes = 2 * tokens * nkv * 128 * 2
                copies = rotating(lambda: (torch.randn(b, nkv, L, 128, dtype=torch.bfloat16, device=DEV), torch.randn(b, nkv, L, 128, dtype=torch.bfloat16, device=DEV)), kv_bytes, target=200e6, cap=16)
                q = torch.randn(b, nkv, grp, 128, dtype=torch.bfloat16, device=DEV)

                def body():
                    for kk, vv in copies:
                        F.scaled_dot_product_attention(q, kk, vv)

                g = capture(body)
                us = time_ms(lambda: g.replay(), reps=7) * 1e3 / len(copies)
                ks = kernels(lambda: F.scaled_dot_product_attention(q, copies[0][0], copies[0][1]))
                rows.append({"layout": lname, "heads": nh, "kvHeads": nkv, "batch": b, "kvLen": L, "usPerCall": round(us, 3), "kvTBps": round(kv_bytes / us / 1e6, 3), "kernels": distinct(ks)})
                log(f"sdpa {lname} b={b} L={L}: {us:.1f} us {kv_bytes / us / 1e6:.2f} TB/s {[(kk['name'][:50], kk['grid']) for kk in distinct(ks)]}")
                del g, copies, q
                torch.cuda.empty_cache()
    return {"method": "F.scaled_dot_product_attention(q [B, kvHeads, heads/kvHeads, 128], K, V [B, kvHeads, L, 128]) bf16, no mask (one decode query per head); K/V rotated over >= 200 MB of copies; CUDA graph replay / calls, median of 7; kernels from one profiled eager call", "rows": rows}


# ---------------------------------------------------------------------------------------------
@section("rows")
def rows_section():
    out = []
    for B in [1, 8, 64, 256, 1024, 8192]:
        h = torch.randn(B, 4096, dtype=torch.bfloat16, device=DEV)
        w = torch.ones(4096, dtype=torch.bfloat16, device=DEV)
        gu = torch.randn(B, 2 * 12288, dtype=torch.bfloat16, device=DEV)
        q = torch.randn(B, 32, 128, dtype=torch.bfloat16, device=DEV)
        qn = torch.ones(128, dtype=torch.bfloat16, device=DEV)
        cos = torch.randn(1, 1, 128, dtype=torch.bfloat16, device=DEV)

        def rot(x):
            return torch.cat((-x[..., 64:], x[..., :64]), dim=-1)

        ops = {
            "rms_norm": lambda: F.rms_norm(h, (4096,), w, 1e-6),
            "add": lambda: h + h,
            "silu_mul": lambda: F.silu(gu[:, :12288]) * gu[:, 12288:],
            "qk_norm": lambda: F.rms_norm(q, (128,), qn, 1e-6),
            "rope": lambda: q * cos + rot(q) * cos,
        }
        for name, fn in ops.items():
            reps = 20

            def body():
                for _ in range(reps):
                    fn()

            g = capture(body)
            us = time_ms(lambda: g.replay(), reps=7) * 1e3 / reps
            ks = kernels(fn)
            out.append({"op": name, "rows": B, "usPerCall": round(us, 3), "kernelsPerCall": len(ks), "kernels": distinct(ks)})
            log(f"rows {name} B={B}: {us:.2f} us, {len(ks)} kernels")
            del g
    return {"method": "each op called 20 times back to back in a CUDA graph (hot in L2 unless larger), replay / 20, median of 7; kernels from one profiled eager call", "rows": out}


# ---------------------------------------------------------------------------------------------
@section("int4")
def int4():
    rows = []
    gs = 128
    for name, (n, k) in {"o_proj": (4096, 4096), "qkv_proj": (6144, 4096), "gate_up_proj": (24576, 4096), "down_proj": (4096, 12288)}.items():
        def make():
            codes = torch.randint(0, 256, (n, k // 2), dtype=torch.uint8, device=DEV)
            packed = torch._convert_weight_to_int4pack(codes, 8)
            sz = torch.randn(k // gs, n, 2, dtype=torch.bfloat16, device=DEV)
            return packed, sz

        ws = rotating(make, n * k // 2 + (k // gs) * n * 4)
        for m in [1, 2, 4, 8, 16, 32, 64]:
            x = torch.randn(m, k, dtype=torch.bfloat16, device=DEV)

            def body():
                for p, sz in ws:
                    torch._weight_int4pack_mm(x, p, gs, sz)

            g = capture(body)
            us = time_ms(lambda: g.replay(), reps=7) * 1e3 / len(ws)
            ks = kernels(lambda: torch._weight_int4pack_mm(x, ws[0][0], gs, ws[0][1]))
            rows.append({"op": name, "m": m, "n": n, "k": k, "usPerCall": round(us, 3), "packedTBps": round((n * k // 2) / us / 1e6, 3), "kernels": distinct(ks)})
            log(f"int4 {name} m={m}: {us:.1f} us {[(kk['name'][:50], kk['grid']) for kk in distinct(ks)]}")
            del g
        del ws
    return {"method": "torch._weight_int4pack_mm(x bf16 [M, K], W int4 packed by _convert_weight_to_int4pack(uint8 [N, K/2], innerKTiles 8), group 128, scales+zeros bf16 [K/128, N, 2]); weights rotated over >= 256 MB; CUDA graph replay / calls, median of 7", "rows": rows}


# ---------------------------------------------------------------------------------------------
def rope_tables(cfg):
    """Rotate-half RoPE cos/sin tables, bf16 [maxPos, headDim]."""
    hd = cfg["headDim"]
    inv = 1.0 / (cfg["ropeTheta"] ** (torch.arange(0, hd, 2, device=DEV, dtype=torch.float32) / hd))
    fr = torch.outer(torch.arange(cfg["maxPos"], device=DEV, dtype=torch.float32), inv)
    emb = torch.cat([fr, fr], dim=-1)
    return emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)


class Model:
    def __init__(self, cfg):
        self.cfg = cfg
        h, nh, nkv, hd, inter, v = cfg["hidden"], cfg["heads"], cfg["kvHeads"], cfg["headDim"], cfg["inter"], cfg["vocab"]
        r = lambda *s: torch.randn(*s, dtype=torch.bfloat16, device=DEV).mul_(0.02)
        one = lambda *s: torch.ones(*s, dtype=torch.bfloat16, device=DEV)
        self.embed = r(v, h)
        self.layers = []
        for _ in range(cfg["layers"]):
            L = {"ln1": one(h), "wqkv": r((nh + 2 * nkv) * hd, h), "wo": r(h, nh * hd), "ln2": one(h), "wgu": r(2 * inter, h), "wd": r(h, inter)}
            if cfg["qkNorm"]:
                L["qn"] = one(hd)
                L["kn"] = one(hd)
            self.layers.append(L)
        self.lnf = one(h)
        self.lm_head = r(v, h)
        self.cos, self.sin = rope_tables(cfg)

    def alloc_kv(self, batch, maxlen):
        c = self.cfg
        shape = (c["layers"], batch, c["kvHeads"], maxlen, c["headDim"])
        self.kc = torch.empty(shape, dtype=torch.bfloat16, device=DEV).normal_()
        self.vc = torch.empty(shape, dtype=torch.bfloat16, device=DEV).normal_()

    def step(self, tokens, pos):
        c = self.cfg
        B = tokens.shape[0]
        h_, nh, nkv, hd, inter, eps = c["hidden"], c["heads"], c["kvHeads"], c["headDim"], c["inter"], c["eps"]
        grp = nh // nkv
        cos = self.cos[pos].view(1, 1, hd)
        sin = self.sin[pos].view(1, 1, hd)

        def rot(x):
            return torch.cat((-x[..., hd // 2:], x[..., : hd // 2]), dim=-1)

        h = F.embedding(tokens, self.embed)
        for li, L in enumerate(self.layers):
            x = F.rms_norm(h, (h_,), L["ln1"], eps)
            qkv = F.linear(x, L["wqkv"])
            q = qkv[:, : nh * hd].view(B, nh, hd)
            k = qkv[:, nh * hd: (nh + nkv) * hd].view(B, nkv, hd)
            v = qkv[:, (nh + nkv) * hd:].view(B, nkv, hd)
            if c["qkNorm"]:
                q = F.rms_norm(q, (hd,), L["qn"], eps)
                k = F.rms_norm(k, (hd,), L["kn"], eps)
            q = q * cos + rot(q) * sin
            k = k * cos + rot(k) * sin
            self.kc[li][:, :, pos] = k
            self.vc[li][:, :, pos] = v
            o = F.scaled_dot_product_attention(q.view(B, nkv, grp, hd), self.kc[li][:, :, : pos + 1], self.vc[li][:, :, : pos + 1])
            h = h + F.linear(o.reshape(B, nh * hd), L["wo"])
            x = F.rms_norm(h, (h_,), L["ln2"], eps)
            gu = F.linear(x, L["wgu"])
            h = h + F.linear(F.silu(gu[:, :inter]) * gu[:, inter:], L["wd"])
        x = F.rms_norm(h, (h_,), self.lnf, eps)
        return F.linear(x, self.lm_head).argmax(dim=-1)


QWEN3 = {"name": "qwen3-8b", "hidden": 4096, "layers": 36, "heads": 32, "kvHeads": 8, "headDim": 128, "inter": 12288, "vocab": 151936, "eps": 1e-6, "ropeTheta": 1e6, "qkNorm": True, "maxPos": 1 << 16}
LLAMA3 = {"name": "llama3-8b", "hidden": 4096, "layers": 32, "heads": 32, "kvHeads": 8, "headDim": 128, "inter": 14336, "vocab": 128256, "eps": 1e-5, "ropeTheta": 5e5, "qkNorm": False, "maxPos": 1 << 16}
# (batch, kv length) points: KV length = tokens attended (cached + the new one)
QWEN3_POINTS = [(b, 1024) for b in (1, 2, 4, 8, 16, 32, 64, 96, 128, 192, 256)] + [(1, 4096), (1, 8192), (1, 16384), (1, 32768), (8, 8192), (8, 32768), (16, 16384), (32, 4096), (32, 8192), (64, 4096)]
LLAMA3_POINTS = [(1, 1024), (16, 1024), (32, 1024), (64, 1024), (128, 1024), (256, 1024), (4, 16384)]


def decode_model(cfg, points, profile_at):
    model = Model(cfg)
    rows = []
    profiles = []
    for b, kv in points:
        model.alloc_kv(b, kv)
        tokens = torch.randint(0, cfg["vocab"], (b,), device=DEV)
        pos = kv - 1
        g = capture(lambda: model.step(tokens, pos))
        ms = time_ms(lambda: g.replay(), reps=10)
        rows.append({"batch": b, "kvLen": kv, "tpotMs": round(ms, 4)})
        log(f"decode {cfg['name']} b={b} kv={kv}: {ms:.3f} ms")
        if (b, kv) in profile_at:
            ks = kernels(lambda: g.replay())
            if len(ks) < 10:
                ks = kernels(lambda: model.step(tokens, pos))
            busy = sum(k["us"] for k in ks)
            per_layer = [k for k in ks[: 1 + 20 * 3]]
            profiles.append({"batch": b, "kvLen": kv, "kernels": len(ks), "kernelBusyUs": round(busy, 2), "distinct": distinct(ks),
                             "firstKernels": [{"name": k["name"][:90], "us": round(k["us"], 2), "grid": k["grid"]} for k in per_layer]})
        del g
        del model.kc, model.vc
        torch.cuda.empty_cache()
    del model
    torch.cuda.empty_cache()
    return rows, profiles


# --decode-plan=MODEL:BATCH:KV,...: only these decode points (e.g. long contexts), no profiles
PLAN = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--decode-plan=")]


def plan_points(spec, name):
    """The (batch, length) points a MODEL:BATCH:LENGTH,... plan lists for model `name`."""
    return [tuple(int(x) for x in p.split(":")[1:]) for p in spec.split(",") if p.split(":")[0] == name]


@section("decode")
def decode():
    if PLAN:
        cfgs = {c["name"]: c for c in (QWEN3, LLAMA3)}
        out = {}
        for name, cfg in cfgs.items():
            pts = plan_points(PLAN[0], name)
            if pts:
                need = max(kv for _, kv in pts)
                out[name] = {"rows": decode_model({**cfg, "maxPos": max(cfg["maxPos"], need)}, pts, set())[0]}
        return {"use": "validation only", "plan": PLAN[0], "method": "as the default decode section", **out}
    q_rows, q_prof = decode_model(QWEN3, QWEN3_POINTS, {(1, 1024), (64, 1024), (256, 1024), (1, 32768), (8, 32768)})
    l_rows, l_prof = decode_model(LLAMA3, LLAMA3_POINTS, {(64, 1024)})
    return {
        "use": "validation only",
        "method": "one CUDA graph per decode step (embedding, 36/32 layers, final norm, LM head, argmax), random bf16 weights, fused QKV and gate+up weights; every request attends over kvLen tokens (kvLen-1 cached + the new one); median of 10 replays; ops: F.rms_norm, F.linear (cuBLAS), q/k F.rms_norm (Qwen3), rotate-half RoPE, KV-cache slice assignment, F.scaled_dot_product_attention (GQA as query rows per KV head), residual adds, F.silu * mul",
        "qwen3-8b": {"rows": q_rows, "profiles": q_prof},
        "llama3-8b": {"rows": l_rows, "profiles": l_prof},
    }


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    order = (("env", env), ("gemm", gemm), ("sdpa", sdpa), ("rows", rows_section), ("int4", int4), ("decode", decode))
    for name, f in order:
        if not ONLY or name in ONLY[0].split(","):
            f()
    save()
    log("wrote", os.path.join(OUT, "pipeline.json"))
