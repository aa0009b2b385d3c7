"""HBM latency under load: how the DRAM round trip grows as the memory's bandwidth fills up.

Usage: python3 loaded_latency.py OUT_DIR [--quick]

One kernel, two kinds of CTA, run together:
  - CTA 0, one thread, chases pointers through a 256 MiB buffer (a random cycle over its 128 B
    lines, never revisiting a line within a run): the latency of one dependent DRAM read while
  - CTAs 1..S, 256 threads each, stream a 1 GiB buffer: every thread keeps U independent 16 B
    loads outstanding (issued together, consumed together), so the nominal bytes in flight are
    W = S x 256 x U x 16. Their achieved bandwidth X (bytes over their own globaltimer window)
    and Little's law give the streams' own latency W / X.
  - or, mode "tile", the CTAs stream a skinny GEMM's weights as its TMA boxes do: rows of 8 KiB
    (K = 4096 bf16), a box of U x threads/8 rows x 128 B per K-step, so each 128 B request
    opens a different DRAM row (the sequential streams read whole rows).
Sweeping S and U walks the utilisation X / (device read bandwidth) from ~0 to saturation. The
chase gives the latency a lone dependent read sees at that utilisation (the loaded latency
curve), Little's law the latency the streams see; both are recorded.
The L2 is flushed (a 256 MiB write) before every run, so the chase starts cold.
Everything is the median over repeats. Results: OUT_DIR/loaded_latency.json.
"""
import json
import os
import statistics
import subprocess
import sys
import time

import torch
from torch.utils.cpp_extension import load_inline

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
QUICK = "--quick" in sys.argv
T0 = time.time()


def log(*a):
    print(f"[loaded_latency {time.time() - T0:6.1f}s]", *a, flush=True)


CUDA_SRC = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <c10/cuda/CUDAException.h>
#include <stdint.h>

__device__ __forceinline__ uint64_t gtimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint4 ld_cg(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

template <int U>
__device__ void stream(const uint4* __restrict__ buf, uint64_t nvec, int iters, int cta, int ctas, uint64_t* times, uint32_t* sink) {
  const uint64_t threads = (uint64_t)ctas * blockDim.x;
  const uint64_t tid = (uint64_t)cta * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  __syncthreads();
  uint64_t t0 = gtimer();
  uint64_t base = tid;
  for (int it = 0; it < iters; it++) {
    uint4 v[U];
#pragma unroll
    for (int j = 0; j < U; j++) v[j] = ld_cg(buf + ((base + (uint64_t)j * threads) & (nvec - 1)));  // nvec is a power of two
#pragma unroll
    for (int j = 0; j < U; j++) acc ^= v[j].x ^ v[j].y ^ v[j].z ^ v[j].w;
    base += (uint64_t)U * threads;
  }
  __syncthreads();
  uint64_t t1 = gtimer();
  if (threadIdx.x == 0) { times[2 * cta] = t0; times[2 * cta + 1] = t1; }
  if (acc == 0x12345678u) sink[0] = acc;
}

// The weight stream of a skinny GEMM (a TMA box of U x threads/8 rows x 128 B per K-step): rows of
// 8 KiB (K = 4096 bf16), each CTA walks its block of rows 128 B of K at a time, then takes the
// block `ctas` further on. Every 128 B request lands in a different DRAM row.
template <int U>
__device__ void tile(const uint4* __restrict__ buf, uint64_t nvec, int iters, int cta, int ctas, uint64_t* times, uint32_t* sink) {
  const uint64_t rowVec = 8192 / 16, lanesRows = blockDim.x / 8, rows = U * lanesRows;
  const uint64_t r = threadIdx.x / 8, chunk = threadIdx.x % 8;
  uint32_t acc = 0;
  __syncthreads();
  uint64_t t0 = gtimer();
  for (int it = 0; it < iters; it++) {
    const uint64_t kstep = it % 64, block = (uint64_t)(it / 64) * ctas + cta;
    uint4 v[U];
#pragma unroll
    for (int j = 0; j < U; j++) v[j] = ld_cg(buf + (((block * rows + r + j * lanesRows) * rowVec + kstep * 8 + chunk) & (nvec - 1)));
#pragma unroll
    for (int j = 0; j < U; j++) acc ^= v[j].x ^ v[j].y ^ v[j].z ^ v[j].w;
  }
  __syncthreads();
  uint64_t t1 = gtimer();
  if (threadIdx.x == 0) { times[2 * cta] = t0; times[2 * cta + 1] = t1; }
  if (acc == 0x12345678u) sink[0] = acc;
}

template <int U>
__global__ void loaded(int mode, const uint64_t* __restrict__ chase, uint64_t start, int hops, const uint4* __restrict__ buf, uint64_t nvec, int iters,
                       uint64_t* times, uint64_t* chaseOut, uint32_t* sink) {
  if (blockIdx.x == 0) {
    if (threadIdx.x != 0) return;
    uint64_t p = start;
    // a few hops to get going, then the timed ones
    for (int i = 0; i < 8; i++) p = chase[p * 16];
    uint64_t c0 = clock64();
    uint64_t t0 = gtimer();
    for (int i = 0; i < hops; i++) p = chase[p * 16];
    uint64_t t1 = gtimer();
    uint64_t c1 = clock64();
    chaseOut[0] = t1 - t0;
    chaseOut[1] = c1 - c0;
    chaseOut[2] = t0;
    chaseOut[3] = t1;
    chaseOut[4] = p;
    return;
  }
  if (gridDim.x > 1 && mode == 0) stream<U>(buf, nvec, iters, blockIdx.x - 1, gridDim.x - 1, times, sink);
  if (gridDim.x > 1 && mode == 1) tile<U>(buf, nvec, iters, blockIdx.x - 1, gridDim.x - 1, times, sink);
}

void run(int64_t mode, torch::Tensor chase, int64_t start, int64_t hops, torch::Tensor buf, int64_t ctas, int64_t threads, int64_t u, int64_t iters,
         torch::Tensor times, torch::Tensor chaseOut, torch::Tensor sink) {
  const uint64_t* c = (const uint64_t*)chase.data_ptr();
  const uint4* b = (const uint4*)buf.data_ptr();
  uint64_t nvec = buf.numel() / 16;
  uint64_t* t = (uint64_t*)times.data_ptr();
  uint64_t* co = (uint64_t*)chaseOut.data_ptr();
  uint32_t* s = (uint32_t*)sink.data_ptr();
  dim3 grid(1 + ctas), block(threads);
  switch (u) {
    case 1: loaded<1><<<grid, block>>>((int)mode, c, start, hops, b, nvec, iters, t, co, s); break;
    case 2: loaded<2><<<grid, block>>>((int)mode, c, start, hops, b, nvec, iters, t, co, s); break;
    case 4: loaded<4><<<grid, block>>>((int)mode, c, start, hops, b, nvec, iters, t, co, s); break;
    default: TORCH_CHECK(false, "u must be 1, 2 or 4");
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
"""
CPP_SRC = "void run(int64_t mode, torch::Tensor chase, int64_t start, int64_t hops, torch::Tensor buf, int64_t ctas, int64_t threads, int64_t u, int64_t iters, torch::Tensor times, torch::Tensor chaseOut, torch::Tensor sink);"


def main():
    os.makedirs(OUT, exist_ok=True)
    result = {"script": "bench/h100/loaded_latency.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    p = torch.cuda.get_device_properties(0)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm,power.limit", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    result["env"] = {"gpu": p.name, "sms": p.multi_processor_count, "l2Bytes": getattr(p, "L2_cache_size", None), "torch": torch.__version__, "cuda": torch.version.cuda, "nvidiaSmi": smi}
    log(result["env"])

    # device read bandwidth, as pipeline.py's env measures it (the utilisation's denominator)
    r = torch.ones((2 << 30) // 4, dtype=torch.float32, device="cuda")
    ts = []
    for _ in range(12):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        r.sum()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    result["env"]["sumReadTBps"] = (2 << 30) / (statistics.median(ts[2:]) * 1e-3) / 1e12
    del r
    log("sumReadTBps", result["env"]["sumReadTBps"])

    t = time.time()
    ext = load_inline(name="fleet_loaded_latency", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC, functions=["run"],
                      extra_cuda_cflags=["-O3", "-gencode=arch=compute_90,code=sm_90"], verbose=False)
    log(f"compiled in {time.time() - t:.1f}s")

    lines = (256 << 20) // 128
    g = torch.Generator().manual_seed(0)
    perm = torch.randperm(lines, generator=g)
    nxt = torch.empty(lines, dtype=torch.int64)
    nxt[perm] = torch.roll(perm, -1)
    chase = torch.zeros(lines * 16, dtype=torch.int64)
    chase[0::16] = nxt
    chase = chase.cuda()
    buf = torch.ones(1 << 30, dtype=torch.uint8, device="cuda")
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    sink = torch.zeros(4, dtype=torch.int32, device="cuda")
    chase_out = torch.zeros(8, dtype=torch.int64, device="cuda")
    sms = p.multi_processor_count
    hops = 1000 if not QUICK else 200
    cursor = [0]

    def once(ctas, u, iters, threads=256, mode=0):
        flush.fill_(cursor[0] & 0xFF)
        times = torch.zeros(2 * max(1, ctas), dtype=torch.int64, device="cuda")
        start = int(perm[(cursor[0] * 9973) % lines])
        cursor[0] += 1
        torch.cuda.synchronize()
        ext.run(mode, chase, start, hops, buf, ctas, threads, u, iters, times, chase_out, sink)
        torch.cuda.synchronize()
        co = chase_out.cpu().tolist()
        row = {"chaseNs": co[0] / hops, "chaseCycles": co[1] / hops}
        if ctas > 0:
            tt = times.cpu().tolist()
            t0 = min(tt[0::2])
            t1 = max(tt[1::2])
            nbytes = ctas * threads * u * 16 * iters
            row["streamTBps"] = nbytes / (t1 - t0) / 1e3
            # the chase must lie inside the streams' window for its latency to be a loaded one
            row["chaseInsideStream"] = bool(co[2] >= t0 and co[3] <= t1)
        return row

    # unloaded: the chase alone
    idle = [once(0, 1, 1) for _ in range(5)]
    result["unloaded"] = {"chaseNs": statistics.median(r["chaseNs"] for r in idle), "chaseCycles": statistics.median(r["chaseCycles"] for r in idle), "hops": hops,
                          "note": "one thread, dependent 8 B loads at random 128 B lines of a 256 MiB buffer, L2 flushed first"}
    log("unloaded", result["unloaded"])

    # 256-thread CTAs, one per SM; then wider CTAs and two per SM, whose extra warps keep more
    # bytes in flight per SM (one 256-thread CTA per SM tops out near 21 B/ns on an H100, short
    # of what an HBM3e part needs to saturate).
    # mode "stream": sequential 16 B loads; mode "tile": a skinny GEMM's weight-tile pattern.
    base = [(c, 256, u) for c in [1, 4, 16, 32, 48, 66, 96, sms - 1] for u in [1, 2, 4]]
    base += [(c, 512, u) for c in [66, 96, sms - 1] for u in [1, 2, 4]] + [(sms - 1, 1024, u) for u in [1, 2, 4]] + [(2 * sms - 1, 512, u) for u in [1, 2, 4]]
    configs = [("stream",) + c for c in base] + [("tile",) + c for c in base]
    if QUICK:
        configs = [("stream", 4, 256, 1), ("tile", sms - 1, 256, 2), ("stream", sms - 1, 1024, 2)]
    reps = 3 if not QUICK else 1
    rows = []
    for mode, ctas, threads, u in configs:
        w = ctas * threads * u * 16
        # long enough that the chase (~hops x 1 us at worst) lies inside the streams' window
        est = min(4.5e3, w / 500.0)  # bytes/ns at an assumed 500 ns latency, capped at the HBM
        iters = max(4, int(min(8e9, est * 3.0e6) / w))
        rs = [once(ctas, u, iters, threads, 0 if mode == "stream" else 1) for _ in range(reps)]
        row = {"mode": mode, "streamCtas": ctas, "threadsPerCta": threads, "loadsPerThread": u, "bytesPerLoad": 16, "nominalInFlightBytes": w, "iters": iters,
               "streamTBps": statistics.median(r["streamTBps"] for r in rs), "chaseNs": statistics.median(r["chaseNs"] for r in rs),
               "chaseCycles": statistics.median(r["chaseCycles"] for r in rs), "chaseInsideStream": all(r["chaseInsideStream"] for r in rs)}
        row["littleNs"] = w / (row["streamTBps"] * 1e3)
        row["utilisation"] = row["streamTBps"] / result["env"]["sumReadTBps"]
        rows.append(row)
        log(f"{mode:6s} S={ctas:3d} T={threads:4d} U={u:2d} W={w / 1024:8.0f} KiB  {row['streamTBps']:.3f} TB/s  util {row['utilisation']:.3f}  little {row['littleNs']:7.1f} ns  chase {row['chaseNs']:7.1f} ns  inside {row['chaseInsideStream']}")
        result["sweep"] = rows
        with open(os.path.join(OUT, "loaded_latency.json"), "w") as f:
            json.dump(result, f, indent=1)
    result["seconds"] = time.time() - T0
    with open(os.path.join(OUT, "loaded_latency.json"), "w") as f:
        json.dump(result, f, indent=1)
    log("done")


if __name__ == "__main__":
    main()
