"""NCCL all-reduce latency on the GPUs of one host, inside a CUDA graph, per protocol.

Run: python3 allreduce_sweep.py OUT.json  (spawns one process per visible GPU).
Each protocol is a fresh process group because NCCL reads NCCL_PROTO at init.
Method: per size, capture REPS back-to-back all-reduces (bf16, sum) in one CUDA graph,
replay it WARM times, then time ITER replays with CUDA events; per-op time = median / REPS.
"""
import json, os, sys, time, statistics
import torch, torch.distributed as dist, torch.multiprocessing as mp

SIZES = [8 << 10, 32 << 10, 128 << 10, 512 << 10, 2 << 20, 8 << 20, 32 << 20, 64 << 20, 256 << 20, 1 << 30]
PROTOS = ["default", "LL", "LL128", "Simple"]
REPS, WARM, ITER = 20, 3, 15

def worker(rank, world, proto, port, q):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                      NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1")
    if proto != "default":
        os.environ["NCCL_PROTO"] = proto
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", rank))
    rows = []
    for size in SIZES:
        reps = REPS if size <= (64 << 20) else 4
        x = torch.ones(size // 2, dtype=torch.bfloat16, device="cuda")
        dist.all_reduce(x); torch.cuda.synchronize()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            for _ in range(2):
                dist.all_reduce(x)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(reps):
                dist.all_reduce(x)
        for _ in range(WARM):
            g.replay()
        torch.cuda.synchronize(); dist.barrier()
        times = []
        for _ in range(ITER):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); g.replay(); b.record(); torch.cuda.synchronize()
            times.append(a.elapsed_time(b) * 1e3 / reps)
        t = torch.tensor([statistics.median(times)], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        us = t.item()
        rows.append({"bytes": size, "us": round(us, 3), "busGBps": round(2 * (world - 1) / world * size / us / 1e3, 2),
                     "min_us": round(min(times), 3), "max_us": round(max(times), 3)})
        del g, x
    if rank == 0:
        q.put(rows)
    dist.destroy_process_group()

def main():
    out = sys.argv[1]
    world = torch.cuda.device_count()
    ctx = mp.get_context("spawn")
    result = {"provenance": {"gpu": torch.cuda.get_device_name(0), "gpus": world, "torch": torch.__version__,
                             "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                             "date": time.strftime("%Y-%m-%d"),
                             "method": f"all_reduce bf16 sum, one process per GPU; {REPS} ops captured in one CUDA graph (4 above 64 MiB), "
                                       f"{WARM} warm replays, median of {ITER} timed replays / ops; max over ranks; NVLS off",
                             "busBandwidth": "2(n-1)/n * bytes / time (nccl-tests convention)"}, "protocols": {}}
    for i, proto in enumerate(PROTOS):
        q = ctx.Queue()
        ps = [ctx.Process(target=worker, args=(r, world, proto, 29500 + i, q)) for r in range(world)]
        for p in ps: p.start()
        rows = q.get(timeout=300)
        for p in ps: p.join()
        result["protocols"][proto] = rows
        print(proto, [(r["bytes"], r["us"]) for r in rows], flush=True)
    json.dump(result, open(out, "w"), indent=1)

if __name__ == "__main__":
    main()
