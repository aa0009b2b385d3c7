"""Prefill and Mixture-of-Experts measurements on the H100 — validation data only.

Usage: python3 phases.py OUT_DIR [--only=attn,prefill,moe] [--moe-plan=BATCH:KV,...] [--prefill-plan=MODEL:BATCH:PROMPT,...]

Sections (each independent; a failure is recorded and the rest run):
  attn     causal F.scaled_dot_product_attention alone (prefill attention): batch x prompt
           length, GQA 32/8 and MHA 32/32, head dim 128; kernels and grids
  prefill  Qwen3-8B / Llama3-8B bf16 prefill (random weights): the whole forward for the
           prompt (embedding, layers with causal SDPA and KV-cache writes, final norm, LM head
           of the last token), one CUDA graph, TTFT at batch x prompt; per-kernel profile
  moe      Qwen3-30B-A3B-shaped MoE decode step (random weights, router softmax top-8 of 128
           experts, renormalised; experts as torch._grouped_mm over the tokens sorted by
           expert, so experts that got no token read no weights), one CUDA graph, TPOT at
           batch 1 ... 128 with KV length 1024 (--moe-plan: other batch:KV points); per-kernel profile
Everything timed is the median of repeated runs (CUDA events). Reuses pipeline.py's helpers.
"""
import os
import sys
import time
import traceback

# a finished profiler session must not slow later timings (bench/device/README.md, CUPTI)
os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch  # noqa: E402
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pipeline as P  # noqa: E402  (helpers only; its sections run under its own __main__)

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
ONLY = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")]
DEV = "cuda"
torch.manual_seed(0)
result = {"script": "bench/h100/phases.py", "use": "validation only", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
T0 = time.time()


def log(*a):
    print(f"[phases {time.time() - T0:6.1f}s]", *a, flush=True)


def save():
    import json
    with open(os.path.join(OUT, "phases.json"), "w") as f:
        json.dump(result, f, indent=1)


def run_section(name, f):
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


def profile_summary(ks):
    return {"kernels": len(ks), "kernelBusyUs": round(sum(k["us"] for k in ks), 2), "distinct": P.distinct(ks)}


# ---------------------------------------------------------------------------------------------
def attn():
    rows = []
    for lname, (nh, nkv) in {"gqa32x8": (32, 8), "mha32": (32, 32)}.items():
        for b, S in [(1, 512), (1, 1024), (1, 2048), (1, 4096), (1, 8192), (1, 16384), (4, 2048), (8, 1024), (16, 512)]:
            q = torch.randn(b, nh, S, 128, dtype=torch.bfloat16, device=DEV)
            k = torch.randn(b, nkv, S, 128, dtype=torch.bfloat16, device=DEV)
            v = torch.randn(b, nkv, S, 128, dtype=torch.bfloat16, device=DEV)
            fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=nh != nkv)
            g = P.capture(fn)
            us = P.time_ms(lambda: g.replay(), reps=7) * 1e3
            ks = P.kernels(fn)
            flop = 4 * b * nh * S * S * 128 / 2  # causal: half the QK^T and PV products
            rows.append({"layout": lname, "heads": nh, "kvHeads": nkv, "batch": b, "promptLen": S, "us": round(us, 3), "causalTflops": round(flop / us / 1e6, 1), "kernels": P.distinct(ks)})
            log(f"attn {lname} b={b} S={S}: {us:.1f} us {flop / us / 1e6:.0f} TF {[(kk['name'][:50], kk['grid']) for kk in P.distinct(ks)]}")
            del g, q, k, v
            torch.cuda.empty_cache()
    return {"method": "F.scaled_dot_product_attention(q [B, heads, S, 128], k, v [B, kvHeads, S, 128], is_causal=True, enable_gqa) bf16, one call in a CUDA graph, median of 7 replays; causalTflops counts 2·2·B·heads·S²·128/2; kernels from one profiled eager call", "rows": rows}


# ---------------------------------------------------------------------------------------------
def prefill_forward(model, tokens):
    """The whole prefill forward of P.Model's weights for tokens [B, S]; returns the last token's argmax."""
    c = model.cfg
    B, S = tokens.shape
    h_, nh, nkv, hd, inter, eps = c["hidden"], c["heads"], c["kvHeads"], c["headDim"], c["inter"], c["eps"]
    cos = model.cos[:S].view(1, S, 1, hd)
    sin = model.sin[:S].view(1, S, 1, hd)

    def rot(x):
        return torch.cat((-x[..., hd // 2:], x[..., : hd // 2]), dim=-1)

    h = F.embedding(tokens, model.embed).view(B * S, h_)
    for li, L in enumerate(model.layers):
        x = F.rms_norm(h, (h_,), L["ln1"], eps)
        qkv = F.linear(x, L["wqkv"]).view(B, S, nh + 2 * nkv, hd)
        q, k, v = qkv[:, :, :nh], qkv[:, :, nh: nh + nkv], qkv[:, :, nh + nkv:]
        if c["qkNorm"]:
            q = F.rms_norm(q, (hd,), L["qn"], eps)
            k = F.rms_norm(k, (hd,), L["kn"], eps)
        q = q * cos + rot(q) * sin
        k = k * cos + rot(k) * sin
        model.kc[li][:, :, :S] = k.transpose(1, 2)
        model.vc[li][:, :, :S] = v.transpose(1, 2)
        o = F.scaled_dot_product_attention(q.transpose(1, 2), model.kc[li][:, :, :S], model.vc[li][:, :, :S], is_causal=True, enable_gqa=True)
        h = h + F.linear(o.transpose(1, 2).reshape(B * S, nh * hd), L["wo"])
        x = F.rms_norm(h, (h_,), L["ln2"], eps)
        gu = F.linear(x, L["wgu"])
        h = h + F.linear(F.silu(gu[:, :inter]) * gu[:, inter:], L["wd"])
    last = h.view(B, S, h_)[:, -1]
    x = F.rms_norm(last, (h_,), model.lnf, eps)
    return F.linear(x, model.lm_head).argmax(dim=-1)


def prefill_model(cfg, points, profile_at):
    model = P.Model(cfg)
    rows, profiles = [], []
    for b, S in points:
        model.alloc_kv(b, S)
        tokens = torch.randint(0, cfg["vocab"], (b, S), device=DEV)
        g = P.capture(lambda: prefill_forward(model, tokens))
        ms = P.time_ms(lambda: g.replay(), reps=5)
        flop = 2 * b * S * sum(w.numel() for L in model.layers for w in (L["wqkv"], L["wo"], L["wgu"], L["wd"]))
        rows.append({"batch": b, "promptLen": S, "ttftMs": round(ms, 3), "linearTflops": round(flop / ms / 1e9, 1)})
        log(f"prefill {cfg['name']} b={b} S={S}: {ms:.2f} ms")
        if (b, S) in profile_at:
            ks = P.kernels(lambda: g.replay())
            if len(ks) < 10:
                ks = P.kernels(lambda: prefill_forward(model, tokens))
            prof = profile_summary(ks)
            prof.update({"batch": b, "promptLen": S, "firstKernels": [{"name": k["name"][:90], "us": round(k["us"], 2), "grid": k["grid"]} for k in ks[:1 + 16 * 2]]})
            profiles.append(prof)
        del g
        del model.kc, model.vc
        torch.cuda.empty_cache()
    del model
    torch.cuda.empty_cache()
    return rows, profiles


# --prefill-plan=MODEL:BATCH:PROMPT,...: only these prefill points (e.g. long prompts), no profiles
PREFILL_PLAN = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--prefill-plan=")]


def prefill():
    if PREFILL_PLAN:
        out = {}
        for cfg in (P.QWEN3, P.LLAMA3):
            pts = P.plan_points(PREFILL_PLAN[0], cfg["name"])
            if pts:
                out[cfg["name"]] = {"rows": prefill_model({**cfg, "maxPos": max(cfg["maxPos"], max(S for _, S in pts))}, pts, set())[0]}
        return {"plan": PREFILL_PLAN[0], "method": "as the default prefill section", **out}
    q_rows, q_prof = prefill_model(P.QWEN3, [(1, 512), (1, 1024), (1, 2048), (1, 4096), (1, 8192), (1, 16384), (4, 2048), (8, 1024), (16, 512)], {(1, 512), (1, 2048), (1, 8192)})
    l_rows, l_prof = prefill_model(P.LLAMA3, [(1, 1024), (1, 4096), (4, 4096)], {(1, 4096)})
    return {
        "method": "one CUDA graph per prefill forward (embedding, every layer: rms_norm, fused QKV F.linear over B·S rows, q/k rms_norm (Qwen3), rotate-half RoPE, KV-cache write, causal F.scaled_dot_product_attention with enable_gqa, o_proj, residual, rms_norm, fused gate+up, silu*mul, down, residual; final norm and LM head on the last token only, argmax); random bf16 weights; median of 5 replays. linearTflops: the layers' projection FLOPs / TTFT",
        "qwen3-8b": {"rows": q_rows, "profiles": q_prof},
        "llama3-8b": {"rows": l_rows, "profiles": l_prof},
    }


# ---------------------------------------------------------------------------------------------
QWEN3_MOE = {"name": "qwen3-30b-a3b", "hidden": 2048, "layers": 48, "heads": 32, "kvHeads": 4, "headDim": 128, "experts": 128, "topK": 8, "moeInter": 768,
             "vocab": 151936, "eps": 1e-6, "ropeTheta": 1e6, "maxPos": 1 << 16}


class MoeModel:
    def __init__(self, cfg):
        self.cfg = cfg
        h, nh, nkv, hd, E, I, v = cfg["hidden"], cfg["heads"], cfg["kvHeads"], cfg["headDim"], cfg["experts"], cfg["moeInter"], cfg["vocab"]
        r = lambda *s: torch.empty(*s, dtype=torch.bfloat16, device=DEV).normal_(0, 0.02)
        one = lambda *s: torch.ones(*s, dtype=torch.bfloat16, device=DEV)
        self.embed = r(v, h)
        self.layers = []
        for _ in range(cfg["layers"]):
            # grouped_mm wants the expert weights K-major: allocate [E, N, K] and view as [E, K, N]
            self.layers.append({"ln1": one(h), "wqkv": r((nh + 2 * nkv) * hd, h), "wo": r(h, nh * hd), "qn": one(hd), "kn": one(hd), "ln2": one(h),
                                "router": r(E, h), "wgu": r(E, 2 * I, h).transpose(-2, -1), "wd": r(E, h, I).transpose(-2, -1)})
        self.lnf = one(h)
        self.lm_head = r(v, h)
        self.cos, self.sin = P.rope_tables(cfg)

    alloc_kv = P.Model.alloc_kv

    def moe(self, x, L):
        c = self.cfg
        E, K, I = c["experts"], c["topK"], c["moeInter"]
        B = x.shape[0]
        probs = torch.softmax(F.linear(x, L["router"]).float(), dim=-1)
        topw, topi = probs.topk(K, dim=-1)
        topw = (topw / topw.sum(-1, keepdim=True)).to(x.dtype)
        flat = topi.flatten()
        order = flat.argsort()
        tok = order // K
        counts = torch.zeros(E, dtype=torch.int32, device=DEV).scatter_add_(0, flat.int(), torch.ones_like(flat, dtype=torch.int32))
        offs = counts.cumsum(0, dtype=torch.int32)
        gu = torch._grouped_mm(x[tok], L["wgu"], offs=offs)
        y = torch._grouped_mm(F.silu(gu[:, :I]) * gu[:, I:], L["wd"], offs=offs)
        y = y * topw.flatten()[order].unsqueeze(-1)
        return torch.zeros(B, x.shape[1], dtype=x.dtype, device=DEV).index_add_(0, tok, y)

    def step(self, tokens, pos):
        c = self.cfg
        B = tokens.shape[0]
        h_, nh, nkv, hd, eps = c["hidden"], c["heads"], c["kvHeads"], c["headDim"], c["eps"]
        cos = self.cos[pos].view(1, 1, hd)
        sin = self.sin[pos].view(1, 1, hd)

        def rot(x):
            return torch.cat((-x[..., hd // 2:], x[..., : hd // 2]), dim=-1)

        h = F.embedding(tokens, self.embed)
        for li, L in enumerate(self.layers):
            x = F.rms_norm(h, (h_,), L["ln1"], eps)
            qkv = F.linear(x, L["wqkv"])
            q = F.rms_norm(qkv[:, : nh * hd].view(B, nh, hd), (hd,), L["qn"], eps)
            k = F.rms_norm(qkv[:, nh * hd: (nh + nkv) * hd].view(B, nkv, hd), (hd,), L["kn"], eps)
            v = qkv[:, (nh + nkv) * hd:].view(B, nkv, hd)
            q = q * cos + rot(q) * sin
            k = k * cos + rot(k) * sin
            self.kc[li][:, :, pos] = k
            self.vc[li][:, :, pos] = v
            o = F.scaled_dot_product_attention(q.view(B, nkv, nh // nkv, hd), self.kc[li][:, :, : pos + 1], self.vc[li][:, :, : pos + 1])
            h = h + F.linear(o.reshape(B, nh * hd), L["wo"])
            h = h + self.moe(F.rms_norm(h, (h_,), L["ln2"], eps), L)
        x = F.rms_norm(h, (h_,), self.lnf, eps)
        return F.linear(x, self.lm_head).argmax(dim=-1)


def moe():
    cfg = QWEN3_MOE
    model = MoeModel(cfg)
    torch.cuda.synchronize()
    log(f"moe weights allocated: {torch.cuda.memory_allocated() / 1e9:.1f} GB")
    rows, profiles = [], []
    # 61.5 GB of weights: KV for batch 256 does not fit. --moe-plan=B:KV,... measures other points
    plan = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--moe-plan=")), None)
    points = [tuple(int(x) for x in p.split(":")) for p in plan.split(",")] if plan else [(b, 1024) for b in [1, 2, 4, 8, 16, 32, 64, 96, 128]]
    for b, kv in points:
        model.alloc_kv(b, kv)
        tokens = torch.randint(0, cfg["vocab"], (b,), device=DEV)
        g = P.capture(lambda: model.step(tokens, kv - 1))
        ms = P.time_ms(lambda: g.replay(), reps=10)
        # distinct experts per layer this batch routed to (random weights route nearly uniformly)
        with torch.no_grad():
            x = torch.randn(b, cfg["hidden"], dtype=torch.bfloat16, device=DEV)
            topi = torch.softmax(F.linear(x, model.layers[0]["router"]).float(), -1).topk(cfg["topK"], -1).indices
            active = int(torch.unique(topi).numel())
        rows.append({"batch": b, "kvLen": kv, "tpotMs": round(ms, 4), "activeExpertsLayer0": active})
        log(f"moe b={b}: {ms:.3f} ms, ~{active} active experts")
        if b in (1, 16, 64, 128):
            ks = P.kernels(lambda: g.replay())
            if len(ks) < 10:
                ks = P.kernels(lambda: model.step(tokens, kv - 1))
            prof = profile_summary(ks)
            prof.update({"batch": b, "firstKernels": [{"name": k["name"][:90], "us": round(k["us"], 2), "grid": k["grid"]} for k in ks[:1 + 30 * 2]]})
            profiles.append(prof)
        del g
        del model.kc, model.vc
        torch.cuda.empty_cache()
    return {"method": "one CUDA graph per decode step of a Qwen3-30B-A3B-shaped model (48 layers, hidden 2048, 32/4 heads of 128 with q/k norm, 128 experts top-8 renormalised, expert FFN 768, vocab 151936), random bf16 weights (N(0, 0.02): routing close to uniform); MoE = router F.linear, softmax, topk, argsort tokens by expert, torch._grouped_mm gate+up and down over per-expert offsets, weighted index_add combine; every request attends over kvLen tokens; median of 10 replays",
            "config": cfg, "rows": rows, "profiles": profiles}


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    P.OUT = OUT
    for name, f in (("attn", attn), ("prefill", prefill), ("moe", moe)):
        if not ONLY or name in ONLY[0].split(","):
            run_section(name, f)
    save()
    log("wrote", os.path.join(OUT, "phases.json"))
