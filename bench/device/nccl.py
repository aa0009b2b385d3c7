"""NCCL all-reduce on the GPUs of one host, inside a CUDA graph and eagerly, per protocol.

Usage: python3 nccl.py OUT_DIR [PROTO ...]   (PROTO: default, LL, LL128, Simple; default all four)

One process per GPU (torch.distributed, NCCL backend). For each protocol (NCCL_PROTO, set before
the communicator exists) and message size (8 KB … 64 MB of bf16): one CUDA graph of 20
back-to-back all-reduces, replay time / 20, median of 10 replays (CUDA events on rank 0, after a
barrier); and the same calls eagerly. NVLink multicast (NVLS) stays off (NCCL_NVLS_ENABLE=0).
Writes OUT_DIR/nccl.json.
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

SIZES = [8 << 10, 32 << 10, 128 << 10, 512 << 10, 2 << 20, 8 << 20, 32 << 20, 64 << 20]
CALLS = 20


def worker(rank, world, proto, port, q):
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    if proto != "default":
        os.environ["NCCL_PROTO"] = proto
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, init_method=f"tcp://127.0.0.1:{port}", device_id=torch.device("cuda", rank))
    rows = []
    for size in SIZES:
        x = torch.randn(size // 2, dtype=torch.bfloat16, device="cuda")
        for _ in range(3):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                dist.all_reduce(x)
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(CALLS):
                dist.all_reduce(x)
        torch.cuda.synchronize()

        def timed(fn, reps=10):
            ts = []
            for _ in range(reps):
                dist.barrier()
                torch.cuda.synchronize()
                a = torch.cuda.Event(enable_timing=True)
                b = torch.cuda.Event(enable_timing=True)
                a.record()
                fn()
                b.record()
                b.synchronize()
                ts.append(a.elapsed_time(b) * 1000 / CALLS)
            return statistics.median(ts)

        graph_us = timed(lambda: g.replay())

        def eager():
            for _ in range(CALLS):
                dist.all_reduce(x)

        eager_us = timed(eager)
        rows.append({"bytes": size, "graphUs": round(graph_us, 3), "eagerUs": round(eager_us, 3),
                     "busGBpsGraph": round(size * 2 * (world - 1) / world / (graph_us * 1e3), 2)})
        del g
    if rank == 0:
        q.put(rows)
    dist.barrier()
    dist.destroy_process_group()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    protos = sys.argv[2:] or ["default", "LL", "LL128", "Simple"]
    world = torch.cuda.device_count()
    smi = subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True, text=True).stdout
    result = {"script": "bench/device/nccl.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "devices": world,
              "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
              "topology": smi, "method": __doc__.strip().splitlines()[2:7], "protocols": {}}
    ctx = mp.get_context("spawn")
    for i, proto in enumerate(protos):
        q = ctx.Queue()
        procs = [ctx.Process(target=worker, args=(r, world, proto, 29511 + i, q)) for r in range(world)]
        for p in procs:
            p.start()
        rows = q.get(timeout=240)
        for p in procs:
            p.join(timeout=60)
        result["protocols"][proto] = rows
        print(proto, " ".join(f"{r['bytes'] >> 10}K:{r['graphUs']:.1f}/{r['eagerUs']:.1f}" for r in rows), flush=True)
        with open(os.path.join(out, "nccl.json"), "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
