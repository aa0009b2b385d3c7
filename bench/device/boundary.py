"""What sets the idle time at a kernel boundary inside a CUDA graph: kernel kind, shared-memory
configuration changes, the previous kernel's memory traffic.

Usage: python3 boundary.py OUT_DIR

Chains of dependent kernels, each captured in one CUDA graph; per chain the replay time without
the profiler (CUDA events, median of 20), then one profiled replay for the kernels' durations
(CUPTI torn down after it, as sweep.py does). Per boundary: (replay - profiled busy - the graph's
launch) / (kernels - 1), the launch taken from the 50- and 400-launch touch chains' intercept.
  touch          a Triton kernel storing 512 B a CTA, 132 CTAs, no shared memory
  smem           a Triton kernel staging a 64 KB block through shared memory, 132 CTAs
  touch+smem     the two alternating (a shared-memory configuration change at every boundary)
  stream         a Triton kernel reading 16 MB (132 CTAs)
  touch+stream   alternating
  gemv           F.linear M=1, N=K=4096 (cuBLAS nvjet, cold weights rotated over 8 copies)
  gemv+touch     alternating
  norm           F.rms_norm of one 4096-wide row
  gemv+norm      alternating
"""
import json
import os
import statistics
import sys
import time

os.environ.setdefault("TEARDOWN_CUPTI", "1")  # a finished profiler session must not slow later replays
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep import capture, profile_events, time_ms, touch_kernel  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)
DEV = "cuda"
torch.manual_seed(0)


@triton.jit
def smem_kernel(a_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # a transposed reduction forces the tile through shared memory
    pid = tl.program_id(0)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(a_ptr + rm[:, None] * N + rn[None, :])
    y = tl.trans(x)
    tl.store(out_ptr + pid * M + rm, tl.sum(y, axis=0))


@triton.jit
def stream_kernel(a_ptr, out_ptr, n_per_cta, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    base = pid * n_per_cta
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, n_per_cta, BLOCK):
        acc += tl.load(a_ptr + base + i + tl.arange(0, BLOCK))
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), acc)


def busy_us(g):
    acts = [e for e in profile_events(g.replay) if e.get("ph") == "X" and str(e.get("cat", "")).lower() in ("kernel", "gpu_memset", "gpu_memcpy")]
    return sum(float(e.get("dur", 0)) for e in acts), len(acts), sorted({e.get("name", "")[:50] for e in acts})


def main():
    out_touch = torch.empty(132 * 128, dtype=torch.int32, device=DEV)
    a = torch.randn(128, 128, device=DEV)  # 64 KB fp32
    out_s = torch.empty(132 * 128, device=DEV)
    big = torch.randn(132 * 32768, device=DEV)  # 16 MB... per CTA 32768 floats
    out_st = torch.empty(132 * 1024, device=DEV)
    ws = [torch.randn(4096, 4096, dtype=torch.bfloat16, device=DEV) * 0.02 for _ in range(8)]
    x = torch.randn(1, 4096, dtype=torch.bfloat16, device=DEV)
    gamma = torch.ones(4096, dtype=torch.bfloat16, device=DEV)

    k = {
        "touch": lambda i: touch_kernel[(132,)](out_touch, BLOCK=128, num_warps=4),
        "smem": lambda i: smem_kernel[(132,)](a, out_s, M=128, N=128, num_warps=4),
        "stream": lambda i: stream_kernel[(132,)](big, out_st, 32768, BLOCK=1024, num_warps=4),
        "gemv": lambda i: F.linear(x, ws[i % 8]),
        "norm": lambda i: F.rms_norm(x, (4096,), gamma, 1e-6),
    }
    chains = {"touch": ["touch"], "smem": ["smem"], "touch+smem": ["touch", "smem"], "stream": ["stream"], "touch+stream": ["touch", "stream"],
              "gemv": ["gemv"], "gemv+touch": ["gemv", "touch"], "norm": ["norm"], "gemv+norm": ["gemv", "norm"]}
    result = {"script": "bench/device/boundary.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "gpu": torch.cuda.get_device_name(0),
              "torch": torch.__version__, "cuda": torch.version.cuda, "method": __doc__.strip().splitlines()[0], "chains": []}
    replay = {}
    for n in (50, 400):
        g = capture(lambda: [k["touch"](i) for i in range(n)])
        replay[n] = time_ms(lambda: g.replay(), reps=20, warm=3) * 1e3
        del g
    launch = replay[50] - 50 * (replay[400] - replay[50]) / 350
    result["launchUs"] = round(launch, 3)
    print(f"[boundary] launch {launch:.2f} us (touch x50 {replay[50]:.1f}, x400 {replay[400]:.1f})", flush=True)
    for name, kinds in chains.items():
        n = 200
        seq = [kinds[i % len(kinds)] for i in range(n)]
        g = capture(lambda: [k[s](i) for i, s in enumerate(seq)])
        r = [time_ms(lambda: g.replay(), reps=20, warm=3) * 1e3 for _ in range(3)]
        busy, acts, names = busy_us(g)
        rep = statistics.median(r)
        row = {"chain": name, "kernels": acts, "replayUs": round(rep, 2), "busyUs": round(busy, 2), "boundaryUs": round((rep - busy - launch) / (acts - 1), 3),
               "busyPerKernelUs": round(busy / acts, 3), "names": names}
        print(f"[boundary] {name}: {acts} kernels, replay {rep:.1f}, busy {busy:.1f}, boundary {row['boundaryUs']} us, kernel {row['busyPerKernelUs']} us", flush=True)
        result["chains"].append(row)
        del g
    with open(os.path.join(OUT, "boundary.json"), "w") as fh:
        json.dump(result, fh, indent=1)


main()
