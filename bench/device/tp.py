"""Tensor-parallel decode steps of Qwen3-shaped models on the GPUs of one host (Megatron layout).

Usage: python3 tp.py OUT_DIR [--tp=2,4] [--budget=SECONDS]

One process per GPU (torch.distributed, NCCL, NVLink multicast off). Each rank holds its shard:
vocab-parallel embedding (masked lookup, all-reduce), per layer a column-parallel fused QKV
(its query and KV heads), q/k RMSNorm, RoPE, KV append, SDPA through FlashAttention-2 (GQA,
split-KV), row-parallel o_proj then all-reduce, column-parallel gate+up, row-parallel down then
all-reduce; final norm, vocab-parallel LM head, all-gather of the logits, argmax. One CUDA graph
per step (NCCL calls captured), median of 10 replays (CUDA events on rank 0 after a barrier).
Random bf16 weights N(0, 0.02); every request attends over kvLen tokens. Writes OUT_DIR/tp.json.
"""
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep import QWEN3_8B, QWEN3_32B, rope_tables  # noqa: E402

# (model, [(batch, kvLen)]): the shapes Fleet's tensor-parallel predictions are checked on
PLAN = [(QWEN3_8B, [(1, 1024), (8, 1024), (32, 1024), (1, 8192)]), (QWEN3_32B, [(1, 1024), (8, 1024), (32, 1024)])]


class Shard:
    def __init__(self, cfg, rank, tp):
        self.cfg, self.rank, self.tp = cfg, rank, tp
        h, hd, v = cfg["hidden"], cfg["headDim"], cfg["vocab"]
        self.nh, self.nkv, self.inter = cfg["heads"] // tp, max(1, cfg["kvHeads"] // tp), cfg["inter"] // tp
        self.vshard = (v + tp - 1) // tp
        r = lambda *s: torch.empty(*s, dtype=torch.bfloat16, device="cuda").normal_(0, 0.02)
        one = lambda *s: torch.ones(*s, dtype=torch.bfloat16, device="cuda")
        self.embed = r(self.vshard, h)
        self.layers = [{"ln1": one(h), "wqkv": r((self.nh + 2 * self.nkv) * hd, h), "wo": r(h, self.nh * hd), "ln2": one(h),
                        "wgu": r(2 * self.inter, h), "wd": r(h, self.inter), "qn": one(hd), "kn": one(hd)} for _ in range(cfg["layers"])]
        self.lnf = one(h)
        self.lm_head = r(self.vshard, h)
        self.cos, self.sin = rope_tables(cfg)

    def alloc(self, batch, maxlen):
        shape = (self.cfg["layers"], batch, self.nkv, maxlen, self.cfg["headDim"])
        self.kc = torch.empty(shape, dtype=torch.bfloat16, device="cuda").normal_()
        self.vc = torch.empty(shape, dtype=torch.bfloat16, device="cuda").normal_()
        self.logits = torch.empty(self.tp, batch, self.vshard, dtype=torch.bfloat16, device="cuda")

    def step(self, tokens, pos):
        c = self.cfg
        B = tokens.shape[0]
        h_, hd, eps, nh, nkv, inter = c["hidden"], c["headDim"], c["eps"], self.nh, self.nkv, self.inter
        cos, sin = self.cos[pos].view(1, 1, hd), self.sin[pos].view(1, 1, hd)
        rot = lambda x: torch.cat((-x[..., hd // 2:], x[..., : hd // 2]), dim=-1)
        local = tokens - self.rank * self.vshard
        inside = (local >= 0) & (local < self.vshard)
        h = F.embedding(local.clamp(0, self.vshard - 1), self.embed) * inside.unsqueeze(-1)
        dist.all_reduce(h)
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
            o = F.scaled_dot_product_attention(q.view(B, nh, 1, hd), self.kc[li][:, :, : pos + 1], self.vc[li][:, :, : pos + 1], enable_gqa=True)
            a = F.linear(o.reshape(B, nh * hd), L["wo"])
            dist.all_reduce(a)
            h = h + a
            x = F.rms_norm(h, (h_,), L["ln2"], eps)
            gu = F.linear(x, L["wgu"])
            d = F.linear(F.silu(gu[:, :inter]) * gu[:, inter:], L["wd"])
            dist.all_reduce(d)
            h = h + d
        x = F.rms_norm(h, (h_,), self.lnf, eps)
        dist.all_gather_into_tensor(self.logits, F.linear(x, self.lm_head).contiguous())
        return self.logits.permute(1, 0, 2).reshape(B, -1).argmax(dim=-1)


def worker(rank, tp, port, deadline, q):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=tp, init_method=f"tcp://127.0.0.1:{port}", device_id=torch.device("cuda", rank))
    rows = []
    for cfg, points in PLAN:
        if time.time() > deadline:
            break
        torch.manual_seed(rank)
        model = Shard(cfg, rank, tp)
        for b, kv in points:
            if time.time() > deadline:
                break
            model.alloc(b, kv)
            tokens = torch.randint(0, cfg["vocab"], (b,), device="cuda")
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(2):
                        model.step(tokens, kv - 1)
                torch.cuda.current_stream().wait_stream(s)
                torch.cuda.synchronize()
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    model.step(tokens, kv - 1)
            torch.cuda.synchronize()
            ts = []
            for _ in range(10):
                dist.barrier()
                torch.cuda.synchronize()
                a, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                g.replay()
                e.record()
                e.synchronize()
                ts.append(a.elapsed_time(e))
            rows.append({"model": cfg["name"], "tp": tp, "batch": b, "kvLen": kv, "tpotMs": round(statistics.median(ts), 4)})
            if rank == 0:
                print(f"{cfg['name']} tp={tp} b={b} kv={kv}: {rows[-1]['tpotMs']:.3f} ms", flush=True)
            del g
            torch.cuda.empty_cache()
        del model
        torch.cuda.empty_cache()
    if rank == 0:
        q.put(rows)
    dist.barrier()
    dist.destroy_process_group()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "."
    tps = [int(t) for t in next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--tp=")), "2,4").split(",")]
    budget = float(next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--budget=")), "400"))
    t0 = time.time()
    tps = [t for t in tps if t <= torch.cuda.device_count()]
    result = {"script": "bench/device/tp.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "gpu": torch.cuda.get_device_name(0),
              "devices": torch.cuda.device_count(), "torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
              "nvidiaSmi": subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit", "--format=csv,noheader"],
                                          capture_output=True, text=True).stdout.strip().splitlines()[0],
              "method": __doc__.strip().splitlines()[4:11], "rows": []}
    ctx = mp.get_context("spawn")
    for i, tp in enumerate(tps):
        q = ctx.Queue()
        deadline = t0 + budget * (i + 1) / len(tps)
        procs = [ctx.Process(target=worker, args=(r, tp, 29611 + i, deadline, q)) for r in range(tp)]
        for p in procs:
            p.start()
        result["rows"] += q.get(timeout=budget + 120)
        for p in procs:
            p.join(timeout=60)
        with open(os.path.join(out, "tp.json"), "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
